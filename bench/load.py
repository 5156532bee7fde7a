"""Many tables at once against gunicorn on 127.0.0.1: each table's scorekeeper acts every 10 s,
and three spectators poll its live view every 2 s (as the page does).

Run: python bench/load.py [--seconds 10] [--tables 100 300 1000]
Open loop: requests are sent on schedule whatever the server's speed, and latency is measured
from the scheduled time, so queueing shows. Prints, per table count, the actions and polls per
second served, p50/p99 of each, errors, and the server's CPU; then the same schedule against
the minimal Flask app of bench/minimal_app.py (POST /act, GET /poll) as the reference.
Goal (issue 5): 1,000 tables with 0 errors and p99 under 100 ms for actions. Loopback only.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from servertools import Keeper, Phone, Server, free_port  # noqa: E402

CLIENT_PROCESSES = 4


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children (gunicorn's workers), from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pid or int(entry.name) == pid or int(fields[1]) == pid:  # self, children
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def drive(port: int, tables: list[dict], seconds: float, minimal: bool, start_at: float, out) -> None:
    """One client process: its share of tables, each request sent at its scheduled time."""
    local = threading.local()
    actions: list[float] = []
    polls: list[float] = []
    errors: list[str] = []

    def phone() -> Phone:
        if not hasattr(local, "phone"):
            local.phone = Phone(port, token="-")
        return local.phone

    def act(table: dict, due: float) -> None:
        try:
            if minimal:
                response, _ = phone().request("POST", "/act", {})
                ok = response.status == 200
            else:
                keeper = table["keeper"]
                with table["lock"]:
                    path, body = keeper.tap_form()
                    response, _ = keeper.post(path, body)
                    ok = response.status == 200
                    keeper.version += ok
            (actions if ok else errors).append(time.monotonic() - due if ok else f"action {response.status}")
        except Exception as error:  # noqa: BLE001 - every failure counts
            errors.append(repr(error))

    def poll(table: dict, due: float) -> None:
        try:
            if minimal:
                response, _ = phone().request("GET", "/poll")
                ok = response.status == 200
            else:
                headers = {"HX-Request": "true", "If-None-Match": f'"v{table["keeper"].version}"'}
                response, _ = phone().request("GET", f"/watch/board?t={table['watch']}", headers=headers)
                ok = response.status in (200, 304)
            (polls if ok else errors).append(time.monotonic() - due if ok else f"poll {response.status}")
        except Exception as error:  # noqa: BLE001
            errors.append(repr(error))

    schedule = []
    for i, table in enumerate(tables):
        offset = (i * 0.37) % 10
        schedule += [(start_at + offset + 10 * k, act, table) for k in range(int(seconds // 10) + 1)]
        for s in range(3):
            first = (i * 0.11 + s * 0.67) % 2
            schedule += [(start_at + first + 2 * k, poll, table) for k in range(int(seconds // 2) + 1)]
    schedule = sorted(((t, f, tb) for t, f, tb in schedule if t < start_at + seconds), key=lambda row: row[0])
    for table in tables:
        table["lock"] = threading.Lock()
    with ThreadPoolExecutor(max_workers=64) as pool:
        for due, fn, table in schedule:
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            pool.submit(fn, table, due)
    out.put((actions, polls, errors))


def setup_tables(port: int, count: int) -> list[dict]:
    """Start ``count`` matches, each by its own phone (its own session, as at real tables)."""
    tables = []
    for i in range(count):
        keeper = Keeper(port, seed=i, steps=60)  # a few taps per table per run
        keeper.close()  # each client process opens its own connection (fork)
        tables.append({"keeper": keeper, "watch": keeper.watch})
    return tables


def measure(port: int, pid: int, tables: list[dict], seconds: float, minimal: bool) -> dict:
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    start_at = time.monotonic() + 2.0
    shares = [tables[i::CLIENT_PROCESSES] for i in range(CLIENT_PROCESSES)]
    processes = [
        context.Process(target=drive, args=(port, s, seconds, minimal, start_at, out)) for s in shares
    ]
    cpu_before = cpu_seconds(pid)
    for p in processes:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in processes]
    for p in processes:
        p.join(timeout=30)
    if not minimal:  # the children tapped: learn each table's version again
        for table in tables:
            table["keeper"].conn.close()
            table["keeper"].version = table["keeper"].version_now()
            table["keeper"].conn.close()
    cpu = (cpu_seconds(pid) - cpu_before) / (seconds + 2)
    actions = sorted(x for r in results for x in r[0])
    polls = sorted(x for r in results for x in r[1])
    errors = [x for r in results for x in r[2]]

    def pct(xs: list[float], q: float) -> float:
        return xs[min(len(xs) - 1, int(len(xs) * q))] * 1e3 if xs else float("nan")

    return {
        "actions/s": len(actions) / seconds,
        "act p50": pct(actions, 0.5),
        "act p99": pct(actions, 0.99),
        "polls/s": len(polls) / seconds,
        "poll p50": pct(polls, 0.5),
        "poll p99": pct(polls, 0.99),
        "errors": len(errors),
        "cpu": cpu * 100,
        "sample": errors[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    server = Server(workdir / "app.sqlite", workers=args.workers, threads=8).start()
    import subprocess

    minimal_port = free_port()
    minimal = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            str(args.workers),
            "--threads",
            "8",
            "--worker-class",
            "gthread",
            "--bind",
            f"127.0.0.1:{minimal_port}",
            "--chdir",
            str(ROOT / "bench"),
            "minimal_app:app",
        ],
        env={**os.environ, "MINIMAL_DATABASE": str(workdir / "minimal.sqlite")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(2)
    print(
        f"gunicorn {args.workers} workers x 8 threads each; {args.seconds:.0f} s per row; {CLIENT_PROCESSES} client processes; "
        f"{os.cpu_count()} cores shared by server and clients"
    )
    head = f"{'tables':>7} {'app':<9}{'act/s':>7}{'p50':>8}{'p99':>8}{'poll/s':>8}{'p50':>8}{'p99':>8}{'errors':>7}{'cpu%':>6}"
    print(head)
    try:
        made: list[dict] = []
        for count in args.tables:
            made += setup_tables(server.port, count - len(made))
            for name, port, pid, is_min in (
                ("scorekeeper", server.port, server.process.pid, False),
                ("minimal", minimal_port, minimal.pid, True),
            ):
                r = measure(port, pid, made[:count], args.seconds, is_min)
                print(
                    f"{count:>7} {name:<9}{r['actions/s']:>7.1f}{r['act p50']:>8.1f}{r['act p99']:>8.1f}"
                    f"{r['polls/s']:>8.0f}{r['poll p50']:>8.1f}{r['poll p99']:>8.1f}{r['errors']:>7}{r['cpu']:>6.0f}"
                )
                if r["sample"]:
                    print(f"        first errors: {r['sample']}")
    finally:
        server.stop()
        os.killpg(minimal.pid, 15)
        minimal.wait(timeout=10)
    print("goal: 1,000 tables, 0 errors, action p99 < 100 ms (latency in ms from the scheduled time)")


if __name__ == "__main__":
    main()
