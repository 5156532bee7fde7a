"""What one server carries, in one run: the app beside the minimal reference app, served alike.

Run: python bench/capacity.py [--seconds 3] [--table-seconds 20] [--tables 100 300 1000 2000]
                              [--workers 2] [--threads 8] [--runs 3] [--soak-minutes 0]

Prints, each figure as min/median of ``--runs`` runs (the app's and the reference's
runs interleaved, so that other load on the machine falls on both alike):
- 8 clients in a closed loop: scoring actions per second against the minimal POST
  (ratio), their p99; unchanged live-view checks (304) per second against the
  minimal GET (ratio); the server's CPU per request; and the tap's p99 before and
  after the write lock (bench/without_write_lock.py serves the app without it);
  and the same taps on the same server answered with the acknowledgement only
  (``Prefer: return=minimal``: 204, nothing rendered), the ceiling of the ratio
  for the app's stack (Flask, its session, CSRF, limiter, the engine, the write);
- N tables on a schedule (open loop, bench/loadgen.py): each table's scorekeeper
  taps every 10 s and its three spectators poll every 2 s. Tap p99 and the
  spectators' update latency p95 (from the tap's scheduled time to the new board;
  polling every 2 s alone makes that about 1.9 s), errors and dropped requests
  (in total over the runs), the server's CPU per 1,000 tables and per request,
  and the load generator's own lag and CPU, which say whether it kept up;
- the app's worker RSS at the start and at the end;
- N tables with the live view pushed (bench/push.py), the same table counts and
  schedule, each spectator holding the stream (``/watch/stream``): the app alone
  under gunicorn gevent with the same workers, its setup for many spectators.
  Tap p99; update p95 and p99 from the tap's scheduled time (as the polling rows
  count it) and p95 from the tap's acknowledgement; spectators streaming and
  polling; errors and dropped; cores per 1,000 tables and the generator's CPU.
  The reference has no stream: beside each row stand its polling figures, from
  the polling runs above;
- with ``--soak-minutes M``, 1,000 tables (or the most of ``--tables`` up to it)
  with their streams on the same gevent server for M minutes in one run: worker
  RSS each minute, and its growth from the first minute to the last;
- a summary: each of issue 14's goals beside its figure and whether it is met,
  judged on the medians of the runs (errors and dropped on their totals), the
  N-table goals on the push rows at 1,000 tables (or the most run up to it).
The closed-loop and polling rows: ``serve()`` (gunicorn gthread, keep-alive 2 s)
for both servers, the same workers and threads. Loopback only; every run is
bounded in time (the N-table runs drain for at most 10 s, after which an
unanswered request counts as dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
import push  # noqa: E402
from load import Runs, ms, raise_file_limit, table_rows  # noqa: E402
from servers import Served, machine_busy_seconds, min_median, own_cpu_seconds, running  # noqa: E402

CLIENTS = 8
# Issue 14's goals. At 8 clients: the scoring action's throughput and p99 against the minimal
# POST's, the unchanged check's throughput against the minimal GET's.
TAP_RATIO, TAP_P99_RATIO, TAP_P99_MS, CHECK_RATIO = 0.5, 2.0, 50.0, 1.0
# N tables with their streams: at 1,000 tables, and reported at 2,000.
TABLES, TABLES_REPORTED, TABLE_TAP_P99_MS, TABLE_UPDATE_P95_MS, CORES_PER_1000 = 1000, 2000, 100.0, 500.0, 0.5
RSS_NOISE_MB = 2.0  # "no growth": a worker's RSS from the soak's first minute to its last moves by less

Closed = dict[str, dict[Served, dict[str, list[float]]]]  # by kind ("tap", "check"), server and figure
Pushed = dict[int, list[dict[str, float]]]  # by table count: each run's figures (push.figures)
Goal = tuple[str, str, str, str]  # measure, goal, measured, verdict


async def closed_rows(
    app: Served, floor: Served, ref: Served, before: Served, runs: int, seconds: float
) -> Closed:
    """Throughput and p99 at 8 clients: the app, the reference, the app without its write lock, and
    the app's taps answered with the acknowledgement only (``floor``: the same server, no render)."""
    acknowledged = await loadgen.open_tables(app.base, CLIENTS, CLIENTS, reference=False)
    for table in acknowledged:
        table.acknowledged_only = True
    tables = {
        app: await loadgen.open_tables(app.base, 0, CLIENTS, reference=False),
        floor: acknowledged,
        ref: await loadgen.open_tables(ref.base, 0, CLIENTS, reference=True),
        before: await loadgen.open_tables(before.base, 0, CLIENTS, reference=False),
    }
    for server in tables:  # warm up: every thread opens its connection, every cache fills
        for kind in ("tap", "check"):
            await loadgen.closed_loop(tables[server], kind, 1.0)
    busy, mine, began = machine_busy_seconds(), own_cpu_seconds(), time.monotonic()
    processes = [server for server in tables if server is not floor]  # floor is app's own process
    served = sum(server.cpu_seconds() for server in processes)
    print(f"\n{CLIENTS} clients, closed loop, {seconds:g} s per run; min/median of {runs} runs")
    print(f"{'':<34}{'app':>14}{'reference':>14}{'app/ref':>12}")
    found: Closed = {}
    for kind, label in (("tap", "scoring action (POST)"), ("check", "unchanged live-view check")):
        measured = (app, floor, before, ref) if kind == "tap" else (app, ref)
        got = found[kind] = {s: {"rate": [], "p99": [], "cpu": []} for s in measured}
        errors: list[str] = []
        for _ in range(runs):
            for server in measured:
                cpu = server.cpu_seconds()
                run = await loadgen.closed_loop(tables[server], kind, seconds)
                got[server]["cpu"].append((server.cpu_seconds() - cpu) / max(1, len(run.latencies)) * 1e3)
                got[server]["rate"].append(run.rate)
                got[server]["p99"].append(ms(run.latencies, 0.99))
                errors += run.errors
        ratio = [a / r for a, r in zip(got[app]["rate"], got[ref]["rate"], strict=True)]
        print(
            f"{label + ', req/s':<34}{min_median(got[app]['rate'], 0):>14}"
            f"{min_median(got[ref]['rate'], 0):>14}{min_median(ratio, 2):>12}"
        )
        print(f"{'  p99 ms':<34}{min_median(got[app]['p99']):>14}{min_median(got[ref]['p99']):>14}")
        print(
            f"{'  server CPU ms per request':<34}{min_median(got[app]['cpu'], 2):>14}{min_median(got[ref]['cpu'], 2):>14}"
        )
        if kind == "tap":  # the ceiling of the ratio: what the tap costs before its answer is rendered
            bare = [a / r for a, r in zip(got[floor]["rate"], got[ref]["rate"], strict=True)]
            print(
                f"{'  the same tap answered 204, req/s':<34}{min_median(got[floor]['rate'], 0):>14}"
                f"{'':>14}{min_median(bare, 2):>12}"
            )
            print(f"{'    server CPU ms per request':<34}{min_median(got[floor]['cpu'], 2):>14}")
        if errors:
            print(f"  errors: {len(errors)}, first: {errors[:3]}")
    other = machine_busy_seconds() - busy - (own_cpu_seconds() - mine)
    other -= sum(server.cpu_seconds() for server in processes) - served
    print(f"  meanwhile other processes took {other / (time.monotonic() - began):.1f} cores on average")
    taps = found["tap"]
    print(
        f"\nthe write lock (db.immediate), scoring action at {CLIENTS} clients, the same runs:"
        f"\n  before, writers queue in SQLite's busy handler: p99 {min_median(taps[before]['p99'])} ms,"
        f" {min_median(taps[before]['rate'], 0)} req/s"
        f"\n  after, writers queue on the lock:               p99 {min_median(taps[app]['p99'])} ms,"
        f" {min_median(taps[app]['rate'], 0)} req/s"
    )
    await loadgen.close_tables(tables)
    return found


