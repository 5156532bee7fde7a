"""Long matches: N tables whose matches already hold E events, the live view pushed.

Run: python bench/long_matches.py [--tables 1000] [--events 250] [--cache-mb 32 128]
                                  [--seconds 20] [--runs 1] [--workers 2]

bench/capacity.py starts every table with a new match, so its matches hold a few dozen
events at most; an evening's match holds some 150-400 (about 20 a round, 8-15
rounds). Here each table's scorekeeper imports its match's first E events
(``/import``, the script of bench/loadgen.py up to E) before the run, then taps on
from there every 10 s, with three spectators holding the stream, as in bench/push.py.
Everything else is push.py's: the same schedule, the same figures, the app alone
under gunicorn gevent. One server per ``--cache-mb`` (SCOREKEEPER_CACHE_MB, each
worker's cache budget), one after the other, each with its own database; between the
rows, what a worker keeps per match decides whether a tap and a board find their match
and state kept or read the whole log and replay it. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
import push  # noqa: E402
from load import raise_file_limit  # noqa: E402
from servers import Served, min_median, running  # noqa: E402

from scorekeeper.matchfile import MatchFile, dumps  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402

GENEROUS = "1000000 per minute"  # the import rate limit, for the set-up's imports only


async def open_long_table(base: str, number: int, events: int) -> loadgen.Table:
    """A table whose scorekeeper imported its match's first ``events`` events, at version ``events``."""
    table = loadgen.Table(loadgen.Phone(base), [loadgen.Phone(base) for _ in range(loadgen.SPECTATORS)])
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


async def open_long_tables(base: str, count: int, events: int) -> list[loadgen.Table]:
    gate = asyncio.Semaphore(8)

    async def one(number: int) -> loadgen.Table:
        async with gate:
            return await open_long_table(base, number, events)

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    print(
        f"{args.tables:,} tables, matches of {args.events} events imported first, then a tap every 10 s;"
        f" 3 spectators each holding the stream; gunicorn gevent, {args.workers} workers; {args.seconds:g} s"
        f" per run, min/median of {args.runs} runs; latencies in ms"
    )
    loadgen.scripts()
    os.environ["SCOREKEEPER_IMPORT_RATE_LIMIT"] = GENEROUS
    print(push.heading())
    for budget in args.cache_mb:
        os.environ["SCOREKEEPER_CACHE_MB"] = str(budget)
        app = Served("app", folder / f"long-{budget}.sqlite", args.workers, 8, worker_class="gevent")
        with running(app):
            began = time.monotonic()
            tables = await open_long_tables(app.base, args.tables, args.events)
            made = time.monotonic() - began
            rss = app.worker_rss_mb()
            done, errors, unseen = [], [], []
            for _ in range(args.runs):
                run = await push.one_run(tables, args.seconds, app.cpu_seconds)
                done.append(push.figures(run, args.tables))
                errors += run.errors
                unseen.append(run.unseen)
            print(push.row(args.tables, f"cache {budget} MB", done))
            print(
                f"{'':>7}tables made in {made:.0f} s; worker RSS MB {', '.join(f'{x:.0f}' for x in rss)} after"
                f" the imports, {', '.join(f'{x:.0f}' for x in app.worker_rss_mb())} at the end;"
                f" updates unseen {sum(unseen)}; server CPU ms per tap, boards and streams included,"
                f" {min_median([d['cores'] * 10 for d in done], 2)}"
                + (f"; first errors: {errors[:2]}" if errors else "")
            )
            await loadgen.close_tables({app: tables})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--events", type=int, default=250, help="events each match holds before the run")
    parser.add_argument(
        "--cache-mb", type=int, nargs="+", default=[32, 128], help="each worker's cache budget"
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="bench-long-") as folder:
        asyncio.run(main_async(args, Path(folder)))


if __name__ == "__main__":
    main()
