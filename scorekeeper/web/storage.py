"""The event log in SQLite, through sqlite-utils: the source of truth for every match.

One connection per thread, kept open across requests (closing the last
connection to a WAL database checkpoints it, which cost more than the whole
request); every write runs in ``BEGIN IMMEDIATE`` so that concurrent writers
queue on the busy timeout instead of failing. The hot paths use plain SQL
through ``db.execute``: sqlite-utils' table helpers look the schema up first.
A match's state is always its events replayed through the engine.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Flask, current_app
from sqlite_utils import Database

from scorekeeper.events import Event, Undo
from scorekeeper.hands import Category
from scorekeeper.match import apply, in_effect, replay
from scorekeeper.matchfile import MatchFile, read_event, read_name, write_event
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState
from scorekeeper.summary import PlayerFigures, figures, totals_by_round
from scorekeeper.web import capabilities, migrations
from scorekeeper.web.migrations import POINT_SOURCES
from scorekeeper.words import N_, said

BUSY_TIMEOUT_MS = 5000


class StaleVersion(Exception):
    """The screen the action was made on is not the latest: nothing was recorded."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the match is at version {current}")
        self.current = current


class MatchFinished(Exception):
    """An action on a match that is over (only undo re-opens it): TRUST.md I3's 409."""

    def __init__(self, winner: str | None) -> None:
        super().__init__(f"The match is over: {winner} won.")
        self.winner = winner


class KeyReused(Exception):
    """An idempotency key already used for a different action (TRUST.md W3)."""


@dataclass(frozen=True)
class Appended:
    """What an append did: the event's ``seq``, and whether the key had recorded it before."""

    seq: int
    state: MatchState
    replayed: bool = False


@dataclass(frozen=True)
class StoredMatch:
    """A match as stored: its file contents plus the shell's own fields."""

    id: str
    keeper_hash: str | None
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


_local = threading.local()
_CONNECTIONS_PER_THREAD = 4


def get_db() -> Database:
    """This thread's connection to the app's database, opened on first use."""
    path = current_app.config["DATABASE"]
    connections: OrderedDict[str, Database] = _local.__dict__.setdefault("connections", OrderedDict())
    db = connections.get(path)
    if db is None:
        db = connections[path] = connect(path)
        while len(connections) > _CONNECTIONS_PER_THREAD:
            connections.popitem(last=False)[1].close()
    return db


def open_connection(path: str) -> Database | None:
    """This thread's connection to ``path`` if one is open (for checks; opens nothing)."""
    connections: dict[str, Database] = _local.__dict__.get("connections", {})
    return connections.get(path)


def end_request(_: BaseException | None = None) -> None:
    """No request leaves a transaction open (TRUST.md R4): roll back whatever an error left."""
    connections = _local.__dict__.get("connections", {})
    db = connections.get(current_app.config["DATABASE"])
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


def init_app(app: Flask) -> None:
    """Migrate and check the database at start (TRUST.md R5); after each request, no open transaction."""
    db = connect(app.config["DATABASE"])
    try:
        migrations.apply(db)
        verdict = db.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as error:
        verdict = str(error)
    finally:
        db.close()
    app.config["READ_ONLY"] = verdict != "ok"
    if app.config["READ_ONLY"]:
        app.logger.error("the database failed its check (%s): refusing every write", verdict)
    app.before_request(_refuse_writes_if_unsound)
    app.teardown_appcontext(end_request)


def _refuse_writes_if_unsound() -> None:
    from flask import abort, request

    if current_app.config["READ_ONLY"] and request.method not in ("GET", "HEAD", "OPTIONS"):
        abort(503)


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


def create_match(players: tuple[str, ...], rules: Rules) -> tuple[str, str]:
    """Store a new match with no events; return its id and the scorekeeper's secret."""
    db = get_db()
    with immediate(db):
        return _insert_match(db, players, rules, now())


