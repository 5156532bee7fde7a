"""TRUST.md I7 through the test client: an import is replayed outside the write lock, capped, rate-limited.

The load goal (taps during imports, the worker's memory) is tests/load/test_creations_and_imports.py.
"""

import sqlite3

from webtools import MATCHES

from scorekeeper.web import db as database
from scorekeeper.web import writes


def write_lock_is_free(path: str) -> bool:
    """True if another connection could start writing right now (nobody holds the write lock)."""
    other = sqlite3.connect(path, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


def test_an_import_is_replayed_before_the_write_lock_is_taken(app, client, monkeypatch):
    seen = []
    real = writes.replay

    def watched(players, rules, events):
        db = database.open_connection(app.config["DATABASE"])
        in_transaction = db is not None and db.conn.in_transaction
        seen.append((len(events), in_transaction, write_lock_is_free(app.config["DATABASE"])))
        return real(players, rules, events)

    monkeypatch.setattr(writes, "replay", watched)
    response = client.post("/import", data={"text": (MATCHES / "tie-break-to-ten.json").read_text()})
    assert response.status_code == 303
    ((count, in_transaction, lock_free),) = seen
    assert count > 0 and not in_transaction and lock_free
