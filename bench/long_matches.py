"""Long matches: N tables whose matches already hold E events, the live view pushed.

Run: python bench/long_matches.py [--tables 200 1000] [--events 250] [--cache-mb MB ...]
                                  [--seconds 20] [--runs 1]

bench/capacity.py starts every table with a new match, so its matches hold a few dozen
events at most; an evening's match holds some 150-400 (about 20 a round, 8-15
rounds). Here each table's scorekeeper imports its match's first E events
(``/import``, the script of bench/loadgen.py up to E, from its own address: one import
each, within the default limit) before the runs, then taps on from there every 10 s, with
three spectators following the stream, as in bench/capacity.py (bench/push.py's runs and
figures). The server is ``scorekeeper serve`` with its defaults; one per ``--cache-mb``
(SCOREKEEPER_CACHE_MB, the process's cache budget; none given: the app's default), one after
the other, each with its own database. What the cache keeps per match decides whether a tap
and a board find their match and state kept or read the whole log and replay it: whether an
evening's matches fit the budget is what the rows show. Prints, per budget and table count
(min/median of ``--runs``; errors and dropped: totals), tap p50/p95/p99, the spectators'
update p95, streams/polls, errors, dropped, the server's cores and RSS. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
import push  # noqa: E402
from servers import Served, load_average, min_median, raise_file_limit  # noqa: E402

from scorekeeper.matchfile import MatchFile, dumps  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402

COLUMNS = (  # heading, key, width, digits
    ("tap p50", "tap p50", 9, 0),
    ("tap p95", "tap p95", 9, 0),
    ("tap p99", "tap p99", 9, 0),
    ("update p95", "update p95", 12, 0),
    ("streaming", "streaming", 11, 0),
    ("polling", "polling", 9, 0),
    ("errors", "errors", 8, 0),
    ("dropped", "dropped", 9, 0),
    ("cores", "server cores", 11, 2),
    ("RSS MB", "rss", 9, 0),
)
TOTALS = ("errors", "dropped")


async def open_long_table(base: str, number: int, events: int) -> loadgen.Table:
    """A table whose scorekeeper imported its match's first ``events`` events, at version ``events``."""
    phones = [loadgen.Phone(base, loadgen.address(number * 4 + i)) for i in range(1 + loadgen.SPECTATORS)]
    table = loadgen.Table(phones[0], phones[1:])
    keeper = table.keeper
    page = (await keeper.request("GET", "/import", headers=loadgen.PLAIN))[2].decode()
    table.token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    table.script = loadgen.scripts()[number % len(loadgen.scripts())]
    text = dumps(MatchFile(loadgen.PLAYERS, Rules(target=loadgen.TARGET), tuple(table.script[:events])))
    form = {"text": text, "csrf_token": table.token}
    status, headers, _ = await keeper.request("POST", "/import", form, loadgen.PLAIN)
    if status != 303:
        raise RuntimeError(f"importing a match answered {status}")
    table.match = headers["Location"].rstrip("/").split("/")[-2]  # /m/<id>/history
    table.version = events
    share = (await keeper.request("GET", f"/m/{table.match}/handover", headers=loadgen.PLAIN))[2].decode()
    table.watch = re.search(r"/watch\?t=([\w-]+)", share).group(1)
    return table


async def open_long_tables(base: str, first: int, count: int, events: int) -> list[loadgen.Table]:
    gate = asyncio.Semaphore(8)

    async def one(number: int) -> loadgen.Table:
        async with gate:
            return await open_long_table(base, number, events)

    return list(await asyncio.gather(*(one(first + n) for n in range(count))))


def row(label: str, runs: list[dict[str, float]]) -> str:
    cells = []
    for _, key, width, digits in COLUMNS:
        if key in TOTALS:
            cells.append(f"{sum(r[key] for r in runs):>{width},.0f}")
        else:
            cells.append(f"{min_median([r[key] for r in runs], digits):>{width}}")
    return f"{label:<22}" + "".join(cells)


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    print(
        f"matches of {args.events} events imported first, then a tap every {loadgen.TAP_EVERY:g} s;"
        f" {loadgen.SPECTATORS} spectators each on the stream; scorekeeper serve, its defaults;"
        f" {args.seconds:g} s per run, min/median of {args.runs} runs; latencies in ms;"
        f" load average {load_average()} at the start"
    )
    loadgen.scripts()
    print(f"{'cache, tables':<22}" + "".join(f"{h:>{w}}" for h, _, w, _ in COLUMNS))
    for budget in args.cache_mb or [None]:
        env = {} if budget is None else {"SCOREKEEPER_CACHE_MB": str(budget)}
        name = "default" if budget is None else f"{budget} MB"
        server = Served("app", folder / f"long-{name.replace(' ', '')}.sqlite", env=env).start()
        tables: list[loadgen.Table] = []
        settle = 0.0  # a fresh server holds no stream
        try:
            for count in args.tables:
                began = time.monotonic()
                tables += await open_long_tables(server.base, len(tables), count - len(tables), args.events)
                made, rss = time.monotonic() - began, server.rss_mb()
                done, errors = [], []
                for _ in range(args.runs):
                    run = await push.one_run(tables[:count], args.seconds, server.cpu_seconds, settle)
                    settle = push.SETTLE
                    done.append({**push.figures(run), "rss": server.rss_mb()})
                    errors += run.errors
                print(row(f"{name}, {count:,}", done))
                print(
                    f"{'':>4}tables made in {made:.0f} s; RSS {rss:.0f} MB after the imports;"
                    f" unseen {sum(d['unseen'] for d in done):.0f}; server CPU ms per tap, boards and"
                    f" streams included, {min_median([d['server cores'] * loadgen.TAP_EVERY / count * 1e3 for d in done], 2)}"
                    + (f"; first errors: {errors[:2]}" if errors else ""),
                    flush=True,
                )
            await loadgen.close_tables({server: tables})
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--events", type=int, default=250, help="events each match holds before the run")
    parser.add_argument("--cache-mb", type=int, nargs="+", help="cache budgets (default: the app's own)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="bench-long-") as folder:
        asyncio.run(main_async(args, Path(folder)))


if __name__ == "__main__":
    main()
