"""Writers queue on the write lock before ``BEGIN IMMEDIATE``, never in SQLite's busy handler.

Each writer here runs with ``busy_timeout=0``: without the lock, a writer that finds
another one in its transaction fails at once with "database is locked".
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import subprocess
import sys
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


# A gevent worker's writer while another process holds the lock file (a second open file
# description of it, which flock treats as another process), releasing it after ``release``
# seconds or never (None); a greenlet ticks every 10 ms meanwhile.
GEVENT_WRITER = """
from gevent import monkey
monkey.patch_all()
import fcntl, json, os, sqlite3, sys, time, gevent
from scorekeeper.web import db as database

path, release, database.BUSY_TIMEOUT_MS = sys.argv[1], json.loads(sys.argv[2]), 300
other = os.open(path + ".write-lock", os.O_RDONLY | os.O_CREAT)
fcntl.flock(other, fcntl.LOCK_EX)
if release is not None:
    gevent.spawn_later(release, os.close, other)
ticks = []

def tick():
    while True:
        ticks.append(time.perf_counter())
        gevent.sleep(0.01)

ticker = gevent.spawn(tick)
gevent.sleep(0.02)
db = database.connect(path)
start = time.perf_counter()
try:
    with database.immediate(db):
        db.execute("INSERT INTO log VALUES ('gevent')")
    error = None
except sqlite3.OperationalError as raised:
    error = [str(raised), raised.sqlite_errorcode]
waited = time.perf_counter() - start
ticker.kill()
gaps = [b - a for a, b in zip(ticks, ticks[1:]) if a >= start]
print(json.dumps({"waited": waited, "longest_gap": max(gaps), "error": error}))
"""


def _gevent_writer(path: str, release: float | None) -> dict:
    args = [sys.executable, "-c", GEVENT_WRITER, path, json.dumps(release)]
    child = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout)


def test_a_gevent_worker_waits_for_another_process_without_blocking_its_other_greenlets(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    seen = _gevent_writer(path, release=0.2)
    assert seen["error"] is None and seen["waited"] > 0.1  # it did wait for the other process
    assert seen["longest_gap"] < 0.1, seen  # the hub kept serving while the writer waited
    assert written(path) == ["gevent"]


def test_a_gevent_worker_that_waits_past_the_busy_timeout_gets_sqlites_own_busy_error(tmp_path):
    path = str(tmp_path / "w.sqlite")
    setup(path)
    seen = _gevent_writer(path, release=None)
    assert seen["error"] == ["database is locked", sqlite3.SQLITE_BUSY]
    assert 0.3 <= seen["waited"] < 2 and seen["longest_gap"] < 0.1, seen
    assert written(path) == []


def test_a_tap_that_waits_past_the_busy_timeout_is_answered_503_and_recorded_once_when_tapped_again(
    app, keeper, monkeypatch
):
    """An overloaded server (its writers queued longer than the busy timeout): the tap gets a
    503 with Retry-After, not a 500; nothing was recorded, and the same tap again records once."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    lock = database._thread_locks.setdefault(app.config["DATABASE"], threading.Lock())
    with lock:  # another writer of this process holds the database's write lock
        refused = keeper.post(type="pass", player="Bo", key="k1")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "2"
    assert "Nothing was recorded" in refused.text and keeper.rows() == 1
    assert keeper.post(type="pass", player="Bo", key="k1").status_code == 200
    assert keeper.post(type="pass", player="Bo", key="k1", version=1).status_code == 200  # a double tap
    assert keeper.rows() == 2
