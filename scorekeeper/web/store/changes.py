"""What changed in the database since the live view's watcher last looked (``live.py``)."""

from __future__ import annotations

import sqlite3

CHUNK = 500  # ids per query (SQLite allows 32,766 parameters; a short IN list plans well)


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's count of the commits other connections made to the file (a change to look for)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


# Events are only ever added, and one writer at a time adds them (``db.immediate``), so their
# rowids grow in the order they were committed: the matches written since the last look are
# those of the events past the rowid seen then, a few rows however many matches are watched.
def newest_event(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM events").fetchone()[0])


def written(conn: sqlite3.Connection, after: int, upto: int) -> list[str]:
    """The matches that events ``after`` < rowid <= ``upto`` were written to."""
    found = conn.execute("SELECT DISTINCT match_id FROM events WHERE rowid > ? AND rowid <= ?", [after, upto])
    return [row[0] for row in found]


def versions_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for at in range(0, len(ids), CHUNK):
        part = ids[at : at + CHUNK]
        marks = ",".join("?" * len(part))
        found.update(conn.execute(f"SELECT id, version FROM matches WHERE id IN ({marks})", part).fetchall())
    return found
