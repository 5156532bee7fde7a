"""The load generator of the benches: phones as asyncio tasks in one process (aiohttp).

Each phone has its own connection and its own address, as a phone has: a table's phones
connect from addresses of their own in 127.0.0.0/8 (``address``; the server holds 64
connections an address, and counts its rate limits by address). When the server closes an idle
one (waitress: after 30 s without a byte), the phone opens another: aiohttp
resends a GET that met a closed connection, and a tap is resent here with the same idempotency
key (the app records it once; the reference app's insert may count twice, which
changes nothing it measures). A phone gives up on a request after 10 s, as htmx's
timeout makes it: that is an error, and the next tap goes again with the same key,
as the unswapped page would send it. Bodies are not decompressed: the version a
phone knows comes from the ETag, as the live view's does.

Two ways to drive a server (bench/push.py has the third, spectators holding the live view's stream):
- ``closed_loop``: n clients, each sending its next request when the last one is
  answered (throughput, and latency at that concurrency);
- ``open_loop``: tables on a schedule (a scorekeeper taps every 10 s, three
  spectators poll every 2 s). A request fires at its scheduled time whatever the
  server's speed, and its latency counts from that time, so a late answer also
  delays the phone's next request and that delay is counted (no coordinated
  omission). The generator measures its own lag: how late it woke for a request
  it was free to send.
"""

from __future__ import annotations

import asyncio
import gc
import random
import re
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT / "tests" / "web", ROOT / "tests", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from simulate import random_events  # noqa: E402
from webtools import form_for  # noqa: E402

from scorekeeper.events import Event  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402

PLAYERS = ("Anna", "Bo", "Cia")
TARGET = 1000  # the highest the form takes (TRUST.md I6): 3,000 taps do not end the match
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}  # what a phone's browser sends
PLAIN = {"Accept-Encoding": "identity"}  # set-up requests whose HTML is read
TAP_EVERY, POLL_EVERY, SPECTATORS = 10.0, 2.0, 3
TIMEOUT = 10.0  # htmx.config.timeout in templates/base.html: the phone gives up and says "not saved"
_scripts: list[list[Event]] = []


def scripts() -> list[list[Event]]:
    """A few long matches of random legal play (tests/simulate.py), shared by all tables."""
    if not _scripts:
        for seed in range(4):
            events, _ = random_events(PLAYERS, Rules(target=TARGET), random.Random(seed).choice, 3000)
            _scripts.append(events)
    return _scripts


def address(phone: int) -> str:
    """The loopback address of the ``phone``-th phone of the tables: 127.1.0.1, 127.1.0.2, and so on
    (the attackers of bench/attacks.py come from 127.0.x.y)."""
    return f"127.{1 + phone // (256 * 254)}.{phone // 254 % 256}.{phone % 254 + 1}"


