"""Many tables at once, every spectator polling: the app beside the minimal reference app.

Each table's scorekeeper taps every 10 s and its three spectators poll the live
view every 2 s, as a page does when the server declines its stream (more spectators than
``scorekeeper serve --streams``, or a proxy that holds streams back); each phone on its own
connection and address. Open loop (bench/loadgen.py): requests fire on schedule whatever the
server's speed, and latency counts from the scheduled time, so queueing shows. Prints, per table
count, for the app (``scorekeeper serve``, its defaults) and for bench/minimal_app.py under the
same ``serve()`` (the same threads for requests; no stream threads, it has none): tap p99, the
spectators' update latency p95 (from the tap's scheduled time to the new board: polling every
2 s alone makes that about 1.9 s), poll p99, errors and dropped requests, the server's CPU per
1,000 tables and per request, its RSS, and the load generator's own lag and CPU (whether it kept
up). Figures are min/median of ``--runs`` runs, the app's and the reference's interleaved.
bench/capacity.py is the live view as it is served (streams first); this is its fallback alone.

Run: python bench/load.py [--seconds 20] [--tables 100 300 1000] [--runs 3]
Goal (issue 5): 1,000 tables with 0 errors and p99 under 100 ms for actions. Loopback
only; each run is bounded (it drains for at most 10 s; what is still unanswered then is dropped).
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
from servers import Served, machine_busy_seconds, min_median, ms, raise_file_limit, running  # noqa: E402

COLUMNS = (  # heading, width, the figure of one run (its Open, the server's CPU seconds, tables)
    ("tap p99", 14, lambda r, cpu, n: ms(r.taps, 0.99), 0),
    ("update p95", 14, lambda r, cpu, n: ms(r.updates, 0.95), 0),
    ("poll p99", 14, lambda r, cpu, n: ms(r.polls, 0.99), 0),
    ("cores/1000 t", 13, lambda r, cpu, n: cpu / r.seconds * 1000 / n, 2),
    ("CPU ms/req", 12, lambda r, cpu, n: cpu / max(1, r.answered) * 1e3, 2),
    ("gen lag p99", 13, lambda r, cpu, n: ms(r.lag, 0.99), 0),
    ("gen CPU %", 10, lambda r, cpu, n: r.cpu / r.wall * 100, 0),
)


# The N-table runs by table count and server: each run with the server's CPU seconds in it.
Runs = dict[int, dict[Served, list[tuple[loadgen.Open, float]]]]


async def table_rows(app: Served, ref: Served, counts: list[int], runs: int, seconds: float) -> Runs:
    """N tables on their schedule, the app and the reference interleaved run by run; the runs, by count."""
    print(
        f"\nN tables: a scorekeeper tapping every {loadgen.TAP_EVERY:g} s and {loadgen.SPECTATORS} spectators"
        f" polling every {loadgen.POLL_EVERY:g} s per table; open loop, {seconds:g} s per run; latencies in ms"
        f" from the scheduled time; min/median of {runs} runs (errors, dropped: total of the runs)"
    )
    print(
        f"{'tables':>6} {'server':<10}"
        + "".join(f"{h:>{w}}" for h, w, _, _ in COLUMNS)
        + f"{'errors':>7}{'dropped':>8}"
    )
    tables: dict[Served, list[loadgen.Table]] = {app: [], ref: []}
    found: Runs = {}
    for count in counts:
        for server in (app, ref):
            made = tables[server]
            made += await loadgen.open_tables(server.base, len(made), count - len(made), server is ref)
        rss = {server: server.rss_mb() for server in tables}
        rows = found[count] = {app: [], ref: []}
        others: dict[Served, list[float]] = {app: [], ref: []}
        for _ in range(runs):
            for server in (app, ref):
                cpu, busy, began = server.cpu_seconds(), machine_busy_seconds(), time.monotonic()
                run = await loadgen.open_loop(tables[server][:count], seconds, server.port)
                rows[server].append((run, server.cpu_seconds() - cpu))
                other = machine_busy_seconds() - busy - rows[server][-1][1] - run.cpu
                others[server].append(max(0.0, other) / (time.monotonic() - began))  # windows differ a little
        for server in (app, ref):
            done = rows[server]
            errors = [e for run, _ in done for e in run.errors]
            rss_end = server.rss_mb()
            figures = "".join(
                f"{min_median([figure(r, cpu, count) for r, cpu in done], digits):>{width}}"
                for _, width, figure, digits in COLUMNS
            )
            dropped = sum(r.dropped for r, _ in done)
            print(f"{count:>6} {server.kind:<10}{figures}{len(errors):>7}{dropped:>8}")
            print(
                f"{'':>7}server RSS {rss[server]:.0f} MB at the start, {rss_end:.0f} MB at the end; "
                f"{sum(r.answered for r, _ in done) / len(done) / seconds:.0f} answers/s"
                f" of {sum(r.scheduled for r, _ in done) / len(done) / seconds:.0f} scheduled;"
                f" {sum(r.opened for r, _ in done) / max(1, sum(r.answered for r, _ in done)):.2f}"
                " connections opened per answer; accept queue up to"
                f" {max(r.backlog for r, _ in done)}; other processes took {min_median(others[server])} cores"
                + (f"; first errors: {errors[:2]}" if errors else "")
            )
    await loadgen.close_tables(tables)
    return found


async def main_async(args: argparse.Namespace, workdir: Path) -> None:
    app = Served("app", workdir / "app.sqlite")
    ref = Served("minimal", workdir / "minimal.sqlite")
    with running(app, ref):
        print(
            f"scorekeeper serve (its defaults) and the minimal app under the same serve(); loopback; {os.cpu_count()}"
            f" cores shared with the load generator; load average {os.getloadavg()[0]:.1f}"
        )
        loadgen.scripts()
        await table_rows(app, ref, args.tables, args.runs, args.seconds)
    print("goal: 1,000 tables, 0 errors, tap p99 < 100 ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--runs", type=int, default=3)
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
        asyncio.run(main_async(parser.parse_args(), Path(folder)))


if __name__ == "__main__":
    main()
