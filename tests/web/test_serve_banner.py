"""Issue 11, item 4: ``scorekeeper serve`` says where phones open the app, with a QR code in the terminal."""

from __future__ import annotations

import ipaddress
import re

import segno

from scorekeeper.web import server

ANSI = re.compile(r"\x1b\[[\d;]*m")
HALVES = {" ": (0, 0), "\u2580": (1, 0), "\u2584": (0, 1), "\u2588": (1, 1)}


class FakeSocket:
    """A UDP socket that knows a routing table; it has no way to send anything."""

    def __init__(self, routes: dict[str, str], connected: list[str]) -> None:
        self.routes, self.connected, self.address = routes, connected, None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def connect(self, target: tuple[str, int]) -> None:
        self.connected.append(target[0])
        if target[0] not in self.routes:
            raise OSError(101, "Network is unreachable")
        self.address = self.routes[target[0]]

    def getsockname(self) -> tuple[str, int]:
        return (self.address, 40000)


class Stopped:
    """A server made and never run: what ``serve`` set up, without serving."""

    def __init__(self, _: object = None) -> None:
        self.channel_class = object

    def run(self) -> None:
        pass


def probe_with(routes: dict[str, str]) -> tuple[str | None, list[str]]:
    connected: list[str] = []
    found = server.lan_address(lambda family, kind: FakeSocket(routes, connected))
    return found, connected


def test_the_lan_address_is_the_interface_a_private_address_would_be_reached_by():
    assert probe_with({"10.255.255.255": "10.0.0.7"}) == ("10.0.0.7", ["10.255.255.255"])


def test_ranges_without_a_route_are_skipped():
    found, connected = probe_with({"192.168.255.255": "192.168.1.20"})
    assert found == "192.168.1.20"
    assert connected == ["10.255.255.255", "172.31.255.255", "192.168.255.255"]


def test_a_machine_with_no_network_has_no_lan_address():
    assert probe_with({}) == (None, ["10.255.255.255", "172.31.255.255", "192.168.255.255"])
    assert probe_with({"10.255.255.255": "127.0.0.1"})[0] is None


def test_the_real_probe_gives_an_address_or_none_and_never_loopback():
    found = server.lan_address()  # a UDP connect: a route lookup, no packet sent
    assert found is None or not ipaddress.ip_address(found).is_loopback


def drawn_modules(text: str) -> set[tuple[int, int]]:
    """The dark modules of a QR code printed in half blocks (two rows of modules to a line)."""
    dark = set()
    for line_no, line in enumerate(ANSI.sub("", text).splitlines()):
        for col, char in enumerate(line):
            top, bottom = HALVES[char]
            dark |= {(2 * line_no, col)} if top else set()
            dark |= {(2 * line_no + 1, col)} if bottom else set()
    return dark


def test_bound_to_every_interface_it_names_the_lan_address_and_prints_its_qr_code():
    text = server.banner("0.0.0.0", 5000, "192.168.1.20", qr_code=True)
    lines = text.splitlines()
    assert lines[:3] == [
        "Chicago Scorekeeper is listening on 0.0.0.0 port 5000; Ctrl-C stops it.",
        "On this machine open http://127.0.0.1:5000/",
        "Phones on the same network open http://192.168.1.20:5000/ or scan:",
    ]
    code = "\n".join(lines[3:])
    assert all(line.startswith("\x1b[30;47m") for line in lines[3:])  # black on white, whatever the terminal
    matrix = segno.make("http://192.168.1.20:5000/", micro=False).matrix_iter(border=4)
    assert drawn_modules(code) == {(r, c) for r, row in enumerate(matrix) for c, bit in enumerate(row) if bit}


def test_bound_to_loopback_it_says_phones_cannot_reach_it_and_how_to_let_them():
    text = server.banner("127.0.0.1", 5000, None, qr_code=True)
    assert "On this machine open http://127.0.0.1:5000/" in text
    assert "Other phones cannot reach 127.0.0.1" in text and "--host 0.0.0.0" in text
    assert "Phones on the same network" not in text and "\x1b[" not in text