def _insert_match(db: Database, players: tuple[str, ...], rules: Rules, stamp: str) -> tuple[str, str]:
    """The rows of a new match and its players' names (inside the caller's transaction)."""
    match_id = secrets.token_urlsafe(16)
    keeper = capabilities.new_secret()
    db.execute(
        "INSERT INTO matches (id, keeper_hash, watch_hash, players, rules, created_at, updated_at, version,"
        " status, round) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'in_progress', 0)",
        [
            match_id,
            capabilities.digest(keeper),
            capabilities.digest(capabilities.watch_token(match_id)),
            json.dumps(list(players)),
            json.dumps(rules.to_dict()),
            stamp,
            stamp,
        ],
    )
    for name in players:
        db.execute(
            "INSERT INTO players (name, last_played) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET last_played = excluded.last_played",
            [name, stamp],
        )
        if _person_of(db, name) is None:
            person = db.execute("INSERT INTO people (name) VALUES (?)", [name]).lastrowid
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, person])
    state = MatchState.start(players, rules)
    _store_figures(db, StoredMatch(match_id, None, MatchFile(players, rules), 0, stamp, stamp, ()), state)
    return match_id, keeper


def _person_of(db: Database, name: str) -> int | None:
    found = db.execute("SELECT person_id FROM aliases WHERE name = ?", [name]).fetchone()
    return None if found is None else int(found[0])


_ROW_BY = {
    "id": "SELECT * FROM matches WHERE id = ?",
    "watch_hash": "SELECT * FROM matches WHERE watch_hash = ?",
}


def _row(db: Database, column: str, value: str) -> dict[str, Any] | None:
    cursor = db.execute(_ROW_BY[column], [value])
    found = cursor.fetchone()
    if found is None:
        return None
    return dict(zip([d[0] for d in cursor.description], found, strict=True))


def current_version(watch: str) -> int | None:
    """The version of the match behind a live-view secret (one row read), or None."""
    row = _row(get_db(), "watch_hash", capabilities.digest(watch))
    return None if row is None else int(row["version"])


# A match at a given version never changes, so it is kept, parsed and replayed, per
# (match id, version); a request reads one row to learn the version and reuses the rest.
_MATCHES: OrderedDict[tuple[str, int], StoredMatch] = OrderedDict()
_STATES: OrderedDict[tuple[str, int], MatchState] = OrderedDict()
_KEPT = 256


