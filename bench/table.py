"""Serve the app with gunicorn on 127.0.0.1 and measure a scoring action and an unchanged live-view poll.

In the same run, bench/minimal_app.py (one SQLite insert per POST, a 2 KB fragment)
is served the same way as the reference. Prints requests/s and p50/p99 at 1, 8 and
32 concurrent clients, the ratio to the minimal app, and the compressed bytes of the
scoring page's first load and of one action's swap.

Run: python bench/table.py [--seconds 3]
Goals (issue 3): action >= 0.5x the minimal POST throughput with p99 < 50 ms at 32 clients;
unchanged poll >= 0.5x the minimal GET; first load < 40 KB, one swap < 6 KB (compressed).
Each client scores its own realistic match (random legal play, tests/simulate.py); a
finished match is followed by a new one. Loopback only, bounded in time.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from servertools import Phone  # noqa: E402
from simulate import random_events  # noqa: E402
from webtools import form_for  # noqa: E402

from scorekeeper.rules import Rules  # noqa: E402

PLAYERS = ("Anna", "Bo", "Cia")
CONCURRENCY = (1, 8, 32)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: list[str], port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        args,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"server on port {port} did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=10)


class Scorekeeper(Phone):
    """One phone: its own session and CSRF token, scoring its own matches through the forms."""

    def __init__(self, port: int, seed: int) -> None:
        super().__init__(port)
        self.rng = random.Random(seed)
        self.new_match()

    def new_match(self) -> None:
        form = {"name": list(PLAYERS), "dealer": "draw", "start": "1", "csrf_token": self.token}
        response, _ = self.request("POST", "/new", form)
        self.match = response.getheader("Location").rsplit("/", 1)[1]
        share = self.request("GET", f"/m/{self.match}/handover")[1].decode()
        self.watch = re.search(r"/watch\?t=([\w-]+)", share).group(1)
        self.events, _ = random_events(PLAYERS, Rules(), self.rng.choice, 400, undo=True)
        self.version = 0

    def act(self) -> float | None:
        """Post the next tap; None when a new match had to be started (not timed)."""
        if self.version >= len(self.events):
            self.new_match()
            return None
        event = self.events[self.version]
        path = f"/m/{self.match}/" + ("undo" if event.type == "undo" else "record")
        fields = {} if event.type == "undo" else form_for(event)
        body = {**fields, "version": str(self.version), "csrf_token": self.token}
        start = time.perf_counter()
        response, _ = self.request("POST", path, body, {"HX-Request": "true"})
        took = time.perf_counter() - start
        if response.status != 200:
            raise SystemExit(f"action refused with {response.status} at version {self.version}")
        self.version += 1
        return took

    def poll(self) -> float:
        start = time.perf_counter()
        response, _ = self.request(
            "GET",
            f"/watch/board?t={self.watch}",
            headers={"HX-Request": "true", "If-None-Match": f'"v{self.version}"'},
        )
        took = time.perf_counter() - start
        if response.status != 304:
            raise SystemExit(f"an unchanged poll answered {response.status}")
        return took


class Minimal:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def _timed(self, method: str, path: str) -> float:
        start = time.perf_counter()
        self.conn.request(method, path, "" if method == "POST" else None)
        response = self.conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"minimal app answered {response.status}")
        return time.perf_counter() - start

    def act(self) -> float:
        return self._timed("POST", "/act")

    def poll(self) -> float:
        return self._timed("GET", "/poll")


def run(clients: list, kind: str, seconds: float) -> tuple[float, float, float]:
    """Closed loop: every client repeats ``kind`` for ``seconds``; return (req/s, p50 ms, p99 ms)."""
    latencies: list[list[float]] = [[] for _ in clients]
    stop_at = time.perf_counter() + seconds

    def loop(i: int) -> None:
        while time.perf_counter() < stop_at:
            took = getattr(clients[i], kind)()
            if took is not None:
                latencies[i].append(took)

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(clients))]
    begin = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - begin
    all_ = sorted(x for per in latencies for x in per)
    p99 = all_[min(len(all_) - 1, int(len(all_) * 0.99))]
    return len(all_) / elapsed, statistics.median(all_) * 1e3, p99 * 1e3


def sizes(port: int) -> None:
    """Compressed bytes of the scoring page's first load and of one action's swap."""
    keeper = Scorekeeper(port, seed=99)
    for _ in range(3):
        keeper.act()
    page_response, page = keeper.request("GET", f"/m/{keeper.match}", headers={"Accept-Encoding": "br, gzip"})
    total = keeper.wire_bytes
    rows = [("scoring page HTML", keeper.wire_bytes, page_response.getheader("Content-Encoding"))]
    for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page.decode()):
        response, _ = keeper.request("GET", asset, headers={"Accept-Encoding": "br, gzip"})
        rows.append((asset, keeper.wire_bytes, response.getheader("Content-Encoding")))
        total += keeper.wire_bytes
    event = keeper.events[keeper.version]
    response, swap = keeper.request(
        "POST",
        f"/m/{keeper.match}/" + ("undo" if event.type == "undo" else "record"),
        {
            **({} if event.type == "undo" else form_for(event)),
            "version": str(keeper.version),
            "csrf_token": keeper.token,
        },
        {"HX-Request": "true", "Accept-Encoding": "br, gzip"},
    )
    print("\nbytes on the wire (Accept-Encoding: br, gzip)")
    for name, size, encoding in rows:
        print(f"  {name:<44} {size:>7,} B  {encoding or 'identity'}")
    print(f"  {'first load in total':<44} {total:>7,} B  goal < 40,960")
    swapped = keeper.wire_bytes
    print(
        f"  {'one action swap (#table fragment)':<44} {swapped:>7,} B  goal < 6,144 ({response.getheader('Content-Encoding')})"
    )
    print(f"  {'  the same, uncompressed':<44} {len(swap):>7,} B")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-table-"))
    app_port, minimal_port = free_port(), free_port()
    gunicorn = [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        "1",
        "--threads",
        "8",
        "--worker-class",
        "gthread",
    ]
    app = start(
        [
            sys.executable,
            "-m",
            "scorekeeper.web.cli",
            "serve",
            "--port",
            str(app_port),
            "--db",
            str(workdir / "app.sqlite"),
        ],
        app_port,
        {},
    )
    minimal = start(
        [*gunicorn, "--bind", f"127.0.0.1:{minimal_port}", "--chdir", str(ROOT / "bench"), "minimal_app:app"],
        minimal_port,
        {"MINIMAL_DATABASE": str(workdir / "minimal.sqlite")},
    )
    try:
        print(
            f"gunicorn, 1 worker x 8 threads each; {args.seconds:.0f} s per row; loopback; this machine: {os.cpu_count()} cores"
        )
        print(
            f"{'what':<28}{'clients':>8}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'ref req/s':>11}{'ratio':>7}"
        )
        for kind, label in (("act", "scoring action (POST)"), ("poll", "unchanged live poll (GET)")):
            for n in CONCURRENCY:
                ours = run([Scorekeeper(app_port, seed=i) for i in range(n)], kind, args.seconds)
                ref = run([Minimal(minimal_port) for _ in range(n)], kind, args.seconds)
                print(
                    f"{label:<28}{n:>8}{ours[0]:>10.0f}{ours[1]:>9.1f}{ours[2]:>9.1f}{ref[0]:>11.0f}{ours[0] / ref[0]:>7.2f}"
                )
        sizes(app_port)
    finally:
        stop(app)
        stop(minimal)


if __name__ == "__main__":
    main()
