"""TRUST.md I8, measured: what each attack by anonymous clients does to a table's taps and boards.

Run: python bench/attacks.py [--seconds 12] [--tables 10] [--tap-every 1] [--only KEY ...]
                             [--server-tree DIR ...] [--list]

One attack at a time, each against a fresh ``scorekeeper serve`` on 127.0.0.1 with its defaults
(flags and rate limits). The victims: ``--tables`` tables, each started by its own scorekeeper's
phone, each phone from a loopback address of its own (bench/loadgen.py); each scorekeeper taps
every ``--tap-every`` s (open loop: a tap fires at its scheduled time and its latency counts
from then) and each table's three spectators follow the live view by its stream as the page
does (bench/push.py). Half the scorekeepers keep their connection between taps; the other half
connect anew for every tap, as a phone idle longer than the server keeps a connection (30 s)
does. The attackers are another process (``--attacker``) on other loopback addresses
(127.0.x.y, as other phones), and stop by themselves. The attacks on the largest allowed match
(history, exports) read one stored before the server starts by the CLI (``scorekeeper import``
of a 5,000-event file into the database each server starts from); no attack gets a raised
limit. Each attack starts once the spectators' streams are open, about three seconds before the
first tap; the one marked "before the spectators" starts before they open theirs.

Prints a table: per attack, the taps' p50, p95 and max (ms, from their scheduled time), the p95
of the taps sent on a new connection, tap errors, lost (acknowledged taps the server does not
hold), dropped (unanswered 10 s after the last scheduled tap), spectators streaming/polling,
the spectators' board p95 (from the tap's scheduled time to the new board in their hands) and
boards never seen, the server's CPU (cores over the taps' window) and peak RSS, and I8's verdict
(0 tap errors, 0 lost, 0 dropped, no tap waits 1 s, every board arrives); then each attack's
own outcome (the statuses it got, the connections it held). The run without an attack comes
first and again last: every row stands beside the same run without it. ``--server-tree DIR ...``
serves other checkouts' code instead (each its own ``scorekeeper serve`` defaults: an older
gunicorn one, say; ``.`` is this one) to the same victims and attacks, each attack on each tree
in turn, so that the load of the machine falls on them alike; a last table sets them side by side. Loopback only; each attack lasts about 20 s
(its attacker's own bound: 40 s), the whole run some 7 minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from servers import ROOT, Served, load_average, raise_file_limit  # noqa: E402

LEAD = 1.0  # seconds an attack runs before the taps' window opens (then push.OPENING more)
BOUND = 40.0  # seconds an attacker runs at most, whatever happens
READY = 30.0  # seconds an attacker may take to set itself up (connections opened, tokens fetched)
WAIT = 1.0  # I8: no tap waits this long
CHUNK = 64 * 1024
IDLE, SLOW, STREAMS = 5000, 1000, 1000  # connections
WAVE = 5.0  # seconds between the wrong-secret streams' waves (each opens all STREAMS at once)
BOUNDARY = "bench-attack"


# ---------------------------------------------------------------- the attacker process


class Outcome(collections.Counter):
    """What an attack got: its answers by status, and how its connections ended."""


async def connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0), limit=1 << 20)


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], list[str], bytes]:
    """One HTTP/1.1 answer: status, headers (lower-case names), Set-Cookie values, body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split(" ", 2)[1])
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for line in head[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
            if name.strip().lower() == "set-cookie":
                cookies.append(value.strip())
    if status in (204, 304) or status < 200:
        return status, headers, cookies, b""
    if "content-length" in headers:
        return status, headers, cookies, await reader.readexactly(int(headers["content-length"]))
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts = []
        while size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16):
            parts.append(await reader.readexactly(size))
            await reader.readline()
        await reader.readline()
        return status, headers, cookies, b"".join(parts)
    return status, headers, cookies, await reader.read()  # until the server closes


def how_it_failed(error: BaseException) -> str:
    if isinstance(error, asyncio.IncompleteReadError):
        return "closed before an answer"
    if isinstance(error, ConnectionResetError | BrokenPipeError):
        return "reset"
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return "timed out"
    return type(error).__name__