async def pushed_rows(
    app: Served, ref: Served, polled: Runs, args: argparse.Namespace
) -> tuple[Pushed, tuple[int, list[list[float]]]]:
    """N tables with their streams on ``app`` (gevent), the reference's polling rows beside; then the soak."""
    print(
        f"\nN tables with the live view pushed (bench/push.py): the app alone under gunicorn gevent,"
        f" {app.workers} worker(s) (its setup for many spectators), the same schedule, each spectator"
        f" holding /watch/stream; {args.table_seconds:g} s per run, min/median of {args.runs} runs (errors,"
        " dropped: totals); latencies in ms; update p95 and p99 from the tap's scheduled time, as in the"
        " polling rows, 'p95 from ack' from the tap's acknowledgement; cores and generator CPU over the"
        " scheduled window. The reference has no stream: its rows here are its polling rows above (the same"
        " runs, not measured again)."
    )
    print(push.heading())
    beside = {n: [push.polling_figures(r, cpu, n) for r, cpu in runs[ref]] for n, runs in polled.items()}
    tables: list[loadgen.Table] = []
    soaked = min(TABLES, max((n for n in args.tables if n <= TABLES), default=TABLES))
    samples: list[list[float]] = []
    with running(app):
        found = await push.push_rows(app, tables, args.tables, args.runs, args.table_seconds, beside)
        if args.soak_minutes:
            print(
                f"\nsoak: {soaked:,} tables with their streams for {args.soak_minutes} minutes, the same server"
            )
            tables += await loadgen.open_tables(app.base, len(tables), soaked - len(tables), False)
            samples = await push.soak(app, tables[:soaked], args.soak_minutes)
    await loadgen.close_tables({app: tables})
    return found, (soaked, samples)