class Connector(aiohttp.TCPConnector):
    """One connection per phone, from its address; counts the connections opened (a closed one is reopened)."""

    opened = 0

    def __init__(self, source: str | None = None, limit: int = 1, force_close: bool = False) -> None:
        super().__init__(
            limit=limit, local_addr=None if source is None else (source, 0), force_close=force_close
        )

    async def _create_connection(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        Connector.opened += 1
        return await super()._create_connection(*args, **kwargs)


class Phone:
    """One phone: its own connection and cookie."""

    resent = 0  # taps resent after the server closed their connection

    def __init__(self, base: str, source: str | None = None) -> None:
        self.source = source  # its address (None: the system's choice, 127.0.0.1)
        self.fresh = False  # a new connection for every request
        self.session = self._session(base)
        self.cookies: dict[str, str] = {}

    def _session(self, base: str) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(
            base,
            connector=Connector(self.source, force_close=self.fresh),
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=TIMEOUT),
        )

    async def connect_anew(self) -> None:
        """From now on, a new connection for every request: a phone idle longer than the server
        keeps a connection (30 s) between its taps, as a scorekeeper often is."""
        base = self.session._base_url
        await self.session.close()
        self.fresh = True
        self.session = self._session(base)

    async def request(
        self, method: str, path: str, form: dict | None = None, headers: dict | None = None
    ) -> tuple[int, Mapping[str, str], bytes]:
        head = {**BROWSER, **(headers or {})}
        if self.cookies:
            head["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if form is not None:  # a list is a repeated field (the players' names)
            data = [(k, x) for k, v in form.items() for x in (v if isinstance(v, list) else [v])]
        for attempt in (1, 2):
            try:
                async with self.session.request(
                    method, path, data=data, headers=head, allow_redirects=False
                ) as response:
                    body = await response.read()
                    for cookie in response.headers.getall("Set-Cookie", []):
                        name, _, value = cookie.split(";", 1)[0].partition("=")
                        self.cookies[name] = value
                    return response.status, response.headers, body
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
                if attempt == 2 or method == "GET":  # aiohttp has resent the GET once already
                    raise
                Phone.resent += 1
        raise AssertionError("unreachable")

    async def close(self) -> None:
        await self.session.close()


@dataclass
class Table:
    """A table: its scorekeeper's phone and its spectators' phones, on the app or the reference."""

    keeper: Phone
    spectators: list[Phone]
    script: list[Event] = field(default_factory=list)
    version: int = 0
    match: str = ""
    watch: str = ""
    token: str = ""
    reference: bool = False
    key: str = ""  # the tap's idempotency key: a new one once a tap is recorded, as the swap brings
    due_of: dict[int, float] = field(default_factory=dict)  # version -> when the tap that made it was due

    async def tap(self) -> int:
        """The next tap, as htmx sends it; the status (200 means recorded)."""
        if self.reference:
            status, headers, _ = await self.keeper.request("POST", f"/act?m={self.match}")
            if status == 200:  # a resent insert may have counted twice: the server's count is the truth
                self.version = int(re.match(r'"v(\d+)', headers["ETag"]).group(1)) - 1
        else:
            event = self.script[self.version]
            path = f"/m/{self.match}/" + ("undo" if event.type == "undo" else "record")
            fields = {} if event.type == "undo" else form_for(event)
            # A tap that timed out is tapped again with the same key (the page was not swapped):
            # if the server had recorded it, it answers with the original result (TRUST.md W2).
            self.key = self.key or f"{self.match}-{self.version}-{random.random()}"
            form = {**fields, "version": str(self.version), "key": self.key, "csrf_token": self.token}
            status, _, _ = await self.keeper.request("POST", path, form, {"HX-Request": "true"})
        if status == 200:
            self.version += 1
            self.key = ""
        return status

    async def check(self, phone: Phone, seen: int) -> tuple[int, int]:
        """A live-view poll holding version ``seen``: (status, the version the phone now holds)."""
        path = f"/poll?m={self.match}" if self.reference else f"/watch/board?t={self.watch}"
        status, headers, _ = await phone.request(
            "GET", path, headers={"HX-Request": "true", "If-None-Match": f'"v{seen}"'}
        )
        # Flask-Compress marks the ETag of what it compressed: "v12:zstd"
        found = re.match(r'(?:W/)?"v(\d+)', headers.get("ETag", "")) if status == 200 else None
        return status, int(found.group(1)) if found else seen

    async def close(self) -> None:
        for phone in (self.keeper, *self.spectators):
            await phone.close()


async def open_table(base: str, number: int, reference: bool) -> Table:
    """A table with a match started by its own scorekeeper's phone (its own session), as at a real table."""
    phones = [Phone(base, address(number * (1 + SPECTATORS) + i)) for i in range(1 + SPECTATORS)]
    table = Table(phones[0], phones[1:], reference=reference)
    if reference:
        table.match = f"t{number}"
        return table
    keeper = table.keeper
    page = (await keeper.request("GET", "/new", headers=PLAIN))[2].decode()
    table.token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"name": list(PLAYERS), "dealer": "draw", "start": "1", "target": str(TARGET)}
    status, headers, _ = await keeper.request("POST", "/new", {**form, "csrf_token": table.token}, PLAIN)
    if status != 303:
        raise RuntimeError(f"starting a match answered {status}")
    table.match = headers["Location"].rsplit("/", 1)[1]
    share = (await keeper.request("GET", f"/m/{table.match}/handover", headers=PLAIN))[2].decode()
    table.watch = re.search(r"/watch\?t=([\w-]+)", share).group(1)
    table.script = scripts()[number % len(scripts())]
    return table


async def open_tables(base: str, first: int, count: int, reference: bool) -> list[Table]:
    """``count`` tables, numbered from ``first``, started eight at a time."""
    gate = asyncio.Semaphore(8)

    async def one(number: int) -> Table:
        async with gate:
            return await open_table(base, number, reference)

    return list(await asyncio.gather(*(one(first + i) for i in range(count))))


async def close_tables(tables: dict) -> None:
    """Close every table's connections (each server's list of tables, as the benches keep them)."""
    for made in tables.values():
        for table in made:
            await table.close()