class SetUpFailed(Exception):
    """A client could not set itself up (its form's token): it tries again."""


class Client:
    """An anonymous phone at one address: one keep-alive connection (opened again when closed), a cookie."""

    def __init__(self, port: int, source: str, out: Outcome) -> None:
        self.port, self.source, self.out = port, source, out
        self.conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.cookies: dict[str, str] = {}

    def close(self) -> None:
        if self.conn is not None:
            self.conn[1].close()
            self.conn = None

    async def ask(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """An answer's status and body; status 0 (and the failure counted) if the connection failed."""
        head = {
            "Host": f"127.0.0.1:{self.port}",
            "Accept-Encoding": "gzip, deflate, br, zstd",  # as a browser: the server compresses
            **({"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}),
            **({"Content-Length": str(len(body))} if body or method == "POST" else {}),
            **(headers or {}),
        }
        request = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n"
        try:
            if self.conn is None:
                self.conn = await connect(self.port, self.source)
            reader, writer = self.conn
            writer.write(request.encode("latin-1") + body)
            await writer.drain()
            status, answer, cookies, content = await asyncio.wait_for(read_answer(reader), 30)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            self.out[how_it_failed(error)] += 1
            self.close()
            await asyncio.sleep(0.05)
            return 0, b""
        for cookie in cookies:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name] = value
        if answer.get("connection", "").lower() == "close":
            self.close()
        self.out[str(status)] += 1
        return status, content

    async def token(self, path: str) -> str:
        """The CSRF token of a page's form (and the session cookie that goes with it)."""
        status, page = await self.ask("GET", path, headers={"Accept-Encoding": "identity"})
        found = re.search(rb'name="csrf_token" value="([^"]+)"', page)
        if found is None:
            raise SetUpFailed(f"no form on {path} ({status})")
        self.out[str(status)] -= 1  # the set-up's own request is not the attack's
        return found.group(1).decode()


@dataclass
class Attacker:
    """What an attack is given: the server's port, the set-up, a stop, and its outcome to fill."""

    port: int
    setup: dict
    stop: asyncio.Event
    out: Outcome
    ready: Callable[[], None]

    async def loop(self, count: int, base: str, step: Callable[[Client], Awaitable[None]]) -> None:
        """``count`` clients (addresses ``base``.1, .2, …) each repeating ``step`` until the stop."""

        async def one(i: int) -> None:
            client = Client(self.port, f"{base}.{i + 1}", self.out)
            while not self.stop.is_set():
                try:
                    await step(client)
                except SetUpFailed:
                    self.out["set-up failed"] += 1
                    await asyncio.sleep(0.1)
            client.close()

        tasks = [asyncio.ensure_future(one(i)) for i in range(count)]
        self.ready()
        await asyncio.gather(*tasks)

    async def hold(self, opened: list[asyncio.Future]) -> None:
        """Say ready once every connection in ``opened`` is set up, then wait for the stop."""
        await asyncio.gather(*opened)
        self.ready()
        await self.stop.wait()


def multipart(token: str, text: bytes) -> tuple[bytes, dict[str, str]]:
    """An import form as the import page sends it (a pasted file)."""
    body = (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="text"\r\n\r\n'
        ).encode()
        + text
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )
    return body, {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


async def imports(a: Attacker, file: str) -> None:
    """Two clients importing a file back to back, each with its own session (the page's form)."""
    text = Path(a.setup[file]).read_bytes()
    bodies: dict[Client, tuple[bytes, dict[str, str]]] = {}

    async def post(client: Client) -> None:
        if client not in bodies:
            bodies[client] = multipart(await client.token("/import"), text)
        body, headers = bodies[client]
        await client.ask("POST", "/import", body, headers)

    await a.loop(2, "127.0.3", post)


async def refused_bodies(a: Attacker, size: int, chunked: bool = False) -> None:
    """Two clients posting ``size`` bytes to / (which takes no body), again and again, until refused."""

    async def post(client: Client) -> None:
        try:
            reader, writer = await connect(a.port, client.source)
        except OSError as error:
            a.out[how_it_failed(error)] += 1
            await asyncio.sleep(0.05)
            return
        length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
        writer.write(f"POST / HTTP/1.1\r\nHost: table\r\n{length}\r\n\r\n".encode())

        async def send() -> None:
            piece = (f"{CHUNK:x}\r\n".encode() + b"x" * CHUNK + b"\r\n") if chunked else b"x" * CHUNK
            for _ in range(size // CHUNK):
                writer.write(piece)
                await writer.drain()
            if chunked:
                writer.write(b"0\r\n\r\n")
                await writer.drain()

        sending = asyncio.ensure_future(send())
        try:
            status, _, _, _ = await asyncio.wait_for(read_answer(reader), 30)
            a.out[str(status)] += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            a.out[how_it_failed(error)] += 1
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        writer.close()

    await a.loop(2, "127.0.2", post)


async def dripping(a: Attacker, head: bytes) -> None:
    """SLOW connections (100 addresses) that send ``head``, then one byte a second."""

    async def drip(i: int, opened: asyncio.Future) -> None:
        try:
            reader, writer = await connect(a.port, f"127.0.1.{i % 100 + 1}")
            writer.write(head)
            await writer.drain()
        except OSError as error:
            a.out[how_it_failed(error)] += 1
            opened.set_result(None)
            return
        opened.set_result(None)
        try:
            while not a.stop.is_set():
                await asyncio.sleep(1.0)
                if reader.at_eof():
                    a.out["closed by the server"] += 1
                    return
                writer.write(b"a")
                await writer.drain()
            a.out["held to the end"] += 1
        except OSError as error:
            a.out[how_it_failed(error)] += 1
        finally:
            writer.close()

    opened = [asyncio.get_running_loop().create_future() for _ in range(SLOW)]
    tasks = [asyncio.ensure_future(drip(i, f)) for i, f in enumerate(opened)]
    await a.hold(opened)
    await asyncio.gather(*tasks)


async def idle(a: Attacker, addresses: int) -> None:
    """IDLE connections that never send a byte, from ``addresses`` addresses (127.0.8.x)."""
    held = []
    for i in range(IDLE):
        try:
            held.append(await connect(a.port, f"127.0.8.{i % addresses + 1}"))
        except OSError as error:
            a.out[how_it_failed(error)] += 1
        if a.stop.is_set():
            break
    a.ready()
    await a.stop.wait()
    for reader, writer in held:
        a.out["held to the end" if not reader.at_eof() else "closed by the server"] += 1
        writer.close()


async def streams(a: Attacker, valid: bool) -> None:
    """STREAMS live-view streams (10 addresses): with the first table's secret, held and read as
    a page reads them; or with wrong secrets, all asked at once, again every WAVE s."""
    loop = asyncio.get_running_loop()

    async def valid_stream(i: int, opened: asyncio.Future) -> None:
        try:
            reader, writer = await connect(a.port, f"127.0.5.{i % 10 + 1}")
            writer.write(f"GET /watch/stream?t={a.setup['watch']} HTTP/1.1\r\nHost: table\r\n\r\n".encode())
            head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READY)).decode("latin-1")
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            a.out[how_it_failed(error)] += 1
            opened.set_result(None)
            return
        a.out[head.split(" ", 2)[1]] += 1
        opened.set_result(None)
        try:
            while not a.stop.is_set() and await reader.read(CHUNK):
                pass  # the boards and heartbeats, read as they come
        except OSError as error:
            a.out[how_it_failed(error)] += 1
        writer.close()

    if valid:
        opened = [loop.create_future() for _ in range(STREAMS)]
        tasks = [asyncio.ensure_future(valid_stream(i, f)) for i, f in enumerate(opened)]
        await a.hold(opened)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return
    clients = [Client(a.port, f"127.0.6.{i % 10 + 1}", a.out) for i in range(STREAMS)]
    a.ready()
    while not a.stop.is_set():
        wave = loop.time()
        await asyncio.gather(*(c.ask("GET", f"/watch/stream?t=wrong-{random.random()}") for c in clients))
        try:
            await asyncio.wait_for(a.stop.wait(), max(0.0, wave + WAVE - loop.time()))
        except TimeoutError:
            pass
    for client in clients:
        client.close()


async def getting(a: Attacker, path: str) -> None:
    """Two clients asking for ``path`` as fast as it is answered."""

    async def get(client: Client) -> None:
        await client.ask("GET", path)

    await a.loop(2, "127.0.4", get)


async def new_matches(a: Attacker) -> None:
    """Two clients posting the new-match form as fast as it is answered (the default limit holds)."""
    tokens: dict[Client, str] = {}

    async def post(client: Client) -> None:
        if client not in tokens:
            tokens[client] = await client.token("/new")
        names = f"name=P{random.random()}&name=Q{random.random()}&name=R"
        form = f"{names}&dealer=draw&start=1&csrf_token={tokens[client]}".encode()
        await client.ask("POST", "/new", form, {"Content-Type": "application/x-www-form-urlencoded"})

    await a.loop(2, "127.0.7", post)


def hands_path() -> str:
    cards = random.Random(1)
    huge = "+".join(cards.choice(["As", "Kd", "7c", "Qh", "2s", "Xx"]) for _ in range(20_000))
    return f"/hands?hand1={huge}&hand2={huge}"


@dataclass(frozen=True)
class Attack:
    key: str  # what --only takes
    name: str
    run: Callable[[Attacker], Awaitable[None]]
    before_spectators: bool = False  # started before the spectators open their streams


ATTACKS = [
    Attack(
        "import-over-events",
        "imports: 2 clients, 2 MB over the event cap",
        lambda a: imports(a, "over events"),
    ),
    Attack(
        "import-largest", "imports: 2 clients, the largest allowed (274 KB)", lambda a: imports(a, "largest")
    ),
    Attack("import-over-bytes", "imports: 2 clients, just over 2 MiB", lambda a: imports(a, "over bytes")),
    Attack("body-6mb", "refused bodies: 2 clients, 6 MB POST /", lambda a: refused_bodies(a, 6 << 20)),
    Attack("body-32mb", "refused bodies: 2 clients, 32 MB POST /", lambda a: refused_bodies(a, 32 << 20)),
    Attack(
        "body-32mb-chunked",
        "refused bodies: 32 MB chunked POST /",
        lambda a: refused_bodies(a, 32 << 20, chunked=True),
    ),
    Attack(
        "slow-headers",
        f"headers a byte a second, {SLOW:,} conns",
        lambda a: dripping(a, b"GET /rules HTTP/1.1\r\nHost: table\r\nX-Slow: "),
    ),
    Attack(
        "slow-bodies",
        f"bodies a byte a second, {SLOW:,} conns",
        lambda a: dripping(
            a,
            b"POST /import HTTP/1.1\r\nHost: table\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n",
        ),
    ),
    Attack("idle", f"{IDLE:,} idle connections, one address", lambda a: idle(a, 1)),
    Attack("idle-spread", f"{IDLE:,} idle connections, 100 addresses", lambda a: idle(a, 100)),
    Attack("streams-valid", f"{STREAMS:,} streams, valid secret, held", lambda a: streams(a, valid=True)),
    Attack(
        "streams-valid-first",
        f"{STREAMS:,} streams, valid, before the spectators",
        lambda a: streams(a, valid=True),
        before_spectators=True,
    ),
    Attack(
        "streams-wrong",
        f"{STREAMS:,} streams, wrong secret, at once every {WAVE:g} s",
        lambda a: streams(a, valid=False),
    ),
    Attack(
        "history",
        "largest match's history page, 2 loops",
        lambda a: getting(a, f"/m/{a.setup['longest']}/history"),
    ),
    Attack(
        "export-json",
        "largest match's JSON export, 2 loops",
        lambda a: getting(a, f"/m/{a.setup['longest']}/export"),
    ),
    Attack(
        "export-csv",
        "largest match's CSV export, 2 loops",
        lambda a: getting(a, f"/m/{a.setup['longest']}/export.csv"),
    ),
    Attack("hands", "hand checker, 2 x 60 KB of cards, 2 loops", lambda a: getting(a, hands_path())),
    Attack("new-loop", "/new posted in a loop, 2 clients", new_matches),
]
BY_KEY = {attack.key: attack for attack in ATTACKS}


def attacker_main(name: str, port: int, setup_path: str) -> None:
    """The attacker process: say ``ready`` once under way, stop at SIGTERM (or BOUND), print the outcome."""
    raise_file_limit()
    setup = json.loads(Path(setup_path).read_text())

    async def run() -> Outcome:
        loop = asyncio.get_running_loop()
        stop, out = asyncio.Event(), Outcome()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.call_later(BOUND, stop.set)

        def ready() -> None:
            print("ready", flush=True)

        await BY_KEY[name].run(Attacker(port, setup, stop, out, ready))
        return out

    began = time.process_time()
    out = asyncio.run(run())
    print(json.dumps({"outcome": {k: v for k, v in out.items() if v}, "cpu": time.process_time() - began}))


# ---------------------------------------------------------------- the victims and the report


@dataclass
class Row:
    name: str
    figures: dict[str, float]
    lost: int
    rss: float
    outcome: dict[str, int]
    attacker_cpu: float
    errors: list[str]


def files(folder: Path) -> dict[str, str]:
    """The match files of the import attacks (four players, target 1000, random legal play)."""
    import loadgen  # noqa: F401 - puts tests/ on the path
    from simulate import random_events

    from scorekeeper.matchfile import MatchFile, dumps
    from scorekeeper.rules import Rules
    from scorekeeper.web.imports import IMPORT_LIMIT, MAX_EVENTS

    players, rules = ("Anna", "Bo", "Cia", "Dan"), Rules(target=1000)
    events, _ = random_events(players, rules, random.Random(0).choice, MAX_EVENTS)
    largest = dumps(MatchFile(players, rules, tuple(events)))
    over = json.loads(largest)
    over["events"] = over["events"] * 7  # 35,000 events, under 2 MiB: read, then refused for its length
    over_events = json.dumps(over)
    padded = largest + " " * (IMPORT_LIMIT + 16 * 1024 - len(largest))  # valid JSON, over the byte cap
    made = {"largest": largest, "over events": over_events, "over bytes": padded}
    for key, text in made.items():
        (folder / f"{key.replace(' ', '-')}.json").write_text(text)
    return {key: str(folder / f"{key.replace(' ', '-')}.json") for key in made}


async def attacked(
    args: argparse.Namespace, tree: Path, template: Path, setup: dict, attack: Attack | None, label: str
) -> Row:
    """A fresh server of ``tree`` from ``template``, the victims on it, ``attack`` meanwhile (None: no attack)."""
    import loadgen
    import push

    folder = template.parent
    db = folder / f"attack-{abs(hash(label))}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if template.with_name(template.name + suffix).exists():
            shutil.copy(template.with_name(template.name + suffix), db.with_name(db.name + suffix))
    server = Served("app", db, tree=tree).start()
    attacker: asyncio.subprocess.Process | None = None
    peak = [server.rss_mb()]

    async def watch_memory() -> None:
        while True:
            peak.append(server.rss_mb())
            await asyncio.sleep(0.5)

    async def start() -> None:
        nonlocal attacker
        assert attack is not None
        setup_path = folder / "setup.json"
        setup_path.write_text(json.dumps({**setup, "watch": tables[0].watch}))
        attacker = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attacker",
            attack.key,
            "--port",
            str(server.port),
            "--setup",
            str(setup_path),
            stdout=asyncio.subprocess.PIPE,
        )
        assert attacker.stdout is not None
        try:
            said = await asyncio.wait_for(attacker.stdout.readline(), READY)
        except TimeoutError:
            said = b"not ready"
        if said.strip() != b"ready":
            print(f"  {attack.name}: the attacker said {said!r}", flush=True)
        await asyncio.sleep(LEAD)

    watcher = asyncio.ensure_future(watch_memory())
    try:
        tables = await loadgen.open_tables(server.base, 0, args.tables, False)
        for table in tables[1::2]:
            await table.keeper.connect_anew()
        if attack is not None and attack.before_spectators:
            await start()
        during = start if attack is not None and not attack.before_spectators else None
        run = await push.one_run(tables, args.seconds, server.cpu_seconds, 0.0, args.tap_every, during)
        outcome, attacker_cpu = {}, 0.0
        if attacker is not None:
            attacker.send_signal(signal.SIGTERM)
            try:
                said, _ = await asyncio.wait_for(attacker.communicate(), 30)
                report = json.loads(said.decode().strip().splitlines()[-1])
                outcome, attacker_cpu = report["outcome"], report["cpu"]
            except (TimeoutError, ValueError, IndexError):
                attacker.kill()
                outcome = {"the attacker did not report": 1}
        lost = await push.lost(tables)
        await loadgen.close_tables({server: tables})
    finally:
        watcher.cancel()
        if attacker is not None and attacker.returncode is None:
            attacker.kill()
        server.stop()
    return Row(label, push.figures(run), lost, max(peak), outcome, attacker_cpu, run.errors)


