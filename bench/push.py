"""The live view pushed: how soon a spectator sees a tap, and what holding the streams costs.

Run: python bench/push.py [--tables 100 300 1000] [--seconds 20] [--runs 3] [--workers 1] [--threads 8]
                          [--classes gthread gevent]

N tables, each a scorekeeper tapping every 10 s (open loop: each tap fires at its
scheduled time) and three spectators, each holding the live view's stream
(``/watch/stream``) as the page does. An ``event: version`` says the match's
version: when it is newer than the board's, the spectator fetches the board
(``/watch/board`` with the version it shows) on a second connection, as a
browser would. An ``event: board`` brings the board itself, its version as the
event's id: the spectator has it without a fetch. A stream the server declines
(204, its streams are full) leaves that spectator polling every 2 s, as the page does.

Prints, per worker class and table count, min/median of ``--runs`` runs: tap p99
(from its scheduled time); the spectators' update latency p95 and p99 from the
tap's scheduled time to the new board in the spectator's hands (as bench/load.py
counts it for polling spectators), and its p95 from the tap's acknowledgement
(its 200: it can be negative, the push may beat the acknowledgement); how many
spectators hold a stream and how many poll; errors and dropped requests (totals
of the runs); the server's cores per 1,000 tables and the generator's own CPU,
both over the scheduled window; worker RSS. After the last scheduled tap a run
drains for at most 10 s: the spectators listen until each has its table's last
version, a request still unanswered then is dropped, and an update a spectator
never got is counted (unseen). The app alone: the minimal app has no stream
(bench/capacity.py prints its polling rows beside these). Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
from load import ms, raise_file_limit  # noqa: E402
from servers import Served, machine_busy_seconds, min_median, running  # noqa: E402

from scorekeeper.web import live  # noqa: E402
from scorekeeper.web.eventlog import MATCH_EVENT_BYTES, STATE_EVENT_BYTES  # noqa: E402

OPENING = 2.0  # seconds between the last stream opened and the first tap
SETTLE = (
    live.HEARTBEAT * (1 + live.JITTER) + 1.0
)  # seconds for the server to drop the streams of the run before
CONNECTING = 120.0  # seconds the streams may take to open, at most
DRAIN = 10.0  # as loadgen.open_loop: what is unanswered this long after the last scheduled tap is dropped
T = TypeVar("T")


@dataclass
class Run:
    """One run of tables with their streams: what the phones saw, and what it cost."""

    seconds: float
    taps: list[float] = field(default_factory=list)  # from each tap's scheduled time to its answer
    due: dict[tuple[int, int], float] = field(default_factory=dict)  # (table, version) -> tap first due
    acked: dict[tuple[int, int], float] = field(default_factory=dict)  # (table, version) -> acknowledged
    seen: list[tuple[int, int, float]] = field(default_factory=list)  # (table, version, board received)
    shown: dict[tuple[int, int], int] = field(default_factory=dict)  # (table, spectator) -> version held
    errors: list[str] = field(default_factory=list)
    streaming: int = 0
    polling: int = 0
    unsent: int = 0  # taps scheduled and not sent yet
    waiting: int = 0  # requests sent and neither answered nor failed yet
    unseen: int = 0  # versions acknowledged that a spectator did not get by the end
    server_cpu: float = 0.0  # CPU seconds over the scheduled window
    own_cpu: float = 0.0
    others: float = 0.0  # cores other processes took over the window

    def updates(self, since: Mapping[tuple[int, int], float]) -> list[float]:
        """From each tap's time in ``since`` (``due`` or ``acked``) to each spectator's new board, in s."""
        return [at - since[(t, v)] for t, v, at in self.seen if (t, v) in since]

    @property
    def dropped(self) -> int:
        """Requests of the run unanswered at the end of the drain: sent and not answered, or never sent."""
        return self.unsent + self.waiting

    async def ask(self, request: Awaitable[T], what: str) -> T | None:
        """A request's answer, or None if it failed (an error); waiting until then (dropped if cancelled)."""
        self.waiting += 1
        try:
            answer = await request
        except Exception as error:  # noqa: BLE001 - every failure is counted
            self.waiting -= 1
            self.errors.append(f"{what} {error!r}")
            return None
        self.waiting -= 1
        return answer


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


