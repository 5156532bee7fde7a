"""The live view pushed: how soon a spectator sees a tap, and what holding the streams costs.

Run: python bench/push.py [--tables 100 300 1000] [--seconds 20] [--runs 3] [--workers 1] [--threads 8]
                          [--classes gthread gevent]

N tables, each a scorekeeper tapping every 10 s (open loop: each tap fires at its
scheduled time) and three spectators, each holding the live view's stream
(``/watch/stream``) as the page does: when the stream says a newer version, the
spectator fetches the board (``/watch/board`` with the version it shows), on a
second connection, as a browser would. A stream the server declines (204, its
streams are full) leaves that spectator polling every 2 s, as the page does.

Prints, per worker class and table count, min/median of ``--runs`` runs: tap p99;
the spectators' update latency p95 and p99 from the tap's acknowledgement (its
200) to the new board in the spectator's hands (it can be negative: the push may
beat the acknowledgement); how many spectators hold a stream and how many poll;
errors; the server's CPU per 1,000 tables; worker RSS; the generator's own CPU.
The app alone (no reference: the minimal app has no stream). Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
from load import ms, raise_file_limit  # noqa: E402
from servers import Served, min_median, running  # noqa: E402


@dataclass
class Run:
    taps: list[float] = field(default_factory=list)
    acked: dict[tuple[int, int], float] = field(default_factory=dict)  # (table, version) -> acknowledged
    seen: list[tuple[int, int, float]] = field(default_factory=list)  # (table, version, board received)
    errors: list[str] = field(default_factory=list)
    streaming: int = 0
    polling: int = 0

    def updates(self) -> list[float]:
        """From each tap's acknowledgement to each spectator's new board, in seconds."""
        return [at - self.acked[(t, v)] for t, v, at in self.seen if (t, v) in self.acked]


async def sse_events(lines: AsyncIterable[bytes]) -> AsyncIterator[tuple[str, str, str]]:
    """Each server-sent event of a stream's lines as (event, id, data), at the blank line that ends it.

    As the browser's EventSource reads them: ``data:`` lines join with newlines, the
    event is ``message`` unless named, the id holds until another comes, and a block
    without data (the opening ``retry:``, a comment) is no event.
    """
    name, ident, data = "message", "", []
    async for raw in lines:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if data:
                yield name, ident, "\n".join(data)
            name, data = "message", []
            continue
        key, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)
        elif key == "id":
            ident = value


async def spectator(table: loadgen.Table, number: int, phone: loadgen.Phone, run: Run, end: float) -> None:
    """Hold the stream: take the board it brings, or fetch the board when it says a newer version.

    Poll every 2 s if the server declines the stream, as the page does.
    """
    loop = asyncio.get_running_loop()
    shown = table.version

    def show(now: int) -> None:
        nonlocal shown
        for version in range(shown + 1, now + 1):
            run.seen.append((number, version, loop.time()))
        shown = max(shown, now)

    async def fetch() -> None:
        status, now = await table.check(phone, shown)
        if status not in (200, 304):
            run.errors.append(f"board {status}")
        show(now)

    timeout = aiohttp.ClientTimeout(total=None, sock_read=30)
    async with aiohttp.ClientSession(phone.session._base_url, timeout=timeout) as stream:
        async with stream.get(f"/watch/stream?t={table.watch}") as response:
            if response.status == 200:
                run.streaming += 1
                try:
                    async with asyncio.timeout_at(end):
                        async for name, ident, data in sse_events(response.content):
                            if name == "board":  # the board itself, at version ``id``: no fetch
                                show(int(ident))
                            elif name == "version" and int(data) > shown:
                                await fetch()
                except TimeoutError:
                    pass
                return
            if response.status != 204:
                run.errors.append(f"stream {response.status}")
    run.polling += 1
    while loop.time() < end:  # declined: the page polls
        await asyncio.sleep(loadgen.POLL_EVERY)
        await fetch()


async def scorekeeper(table: loadgen.Table, number: int, run: Run, start: float, end: float) -> None:
    loop = asyncio.get_running_loop()
    due = start + (number * 0.618034 % 1) * loadgen.TAP_EVERY
    while due < end:
        await asyncio.sleep(max(0.0, due - loop.time()))
        try:
            status = await table.tap()
        except Exception as error:  # noqa: BLE001 - every failure is counted
            run.errors.append(f"tap {error!r}")
        else:
            if status == 200:
                run.taps.append(loop.time() - due)
                run.acked[(number, table.version)] = loop.time()
            else:
                run.errors.append(f"tap {status}")
        due += loadgen.TAP_EVERY


async def one_run(tables: list[loadgen.Table], seconds: float) -> Run:
    loop = asyncio.get_running_loop()
    run = Run()
    start = loop.time() + 2.0  # the streams open first
    end = start + seconds
    tasks = []
    for number, table in enumerate(tables):
        tasks.append(scorekeeper(table, number, run, start, end))
        tasks += [spectator(table, number, phone, run, end + 1.0) for phone in table.spectators]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    run.errors += [repr(r) for r in results if isinstance(r, BaseException)]
    return run


async def measure(server: Served, counts: list[int], runs: int, seconds: float) -> None:
    tables: list[loadgen.Table] = []
    for count in counts:
        tables += await loadgen.open_tables(server.base, len(tables), count - len(tables), False)
        got: dict[str, list[float]] = {k: [] for k in ("tap", "p95", "p99", "cores", "stream", "poll", "gen")}
        errors: list[str] = []
        for _ in range(runs):
            cpu, mine, began = server.cpu_seconds(), time.process_time(), time.monotonic()
            run = await one_run(tables[:count], seconds)
            wall = time.monotonic() - began
            updates = run.updates()
            got["tap"].append(ms(run.taps, 0.99))
            got["p95"].append(ms(updates, 0.95))
            got["p99"].append(ms(updates, 0.99))
            got["cores"].append((server.cpu_seconds() - cpu) / wall * 1000 / count)
            got["stream"].append(run.streaming)
            got["poll"].append(run.polling)
            got["gen"].append((time.process_time() - mine) / wall * 100)
            errors += run.errors
        figures = "".join(
            f"{min_median(got[k], 0 if k != 'cores' else 2):>{w}}"
            for k, w in (
                ("tap", 12),
                ("p95", 12),
                ("p99", 12),
                ("stream", 12),
                ("poll", 12),
                ("cores", 14),
                ("gen", 10),
            )
        )
        rss = ", ".join(f"{x:.0f}" for x in server.worker_rss_mb())
        print(f"{server.worker_class:<8}{count:>6}{figures}{len(errors):>7}   RSS MB {rss}")
        if errors:
            print(f"{'':>14}first errors: {errors[:3]}")
    for table in tables:
        await table.close()


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    print(
        f"{args.workers} worker(s), {args.threads} threads (gthread); {os.cpu_count()} cores shared with the"
        f" generator; {args.seconds:g} s a run, min/median of {args.runs}; latencies in ms;"
        f" load average {os.getloadavg()[0]:.1f} at the start"
    )
    head = ("tap p99", "update p95", "update p99", "streaming", "polling", "cores/1000 t", "gen CPU%")
    widths = (12, 12, 12, 12, 12, 14, 10)
    print(
        f"{'class':<8}{'tables':>6}"
        + "".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True))
        + " errors"
    )
    loadgen.scripts()
    for worker_class in args.classes:
        server = Served("app", folder / f"{worker_class}.sqlite", args.workers, args.threads, worker_class)
        with running(server):
            await measure(server, args.tables, args.runs, args.seconds)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--classes", nargs="+", default=["gthread", "gevent"])
    args = parser.parse_args()
    raise_file_limit()
    with tempfile.TemporaryDirectory(prefix="bench-push-") as folder:
        asyncio.run(main_async(args, Path(folder)))


if __name__ == "__main__":
    main()