def verdict(row: Row) -> str:
    f = row.figures
    failed = [
        *([f"{f['tap errors']:.0f} tap errors"] if f["tap errors"] else []),
        *([f"{row.lost} lost"] if row.lost else []),
        *([f"{f['dropped']:.0f} dropped"] if f["dropped"] else []),
        *([f"a tap waited {f['tap max'] / 1e3:.1f} s"] if not f["tap max"] < WAIT * 1e3 else []),
        *([f"{f['unseen']:.0f} boards unseen"] if f["unseen"] else []),
    ]
    return "met" if not failed else "NOT MET: " + ", ".join(failed)


def outcome_text(outcome: dict[str, int]) -> str:
    return ", ".join(f"{k} x{v:,}" for k, v in sorted(outcome.items(), key=lambda kv: -kv[1])) or "-"


def streams_polls(f: dict[str, float]) -> str:
    return f"{f['streaming']:.0f}/{f['polling']:.0f}"


def print_rows(rows: list[Row], base: Row) -> None:
    print(
        f"\n{'attack':<50}{'tap p50':>8}{'p95':>7}{'max':>7}{'x base p95':>11}{'new conn':>9}{'errors':>7}{'lost':>5}{'drop':>5}"
        f"{'stream/poll':>12}{'board p95':>10}{'unseen':>7}{'cores':>6}{'RSS MB':>7}  I8"
    )
    for row in rows:
        f = row.figures
        print(
            f"{row.name:<50}{f['tap p50']:>8.0f}{f['tap p95']:>7.0f}{f['tap max']:>7.0f}"
            f"{f['tap p95'] / base.figures['tap p95']:>11.1f}{f['new-connection tap p95']:>9.0f}{f['tap errors']:>7.0f}{row.lost:>5}{f['dropped']:>5.0f}"
            f"{streams_polls(f):>12}{f['update p95']:>10.0f}{f['unseen']:>7.0f}"
            f"{f['server cores']:>6.2f}{row.rss:>7.0f}  {verdict(row)}"
        )
    print("\nwhat each attack got (its answers by status, its connections), and its own CPU")
    for row in rows[1:-1] if len(rows) > 2 else []:
        print(f"  {row.name:<50} {outcome_text(row.outcome)}; attacker CPU {row.attacker_cpu:.1f} s")
        if row.errors:
            print(f"  {'':<50} the victims' first errors: {row.errors[:3]}")


