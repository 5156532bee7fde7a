"""Issue 25, item 1: the share page's links open on the other phones, or the page says what to do.

``serve`` listens on every interface by default (``lan``), on this machine only behind a proxy. A
share page opened on the server's own machine (127.0.0.1, localhost) names this machine's address
on the network in its links and codes; where no other phone could open them, it says so and how.
"""

from __future__ import annotations

import pytest
from webtools import soup

from scorekeeper.web import cli, create_app, server
from scorekeeper.web.present import reach

LAN = pytest.mark.parametrize("app", ["lan"], indirect=True)


def share_page(keeper, base_url: str = "http://localhost:5000"):
    """The share page of a new match started by a phone at ``base_url`` (its cookie is that host's)."""
    data = {"name": ["Anna", "Bo"], "dealer": "0", "start": "1"}
    started = keeper.client.post("/new", data=data, base_url=base_url)
    response = keeper.client.get(started.headers["Location"] + "/handover", base_url=base_url)
    assert response.status_code == 200
    page = soup(response)
    links = {name: page.select_one(f"a#{name}")["href"] for name in ("watch-link", "claim-link")}
    note = page.select_one(".reach")
    return page, links, note.get_text(" ", strip=True) if note else None


@LAN
def test_opened_at_localhost_while_serving_every_interface_the_links_name_the_lan_address(
    app, keeper, monkeypatch
):
    monkeypatch.setattr(server, "lan_address", lambda: "192.168.1.20")
    app.config.update(SERVE_HOST="0.0.0.0", SERVE_PORT=5000)
    page, links, note = share_page(keeper, "http://127.0.0.1:5000")
    assert links["watch-link"].startswith("http://192.168.1.20:5000/watch?t=")
    assert links["claim-link"].startswith("http://192.168.1.20:5000/claim?t=")
    assert note == (
        "This page is open at 127.0.0.1, which only this machine can open: the codes and links below use"
        " its address on the network, 192.168.1.20, for the other phones."
    )
    other_phone = app.test_client()  # the link works as it is, at the address it names
    assert other_phone.get(links["watch-link"], base_url="http://192.168.1.20:5000").status_code == 200


@LAN
def test_the_qr_codes_are_of_the_lan_links(app, keeper, monkeypatch):
    from test_share import drawn_modules, segno_modules

    monkeypatch.setattr(server, "lan_address", lambda: "10.0.0.7")
    app.config.update(SERVE_HOST="0.0.0.0", SERVE_PORT=8000)
    page, links, _ = share_page(keeper, "http://localhost:8000")
    assert links["watch-link"].startswith("http://10.0.0.7:8000/watch?t=")
    for nth, name in enumerate(("watch-link", "claim-link")):
        assert drawn_modules(page.select("svg.qr")[nth])[1] == segno_modules(links[name])


@LAN
def test_served_on_loopback_the_page_says_other_phones_cannot_open_it_and_the_command_that_lets_them(
    app, keeper
):
    app.config.update(SERVE_HOST="127.0.0.1", SERVE_PORT=8000)
    page, links, note = share_page(keeper, "http://127.0.0.1:8000")
    assert links["watch-link"].startswith("http://127.0.0.1:8000/watch?t=")
    assert note.startswith("Other phones cannot open these links: the server listens only on this machine.")
    assert page.select_one(".reach code").get_text() == "scorekeeper serve --host 0.0.0.0 --port 8000"
    app.config.update(SERVE_PORT=5000)
    page, _, _ = share_page(keeper, "http://127.0.0.1:5000")
    assert page.select_one(".reach code").get_text() == "scorekeeper serve --host 0.0.0.0"


@LAN
def test_without_a_network_address_the_page_says_to_connect_the_machine(app, keeper, monkeypatch):
    monkeypatch.setattr(server, "lan_address", lambda: None)
    app.config.update(SERVE_HOST="0.0.0.0", SERVE_PORT=5000)
    _, links, note = share_page(keeper, "http://localhost:5000")
    assert links["watch-link"].startswith("http://localhost:5000/watch?t=")
    assert note == (
        "Other phones cannot open links to localhost, and this machine is not on a network."
        " Connect it to the same Wi-Fi as the phones, then reload this page."
    )