async def spectator(
    table: loadgen.Table, at: tuple[int, int], phone: loadgen.Phone, run: Run, stop: asyncio.Future[None]
) -> None:
    """Hold the stream until ``stop``: take the board it brings, or fetch it when told of a newer version.

    Poll every 2 s if the server declines the stream, as the page does.
    """
    loop = asyncio.get_running_loop()
    run.shown[at] = table.version

    def show(now: int) -> None:
        for version in range(run.shown[at] + 1, now + 1):
            run.seen.append((at[0], version, loop.time()))
        run.shown[at] = max(run.shown[at], now)

    async def fetch() -> None:
        answer = await run.ask(table.check(phone, run.shown[at]), "board")
        if answer is not None and answer[0] not in (200, 304):
            run.errors.append(f"board {answer[0]}")
        elif answer is not None:
            show(answer[1])

    timeout = aiohttp.ClientTimeout(total=None, sock_read=30)
    async with aiohttp.ClientSession(phone.session._base_url, timeout=timeout) as stream:
        # As the page asks: with the version it shows (the board comes at once only if it is behind).
        async with stream.get(f"/watch/stream?t={table.watch}&v={run.shown[at]}") as response:
            if response.status == 200:
                run.streaming += 1
                events = sse_events(response.content)
                while True:  # an event, or the stop: a board fetch on its way is never cut short
                    step = asyncio.ensure_future(anext(events, None))
                    await asyncio.wait((step, stop), return_when=asyncio.FIRST_COMPLETED)
                    if not step.done() or step.result() is None:
                        step.cancel()
                        return
                    name, ident, data = step.result()
                    if name == "board":  # the board itself, at version ``id``
                        show(int(ident))
                    elif name == "version" and int(data) > run.shown[at]:
                        await fetch()
            if response.status != 204:
                run.errors.append(f"stream {response.status}")
    run.polling += 1
    while not stop.done():  # declined: the page polls
        await asyncio.wait((stop,), timeout=loadgen.POLL_EVERY)
        if not stop.done():
            await fetch()


async def scorekeeper(table: loadgen.Table, number: int, run: Run, dues: list[float]) -> None:
    loop = asyncio.get_running_loop()
    for due in dues:
        await asyncio.sleep(max(0.0, due - loop.time()))
        run.unsent -= 1
        # A tap that failed goes again at its next time: its version counts from the first.
        run.due.setdefault((number, table.version + 1), due)
        status = await run.ask(table.tap(), "tap")
        if status == 200:
            run.taps.append(loop.time() - due)
            run.acked[(number, table.version)] = loop.time()
        elif status is not None:
            run.errors.append(f"tap {status}")


async def one_run(tables: list[loadgen.Table], seconds: float, server_cpu: Callable[[], float]) -> Run:
    """The tables on their schedule for ``seconds``, each spectator holding its stream, then the drain."""
    loop = asyncio.get_running_loop()
    run = Run(seconds)
    # The streams of the run before are closed by their phones, but the server finds that out
    # only when it next writes to them (a heartbeat, at most HEARTBEAT × (1 + JITTER) later):
    # until then they count against its streams, and a new spectator beyond them is declined.
    await asyncio.sleep(SETTLE)
    stop: asyncio.Future[None] = loop.create_future()
    keepers, spectators = [], []
    for number, table in enumerate(tables):
        for place, phone in enumerate(table.spectators):
            spectators.append(asyncio.ensure_future(spectator(table, (number, place), phone, run, stop)))
    # The goal is about spectators connected: the taps begin once every stream is open (or declined),
    # and OPENING later, so that the streams' opening burst is not taken for the taps' latency.
    opened = loop.time() + CONNECTING
    while run.streaming + run.polling < len(spectators) and loop.time() < opened:
        await asyncio.sleep(0.1)
    start = loop.time() + OPENING
    end = start + seconds
    for number, table in enumerate(tables):
        dues = loadgen.schedule(start + (number * 0.618034 % 1) * loadgen.TAP_EVERY, loadgen.TAP_EVERY, end)
        run.unsent += len(dues)
        keepers.append(asyncio.ensure_future(scorekeeper(table, number, run, dues)))
    with loadgen.frozen_gc():
        await asyncio.sleep(max(0.0, start - loop.time()))
        cpu, mine, busy = server_cpu(), time.process_time(), machine_busy_seconds()
        await asyncio.sleep(max(0.0, end - loop.time()))
        run.server_cpu, run.own_cpu = server_cpu() - cpu, time.process_time() - mine
        run.others = max(0.0, machine_busy_seconds() - busy - run.server_cpu - run.own_cpu) / seconds
        deadline = end + DRAIN
        await asyncio.wait(keepers, timeout=max(0.0, deadline - loop.time()))
        while loop.time() < deadline and any(v < tables[t].version for (t, _), v in run.shown.items()):
            await asyncio.sleep(0.1)
    run.unseen = sum(max(0, tables[t].version - v) for (t, _), v in run.shown.items())
    stop.set_result(None)
    await asyncio.wait(spectators, timeout=max(0.0, deadline - loop.time()))
    for task in (*keepers, *spectators):
        task.cancel()
    results = await asyncio.gather(*keepers, *spectators, return_exceptions=True)
    run.errors += [repr(r) for r in results if isinstance(r, Exception)]
    return run


