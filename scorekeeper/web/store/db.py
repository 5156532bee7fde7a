"""The connection to SQLite: its pragmas, one kept per thread, the start-up check, write transactions.

One connection per thread, kept open across requests (closing the last
connection to a WAL database checkpoints it, which costs more than a whole
request); every write runs in ``BEGIN IMMEDIATE`` so that concurrent writers,
threads or processes, queue in SQLite's busy handler instead of failing
(TRUST.md R3).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask import Flask, abort, current_app, g, request
from sqlite_utils import Database

from scorekeeper.web.settings import BUSY_TIMEOUT_MS, KEPT, START_PATIENCE
from scorekeeper.web.store import contents, figures, migrations
from scorekeeper.web.store.faults import fault_of


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


EXTENSION = "scorekeeper.db"


class Connections:
    """The app's idle connections to its database (on ``app.extensions``, as the cache is).

    Closing the last connection to a WAL database checkpoints it, which costs more than a
    whole request: so connections are kept, not opened for each request. SQLite opens a file
    it may not write read-only, and the connection stays so: one opened that way is not lent
    again once the file may be written (TRUST.md R6: writes come back by themselves).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.idle: list[Database] = []
        self.read_only: set[int] = set()  # id() of the connections opened read-only
        self._lock = threading.Lock()

    def lend(self) -> Database:
        with self._lock:
            db = self.idle.pop() if self.idle else None
        if db is not None and id(db) in self.read_only and os.access(self.path, os.W_OK):
            self.close(db)
            db = None
        if db is None:
            writable = os.access(self.path, os.W_OK)
            db = connect(self.path, must_exist=True)
            if not writable:
                self.read_only.add(id(db))
        return db

    def give_back(self, db: Database) -> None:
        """Take back a lent connection, its transaction rolled back (TRUST.md R4)."""
        if db.conn.in_transaction:
            db.conn.rollback()
        with self._lock:
            if len(self.idle) < KEPT:
                self.idle.append(db)
                return
        self.close(db)

    def close(self, db: Database) -> None:
        self.read_only.discard(id(db))
        db.close()

    def close_idle(self) -> None:
        with self._lock:
            idle, self.idle = self.idle, []
        for db in idle:
            self.close(db)


def _connections(app: Flask | None = None) -> Connections:
    found: Connections = (app or current_app).extensions[EXTENSION]
    return found


def get_db() -> Database:
    """The request's connection to the app's database, lent to it until its end."""
    if "db" not in g:
        g.db = _connections().lend()
    db: Database = g.db
    return db


def open_connection() -> Database | None:
    """The request's connection if it has one (for checks; opens nothing)."""
    found: Database | None = g.get("db")
    return found


def forget_connection() -> None:
    """Close the request's connection instead of giving it back: after a storage fault the next
    request opens afresh (a connection opened while the file was read-only stays read-only)."""
    db = g.pop("db", None)
    if db is not None:
        _connections().close(db)  # rolls back whatever is open


def close_idle(app: Flask) -> None:
    """Close every connection the app keeps between requests (tests, before they touch the file)."""
    _connections(app).close_idle()


def end_request(_: BaseException | None = None) -> None:
    """Give the request's connection back, no transaction left open (TRUST.md R4)."""
    db = g.pop("db", None)
    if db is not None:
        _connections().give_back(db)


def init_app(app: Flask) -> None:
    """Migrate and check the database at start (TRUST.md R5); after each request, no open transaction."""
    app.extensions[EXTENSION] = Connections(app.config["DATABASE"])
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
                contents.fill_in(db)
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


@contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock at once (``BEGIN IMMEDIATE``)."""
    db.execute("BEGIN IMMEDIATE")  # SQLite refuses a transaction within a transaction, at once
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