@LAN
def test_started_some_other_way_the_page_says_to_open_it_at_the_network_address(app, keeper):
    _, _, note = share_page(keeper, "http://[::1]:5000")  # flask run: nothing says where it listens
    assert note.startswith("Other phones cannot open links to ::1: it is this machine's name for itself.")


@LAN
def test_opened_at_the_network_address_the_links_are_the_pages_own_and_nothing_is_said(
    app, keeper, monkeypatch
):
    monkeypatch.setattr(server, "lan_address", lambda: "192.168.1.20")
    app.config.update(SERVE_HOST="0.0.0.0", SERVE_PORT=5000)
    _, links, note = share_page(keeper, "http://table.home:5000")
    assert links["watch-link"].startswith("http://table.home:5000/watch?t=") and note is None


def test_behind_a_proxy_the_links_are_the_proxys(app, keeper):
    app.config.update(SERVE_HOST="127.0.0.1", SERVE_PORT=5000, PROXIES=1)
    _, links, note = share_page(keeper, "http://127.0.0.1:5000")
    assert note is None and links["watch-link"].startswith("http://127.0.0.1:5000/watch?t=")


@pytest.mark.parametrize(("profile", "host"), [("lan", "0.0.0.0"), ("tls", "127.0.0.1")])
def test_serve_listens_on_every_interface_unless_a_proxy_stands_in_front(
    tmp_path, monkeypatch, capsys, profile, host
):
    made = {}
    monkeypatch.setenv("SCOREKEEPER_PROFILE", profile)
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "serve-default-host-key-0123456789abcdef")
    monkeypatch.setattr(server, "lan_address", lambda: "192.168.1.20")
    monkeypatch.setattr(
        server.waitress, "create_server", lambda app, **given: made.update(given) or Stopped()
    )
    monkeypatch.setattr(cli, "_can_listen", lambda host, port: None)  # no real socket
    assert cli.main(["serve", "--db", str(tmp_path / "s.sqlite")]) == 0
    assert made["host"] == host and made["port"] == 5000
    out = capsys.readouterr().out
    assert (cli.OPEN_TO_THE_NETWORK in out) == (profile == "lan")
    assert ("Phones on the same network open http://192.168.1.20:5000/" in out) == (profile == "lan")


def test_host_on_the_command_line_wins(tmp_path, monkeypatch, capsys):
    made = {}
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "serve-default-host-key-0123456789abcdef")
    monkeypatch.setattr(
        server.waitress, "create_server", lambda app, **given: made.update(given) or Stopped()
    )
    monkeypatch.setattr(cli, "_can_listen", lambda host, port: None)  # no real socket
    assert cli.main(["serve", "--db", str(tmp_path / "s.sqlite"), "--host", "127.0.0.1"]) == 0
    assert made["host"] == "127.0.0.1"
    out = capsys.readouterr().out
    assert "Other phones cannot reach 127.0.0.1" in out and cli.OPEN_TO_THE_NETWORK not in out


def test_a_port_already_taken_stops_the_start_in_one_line(tmp_path, monkeypatch, capsys):
    import socket

    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "serve-default-host-key-0123456789abcdef")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(tmp_path / "s.sqlite")]
        assert cli.main(argv) == 2
    assert (
        capsys.readouterr().err
        == f"scorekeeper: cannot listen on 127.0.0.1 port {port} (Address already in use)\n"
    )


def test_the_default_host_follows_the_proxies(tmp_path):
    config = {
        "TESTING": True,
        "DATABASE": str(tmp_path / "s.sqlite"),
        "SECRET_KEY": "k" * 20 + "0123456789abcdef",
    }
    assert reach.default_host(create_app({**config, "PROXIES": 0})) == "0.0.0.0"
    assert reach.default_host(create_app({**config, "PROXIES": 2})) == "127.0.0.1"


class Stopped:
    def __init__(self) -> None:
        self.channel_class = object

    def run(self) -> None:
        pass
