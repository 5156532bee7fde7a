"""The event log in SQLite, through sqlite-utils: the source of truth for every match.

One connection per request (in ``g``); every write runs in ``BEGIN IMMEDIATE``
so that concurrent writers queue on the busy timeout instead of failing.
A match's state is always its events replayed through the engine.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Flask, current_app, g
from sqlite_utils import Database

from scorekeeper.events import Event
from scorekeeper.match import replay
from scorekeeper.matchfile import MatchFile, read_event, write_event
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState
from scorekeeper.web import migrations

BUSY_TIMEOUT_MS = 5000


class StaleVersion(Exception):
    """The screen the action was made on is not the latest: nothing was recorded."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the match is at version {current}")
        self.current = current


@dataclass(frozen=True)
class StoredMatch:
    """A match as stored: its file contents plus the shell's own fields."""

    id: str
    watch_id: str
    file: MatchFile
    version: int
    created_at: str
    updated_at: str
    recorded_at: tuple[str, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return self.file.players

    @property
    def rules(self) -> Rules:
        return self.file.rules

    @property
    def events(self) -> tuple[Event, ...]:
        return self.file.events


def connect(path: str) -> Database:
    """Open the database with the pragmas every connection needs (TRUST.md R2)."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=wal")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys=ON")
    return Database(conn)


def get_db() -> Database:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    db: Database = g.db
    return db


def close_db(_: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def init_app(app: Flask) -> None:
    """Migrate the database at start and close connections after each request."""
    db = connect(app.config["DATABASE"])
    try:
        migrations.apply(db)
    finally:
        db.close()
    app.teardown_appcontext(close_db)


@contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock at once (``BEGIN IMMEDIATE``)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def create_match(players: tuple[str, ...], rules: Rules) -> str:
    """Store a new match with no events; return its id."""
    db = get_db()
    match_id = secrets.token_urlsafe(12)
    stamp = now()
    with immediate(db):
        db.table("matches").insert(
            {
                "id": match_id,
                "watch_id": secrets.token_urlsafe(12),
                "players": json.dumps(list(players)),
                "rules": json.dumps(rules.to_dict()),
                "created_at": stamp,
                "updated_at": stamp,
                "version": 0,
                "status": "in_progress",
                "round": 0,
            }
        )
        db.table("players").upsert_all([{"name": name, "last_played": stamp} for name in players], pk="name")
    return match_id


def _row(db: Database, column: str, value: str) -> dict[str, Any] | None:
    rows = list(db.table("matches").rows_where(f"{column} = ?", [value], limit=1))
    return rows[0] if rows else None


def load_match(match_id: str, *, by_watch_id: bool = False) -> StoredMatch | None:
    """Read a match and its events (None if there is no such match)."""
    db = get_db()
    row = _row(db, "watch_id" if by_watch_id else "id", match_id)
    if row is None:
        return None
    rows = list(db.table("events").rows_where("match_id = ?", [row["id"]], order_by="seq"))
    events = tuple(read_event({"type": r["type"], **json.loads(r["payload"])}) for r in rows)
    file = MatchFile(tuple(json.loads(row["players"])), Rules.from_dict(json.loads(row["rules"])), events)
    return StoredMatch(
        row["id"],
        row["watch_id"],
        file,
        row["version"],
        row["created_at"],
        row["updated_at"],
        tuple(r["recorded_at"] for r in rows),
    )


_STATES: OrderedDict[tuple[str, int], MatchState] = OrderedDict()
_STATES_KEPT = 256


def state_of(match: StoredMatch) -> MatchState:
    """The match replayed, kept per (match, version) so an unchanged match is not replayed again."""
    key = (match.id, match.version)
    state = _STATES.get(key)
    if state is None:
        state = replay(match.players, match.rules, match.events)
        _STATES[key] = state
        while len(_STATES) > _STATES_KEPT:
            _STATES.popitem(last=False)
    return state


def append_event(match_id: str, version: int, event: Event) -> tuple[StoredMatch, MatchState]:
    """Check ``event`` against the whole match and store it, all in one write transaction.

    Raises ``StaleVersion`` if the match has moved on since ``version``, and
    ``RuleBroken`` if the engine refuses the event; either way nothing is stored.
    """
    db = get_db()
    with immediate(db):
        match = load_match(match_id)
        if match is None:
            raise LookupError(match_id)
        if version != match.version:
            raise StaleVersion(match.version)
        events = (*match.events, event)
        state = replay(match.players, match.rules, events)
        stamp = now()
        payload = write_event(event)
        del payload["type"]
        db.table("events").insert(
            {
                "match_id": match_id,
                "seq": match.version,
                "type": event.type,
                "payload": json.dumps(payload, ensure_ascii=False),
                "recorded_at": stamp,
            }
        )
        db.table("matches").update(
            match_id,
            {
                "version": match.version + 1,
                "updated_at": stamp,
                "status": "finished" if state.is_finished else "in_progress",
                "winner": state.winner_name,
                "round": state.round,
            },
        )
    stored = StoredMatch(
        match.id,
        match.watch_id,
        MatchFile(match.players, match.rules, events),
        match.version + 1,
        match.created_at,
        stamp,
        (*match.recorded_at, stamp),
    )
    _STATES[(match.id, stored.version)] = state
    return stored, state


def recent_matches(limit: int = 50) -> list[dict[str, Any]]:
    """The newest matches first, for the match list."""
    db = get_db()
    rows = db.table("matches").rows_where(order_by="updated_at desc", limit=limit)
    return [{**row, "players": json.loads(row["players"])} for row in rows]


def known_players() -> list[str]:
    """Names used before, most recent first, to suggest when starting a match."""
    rows = get_db().table("players").rows_where(order_by="last_played desc", limit=50)
    return [row["name"] for row in rows]
