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

from flask import Flask, abort, current_app, request
from sqlite_utils import Database

from scorekeeper.web import figures, migrations
from scorekeeper.web.faults import fault_of

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


EXTENSION = "scorekeeper.db"


class Connections(threading.local):
    """Each thread's connection to the app's database (on ``app.extensions``, as a cache is):
    a sqlite3 connection is not shared between threads mid-transaction."""

    db: Database | None = None
    read_only = False  # opened while the file could not be written: SQLite keeps it read-only


def get_db() -> Database:
    """This thread's connection to the app's database, opened on first use.

    SQLite opens a file it may not write read-only, and the connection stays so:
    one opened that way is opened again once the file may be written (TRUST.md R6).
    """
    path = current_app.config["DATABASE"]
    mine: Connections = current_app.extensions[EXTENSION]
    if mine.db is not None and mine.read_only and os.access(path, os.W_OK):
        forget_connection()
    if mine.db is None:
        mine.read_only = not os.access(path, os.W_OK)
        mine.db = connect(path, must_exist=True)
    return mine.db


def open_connection(app: Flask | None = None) -> Database | None:
    """This thread's connection to the app's database if one is open (for checks; opens nothing)."""
    mine: Connections = (app or current_app).extensions[EXTENSION]
    return mine.db


def forget_connection(app: Flask | None = None) -> None:
    """Close this thread's connection: after a storage fault the next request opens afresh.

    A connection opened while the file was read-only stays read-only; a new one
    sees the file as it is now (TRUST.md R6: writes come back by themselves).
    """
    mine: Connections = (app or current_app).extensions[EXTENSION]
    if mine.db is not None:
        mine.db.close()  # rolls back whatever is open
        mine.db = None


def end_request(_: BaseException | None = None) -> None:
    """No request leaves a transaction open (TRUST.md R4): roll back whatever an error left."""
    db = open_connection()
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


def init_app(app: Flask) -> None:
    """Migrate and check the database at start (TRUST.md R5); after each request, no open transaction."""
    app.extensions[EXTENSION] = Connections()
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