def figures(run: Run, count: int) -> dict[str, float]:
    """One run's figures, by the keys of COLUMNS (latencies in ms)."""
    return {
        "tap": ms(run.taps, 0.99),
        "p95": ms(run.updates(run.due), 0.95),
        "p99": ms(run.updates(run.due), 0.99),
        "ack": ms(run.updates(run.acked), 0.95),
        "streaming": run.streaming,
        "polling": run.polling,
        "errors": len(run.errors),
        "dropped": run.dropped,
        "cores": run.server_cpu / run.seconds * 1000 / count,
        "gen": run.own_cpu / run.seconds * 100,
    }


def polling_figures(run: loadgen.Open, cpu: float, count: int) -> dict[str, float]:
    """The same figures of an open-loop run whose spectators poll (bench/load.py's rows)."""
    return {
        "tap": ms(run.taps, 0.99),
        "p95": ms(run.updates, 0.95),
        "p99": ms(run.updates, 0.99),
        "streaming": 0,
        "polling": count * loadgen.SPECTATORS,
        "errors": len(run.errors),
        "dropped": run.dropped,
        "cores": cpu / run.seconds * 1000 / count,
        "gen": run.cpu / run.wall * 100,
    }


COLUMNS = (  # heading, key, width, digits; errors and dropped are totals of the runs, not min/median
    ("tap p99", "tap", 11, 0),
    ("update p95", "p95", 12, 0),
    ("update p99", "p99", 12, 0),
    ("p95 from ack", "ack", 14, 0),
    ("streaming", "streaming", 12, 0),
    ("polling", "polling", 12, 0),
    ("errors", "errors", 7, 0),
    ("dropped", "dropped", 8, 0),
    ("cores/1000 t", "cores", 14, 2),
    ("gen CPU %", "gen", 10, 0),
)
TOTALS = ("errors", "dropped")


def heading() -> str:
    return f"{'tables':>6} {'server':<22}" + "".join(f"{h:>{w}}" for h, _, w, _ in COLUMNS)


def row(count: int, label: str, runs: list[dict[str, float]]) -> str:
    """A row of ``heading()``: min/median of each figure of the runs, totals of errors and dropped."""
    cells = []
    for _, key, width, digits in COLUMNS:
        if key in TOTALS:
            cells.append(f"{sum(r[key] for r in runs):>{width},.0f}")
        else:
            cells.append(f"{min_median([r[key] for r in runs if key in r], digits):>{width}}")
    return f"{count:>6} {label:<22}" + "".join(cells)


