"""Every setting of the server in one place: the app's configuration, and the numbers it serves by.

Two settings profiles (TRUST.md S7): ``lan`` (plain HTTP on the table's own
network, the default) and ``tls`` (secure ``__Host-`` cookies and HSTS behind
HTTPS). Each setting may come from a ``SCOREKEEPER_*`` variable, the data
folder's ``config.py``, or a test's ``test_config``. The numbers below it are
the server's capacity (docs/scaling.md says where each comes from).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask

from scorekeeper import __version__
from scorekeeper.web import datadir

PACKAGE = Path(__file__).resolve().parent
# The agreed layout keeps templates/ and static/ at the top of the repository; an
# installed wheel carries them inside the package (pyproject.toml, force-include).
ROOT = PACKAGE.parents[1]
TEMPLATES = next(p for p in (PACKAGE / "templates", ROOT / "templates") if p.is_dir())
STATIC = next(p for p in (PACKAGE / "static", ROOT / "static") if p.is_dir())

# A secret key's floor (TRUST.md S10, S12): a length, and two cheap signs of a key typed by hand.
MIN_SECRET = 32
MIN_DISTINCT = 8
DEFAULT_PROXIES = {"lan": 0, "tls": 1}
MAX_PROXIES = 5
PROFILES = {
    "lan": {"SESSION_COOKIE_SECURE": False, "SESSION_COOKIE_NAME": "session"},
    "tls": {
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_NAME": "__Host-session",
        "PREFERRED_URL_SCHEME": "https",
    },
}

# Threads that answer requests (taps, pages, polls, imports); a stream never takes one of them.
THREADS = 16
# Live-view streams held at once: 200 tables with three spectators each, and room to spare.
# A thread blocked on its stream costs about 15 KB and no CPU (1,016 threads: 65 MB, 16: 50 MB).
STREAMS = 1000
# Connections open at once, idle ones included: several thousand phones, each a socket in
# waitress's own thread. More than the open-file limit allows are never accepted (below).
CONNECTIONS = 10_000
FILES_SPARE = 100  # open files kept for the database, its journal, templates and logs
# Connections one address may hold at once: a browser opens six to a server at most, and a phone
# may follow a match or two besides. Past it a new one is closed at once: waitress's loop looks at
# every socket each time round, and 5,200 idle connections from one address made a tap on a new
# connection wait 2-4 s (TRUST.md I8). Behind a proxy every connection is the proxy's, and the
# proxy holds its phones' idle ones: no bound then.
PER_ADDRESS = 64
# An idle connection (no byte either way) is closed after this long; a phone that taps
# every few seconds keeps its own, one that waits longer connects again.
IDLE_SECONDS = 30
# The largest body the app reads (an import, IMPORT_LIMIT, and its form). A longer one is
# refused by waitress itself (413) as its headers arrive, before a byte of it is read.
LARGEST_BODY = 2 * 1024 * 1024 + 64 * 1024
# The caps of one import, from the longest matches there are. Random legal play to 52
# (tests/simulate.py, 300 matches of 2 to 4 players) takes 100 to 150 events, at most about
# 450; undos and a long tie-break chain add dozens. 5,000 events is ten times the longest,
# yet bounds what one anonymous post costs the worker (a replay of 1,000 events takes about
# 10 ms, bench/replay.py). A file's event takes about 60 bytes, up to a few hundred with a
# long adjust reason: 2 MiB holds 5,000 such events, and bounds the parse.
MAX_EVENTS = 5_000
IMPORT_LIMIT = 2 * 1024 * 1024
# A club imports a handful of matches at a time; ten a minute lets that through and costs a
# worker at most ten replays of a capped file a minute per address.
IMPORT_RATE = "10 per minute"
# A table starts a new match every few minutes at most; thirty a minute per address lets a room
# of tables behind one router start together. Two clients looping new matches for a minute made
# 15,295 people without it (issue 24); with it they make 60 matches at most.
CREATE_RATE = "30 per minute"
# The server keeps every live match: a match of 300 events (an evening's, late on) is charged about
# 113 KB with its states, so 200 tables' take 23 MB. With less, taps and boards read whole logs and
# replay them. TRUST.md I7 bounds the server at 150 MB after 100 imported matches are viewed: 122 MB
# with this budget, 164 MB with 128 MB (SCOREKEEPER_CACHE_MB sets another).
DEFAULT_BUDGET = 48 * 1024 * 1024
BUSY_TIMEOUT_MS = 5000
# How long start-up waits for a database another process holds locked (it retries meanwhile).
START_PATIENCE = 60
# Connections kept open between requests: one for each request the server answers at once,
# and a few more. A connection is lent to one request at a time; what was opened beyond these
# is closed when its request ends. (One per thread, as before, kept a connection and its page
# cache of 2 MB for each of the server's thousand threads: 390 MB after 100 imports were viewed.)
KEPT = 32
HEARTBEAT = 10.0  # seconds between a stream's events when nothing changes, on average
# Each wait is drawn from HEARTBEAT × (1 ± JITTER): streams opened together (a room arriving, a
# server restarted) would otherwise beat together, and 1,500 heartbeats of one worker written in
# one burst held its taps up for half a second.
JITTER = 0.25
RETRY_MS = 2000  # how long the browser waits before it reconnects a dropped stream
# Streams of one match at once: a table of six and their friends, a screen or two, and room to
# spare. A tap is written to every stream of its match: without a bound, whoever has the link could
# open a thousand and make each tap a thousand writes (TRUST.md I8); past it, a page polls.
PER_MATCH = 32


def _secret_key(folder: Path) -> str:
    """The secret key kept in the data folder, generated there on first start.

    Processes starting at once over a new data folder must all read the same
    whole key: each writes its key to a file of its own and links it into
    place; the first link wins (TRUST.md R6).
    """
    path = folder / datadir.KEY
    if not path.exists():
        try:
            _link_new_key(path)
        except OSError as error:  # a read-only data folder: one line, no traceback
            raise ConfigError(
                f"cannot keep a new secret key in {path} ({error.strerror}): set SCOREKEEPER_SECRET_KEY"
            ) from None
    return path.read_text().strip()


def _data_folder(app: Flask) -> datadir.DataFolder:
    """The data folder, the old instance folder moved to it first if need be (datadir.py); made if new."""
    old = datadir.old_folder(app)
    folder = datadir.settle(old, Path(app.instance_path), movable=datadir.in_environment(old))
    try:
        folder.path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot make the data folder {folder.path} ({error.strerror})") from None
    return folder


def _link_new_key(path: Path) -> None:
    """Write a new key whole to a file of its own, then link it to ``path`` unless another process did."""
    draft = path.with_name(f"{path.name}.{secrets.token_hex(8)}.new")
    with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(secrets.token_hex(32))
    try:
        os.link(draft, path)
    except FileExistsError:
        pass  # another process linked its key first: that one is the key
    finally:
        draft.unlink()


class ConfigError(RuntimeError):
    """The app refuses to start with these settings; the message says what to change."""


def check_secret_key(key: Any) -> None:
    """Refuse a secret key with too little entropy (TRUST.md S10, S12).

    The rule: at least 32 characters, at least 8 different ones, and not a
    shorter piece repeated (``"a" * 32``, ``"changeme" * 4``). A random key,
    such as the one the app generates (``secrets.token_hex(32)``), passes; a
    list of well-known defaults could not, as every default is shorter than 32.
    """
    if not isinstance(key, str | bytes) or len(key) < MIN_SECRET:
        raise ConfigError(f"SECRET_KEY must be at least {MIN_SECRET} characters")
    if len(set(key)) < MIN_DISTINCT:
        raise ConfigError(f"SECRET_KEY must have at least {MIN_DISTINCT} different characters")
    if any(key[period:] == key[:-period] for period in range(1, len(key) // 2 + 1)):
        raise ConfigError("SECRET_KEY must not be a shorter piece repeated")


def _cache_bytes(megabytes: str | None) -> int:
    """Each worker's cache budget (SCOREKEEPER_CACHE_MB, whole megabytes; docs/scaling.md says how
    much a long match needs)."""
    if megabytes is None:
        return DEFAULT_BUDGET
    if not (
        megabytes.isascii() and megabytes.isdigit() and len(megabytes) <= 5 and 1 <= int(megabytes) <= 65_536
    ):
        raise ConfigError("SCOREKEEPER_CACHE_MB must be a whole number of megabytes, from 1 to 65536")
    return int(megabytes) << 20


def configure(app: Flask, test_config: dict[str, Any] | None, database: str | None) -> None:
    """The app's settings: defaults and ``SCOREKEEPER_*`` variables, then ``config.py`` or
    ``test_config``, then the profile's."""
    app.config.from_mapping(
        DATABASE=database or os.environ.get("SCOREKEEPER_DATABASE"),
        SECRET_KEY=os.environ.get("SCOREKEEPER_SECRET_KEY"),
        KEY_FILE=None,  # where the key is kept, when the data folder keeps it
        DATA_NOTE=None,  # what serve says about the data folder (moved, or left at the old place)
        PROFILE=os.environ.get("SCOREKEEPER_PROFILE", "lan"),
        PROXIES=os.environ.get("SCOREKEEPER_PROXIES"),  # None: the profile's default
        MAX_CONTENT_LENGTH=16 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts hours; the token must not expire mid-game
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 30,
        SESSION_REFRESH_EACH_REQUEST=False,  # no Set-Cookie on every poll; roles renew when added
        RATELIMIT_HEADERS_ENABLED=False,
        # Said for every app: the limiter is one object for the process and would otherwise take
        # "off" from the last app made with limits off (its init_app setdefaults its own value).
        RATELIMIT_ENABLED=True,
        IMPORT_RATE_LIMIT=os.environ.get("SCOREKEEPER_IMPORT_RATE_LIMIT", IMPORT_RATE),
        CREATE_RATE_LIMIT=os.environ.get("SCOREKEEPER_CREATE_RATE_LIMIT", CREATE_RATE),
        APP_VERSION=__version__,
        CACHE_BYTES=_cache_bytes(os.environ.get("SCOREKEEPER_CACHE_MB")),
        # A table's answer (about 11 KB of HTML) compresses to 2.6 KB at level 1 and 2.3 KB at the
        # defaults (brotli 4, gzip 6), which take two to three times the CPU (0.1 ms a tap, issue 14).
        # A phone on the table's wifi over plain HTTP is offered gzip only.
        COMPRESS_BR_LEVEL=1,
        COMPRESS_LEVEL=1,
        COMPRESS_ZSTD_LEVEL=1,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if app.config["PROFILE"] not in PROFILES:
        raise ConfigError(f"SCOREKEEPER_PROFILE must be one of {sorted(PROFILES)}")
    app.config.from_mapping(PROFILES[app.config["PROFILE"]])


def keep_data(app: Flask) -> None:
    """Where the database and the secret key are kept, when no setting gives them: the data folder."""
    if not app.config["DATABASE"] or not app.config["SECRET_KEY"]:
        folder = _data_folder(app)
        app.config["DATA_NOTE"] = folder.said
        if not app.config["DATABASE"]:
            app.config["DATABASE"] = str(folder.path / datadir.DATABASE)
        if not app.config["SECRET_KEY"]:
            app.config["SECRET_KEY"] = _secret_key(folder.path)
            app.config["KEY_FILE"] = str(folder.path / datadir.KEY)
    check_secret_key(app.config["SECRET_KEY"])
