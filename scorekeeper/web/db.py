"""The connection to SQLite: its pragmas, one kept per thread, the start-up check, write transactions.

One connection per thread, kept open across requests (closing the last
connection to a WAL database checkpoints it, which cost more than the whole
request); every write runs in ``BEGIN IMMEDIATE`` so that concurrent writers
queue instead of failing (TRUST.md R3), and they queue on a lock of their own
before it (``write_lock``), not in SQLite's busy handler, which sleeps.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask import Flask, abort, current_app, request
from sqlite_utils import Database

from scorekeeper.web import figures, migrations
from scorekeeper.web.faults import fault_of
from scorekeeper.web.offload import on_gevent, pause

BUSY_TIMEOUT_MS = 5000
# How long start-up waits for a database another process holds locked (it retries meanwhile).
START_PATIENCE = 60


class CannotStart(RuntimeError):
    """The database cannot be used at all: the app does not start; the message says why, in one line."""


def connect(path: str, must_exist: bool = False) -> Database:
    """Open the database with the pragmas every connection needs (TRUST.md R2).

    ``must_exist``: a database that is not there is an error (SQLITE_CANTOPEN), not
    a new empty file: a folder unmounted or moved must not look like an empty app.
    """
    where = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=rw" if must_exist else path
    conn = sqlite3.connect(where, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, uri=must_exist)
    conn.execute("PRAGMA journal_mode=wal")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys=ON")
    return Database(conn)


# Connections are per thread by nature (a sqlite3 connection is not shared between
# threads mid-transaction); this is the one piece of thread-local state the shell keeps.
# Under gevent workers it is made before gevent patches threading (serve() preloads the
# app), so it stays per OS thread: a worker's greenlets share one connection, safe because
# a greenlet yields only on I/O and none happens inside a transaction but SQLite's own.
# offload.py's pool thread is another OS thread, with a connection of its own if it asked for
# one; it never does (what it runs is pure), so every write stays on the hub, behind write_lock.
_local = threading.local()
_CONNECTIONS_PER_THREAD = 4


def get_db() -> Database:
    """This thread's connection to the app's database, opened on first use."""
    return connection(current_app.config["DATABASE"])


def connection(path: str) -> Database:
    """This thread's connection to ``path``, opened on first use (also outside a request).

    SQLite opens a file it may not write read-only, and the connection stays so:
    one opened that way is opened again once the file may be written (TRUST.md R6).
    """
    connections: OrderedDict[str, Database] = _local.__dict__.setdefault("connections", OrderedDict())
    opened_read_only: set[str] = _local.__dict__.setdefault("opened_read_only", set())
    db = connections.get(path)
    if db is not None and path in opened_read_only and os.access(path, os.W_OK):
        forget_connection(path)
        db = None
    if db is None:
        opened_read_only.discard(path)
        if not os.access(path, os.W_OK):
            opened_read_only.add(path)
        db = connections[path] = connect(path, must_exist=True)
        while len(connections) > _CONNECTIONS_PER_THREAD:
            connections.popitem(last=False)[1].close()
    return db


def open_connection(path: str) -> Database | None:
    """This thread's connection to ``path`` if one is open (for checks; opens nothing)."""
    connections: dict[str, Database] = _local.__dict__.get("connections", {})
    return connections.get(path)


def forget_connection(path: str) -> None:
    """Close this thread's connection to ``path``: after a storage fault the next request opens afresh.

    A connection opened while the file was read-only stays read-only; a new one
    sees the file as it is now (TRUST.md R6: writes come back by themselves).
    """
    connections: dict[str, Database] = _local.__dict__.get("connections", {})
    db = connections.pop(path, None)
    if db is not None:
        db.close()  # rolls back whatever is open


def end_request(_: BaseException | None = None) -> None:
    """No request leaves a transaction open (TRUST.md R4): roll back whatever an error left."""
    db = open_connection(current_app.config["DATABASE"])
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


def init_app(app: Flask) -> None:
    """Migrate and check the database at start (TRUST.md R5); after each request, no open transaction."""
    verdict = _check_at_start(app.config["DATABASE"])
    app.config["READ_ONLY"] = verdict != "ok"
    if app.config["READ_ONLY"]:
        app.logger.error("the database failed its check (%s): refusing every write", verdict)
    app.before_request(_refuse_writes_if_unsound)
    app.teardown_appcontext(end_request)