async def push_rows(
    server: Served,
    tables: list[loadgen.Table],
    counts: list[int],
    runs: int,
    seconds: float,
    beside: Mapping[int, list[dict[str, float]]] | None = None,
) -> dict[int, list[dict[str, float]]]:
    """Each table count's row on ``server`` (its figures, by count), opening tables into ``tables`` as needed.

    ``beside`` (figures by count) is printed under the row of its count: in bench/capacity.py,
    the reference's polling rows.
    """
    found: dict[int, list[dict[str, float]]] = {}
    for count in counts:
        tables += await loadgen.open_tables(server.base, len(tables), count - len(tables), False)
        rss = server.worker_rss_mb()
        done, errors, unseen, others = [], [], [], []
        for _ in range(runs):
            run = await one_run(tables[:count], seconds, server.cpu_seconds)
            done.append(figures(run, count))
            errors += run.errors
            unseen.append(run.unseen)
            others.append(run.others)
        found[count] = done
        print(row(count, f"app, {server.worker_class}, push", done))
        print(
            f"{'':>7}worker RSS MB {', '.join(f'{x:.0f}' for x in rss)} at the start,"
            f" {', '.join(f'{x:.0f}' for x in server.worker_rss_mb())} at the end;"
            f" updates unseen at the end {sum(unseen)}; other processes took {min_median(others)} cores"
            + (f"; first errors: {errors[:2]}" if errors else "")
        )
        if beside and count in beside:
            print(row(count, "minimal, polling", beside[count]))
    return found


CACHED_EVENT_BYTES = MATCH_EVENT_BYTES + STATE_EVENT_BYTES


def stored_events(db: Path) -> int:
    """The events stored in the server's database so far (a reader beside the server, WAL)."""
    with contextlib.closing(sqlite3.connect(db, timeout=30)) as connection:
        return int(connection.execute("SELECT count(*) FROM events").fetchone()[0])


async def soak(server: Served, tables: list[loadgen.Table], minutes: int) -> list[list[float]]:
    """``tables`` with their streams for ``minutes`` in one run; worker RSS each minute, printed and returned."""
    loop = asyncio.get_running_loop()
    start = loop.time() + OPENING  # minutes counted from about when one_run begins to settle and open
    samples: list[list[float]] = []

    async def sample() -> None:
        for minute in range(1, minutes + 1):
            await asyncio.sleep(max(0.0, start + 60 * minute - loop.time()))
            samples.append(server.worker_rss_mb())
            print(f"{'':>7}minute {minute:>3}: worker RSS MB {', '.join(f'{x:.0f}' for x in samples[-1])}")

    sampler = asyncio.ensure_future(sample())
    events = stored_events(server.db)
    run = await one_run(tables, minutes * 60.0, server.cpu_seconds)
    await sampler
    added = stored_events(server.db) - events
    print(heading())
    print(row(len(tables), f"app, {server.worker_class}, push", [figures(run, len(tables))]))
    growth = [last - first for first, last in zip(samples[0], samples[-1], strict=False)]
    print(
        f"{'':>7}worker RSS growth from minute 1 to minute {minutes}: {', '.join(f'{g:+.1f} MB' for g in growth)};"
        f" updates unseen at the end {run.unseen}"
        # What the live matches grew by meanwhile: a worker keeps every match it serves (the cache's
        # budget is far from full here), charged by eventlog's estimate of a kept match and state.
        f"\n{'':>7}events recorded in the soak: {added:,}, which a worker keeping every match holds as"
        f" {added * CACHED_EVENT_BYTES / 2**20:.1f} MB more (eventlog's estimate:"
        f" {CACHED_EVENT_BYTES} bytes an event, match and state)"
        + (f"; first errors: {run.errors[:2]}" if run.errors else "")
    )
    return samples


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    print(
        f"{args.workers} worker(s), {args.threads} threads (gthread); {os.cpu_count()} cores shared with the"
        f" generator; {args.seconds:g} s a run, min/median of {args.runs} (errors, dropped: totals);"
        " latencies in ms from the tap's scheduled time, 'p95 from ack' from its acknowledgement;"
        f" load average {os.getloadavg()[0]:.1f} at the start"
    )
    print(heading())
    loadgen.scripts()
    for worker_class in args.classes:
        server = Served("app", folder / f"{worker_class}.sqlite", args.workers, args.threads, worker_class)
        tables: list[loadgen.Table] = []
        with running(server):
            await push_rows(server, tables, args.tables, args.runs, args.seconds)
        await loadgen.close_tables({server: tables})
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
