"""What an unchanged live-view check costs: before Flask, through Flask, and the minimal reference.

Run: python bench/polls.py [--seconds 3] [--runs 3] [--clients 8] [--workers 1] [--threads 8]

Three servers under the same ``serve()`` (gunicorn gthread): the app, the app with
every check going through Flask (bench/without_unchanged_check.py), and the
minimal app (bench/minimal_app.py). Each client holds one match's live view and
asks ``If-None-Match`` with the version it shows, in a closed loop; runs are
interleaved so that other load falls on all three alike. Prints min/median of the
runs: checks per second, p99, and the server's CPU per check (from /proc, the
steadier figure on a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
from load import ms  # noqa: E402
from servers import Served, min_median, running  # noqa: E402


async def measure(servers: list[Served], clients: int, runs: int, seconds: float) -> None:
    tables = {
        s: await loadgen.open_tables(s.base, 0, clients, reference=s.kind == "minimal") for s in servers
    }
    for server in servers:  # warm up: every thread opens its connection
        await loadgen.closed_loop(tables[server], "check", 1.0)
    got = {s: {"rate": [], "p99": [], "cpu": []} for s in servers}
    errors: list[str] = []
    for _ in range(runs):
        for server in servers:
            cpu = server.cpu_seconds()
            run = await loadgen.closed_loop(tables[server], "check", seconds)
            got[server]["cpu"].append((server.cpu_seconds() - cpu) / max(1, len(run.latencies)) * 1e3)
            got[server]["rate"].append(run.rate)
            got[server]["p99"].append(ms(run.latencies, 0.99))
            errors += run.errors
    print(
        f"\n{clients} clients, unchanged check (304), closed loop, {seconds:g} s a run, min/median of {runs}"
    )
    print(f"{'server':<20}{'checks/s':>14}{'p99 ms':>14}{'CPU ms/check':>16}")
    for server in servers:
        g = got[server]
        print(
            f"{server.kind:<20}{min_median(g['rate'], 0):>14}{min_median(g['p99']):>14}{min_median(g['cpu'], 3):>16}"
        )
    if errors:
        print(f"errors: {len(errors)}, first: {errors[:3]}")
    await loadgen.close_tables(tables)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-polls-") as folder:
        kinds = ("app", "app-through-flask", "minimal")
        servers = [Served(k, Path(folder) / f"{k}.sqlite", args.workers, args.threads) for k in kinds]
        with running(*servers):
            print(
                f"gunicorn gthread, {args.workers} worker(s) x {args.threads} threads; loopback;"
                f" load average {os.getloadavg()[0]:.1f} at the start"
            )
            began = time.monotonic()
            asyncio.run(measure(servers, args.clients, args.runs, args.seconds))
            print(f"load average {os.getloadavg()[0]:.1f} at the end; {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
