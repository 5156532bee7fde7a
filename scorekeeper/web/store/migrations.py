"""The database schema, as sqlite-utils migrations: applied at every start, each exactly once.

A migration is frozen history: its own SQL and column lists, never a call
into today's code (whose names and columns move on). Derived data, such as
each player's figures, is worked out afterwards by today's code
(``figures.fill_in``) for any match that lacks it.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

# Module-level as sqlite-utils' decorator (``@migrations()``) needs it when the migrations are
# defined: state the library forces; it holds the list of migrations, no database's.
migrations = Migrations("scorekeeper")


def apply(db: Database) -> None:
    """Bring the schema up to date (idempotent)."""
    migrations.apply(db)


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


@migrations()
def m002_people_and_figures(db: Database) -> None:
    """People behind names (renames and merges touch only aliases), and each player's figures per match.

    The figures themselves are left to ``figures.fill_in`` (the chart stays NULL until then).
    """
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
        "best_hand": int,  # the category's order (0 pair … 8 royal flush) of the best declaration, -1 none
    }
    for source in (
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
    ):
        columns[f"p_{source}"] = int
    db.table("match_players").create(
        columns, pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")]
    )
    db.table("match_players").create_index(["name"])
    db.table("matches").add_column("chart", str)  # JSON: everybody's total after each round
    db.execute("INSERT INTO people (name) SELECT name FROM players ORDER BY rowid")
    db.execute("INSERT INTO aliases (name, person_id) SELECT name, id FROM people")


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


@migrations()
def m004_steps_and_no_watch_id(db: Database) -> None:
    """Events recorded by one tap share a ``step`` (the seq of its first event): one undo takes them back.

    ``watch_id`` (the live view's first design) was never read: it and its index go.
    """
    db.execute("ALTER TABLE events ADD COLUMN step INTEGER")
    db.execute("UPDATE events SET step = seq")
    db.execute("DROP INDEX IF EXISTS idx_matches_watch_id")
    db.execute("ALTER TABLE matches DROP COLUMN watch_id")


@migrations()
def m005_roles_by_device(db: Database) -> None:
    """Who holds a match's scorekeeper role: the SHA-256 of each phone's device secret (TRUST.md S1, S11).

    With it, the SHA-256 of that phone's hand-over link for the match. Old cookies carried the
    roles themselves: a migration cannot read cookies, so the app moves them on each phone's
    next request, and nothing is carried over here.
    """
    db.table("roles").create(
        {"match_id": str, "device_hash": str, "since": str, "handover_hash": str},
        pk=("match_id", "device_hash"),
        foreign_keys=[("match_id", "matches", "id")],
        not_null={"since", "handover_hash"},
    )
    db.table("roles").create_index(["handover_hash"], unique=True)


@migrations()
def m006_creation_keys(db: Database) -> None:
    """The one-time key of each form that created a match (new, rematch, import): a repeat finds it (W8).

    ``key`` is the SHA-256 of the form's key (the key also derives the creator's
    secret, so it is not kept in clear: TRUST.md S1); ``digest`` is what the key
    created, so the same key with other content is refused (W3).
    """
    db.table("creations").create(
        {"key": str, "digest": str, "match_id": str, "created_at": str},
        pk="key",
        foreign_keys=[("match_id", "matches", "id")],
        not_null={"digest", "match_id", "created_at"},
    )


@migrations()
def m007_rounds_played(db: Database) -> None:
    """A player's ``rounds`` in a match counts rounds played to the end, and the chart stops there too.

    They counted the round under way (points per round divided by a round not yet played, and
    the chart drew a line to it). Only a match still going differs: its chart goes back to NULL,
    so ``figures.fill_in`` works out its figures and chart again at this start.
    """
    db.execute("UPDATE matches SET chart = NULL WHERE status IS NOT 'finished'")


@migrations()
def m008_people_log(db: Database) -> None:
    """Every rename and merge as an entry of the people log, each undoable (TRUST.md P1).

    A merged person's row stays, marked ``merged_into`` the person who took their names, so an
    undo brings them back with the same id. An entry keeps the names it was made under and the
    names it added or moved (``aliases``, a JSON list); an undo is an entry too (``undoes``), at
    most one per entry, and ``key`` is the one-time key of the undo button that made it. People
    merged before this migration were deleted then: they stay gone, and the log starts empty.
    """
    db.execute("ALTER TABLE people ADD COLUMN merged_into INTEGER REFERENCES people(id)")
    db.execute(
        """
        CREATE TABLE people_log (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            person_id INTEGER NOT NULL REFERENCES people(id),
            person_name TEXT NOT NULL,
            new_name TEXT,
            other_id INTEGER REFERENCES people(id),
            other_name TEXT,
            aliases TEXT NOT NULL,
            undoes INTEGER REFERENCES people_log(id),
            key TEXT
        )
        """
    )
    db.execute("CREATE UNIQUE INDEX idx_people_log_undoes ON people_log (undoes)")
    db.execute("CREATE UNIQUE INDEX idx_people_log_key ON people_log (key)")


@migrations()
def m009_imports_and_rematches(db: Database) -> None:
    """What an import keeps and finds, and which match a rematch follows (issue 25).

    ``chain`` is a digest of the match's players, rules and events (``contents.py``; worked out
    at start for the matches stored before it), so a match imported twice is found.
    ``imported_at`` is when a match was imported (NULL: it was recorded here); the match's
    ``created_at`` and its events' ``recorded_at`` are then the file's own times, and
    ``untimed`` marks those the file did not give (the import's time stands in). ``rematch_of``
    is the match a rematch was started from: its live view follows to the rematch.
    """
    db.execute("ALTER TABLE matches ADD COLUMN chain TEXT")
    db.execute("ALTER TABLE matches ADD COLUMN imported_at TEXT")
    db.execute("ALTER TABLE matches ADD COLUMN untimed INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE matches ADD COLUMN rematch_of TEXT REFERENCES matches(id)")
    db.execute("ALTER TABLE events ADD COLUMN untimed INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX idx_matches_chain ON matches (chain)")
    db.execute("CREATE INDEX idx_matches_rematch_of ON matches (rematch_of)")


@migrations()
def m010_variant_point_sources(db: Database) -> None:
    """Each player's points by the variants' own reasons (issue 28), a ``p_<source>`` column each.

    A match played under a variant that moves totals by itself has its figures worked out again
    at this start (its chart back to NULL: ``figures.fill_in``); every other match has none of them.
    """
    for source in ("blanco_won", "blanco_lost", "chicago_broken", "four_of_a_kind_reset", "over_target"):
        db.execute(f"ALTER TABLE match_players ADD COLUMN p_{source} INTEGER NOT NULL DEFAULT 0")
    db.execute(
        "UPDATE matches SET chart = NULL WHERE rules LIKE '%blanco_chicago%'"
        " OR rules LIKE '%chicago_break_bonus%' OR rules LIKE '%four_of_a_kind_resets%'"
        " OR rules LIKE '%over_target_resets%'"
    )
