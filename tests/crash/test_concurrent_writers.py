"""TRUST.md R3: 4 processes x 300 read-then-write transactions, 0 "database is locked"."""

from __future__ import annotations

import multiprocessing
import queue
import random
import sqlite3
import time

import pytest

pytestmark = pytest.mark.slow


def _writer(db: str, seed: int, out) -> None:
    import sys
    from pathlib import Path

    sys.path[:0] = [str(Path(__file__).parents[1])]
    from simulate import random_events

    from scorekeeper.rules import Rules
    from scorekeeper.web import create_app
    from scorekeeper.web.store import creations, writes

    app = create_app(
        {"DATABASE": db, "SECRET_KEY": "r3-test-secret-key-0123456789abcdef", "WTF_CSRF_ENABLED": False}
    )
    events, _ = random_events(("Anna", "Bo"), Rules(target=2000), random.Random(seed).choice, 300, undo=False)
    locked = 0
    with app.test_request_context():
        match_id = creations.create_match(("Anna", "Bo"), Rules(target=2000))
        for version, event in enumerate(events):  # each append reads the match, then writes
            try:
                writes.append_events(match_id, version, (event,))
            except sqlite3.OperationalError as error:
                locked += "locked" in str(error)
                raise
    out.put((match_id, len(events), locked))


def _results(processes, results, deadline: float) -> list:
    """Each writer's result, as they come; a writer that dies fails the test at once, with its exit code."""
    done = []
    while len(done) < len(processes):
        try:
            done.append(results.get(timeout=0.2))
            continue
        except queue.Empty:
            pass
        failed = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
        assert failed == [], f"a writer failed (exit codes {failed}): its traceback is in the captured stderr"
        assert time.monotonic() < deadline, f"{len(processes) - len(done)} writers still running after 300 s"
    for p in processes:
        p.join(timeout=60)
        assert p.exitcode == 0
    return done


def test_four_processes_writing_at_once_never_see_a_locked_database(tmp_path):
    db = str(tmp_path / "r3.sqlite")
    from scorekeeper.web import create_app

    create_app({"DATABASE": db, "SECRET_KEY": "r3-test-secret-key-0123456789abcdef"})  # migrate once
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    processes = [context.Process(target=_writer, args=(db, seed, results)) for seed in range(4)]
    for p in processes:
        p.start()
    try:
        done = _results(processes, results, deadline=time.monotonic() + 300)
    finally:
        for p in processes:
            p.kill()
            p.join()
    assert all(locked == 0 for _, _, locked in done)
    conn = sqlite3.connect(db)
    for match_id, count, _ in done:
        assert count == 300
        assert conn.execute("SELECT COUNT(*) FROM events WHERE match_id = ?", [match_id]).fetchone()[0] == 300
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
