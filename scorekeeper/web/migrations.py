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


# Columns of match_players that add up points by where they came from (summary.PlayerFigures.points).
POINT_SOURCES = (
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "last_trick",
    "chicago_won",
    "chicago_lost",
    "adjust",
)


@migrations()
def m002_people_and_figures(db: Database) -> None:
    """People behind names (renames and merges touch only aliases), and each player's figures per match."""
    db.table("people").create({"id": int, "name": str}, pk="id", not_null={"name"})
    db.table("aliases").create(
        {"name": str, "person_id": int}, pk="name", foreign_keys=[("person_id", "people", "id")]
    )
    db.table("aliases").create_index(["person_id"])
    columns: dict[str, type] = {
        "match_id": str,
        "seat": int,
        "name": str,
        "score": int,
        "won": int,
        "finished": int,
        "rounds": int,
        "chicago_won": int,
        "chicago_lost": int,
        "best_hand": int,  # Category.order of the best declaration, -1 for none
    }
    columns.update({f"p_{source}": int for source in POINT_SOURCES})
    db.table("match_players").create(
        columns, pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")]
    )
    db.table("match_players").create_index(["name"])
    db.table("matches").add_column("chart", str)  # JSON: everybody's total after each round
    for (name,) in db.execute("SELECT name FROM players").fetchall():
        person = db.table("people").insert({"name": name}).last_pk
        db.table("aliases").insert({"name": name, "person_id": person})
    from scorekeeper.web.storage import refresh_figures

    for (match_id,) in db.execute("SELECT id FROM matches").fetchall():
        refresh_figures(db, match_id)


@migrations()
def m003_capabilities_and_idempotency(db: Database) -> None:
    """Secrets stored only as SHA-256 hashes (TRUST.md S1), and each action's idempotency key (W1)."""
    db.table("matches").add_column("keeper_hash", str)
    db.table("matches").add_column("watch_hash", str)
    db.table("matches").create_index(["keeper_hash"], unique=True)
    db.table("matches").create_index(["watch_hash"], unique=True)
    db.table("actions").create(
        {"match_id": str, "key": str, "seq": int, "digest": str},
        pk=("match_id", "key"),
        foreign_keys=[("match_id", "matches", "id")],
    )