def test_without_a_lan_address_it_says_so():
    text = server.banner("0.0.0.0", 8000, None, qr_code=True)
    assert "Found no network address here: phones open http://<this machine's address>:8000/" in text
    assert "\x1b[" not in text


def test_bound_to_one_address_phones_open_that_address():
    assert "Phones on the same network open http://192.168.1.5:5000/" in server.banner(
        "192.168.1.5", 5000, None, qr_code=False
    )
    assert "On this machine open http://[::1]:5000/" in server.banner("::1", 5000, None, qr_code=False)


def test_serve_prints_the_banner_before_it_starts(app, monkeypatch, capsys):
    monkeypatch.setattr(server, "lan_address", lambda: "10.0.0.7")
    monkeypatch.setattr(server.waitress, "create_server", lambda app, **options: Stopped())
    server.serve(app, "0.0.0.0", 5000)
    out = capsys.readouterr().out
    assert "Phones on the same network open http://10.0.0.7:5000/\n" in out
    assert "\x1b[" not in out  # not a terminal (a log, a pipe): no QR code


def test_serve_holds_a_thread_for_each_stream_beside_the_threads_for_requests(app, monkeypatch, capsys):
    options = {}
    monkeypatch.setattr(server.waitress, "create_server", lambda app, **given: Stopped(options.update(given)))
    server.serve(app, "127.0.0.1", 5000, threads=8, streams=100)
    assert app.extensions["live"].limit == 100
    assert options["threads"] == 108
    assert options["max_request_body_size"] >= 2 * 1024 * 1024  # an import's whole file is read
    assert options["connection_limit"] >= 1000  # a room of phones, idle ones included


def test_serve_raises_the_open_file_limit_towards_its_connections(monkeypatch):
    import resource

    limits = {"now": (1024, 20_000)}
    monkeypatch.setattr(resource, "getrlimit", lambda _: limits["now"])
    monkeypatch.setattr(resource, "setrlimit", lambda _, value: limits.update(now=value))
    assert server.open_files_allowed(10_100) == 10_100
    assert limits["now"] == (10_100, 20_000)
    limits["now"] = (1024, 4096)
    assert server.open_files_allowed(10_100) == 4096  # no higher than the hard limit


class Channels:
    """A listening server as ``limit_per_address`` sees it: its open channels, and what it makes."""

    def __init__(self) -> None:
        self.active_channels: dict[int, object] = {}
        self.channel_class = self.make

    def make(self, owner, conn, addr, adj, map=None):
        made = type("Channel", (), {"addr": addr})()
        self.active_channels[len(self.active_channels)] = made
        return made


def test_one_address_may_hold_so_many_connections_and_another_address_is_not_held_back():
    listening = Channels()
    server.limit_per_address(listening, 3)
    closed = []
    for n in range(5):
        conn = type("Conn", (), {"close": lambda self, n=n: closed.append(n)})()
        listening.channel_class(listening, conn, ("10.0.0.9", 5000 + n), None)
    assert len(listening.active_channels) == 3 and closed == [3, 4]
    listening.channel_class(listening, object(), ("10.0.0.8", 6000), None)
    assert len(listening.active_channels) == 4


def test_behind_a_proxy_every_connection_is_the_proxys_and_none_is_refused(tmp_path, monkeypatch, capsys):
    from scorekeeper.web import create_app

    made = []
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "proxied-server-secret-key-0123456789-abcdef")
    monkeypatch.setattr(server, "lan_address", lambda: None)
    monkeypatch.setattr(server, "limit_per_address", lambda listening, most: made.append(most))
    monkeypatch.setattr(server.waitress, "create_server", lambda app, **options: Stopped())
    for proxies, limited in ((0, [server.PER_ADDRESS]), (1, [])):
        made.clear()
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "s.sqlite"), "PROXIES": proxies})
        server.serve(app, "127.0.0.1", 0)
        assert made == limited
