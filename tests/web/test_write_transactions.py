"""Every write runs in ``BEGIN IMMEDIATE``: writers, threads or processes, queue in SQLite's busy
handler instead of failing (TRUST.md R3); one that waits past the busy timeout is told so."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading

import pytest

from scorekeeper.web.store import db as database


def setup(path: str) -> None:
    db = database.connect(path)
    db.execute("CREATE TABLE log (who TEXT)")
    db.close()


def written(path: str) -> list[str]:
    db = database.connect(path)
    try:
        return [who for (who,) in db.execute("SELECT who FROM log ORDER BY rowid")]
    finally:
        db.close()


def _hold(path: str, inside, release) -> None:
    db = database.connect(path)
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
    second = database.connect(path)
    threading.Timer(0.2, release.set).start()
    with database.immediate(second):  # waits in the busy handler until the first commits
        second.execute("INSERT INTO log VALUES ('second')")
    first.join()
    second.close()
    assert written(path) == ["first", "second"]


def test_a_second_process_waits_for_the_first_writer_instead_of_failing(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    spawn = multiprocessing.get_context("spawn")
    inside, release = spawn.Event(), spawn.Event()
    other = spawn.Process(target=_hold, args=(path, inside, release))
    other.start()
    try:
        assert inside.wait(60)
        mine = database.connect(path)
        threading.Timer(0.2, release.set).start()
        with database.immediate(mine):
            mine.execute("INSERT INTO log VALUES ('second')")
        mine.close()
    finally:
        release.set()
        other.join(60)
    assert other.exitcode == 0
    assert written(path) == ["first", "second"]


def test_a_writer_that_waits_past_the_busy_timeout_gets_sqlites_busy_error(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    inside, release = threading.Event(), threading.Event()
    first = threading.Thread(target=_hold, args=(path, inside, release))
    first.start()
    try:
        assert inside.wait(30)
        second = database.connect(path)
        second.execute("PRAGMA busy_timeout=100")
        with pytest.raises(sqlite3.OperationalError, match="database is locked") as raised:
            with database.immediate(second):
                pass
        assert not second.conn.in_transaction
        second.close()
    finally:
        release.set()
        first.join()
    assert database.is_locked(raised.value)
    assert written(path) == ["first"]


def test_a_transaction_within_a_transaction_is_refused_at_once(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    db = database.connect(path)
    with database.immediate(db):
        db.execute("INSERT INTO log VALUES ('outer')")
        with pytest.raises(sqlite3.OperationalError, match="within a transaction"):
            with database.immediate(db):
                pass
    db.close()
    assert written(path) == ["outer"]


def test_a_tap_that_waits_past_the_busy_timeout_is_answered_503_and_recorded_once_when_tapped_again(
    app, keeper
):
    """An overloaded server (its writers queued longer than the busy timeout): the tap gets a
    503 with Retry-After, not a 500; nothing was recorded, and the same tap again records once."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    for db in app.extensions[database.EXTENSION].idle:  # the one the next request is lent
        db.execute("PRAGMA busy_timeout=100")
    other = sqlite3.connect(app.config["DATABASE"])
    other.execute("BEGIN IMMEDIATE")  # another writer holds the database's write lock
    try:
        refused = keeper.post(type="pass", player="Bo", key="k1")
    finally:
        other.rollback()
        other.close()
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "2"
    assert "Nothing was recorded" in refused.text and keeper.rows() == 1
    assert keeper.post(type="pass", player="Bo", key="k1").status_code == 200
    assert keeper.post(type="pass", player="Bo", key="k1", version=1).status_code == 200  # a double tap
    assert keeper.rows() == 2