def _keep(cache: OrderedDict[tuple[str, int], Any], key: tuple[str, int], value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _KEPT:
        cache.popitem(last=False)


def load_match(match_id: str, *, watch: str | None = None) -> StoredMatch | None:
    """Read a match and its events, by id or by live-view secret (None if there is no such match)."""
    db = get_db()
    row = _row(db, "id", match_id) if watch is None else _row(db, "watch_hash", capabilities.digest(watch))
    if row is None:
        return None
    cached = _MATCHES.get((row["id"], row["version"]))
    if cached is not None:
        return cached
    rows = db.execute(
        "SELECT type, payload, recorded_at FROM events WHERE match_id = ? ORDER BY seq", [row["id"]]
    ).fetchall()
    events = tuple(read_event({"type": kind, **json.loads(payload)}) for kind, payload, _ in rows)
    file = MatchFile(tuple(json.loads(row["players"])), Rules.from_dict(json.loads(row["rules"])), events)
    stored = StoredMatch(
        row["id"],
        row["keeper_hash"],
        file,
        row["version"],
        row["created_at"],
        row["updated_at"],
        tuple(at for _, _, at in rows),
    )
    _keep(_MATCHES, (stored.id, stored.version), stored)
    return stored


def state_of(match: StoredMatch) -> MatchState:
    """The match replayed (kept per version, so an unchanged match is not replayed again)."""
    state = _STATES.get((match.id, match.version))
    if state is None:
        state = replay(match.players, match.rules, match.events)
        _keep(_STATES, (match.id, match.version), state)
    return state


def append_event(match_id: str, version: int, event: Event, key: str | None = None) -> Appended:
    """Check ``event`` against the whole match and store it in one write transaction.

    Raises ``StaleVersion`` if the match has moved on since ``version``, ``KeyReused``
    if ``key`` recorded a different action, and ``RuleBroken`` if the engine refuses
    the event; in each case nothing is stored. A ``key`` that recorded this same
    action before records nothing again and answers with the original ``seq``
    (a double tap, or a retry after a lost response).

    The engine's work (the new state, the figures) is done on the match as read
    at ``version`` before the write lock is taken, so that other writers do not
    wait on it; inside the transaction the version is read again, and the work
    is used only if the match is still at that version.
    """
    db = get_db()
    fingerprint = capabilities.digest(json.dumps(write_event(event), sort_keys=True))
    seen = load_match(match_id)
    if seen is None:
        raise LookupError(match_id)
    outcome = _applied(seen, event) if seen.version == version else None
    with immediate(db):
        match = load_match(match_id)
        if match is None:
            raise LookupError(match_id)
        if key is not None:
            done = db.execute(
                "SELECT seq, digest FROM actions WHERE match_id = ? AND key = ?", [match_id, key]
            )
            found = done.fetchone()
            if found is not None:
                if found[1] != fingerprint:
                    raise KeyReused(key)
                return Appended(found[0], state_of(match), replayed=True)
        if version != match.version:
            raise StaleVersion(match.version)
        if outcome is None or outcome.before is not match:  # another writer changed it in between
            outcome = _applied(match, event)
        if isinstance(outcome.result, Exception):
            raise outcome.result
        state, after, rows, chart = outcome.result
        db.execute(
            "INSERT INTO events (match_id, seq, type, payload, recorded_at) VALUES (?, ?, ?, ?, ?)",
            [match_id, version, event.type, outcome.payload, after.updated_at],
        )
        if key is not None:
            db.execute(
                "INSERT INTO actions (match_id, key, seq, digest) VALUES (?, ?, ?, ?)",
                [match_id, key, version, fingerprint],
            )
        db.execute(
            "UPDATE matches SET version = ?, updated_at = ?, status = ?, winner = ?, round = ? WHERE id = ?",
            [
                version + 1,
                after.updated_at,
                "finished" if state.is_finished else "in_progress",
                state.winner_name,
                state.round,
                match_id,
            ],
        )
        _write_figures(db, match_id, rows, chart)
    _keep(_MATCHES, (match_id, version + 1), after)
    _keep(_STATES, (match_id, version + 1), state)
    return Appended(version, state)


@dataclass(frozen=True)
class _Outcome:
    """The engine's verdict on an event at one version: the new state and rows, or its refusal."""

    before: StoredMatch
    payload: str
    result: tuple[MatchState, StoredMatch, list[list[Any]], str] | Exception  # state, match, figures, chart


def _applied(match: StoredMatch, event: Event) -> _Outcome:
    """Apply ``event`` to ``match``: what the transaction will store (nothing is written here)."""
    payload = write_event(event)
    del payload["type"]
    text = json.dumps(payload, ensure_ascii=False)
    try:
        if not isinstance(event, Undo) and state_of(match).is_finished:
            raise MatchFinished(state_of(match).winner_name)
        if isinstance(event, Undo):
            # The match as it was just before the cancelled event (what replay() steps back to).
            kept = in_effect(match.events)
            known = _STATES.get((match.id, kept[-1])) if kept else None
            state = known or replay(match.players, match.rules, (*match.events, event))
        else:
            before = _STATES.get((match.id, match.version))
            state = (
                apply(before, event) if before else replay(match.players, match.rules, (*match.events, event))
            )
    except (RuleBroken, MatchFinished) as refused:
        return _Outcome(match, text, refused)
    stamp = now()
    after = StoredMatch(
        match.id,
        match.keeper_hash,
        MatchFile(match.players, match.rules, (*match.events, event)),
        match.version + 1,
        match.created_at,
        stamp,
        (*match.recorded_at, stamp),
    )
    return _Outcome(match, text, (state, after, *_figures_of(match.id, state, after.events)))


def match_by_keeper(token: str) -> str | None:
    """The match whose scorekeeper's secret this is (a hand-over link), or None."""
    row = (
        get_db()
        .execute("SELECT id FROM matches WHERE keeper_hash = ?", [capabilities.digest(token)])
        .fetchone()
    )
    return None if row is None else str(row[0])


FIGURE_COLUMNS = (
    "match_id",
    "seat",
    "name",
    "score",
    "won",
    "finished",
    "rounds",
    "chicago_won",
    "chicago_lost",
    "best_hand",
    *(f"p_{source}" for source in POINT_SOURCES),
)
FIGURES_INSERT = (
    f"INSERT INTO match_players ({', '.join(FIGURE_COLUMNS)}) VALUES ({', '.join('?' * len(FIGURE_COLUMNS))})"
)


def figure_row(match_id: str, f: PlayerFigures, name: str | None = None) -> list[Any]:
    """The values of one match_players row, in FIGURE_COLUMNS order (``name`` overrides the player's)."""
    best = -1 if f.best_hand is None else Category(f.best_hand).order
    row = [
        match_id,
        f.seat,
        name or f.name,
        f.score,
        f.won,
        f.finished,
        f.rounds,
        f.chicago_won,
        f.chicago_lost,
    ]
    return [*row, best, *(f.points.get(source, 0) for source in POINT_SOURCES)]


def _figures_of(match_id: str, state: MatchState, events: tuple[Event, ...]) -> tuple[list[list[Any]], str]:
    """Each player's figures (match_players rows) and the chart's points, worked out (not written)."""
    rows = [figure_row(match_id, f) for f in figures(state, events)]
    return rows, json.dumps(totals_by_round(state))


def _write_figures(db: Database, match_id: str, rows: list[list[Any]], chart: str) -> None:
    """Replace a match's figures and chart (inside the caller's transaction)."""
    db.execute("DELETE FROM match_players WHERE match_id = ?", [match_id])
    db.conn.executemany(FIGURES_INSERT, rows)
    db.execute("UPDATE matches SET chart = ? WHERE id = ?", [chart, match_id])


def _store_figures(db: Database, match: StoredMatch, state: MatchState) -> None:
    """Keep each player's figures and the chart's points for this match, replacing the old ones."""
    _write_figures(db, match.id, *_figures_of(match.id, state, match.events))


def refresh_figures(db: Database, match_id: str) -> None:
    """Work a stored match's figures out again from its events (migrations, imports)."""
    row = _row(db, "id", match_id)
    assert row is not None
    rows = db.execute(
        "SELECT type, payload FROM events WHERE match_id = ? ORDER BY seq", [match_id]
    ).fetchall()
    events = tuple(read_event({"type": kind, **json.loads(payload)}) for kind, payload in rows)
    file = MatchFile(tuple(json.loads(row["players"])), Rules.from_dict(json.loads(row["rules"])), events)
    stored = StoredMatch(
        match_id, row["keeper_hash"], file, row["version"], row["created_at"], row["updated_at"], ()
    )
    _store_figures(db, stored, file.replay())


def known_players() -> list[str]:
    """Names used before, most recent first, to suggest when starting a match."""
    rows = get_db().table("players").rows_where(order_by="last_played desc", limit=50)
    return [row["name"] for row in rows]


class NameTaken(Exception):
    """A rename to a name that is already someone else's."""

    def __init__(self, name: str, owner: str) -> None:
        self.words = said(
            N_("{name} is already {owner}'s name: merge the two instead"), name=name, owner=owner
        )
        super().__init__(str(self.words))
        self.message = str(self)


def rename_person(person_id: int, new_name: str) -> None:
    """Give a person a new name; their earlier names stay theirs, so no history is lost."""
    name = read_name(new_name)
    db = get_db()
    with immediate(db):
        owner = _person_of(db, name)
        if owner is not None and owner != person_id:
            (owner_name,) = db.execute("SELECT name FROM people WHERE id = ?", [owner]).fetchone()
            raise NameTaken(name, owner_name)
        if owner is None:
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, person_id])
        db.execute("UPDATE people SET name = ? WHERE id = ?", [name, person_id])