def verdict(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "not met"


def closed_goals(found: Closed, app: Served, floor: Served, ref: Served) -> list[Goal]:
    taps, checks = found["tap"], found["check"]
    rate = [a / r for a, r in zip(taps[app]["rate"], taps[ref]["rate"], strict=True)]
    bare = [a / r for a, r in zip(taps[floor]["rate"], taps[ref]["rate"], strict=True)]
    p99 = [a / r for a, r in zip(taps[app]["p99"], taps[ref]["p99"], strict=True)]
    check = [a / r for a, r in zip(checks[app]["rate"], checks[ref]["rate"], strict=True)]
    return [
        (
            f"scoring action throughput vs the minimal POST, {CLIENTS} clients",
            f"≥ {TAP_RATIO:g}×",
            f"{min_median(rate, 2)}×",
            verdict(median(rate) >= TAP_RATIO),
        ),
        (
            "  its ceiling: the same tap answered 204 (Prefer: return=minimal)",
            "",
            f"{min_median(bare, 2)}×",
            "reported (no render at all)",
        ),
        (
            f"scoring action p99, {CLIENTS} clients",
            f"≤ {TAP_P99_RATIO:g}× the reference's, < {TAP_P99_MS:g} ms",
            f"{min_median(p99, 2)}×, {min_median(taps[app]['p99'], 0)} ms",
            verdict(median(p99) <= TAP_P99_RATIO and median(taps[app]["p99"]) < TAP_P99_MS),
        ),
        (
            "unchanged live-view check vs the minimal GET",
            f"≥ {CHECK_RATIO:g}×",
            f"{min_median(check, 2)}×",
            verdict(median(check) >= CHECK_RATIO),
        ),
    ]


def table_goals(runs: list[dict[str, float]], count: int, judged: bool) -> list[Goal]:
    """The N-table goals at ``count`` tables, with verdicts (``judged``) or only reported."""

    def figure(key: str, digits: int = 0) -> str:
        return min_median([r[key] for r in runs], digits)

    def mid(key: str) -> float:
        return median(r[key] for r in runs)

    def aim(goal: str) -> str:
        return goal if judged else ""

    def say(met: bool) -> str:
        return verdict(met) if judged else ""

    errors, dropped = (sum(r[key] for r in runs) for key in push.TOTALS)
    spectators = count * loadgen.SPECTATORS
    return [
        (
            f"{count:,} tables: {count / loadgen.TAP_EVERY:g} actions/s, {spectators:,} spectators",
            "" if judged else "report it",
            "",
            "" if judged else "reported",
        ),
        (
            "  spectators holding a stream",
            aim(f"{spectators:,}"),
            figure("streaming"),
            say(mid("streaming") == spectators),
        ),
        (
            "  action p99",
            aim(f"< {TABLE_TAP_P99_MS:g} ms"),
            f"{figure('tap')} ms",
            say(mid("tap") < TABLE_TAP_P99_MS),
        ),
        (
            "  spectator update p95, from the tap's scheduled time",
            aim(f"< {TABLE_UPDATE_P95_MS:g} ms"),
            f"{figure('p95')} ms",
            say(mid("p95") < TABLE_UPDATE_P95_MS),
        ),
        ("  errors", aim("0"), f"{errors:,.0f}", say(errors == 0)),
        ("  dropped", aim("0"), f"{dropped:,.0f}", say(dropped == 0)),
    ]


def load_goals(pushed: Pushed) -> list[Goal]:
    """The goals of the push rows: at 1,000 tables (or the most run below), and 2,000 reported."""
    at = TABLES if TABLES in pushed else max((n for n in pushed if n <= TABLES), default=None)
    if at is None:
        goals = [(f"{TABLES:,} tables", "see issue 14", "-", verdict(None))]
    else:
        goals = table_goals(pushed[at], at, judged=True)
        if at != TABLES:
            goals[0] = (goals[0][0] + f" ({TABLES:,} not run: the most tables up to it)", *goals[0][1:])
    if TABLES_REPORTED in pushed:
        goals += table_goals(pushed[TABLES_REPORTED], TABLES_REPORTED, judged=False)
    else:
        goals.append((f"{TABLES_REPORTED:,} tables", "report it", "-", verdict(None)))
    if at is not None:
        goals.append(cores_goal(pushed[at], at))
    return goals


def cores_goal(runs: list[dict[str, float]], count: int) -> Goal:
    """The server's cores per 1,000 tables: a lower bound when the server left work undone."""
    cores = [r["cores"] for r in runs]
    met = median(cores) <= CORES_PER_1000
    done = all(r["errors"] == 0 and r["dropped"] == 0 for r in runs)
    return (
        f"server CPU per 1,000 tables, at {count:,} tables",
        f"≤ {CORES_PER_1000:g} core",
        f"{min_median(cores, 2)} cores",
        verdict(met) if done or not met else "not known (work left undone: a lower bound)",
    )


def soak_goal(soaked: int, samples: list[list[float]]) -> Goal:
    """Each worker's RSS from the soak's first minute to its last."""
    measure, goal = f"worker RSS in the soak at {soaked:,} tables", f"no growth (< {RSS_NOISE_MB:g} MB)"
    if len(samples) < 2:
        return (measure, goal, "-", verdict(None) + " (--soak-minutes 2 or more; 10 for the goal)")
    growth = [last - first for first, last in zip(samples[0], samples[-1], strict=False)]
    return (
        measure,
        goal,
        ", ".join(f"{g:+.1f}" for g in growth) + f" MB in {len(samples) - 1} min",
        verdict(len(samples[0]) == len(samples[-1]) and max(growth) < RSS_NOISE_MB),
    )


def print_summary(goals: list[Goal]) -> None:
    print(
        "\nissue 14's goals, each judged on the median of its runs (errors and dropped: on their totals);"
        " the N-table goals on the push rows (the app under gevent), the CPU on its row at 1,000 tables"
    )
    print(f"{'measure':<66}{'goal':<34}{'measured':<26}verdict")
    for measure, goal, measured, said in goals:
        print(f"{measure:<66}{goal:<34}{measured:<26}{said}".rstrip())


async def main_async(args: argparse.Namespace, workdir: Path) -> None:
    app = Served("app", workdir / "app.sqlite", args.workers, args.threads)
    ref = Served("minimal", workdir / "minimal.sqlite", args.workers, args.threads)
    before = Served("app-busy-handler", workdir / "before.sqlite", args.workers, args.threads)
    with running(app, ref):
        rss = app.worker_rss_mb()
        print(
            f"gunicorn gthread, {args.workers} worker(s) x {args.threads} threads for both apps; loopback;"
            f" {os.cpu_count()} cores shared with the load generator (one process, asyncio + aiohttp)"
            f" and whatever else runs; load average {os.getloadavg()[0]:.1f} at the start"
        )
        print(f"app worker RSS at the start: {', '.join(f'{x:.0f} MB' for x in rss)}")
        loadgen.scripts()
        floor = copy.copy(app)  # the same server (started), a key of its own for the taps answered 204
        with running(before):
            closed = await closed_rows(app, floor, ref, before, args.runs, args.seconds)
        polled = await table_rows(app, ref, args.tables, args.runs, args.table_seconds)
        rss = app.worker_rss_mb()
        print(
            f"\napp worker RSS at the end: {', '.join(f'{x:.0f} MB' for x in rss)};"
            f" connections opened by the phones: {loadgen.Connector.opened:,};"
            f" taps resent after a closed connection: {loadgen.Phone.resent};"
            f" load average {os.getloadavg()[0]:.1f} at the end"
        )
    pushed = Served("app", workdir / "push.sqlite", args.workers, args.threads, worker_class="gevent")
    found, (soaked, samples) = await pushed_rows(pushed, ref, polled, args)
    print_summary([*closed_goals(closed, app, floor, ref), *load_goals(found), soak_goal(soaked, samples)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="each closed-loop run")
    parser.add_argument("--table-seconds", type=float, default=20.0, help="each N-table run")
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 300, 1000, 2000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--soak-minutes", type=int, default=0, help="the soak at 1,000 tables (0: none)")
    args = parser.parse_args()
    raise_file_limit()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-capacity-") as folder:
        asyncio.run(main_async(args, Path(folder)))
    print(f"whole run {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
