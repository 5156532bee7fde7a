"""Writers queue on the write lock before ``BEGIN IMMEDIATE``, never in SQLite's busy handler.

Each writer here runs with ``busy_timeout=0``: without the lock, a writer that finds
another one in its transaction fails at once with "database is locked".
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading

import pytest

from scorekeeper.web import db as database


def writer(path: str):
    db = database.connect(path)
    db.execute("PRAGMA busy_timeout=0")
    return db


def setup(path: str) -> None:
    db = writer(path)
    db.execute("CREATE TABLE log (who TEXT)")
    db.close()


def written(path: str) -> list[str]:
    db = writer(path)
    try:
        return [who for (who,) in db.execute("SELECT who FROM log ORDER BY rowid")]
    finally:
        db.close()


def _hold(path: str, inside, release) -> None:
    db = writer(path)
    with database.immediate(db):
        db.execute("INSERT INTO log VALUES ('first')")
        inside.set()
        release.wait(30)
    db.close()


def test_a_second_thread_waits_for_the_first_writer_instead_of_failing(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    inside, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_hold, args=(path, inside, release))
    first.start()
    assert inside.wait(30)
    second = writer(path)
    threading.Timer(0.2, release.set).start()
    with database.immediate(second):  # waits on the lock until the first commits
        second.execute("INSERT INTO log VALUES ('second')")
    first.join()
    second.close()
    assert written(path) == ["first", "second"]


def test_a_second_process_waits_on_the_lock_file_beside_the_database(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    spawn = multiprocessing.get_context("spawn")
    inside, release = spawn.Event(), spawn.Event()
    other = spawn.Process(target=_hold, args=(path, inside, release))
    other.start()
    try:
        assert inside.wait(60)
        mine = writer(path)
        threading.Timer(0.2, release.set).start()
        with database.immediate(mine):  # waits on <db>.write-lock until the other process commits
            mine.execute("INSERT INTO log VALUES ('second')")
        mine.close()
    finally:
        release.set()
        other.join(60)
    assert other.exitcode == 0
    assert written(path) == ["first", "second"]
    assert (tmp_path / "w.sqlite.write-lock").exists()


def test_a_thread_that_waits_past_the_busy_timeout_gets_sqlites_own_busy_error(tmp_path, monkeypatch):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    inside, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_hold, args=(path, inside, release))
    first.start()
    try:
        assert inside.wait(30)
        second = writer(path)
        with pytest.raises(sqlite3.OperationalError, match="database is locked") as raised:
            with database.immediate(second):
                pass
        second.close()
    finally:
        release.set()
        first.join()
    assert raised.value.sqlite_errorcode == sqlite3.SQLITE_BUSY  # what callers test (db.is_locked)


def test_without_a_lock_file_writes_still_go_through_sqlite_alone(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    (tmp_path / "w.sqlite.write-lock").mkdir()  # cannot be opened as the lock file, even by root
    db = database.connect(path)
    with database.immediate(db):
        db.execute("INSERT INTO log VALUES ('alone')")
    db.close()
    assert written(path) == ["alone"]


def test_a_transaction_within_a_transaction_is_refused_at_once(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    db = writer(path)
    with database.immediate(db):
        with pytest.raises(sqlite3.OperationalError, match="within a transaction"):
            with database.immediate(db):
                pass
    db.close()