@contextmanager
def frozen_gc() -> Iterator[None]:
    """Keep the generator's own garbage collection out of what a run times.

    Everything alive when a run starts (tables, phones, connections, streams) is moved out of the
    collector's reach (``gc.freeze``), so that a full collection in this process scans only what
    the run itself makes. Unfrozen, the generator's full collections with 3,000 open streams
    paused its event loop for up to 350 ms, and every request in flight was timed that much slower.
    Frozen, what a run makes still paused it for 90-220 ms at 200 tables (seen with gc.callbacks,
    3 December): during a run the generator does not collect at all (a run is bounded in time, and
    its garbage is collected once it ends). The server's own collections are what a run measures.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


@dataclass
class Closed:
    """A closed-loop run: requests answered, their latencies (s), errors, wall time."""

    latencies: list[float]
    errors: list[str]
    seconds: float

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds


async def closed_loop(tables: list[Table], kind: str, seconds: float) -> Closed:
    """One client per table, each sending its next ``tap`` or unchanged ``check`` as soon as answered."""
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    errors: list[str] = []
    begin = loop.time()
    end = begin + seconds

    async def client(table: Table) -> None:
        while loop.time() < end:
            start = loop.time()
            try:
                if kind == "tap":
                    status, expected = await table.tap(), 200
                else:
                    status, expected = (await table.check(table.spectators[0], table.version))[0], 304
            except Exception as error:  # noqa: BLE001 - every failure is counted
                errors.append(repr(error))
                continue
            if status == expected:
                latencies.append(loop.time() - start)
            else:
                errors.append(f"{kind} {status}")

    with frozen_gc():
        await asyncio.gather(*(client(t) for t in tables))
    return Closed(latencies, errors, loop.time() - begin)


def accept_queue(port: int) -> int:
    """Connections waiting in the accept queue of the server listening on 127.0.0.1:``port``."""
    local = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as table:
        for line in table:
            fields = line.split()
            if fields[1] == local and fields[3] == "0A":  # LISTEN: rx_queue is the accept queue
                return int(fields[4].split(":")[1], 16)
    return 0


@dataclass
class Open:
    """An open-loop run of tables on their schedule."""

    seconds: float
    taps: list[float] = field(default_factory=list)  # from each tap's scheduled time to its answer
    polls: list[float] = field(default_factory=list)
    # from a tap's scheduled time to a spectator's new board
    updates: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    scheduled: int = 0
    # how late the generator woke for a request it was free to send
    lag: list[float] = field(default_factory=list)
    cpu: float = 0.0  # the generator's own CPU seconds
    wall: float = 0.0  # from the first scheduled request to the last answer (or the end of the drain)
    opened: int = 0  # connections the phones opened
    backlog: int = 0  # the most connections seen waiting for the server to accept them

    @property
    def answered(self) -> int:
        return len(self.taps) + len(self.polls)

    @property
    def dropped(self) -> int:
        """Requests scheduled in the run that were neither answered nor failed by the end of the drain."""
        return self.scheduled - self.answered - len(self.errors)


def schedule(first: float, every: float, end: float) -> list[float]:
    """The times from ``first``, every ``every`` s, before ``end``: one phone's scheduled requests."""
    return [first + every * k for k in range(int((end - first) / every) + 1) if first + every * k < end]


async def open_loop(tables: list[Table], seconds: float, port: int, drain: float = 10.0) -> Open:
    """Drive ``tables`` on their schedule for ``seconds``; answers still missing ``drain`` s later are dropped.

    Once a second the server's accept queue (``port``) is read from /proc/net/tcp.
    """
    loop = asyncio.get_running_loop()
    run = Open(seconds)
    rng = random.Random(len(tables))
    start = loop.time() + 1.0
    end = start + seconds

    async def at(due: float) -> None:
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
            run.lag.append(loop.time() - due)

    async def scorekeeper(table: Table, dues: list[float]) -> None:
        for due in dues:
            await at(due)
            table.due_of[table.version + 1] = due
            try:
                status = await table.tap()
            except Exception as error:  # noqa: BLE001 - every failure is counted
                run.errors.append(f"tap {error!r}")
                continue
            if status == 200:
                run.taps.append(loop.time() - due)
            else:
                run.errors.append(f"tap {status}")

    async def spectator(table: Table, phone: Phone, dues: list[float]) -> None:
        seen = table.version
        for due in dues:
            await at(due)
            try:
                status, now_seen = await table.check(phone, seen)
            except Exception as error:  # noqa: BLE001 - every failure is counted
                run.errors.append(f"poll {error!r}")
                continue
            if status not in (200, 304):
                run.errors.append(f"poll {status}")
                continue
            run.polls.append(loop.time() - due)
            for version in range(seen + 1, now_seen + 1):
                if version in table.due_of:
                    run.updates.append(loop.time() - table.due_of[version])
            seen = now_seen

    tasks = []
    for i, table in enumerate(tables):
        table.due_of.clear()
        dues = schedule(start + (i * 0.618034 % 1) * TAP_EVERY, TAP_EVERY, end)
        run.scheduled += len(dues)
        tasks.append(asyncio.ensure_future(scorekeeper(table, dues)))
        for phone in table.spectators:
            dues = schedule(start + rng.uniform(0, POLL_EVERY), POLL_EVERY, end)
            run.scheduled += len(dues)
            tasks.append(asyncio.ensure_future(spectator(table, phone, dues)))

    async def watch_backlog() -> None:
        while True:
            run.backlog = max(run.backlog, accept_queue(port))
            await asyncio.sleep(1.0)

    watcher = asyncio.ensure_future(watch_backlog())
    cpu_before, opened_before = time.process_time(), Connector.opened
    with frozen_gc():
        _, pending = await asyncio.wait(tasks, timeout=end + drain - loop.time())
    watcher.cancel()
    run.cpu = time.process_time() - cpu_before
    run.wall = loop.time() - start
    run.opened = Connector.opened - opened_before
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return run
