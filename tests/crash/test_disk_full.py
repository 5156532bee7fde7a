"""TRUST.md R6 against a real server: the disk fills mid-match, then space returns, with no restart.

The fault is real: the database lives on a small tmpfs (root only, see
disktools) that a file fills to the last byte while three scorekeepers tap.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from disktools import fill, small_disk
from servertools import Keeper, Server

from scorekeeper.web.store.faults import Fault

pytestmark = pytest.mark.slow

REASON = Fault.FULL.message  # what the phone is told: the disk is full, free space on the server


class Scorer:
    """One phone tapping its match; a refused tap is sent again with the same key until it is recorded."""

    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper
        self.acknowledged: list[tuple[int, str]] = []  # seq, event type
        self.refused: list[tuple[int, str, bytes]] = []  # status, content type, body
        self.tap = keeper.tap_form()

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            path, body = self.tap
            response, page = self.keeper.post(path, body, minimal=True)
            if response.status == 204:
                self.acknowledged.append((int(response.getheader("X-Event-Seq")), body.get("type", "undo")))
                self.keeper.version += 1
                self.tap = self.keeper.tap_form()
            else:
                self.refused.append((response.status, response.getheader("Content-Type"), page))
                time.sleep(0.05)


def wait_until(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_disk_that_fills_mid_match_loses_no_acknowledged_tap_and_writes_resume_by_themselves(tmp_path):
    with small_disk(tmp_path / "disk", "8m") as disk:
        db = disk / "scores.sqlite"
        server = Server(db).start()
        scorers = [Scorer(Keeper(server.port, seed=i, target=1000)) for i in range(3)]
        stop = threading.Event()
        threads = [threading.Thread(target=s.run, args=(stop,)) for s in scorers]
        started = time.monotonic()
        try:
            for thread in threads:
                thread.start()
            wait_until(lambda: all(len(s.acknowledged) >= 10 for s in scorers), 60, "taps before the fill")
            filler = fill(disk)
            before = sum(len(s.acknowledged) for s in scorers)
            wait_until(lambda: all(len(s.refused) >= 3 for s in scorers), 60, "every phone refused")
            during = sum(len(s.acknowledged) for s in scorers) - before
            filler.unlink()
            freed = [len(s.acknowledged) for s in scorers]
            wait_until(
                lambda: all(len(s.acknowledged) >= n + 10 for s, n in zip(scorers, freed, strict=True)),
                60,
                "taps once space returned",
            )
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
            assert server.process is not None and server.process.poll() is None  # the same server throughout
        finally:
            stop.set()
            for scorer in scorers:
                scorer.keeper.close()
            server.stop()
        refused = [r for s in scorers for r in s.refused]
        for status, content_type, page in refused:
            assert (status, content_type) == (503, "text/html; charset=utf-8")
            assert REASON in page.decode() and "Traceback" not in page.decode()
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            for scorer in scorers:
                match = scorer.keeper.match
                stored = dict(
                    conn.execute("SELECT seq, type FROM events WHERE match_id = ?", [match]).fetchall()
                )
                assert sorted(stored) == list(range(len(stored)))  # gapless
                for seq, kind in scorer.acknowledged:  # 0 acknowledged events lost
                    assert stored[seq] == kind
                assert len(stored) == len(scorer.acknowledged) == scorer.keeper.version
        finally:
            conn.close()
        print(
            f"\ndisk full mid-match: {before} taps acknowledged before the fill, {during} while filling,"
            f" {len(refused)} refused with 503, {sum(len(s.acknowledged) for s in scorers)} in all,"
            f" {time.monotonic() - started:.1f} s"
        )