def _check_at_start(path: str) -> str:
    """Migrate, fill in the figures and run ``PRAGMA quick_check``; return its verdict.

    A database another process holds locked is waited for, never taken for a
    failed check (TRUST.md R6): two servers, or gunicorn's workers without
    preload, may start over a fresh database at once. Migrations run in the same
    ``BEGIN IMMEDIATE`` as the figures, so the second process finds them applied.
    A database that cannot be opened or written stops the start with one line
    (``CannotStart``), as does a full disk when the start itself must write (a
    migration); a server that cannot record should not look as if it could.
    """
    deadline = time.monotonic() + START_PATIENCE
    while True:
        db = None
        try:
            db = connect(path)
            with immediate(db):  # so every migration must be transactional (no VACUUM)
                migrations.apply(db)
                figures.fill_in(db)
            return str(db.execute("PRAGMA quick_check").fetchone()[0])
        except sqlite3.DatabaseError as error:
            fault = fault_of(error, path)
            if fault is not None:
                raise CannotStart(f"cannot start: {fault.reason} ({path})") from None
            if not is_locked(error):
                return str(error)
            if time.monotonic() > deadline:
                held = f"another program has held the database locked for {START_PATIENCE} s"
                raise CannotStart(held) from None
        finally:
            if db is not None:
                db.close()
        time.sleep(0.05)


def is_locked(error: sqlite3.Error) -> bool:
    """True if another connection held the lock (SQLITE_BUSY or SQLITE_LOCKED)."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _refuse_writes_if_unsound() -> None:
    if current_app.config["READ_ONLY"] and request.method not in ("GET", "HEAD", "OPTIONS"):
        abort(503)


# One lock per database file, shared by every app and thread of the process (a lock is
# per process by nature, like the connections above); a forked worker starts with none.
_thread_locks: dict[str, threading.Lock] = {}
os.register_at_fork(after_in_child=_thread_locks.clear)


@contextmanager
def write_lock(db: Database) -> Iterator[None]:
    """Hold the database's write lock: first among this process's threads, then among processes.

    A writer that finds SQLite's lock taken sleeps in the busy handler (1, 2, 5 ...
    up to 100 ms a time) and tries again, so under contention a tap waits far
    longer than the writes before it took. Queued here, the next writer wakes
    the moment the lock is free. Processes queue on an ``flock`` of
    ``<db>.write-lock``, opened for each write: a descriptor inherited across
    gunicorn's fork would share one lock between workers. The kernel drops the
    ``flock`` of a process that dies, even by kill -9. When the lock file cannot
    be opened (a read-only folder), SQLite's busy handler queues the writers as
    before and SQLite says why the write fails. A thread that waits for the
    other threads longer than the busy timeout gets SQLite's "database is locked",
    as does a gevent worker's writer that waits as long for another process.
    """
    path = db.execute("PRAGMA database_list").fetchone()[2]
    if not path:  # an in-memory database belongs to one connection: no other writer
        yield
        return
    lock = _thread_locks.setdefault(path, threading.Lock())
    if not lock.acquire(timeout=BUSY_TIMEOUT_MS / 1000):
        raise _busy()
    fd = None
    try:
        fd = _lock_file(path)
        if fd is not None:
            _lock_exclusive(fd)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the flock
        lock.release()


def _lock_exclusive(fd: int) -> None:
    """Take the ``flock`` of ``fd`` once the other processes' writers are done.

    A thread waits in the kernel. A gevent worker must not: the wait would block its
    hub, and every greenlet of the worker with it. It tries without waiting, sleeping
    a millisecond between tries (the other greenlets run meanwhile), up to the busy
    timeout.
    """
    if not on_gevent():
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise _busy() from None
            pause()


def _busy() -> sqlite3.OperationalError:
    """SQLite's "database is locked", with its code (SQLITE_BUSY), as its busy timeout raises it."""
    error = sqlite3.OperationalError("database is locked")
    error.sqlite_errorcode = sqlite3.SQLITE_BUSY
    error.sqlite_errorname = "SQLITE_BUSY"
    return error


def _lock_file(path: str) -> int | None:
    """The lock file beside the database, opened (and made if need be); None if it cannot be."""
    try:
        return os.open(f"{path}.write-lock", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return None


@contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock at once (``BEGIN IMMEDIATE``)."""
    if db.conn.in_transaction:  # SQLite refuses a transaction within a transaction, at once
        db.execute("BEGIN IMMEDIATE")
    with write_lock(db):
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.rollback()  # also when COMMIT itself failed (a full disk): nothing is left open
            raise


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def row_dict(cursor: Any) -> dict[str, Any] | None:
    """The cursor's next row as a dict of column name to value, or None."""
    found = cursor.fetchone()
    if found is None:
        return None
    return dict(zip([d[0] for d in cursor.description], found, strict=True))