def merge_people(keep_id: int, other_id: int) -> None:
    """Make two people one: every name of ``other_id`` becomes a name of ``keep_id``."""
    if keep_id == other_id:
        return
    db = get_db()
    with immediate(db):
        db.execute("UPDATE aliases SET person_id = ? WHERE person_id = ?", [keep_id, other_id])
        db.execute("DELETE FROM people WHERE id = ?", [other_id])


def import_match(file: MatchFile) -> tuple[str, str]:
    """Store a whole match file as a new match, after the engine has replayed it (``RuleBroken``).

    All of it is written in one transaction, or nothing is.
    """
    state = file.replay()
    db = get_db()
    stamp = now()
    with immediate(db):
        match_id, keeper = _insert_match(db, file.players, file.rules, stamp)
        for seq, event in enumerate(file.events):
            payload = write_event(event)
            del payload["type"]
            db.execute(
                "INSERT INTO events (match_id, seq, type, payload, recorded_at) VALUES (?, ?, ?, ?, ?)",
                [match_id, seq, event.type, json.dumps(payload, ensure_ascii=False), stamp],
            )
        db.execute(
            "UPDATE matches SET version = ?, status = ?, winner = ?, round = ? WHERE id = ?",
            [
                len(file.events),
                "finished" if state.is_finished else "in_progress",
                state.winner_name,
                state.round,
                match_id,
            ],
        )
        refresh_figures(db, match_id)
    return match_id, keeper
