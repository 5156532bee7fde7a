"""The live view pushed, as a spectator's page follows it: the machinery of bench/capacity.py and
bench/attacks.py (no command of its own).

``one_run`` drives tables on their schedule: each scorekeeper taps every ``tap_every`` s (open
loop: each tap fires at its scheduled time, and its latency counts from that time), and each
spectator holds the live view's stream (``/watch/stream``) as the page does. An
``event: version`` says the match's version: when it is newer than the board's, the spectator
fetches the board (``/watch/board`` with the version it shows) on a second connection, as a
browser would. An ``event: board`` brings the board itself, its version as the event's id: the
spectator has it without a fetch. A stream the server declines (204: it holds as many streams
as it may) leaves that spectator polling every 2 s, as the page does.

A run's figures: each tap's latency from its scheduled time; each spectator's update latency,
from the tap's scheduled time (and from its acknowledgement: the push can beat it) to the new
board in the spectator's hands; how many spectators hold a stream and how many poll; errors;
what was dropped (after the last scheduled tap a run drains for at most 10 s, until every
spectator has its table's last version: a request unanswered then is dropped, and a version a
spectator never got is unseen); the server's CPU and the generator's own over the scheduled
window, and the generator's lag (how late its event loop woke for a 50 ms sleep).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import aiohttp
import loadgen
from servers import machine_busy_seconds, ms

from scorekeeper.web import live

OPENING = 2.0  # seconds between the last stream opened and the first tap
# Seconds for a server to drop the streams of the run before: their phones closed them, but the
# server finds that out only when it next writes to them (a heartbeat, at most HEARTBEAT × (1 +
# JITTER) later), and until then they count against its streams. A fresh server needs none.
SETTLE = live.HEARTBEAT * (1 + live.JITTER) + 1.0
CONNECTING = 120.0  # seconds the streams may take to open, at most
DRAIN = 10.0  # what is unanswered this long after the last scheduled tap is dropped
TICK = 0.05  # the generator's lag probe: a sleep this long, again and again
T = TypeVar("T")


@dataclass
class Run:
    """One run of tables with their streams: what the phones saw, and what it cost."""

    seconds: float
    taps: list[float] = field(default_factory=list)  # from each tap's scheduled time to its answer
    fresh: list[float] = field(default_factory=list)  # those of the taps sent on a new connection
    due: dict[tuple[int, int], float] = field(default_factory=dict)  # (table, version) -> tap first due
    acked: dict[tuple[int, int], float] = field(default_factory=dict)  # (table, version) -> acknowledged
    seen: list[tuple[int, int, float]] = field(default_factory=list)  # (table, version, board received)
    shown: dict[tuple[int, int], int] = field(default_factory=dict)  # (table, spectator) -> version held
    errors: list[str] = field(default_factory=list)  # each begins with what failed: tap, board, stream
    streaming: int = 0
    polling: int = 0
    unsent: int = 0  # taps scheduled and not sent yet
    waiting: int = 0  # requests sent and neither answered nor failed yet
    unseen: int = 0  # versions acknowledged that a spectator did not get by the end
    server_cpu: float = 0.0  # CPU seconds over the scheduled window
    own_cpu: float = 0.0
    others: float = 0.0  # cores other processes took over the window
    lag: list[float] = field(default_factory=list)  # how late the generator woke, over the window

    def updates(self, since: Mapping[tuple[int, int], float]) -> list[float]:
        """From each tap's time in ``since`` (``due`` or ``acked``) to each spectator's new board, in s."""
        return [at - since[(t, v)] for t, v, at in self.seen if (t, v) in since]

    @property
    def dropped(self) -> int:
        """Requests of the run unanswered at the end of the drain: sent and not answered, or never sent."""
        return self.unsent + self.waiting

    @property
    def tap_errors(self) -> list[str]:
        return [e for e in self.errors if e.startswith("tap")]

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
    connector = loadgen.Connector(phone.source)  # a second connection from the phone's address
    try:
        async with aiohttp.ClientSession(
            phone.session._base_url, connector=connector, timeout=timeout
        ) as stream:
            # As the page asks: with the version it shows (the board comes at once only if it is behind).
            async with stream.get(f"/watch/stream?t={table.watch}&v={run.shown[at]}") as response:
                if response.status == 200:
                    run.streaming += 1
                    events = sse_events(response.content)
                    while True:  # an event, or the stop: a board fetch on its way is never cut short
                        step = asyncio.ensure_future(anext(events, None))
                        await asyncio.wait((step, stop), return_when=asyncio.FIRST_COMPLETED)
                        if stop.done():
                            step.cancel()
                            await asyncio.gather(step, return_exceptions=True)
                            return
                        event = step.result()  # a failed connection raises: counted below, the page polls
                        if event is None:  # the server ended the stream: the page polls
                            run.errors.append("stream ended")
                            break
                        name, ident, data = event
                        if name == "board":  # the board itself, at version ``id``
                            show(int(ident))
                        elif name == "version" and int(data) > run.shown[at]:
                            await fetch()
                elif response.status != 204:
                    run.errors.append(f"stream {response.status}")
    except (TimeoutError, aiohttp.ClientError) as error:  # the page polls on
        run.errors.append(f"stream {error!r}")
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
            if table.keeper.fresh:
                run.fresh.append(loop.time() - due)
            run.acked[(number, table.version)] = loop.time()
        elif status is not None:
            run.errors.append(f"tap {status}")


async def one_run(
    tables: list[loadgen.Table],
    seconds: float,
    server_cpu: Callable[[], float],
    settle: float = SETTLE,
    tap_every: float = loadgen.TAP_EVERY,
    under_way: Callable[[], Awaitable[None]] | None = None,
) -> Run:
    """The tables on their schedule for ``seconds``, each spectator holding its stream, then the drain.

    ``under_way`` is awaited once every stream is open (or declined), before the taps begin.
    """
    loop = asyncio.get_running_loop()
    run = Run(seconds)
    await asyncio.sleep(settle)
    stop: asyncio.Future[None] = loop.create_future()
    keepers, spectators = [], []
    for number, table in enumerate(tables):
        for place, phone in enumerate(table.spectators):
            spectators.append(asyncio.ensure_future(spectator(table, (number, place), phone, run, stop)))
    # The taps begin once every stream is open (or declined), and OPENING later, so that the
    # streams' opening burst is not taken for the taps' latency.
    opened = loop.time() + CONNECTING
    while run.streaming + run.polling < len(spectators) and loop.time() < opened:
        await asyncio.sleep(0.1)
    if under_way is not None:
        await under_way()
    start = loop.time() + OPENING
    end = start + seconds
    for number, table in enumerate(tables):
        dues = loadgen.schedule(start + (number * 0.618034 % 1) * tap_every, tap_every, end)
        run.unsent += len(dues)
        keepers.append(asyncio.ensure_future(scorekeeper(table, number, run, dues)))

    async def probe() -> None:
        while True:
            asked = loop.time()
            await asyncio.sleep(TICK)
            run.lag.append(loop.time() - asked - TICK)

    with loadgen.frozen_gc():
        await asyncio.sleep(max(0.0, start - loop.time()))
        cpu, mine, busy = server_cpu(), time.process_time(), machine_busy_seconds()
        prober = asyncio.ensure_future(probe())
        await asyncio.sleep(max(0.0, end - loop.time()))
        prober.cancel()
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


async def lost(tables: list[loadgen.Table]) -> int:
    """Acknowledged taps the server does not hold: each table's version against its board's.

    The board's version (its ETag) is the match's count of events; a tap that timed out may be
    there too (the phone never heard), so only a version below the acknowledged ones is a loss.
    """
    missing = 0
    for table in tables:
        for attempt in range(6):  # an overloaded server may still be answering the run's requests
            try:
                status, stored = await table.check(table.spectators[0], -1)
                break
            except (TimeoutError, aiohttp.ClientError):
                if attempt == 5:
                    raise
                await asyncio.sleep(10)
        if status != 200:
            raise RuntimeError(f"the board answered {status}")
        missing += max(0, table.version - stored)
    return missing


def figures(run: Run) -> dict[str, float]:
    """One run's figures by name (latencies in ms, CPU in cores over the scheduled window)."""
    return {
        "tap p50": ms(run.taps, 0.50),
        "tap p95": ms(run.taps, 0.95),
        "tap p99": ms(run.taps, 0.99),
        "tap max": max(run.taps, default=float("nan")) * 1e3,
        "new-connection tap p95": ms(run.fresh, 0.95),
        "new-connection tap max": max(run.fresh, default=float("nan")) * 1e3,
        "update p95": ms(run.updates(run.due), 0.95),
        "update p99": ms(run.updates(run.due), 0.99),
        "p95 from ack": ms(run.updates(run.acked), 0.95),
        "streaming": run.streaming,
        "polling": run.polling,
        "errors": len(run.errors),
        "tap errors": len(run.tap_errors),
        "dropped": run.dropped,
        "unseen": run.unseen,
        "server cores": run.server_cpu / run.seconds,
        "gen CPU %": run.own_cpu / run.seconds * 100,
        "gen lag p99": ms(run.lag, 0.99),
        "others": run.others,
    }
