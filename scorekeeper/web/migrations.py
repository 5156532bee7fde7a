"""The database schema, as sqlite-utils migrations: applied at every start, each exactly once."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("scorekeeper")


@migrations()
def m001_matches_and_events(db: Database) -> None:
    """A match is its players, rules and events; ``version`` counts the events (W4)."""
    db.table("matches").create(
        {
            "id": str,
            "watch_id": str,
            "players": str,  # JSON list, seat order
            "rules": str,  # JSON object of house-rule overrides
            "created_at": str,
            "updated_at": str,
            "version": int,
            "status": str,  # in_progress | finished
            "winner": str,
            "round": int,
        },
        pk="id",
        not_null={"players", "rules", "created_at", "updated_at", "version", "status"},
        defaults={"version": 0, "status": "in_progress", "round": 0},
    )
    db.table("matches").create_index(["watch_id"], unique=True)
    db.table("matches").create_index(["updated_at"])
    db.table("events").create(
        {"match_id": str, "seq": int, "type": str, "payload": str, "recorded_at": str},
        pk=("match_id", "seq"),
        foreign_keys=[("match_id", "matches", "id")],
        not_null={"type", "payload", "recorded_at"},
    )
    db.table("players").create({"name": str, "last_played": str}, pk="name")


def apply(db: Database) -> None:
    """Bring the schema up to date (idempotent)."""
    migrations.apply(db)