def compare(trees: list[Path], rows: dict[Path, list[Row]]) -> None:
    """Each attack's taps on each tree, side by side (the same attack, one server after the other)."""
    names = [name_of(tree) for tree in trees]
    print(
        "\nside by side: taps p95 / max in ms, and tap errors + dropped, each attack on each server in turn"
    )
    print(f"{'attack':<50}" + "".join(f"{name[-30:]:>32}" for name in names))
    for i, row in enumerate(rows[trees[0]]):
        cells = []
        for tree in trees:
            f = rows[tree][i].figures
            cell = f"{f['tap p95']:.0f} / {f['tap max']:.0f}, {f['tap errors'] + f['dropped']:.0f}"
            cells.append(f"{cell:>32}")
        print(f"{row.name:<50}" + "".join(cells))


def name_of(tree: Path) -> str:
    return "this checkout" if tree == ROOT else str(tree)


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    import loadgen

    chosen = [BY_KEY[name] for name in args.only] if args.only else ATTACKS
    made = files(folder)
    trees: list[Path] = args.server_tree
    templates, setups = {}, {}
    for number, tree in enumerate(trees):  # each tree stores the largest match with its own CLI
        (folder / f"tree-{number}").mkdir()
        templates[tree] = folder / f"tree-{number}" / "template.sqlite"
        longest = Served("app", templates[tree], tree=tree).cli("import", made["largest"]).strip()
        setups[tree] = {**made, "longest": longest}
    print(
        f"scorekeeper serve with its defaults ({', then '.join(name_of(t) for t in trees)}, each attack on"
        f" each in turn), a fresh one per attack; {args.tables} tables, a tap every {args.tap_every:g} s each,"
        f" {loadgen.SPECTATORS} spectators each on the stream; taps for {args.seconds:g} s under each attack;"
        f" latencies in ms from the scheduled time; largest match {os.path.getsize(made['largest']) / 1024:.0f}"
        f" KB stored by the CLI before the server starts; {os.cpu_count()} cores; load average"
        f" {load_average()} at the start",
        flush=True,
    )
    loadgen.scripts()
    rows: dict[Path, list[Row]] = {tree: [] for tree in trees}
    for attack in [None, *chosen, None]:
        label = attack.name if attack else "(no attack)" if not rows[trees[0]] else "(no attack, again)"
        for tree in trees:
            rows[tree].append(await attacked(args, tree, templates[tree], setups[tree], attack, label))
            f = rows[tree][-1].figures
            print(
                f"  {label} ({name_of(tree)}): tap p95 {f['tap p95']:.0f} ms, max {f['tap max']:.0f} ms;"
                f" {outcome_text(rows[tree][-1].outcome)}; load average {load_average()}",
                flush=True,
            )
    for tree in trees:
        print(f"\n{name_of(tree)}:", end="")
        print_rows(rows[tree], rows[tree][0])
    if len(trees) > 1:
        compare(trees, rows)
    print(f"load average {load_average()} at the end")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=12.0, help="the taps' window under each attack")
    parser.add_argument("--tables", type=int, default=10, help="the victims' tables")
    parser.add_argument("--tap-every", type=float, default=1.0, help="seconds between a table's taps")
    parser.add_argument("--only", nargs="+", metavar="KEY", help="these attacks only (--list names them)")
    parser.add_argument(
        "--server-tree",
        type=Path,
        nargs="+",
        default=[ROOT],
        help="serve these checkouts' code instead, each attack on each in turn (this one: .)",
    )
    parser.add_argument("--list", action="store_true", help="name the attacks and stop")
    parser.add_argument("--attacker", help=argparse.SUPPRESS)  # the attacker process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--setup", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        attacker_main(args.attacker, args.port, args.setup)
        return
    if args.list:
        print("\n".join(f"{attack.key:<22}{attack.name}" for attack in ATTACKS))
        return
    unknown = [name for name in args.only or [] if name not in BY_KEY]
    if unknown:
        parser.error(f"no attack named {unknown}: --list names them")
    raise_file_limit()
    args.server_tree = [tree.resolve() for tree in args.server_tree]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-attacks-") as folder:
        asyncio.run(main_async(args, Path(folder)))
    print(f"whole run {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
