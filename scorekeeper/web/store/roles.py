"""The roles table, and the hashes of a match's secrets: what ``roles.py`` reads and writes.

Only hashes are kept (TRUST.md S1, S11): a device's, a hand-over link's, the
live-view link's and, for a match from before roles moved to the server, its
own secret's.
"""

from __future__ import annotations

from collections.abc import Iterable

from scorekeeper.web.store.db import connect, get_db, immediate


def newest_watched(path: str) -> tuple[str, str] | None:
    """The newest match's id and live-view hash, read from the file at ``path`` (None if there is
    none); raises ``sqlite3.Error`` for a file that cannot be read."""
    db = connect(path)
    try:
        found = db.execute(
            "SELECT id, watch_hash FROM matches WHERE watch_hash IS NOT NULL ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
    finally:
        db.close()
    return None if found is None else (found[0], found[1])


def add_roles(rows: Iterable[tuple[str, str, str, str]]) -> None:
    """Store roles: (match id, device hash, since, hand-over hash); one already held stays as it is."""
    db = get_db()
    with immediate(db):
        db.conn.executemany(
            "INSERT OR IGNORE INTO roles (match_id, device_hash, since, handover_hash) VALUES (?, ?, ?, ?)",
            rows,
        )


def match_by_hash(token_hash: str) -> str | None:
    """The match a hand-over link's hash claims: a phone's own link, or a match's secret of old."""
    found = (
        get_db()
        .execute(
            "SELECT match_id FROM roles WHERE handover_hash = :hash"
            " UNION ALL SELECT id FROM matches WHERE keeper_hash = :hash LIMIT 1",
            {"hash": token_hash},
        )
        .fetchone()
    )
    return None if found is None else str(found[0])


def device_hashes(match_id: str) -> list[str]:
    """The hashes of the devices that hold the match's role."""
    rows = get_db().execute("SELECT device_hash FROM roles WHERE match_id = ?", [match_id]).fetchall()
    return [device_hash for (device_hash,) in rows]


def keeper_hash(match_id: str) -> str | None:
    """The hash of the match's own secret (a match from before roles moved to the server), if any."""
    found = get_db().execute("SELECT keeper_hash FROM matches WHERE id = ?", [match_id]).fetchone()
    return None if found is None or not found[0] else str(found[0])
