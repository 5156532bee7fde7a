"""The one way in for every write: a tap, several events from one tap, an undo, a new match, an import.

Every change to a match goes through ``append_events`` or, for a new match
with its first events, ``create_match``: ``decide`` is pure (the engine folds
the events on the match at the version the screen showed, or refuses) and
runs before the write lock is taken, so other writers never wait on Python;
the write stores the events, the idempotency key, the version and the
figures in one ``BEGIN IMMEDIATE`` transaction. Events stored by one call
share a ``step`` (the seq of its first event), and one undo takes a whole
step back (``StoredMatch.last_step``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlite_utils import Database

from scorekeeper.events import Event, Undo
from scorekeeper.match import apply, replay, walk_back
from scorekeeper.matchfile import MatchFile, write_event
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState
from scorekeeper.summary import Tally, tally
from scorekeeper.web import roles
from scorekeeper.web.store import contents, figures, people
from scorekeeper.web.store.db import get_db, immediate, now
from scorekeeper.web.store.eventlog import StoredMatch, kept_tally, load_match, remember, state_at, state_of


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


class AlreadyStored(Exception):
    """An imported file holds a match already stored (the same players, rules and events, and the
    same times where the file gives them): nothing was stored, ``match_id`` is the stored one."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


@dataclass(frozen=True)
class Imported:
    """What an imported file says of when its match was recorded: ``created_at`` and each event's
    ``at`` (None where it does not say; MATCH_FORMAT.md: an import keeps them)."""

    created_at: str | None
    at: tuple[str | None, ...]

    @property
    def start(self) -> str | None:
        """When the match began, as the file says: its ``created_at``, else its first time."""
        return self.created_at or next((at for at in self.at if at), None)

    def of(self, count: int) -> Imported:
        """One time (or None) for each of ``count`` events, as a file has."""
        return replace(self, at=(*self.at, *(None,) * count)[:count])


@dataclass(frozen=True)
class Appended:
    """What an append did: the first event's ``seq``, the match and its state just after it (as read
    in its transaction, for a key that had recorded it before), and whether the key had."""

    seq: int
    match: StoredMatch
    state: MatchState
    replayed: bool = False


@dataclass(frozen=True)
class Step:
    """The engine's verdict on one tap's events at one version: what the transaction will store."""

    before: StoredMatch
    after: StoredMatch
    state: MatchState
    payloads: tuple[str, ...]
    figures: figures.Rows | None  # None: the tap changed none of them (kept as they are)
    chart: str | None
    counted: Tally | None = None  # what ``figures`` and ``chart`` were worked out from (kept for the next)


def decide(
    match: StoredMatch,
    events: Sequence[Event],
    state: MatchState | None = None,
    stamp: str | None = None,
    one_step: bool = True,
    payloads: Sequence[str] | None = None,
) -> Step:
    """Fold ``events`` onto ``match`` (pure: nothing is written); raise the engine's refusal.

    ``state`` may be given when the caller has already replayed the whole result (a new
    match), and ``payloads`` when it has already written the events as the log stores them.
    With ``one_step`` false each event is a step of its own (an imported file's events were
    taps of their own).
    """
    done = match.events
    before = None
    if state is None:
        before = state = state_of(match)
        for event in events:
            state = _folded(match, done, state, event)
            done = (*done, event)
    stamp = stamp or now()
    count = len(events)
    after = StoredMatch(
        match.id,
        MatchFile(match.players, match.rules, (*match.events, *events)),
        match.version + count,
        match.created_at,
        stamp,
        (*match.recorded_at, *(stamp,) * count),
        (*match.steps, *(match.version if one_step else match.version + i for i in range(count))),
    )
    payloads = tuple(payloads) if payloads is not None else tuple(contents.payload(event) for event in events)
    if before is not None and _same_figures(before, state):
        return Step(match, after, state, payloads, None, None)
    # From the tally kept for the match's figures the last time they changed: a tap adds its own
    # changes, instead of walking every change of the match (an undo's state counts from the start).
    counted = tally(state, kept_tally(match))
    return Step(match, after, state, payloads, *figures.work_out(match.id, state, counted), counted)


def _same_figures(before: MatchState, after: MatchState) -> bool:
    """True when a tap cannot have changed a player's figures or the chart, which are worked out
    from the state alone (``summary.figures``): no total changed (the state's score history is the
    same object), the round and the winner are the same, and nobody's best declaration of the match
    is higher. So an exchange, a trick before the last, a pass or a declaration below the player's
    best that leaves the showdown open, or the undo of one, changes nothing."""
    return (
        after.history is before.history
        and (after.round, after.winner) == (before.round, before.winner)
        and after.best_declared == before.best_declared
    )


def _folded(match: StoredMatch, done: tuple[Event, ...], state: MatchState, event: Event) -> MatchState:
    if not isinstance(event, Undo):
        if state.is_finished:
            raise MatchFinished(state.winner_name)
        return apply(state, event)
    # The match as it was just before the cancelled event (what replay() steps back to): the
    # state kept at the start of that event's tap, and the tap's earlier events applied again
    # (one tap's undo cancels several events, one at a time).
    kept, _ = walk_back(done, len(done))
    known = state_at(match, kept[-1]) if kept and kept[-1] < match.version else None
    return known or replay(match.players, match.rules, (*done, event))


def _fingerprint(events: Sequence[Event]) -> str:
    """What a key recorded: a retry with the same key must carry the same events (TRUST.md W3)."""
    written: Any = [write_event(e) for e in events]
    return roles.digest(json.dumps(written[0] if len(written) == 1 else written, sort_keys=True))


def append_events(
    match_id: str,
    version: int,
    events: Sequence[Event],
    key: str | None = None,
    seen: StoredMatch | None = None,
) -> Appended:
    """Check ``events`` against the match at ``version`` and store them all in one write transaction.

    Raises ``StaleVersion`` if the match has moved on since ``version``, ``KeyReused``
    if ``key`` recorded a different action, ``MatchFinished`` or ``RuleBroken`` if the
    engine refuses; in each case nothing is stored. A ``key`` that recorded these same
    events before records nothing again and answers with the original ``seq``
    (a double tap, or a retry after a lost response).

    ``seen`` is the match as the caller has just read it, if it has: the engine decides on it
    before the transaction, which checks that nobody wrote since.
    """
    seen = seen or load_match(match_id)
    if seen is None:
        raise LookupError(match_id)
    step: Step | BaseException | None = None
    if seen.version == version:
        try:
            step = decide(seen, events)
        except (RuleBroken, MatchFinished) as refused:
            step = refused
    return _write(get_db(), match_id, version, events, step, key)


def _write(
    db: Database, match_id: str, version: int, events: Sequence[Event], step: Any, key: str | None
) -> Appended:
    fingerprint = _fingerprint(events)
    with immediate(db):
        match = load_match(match_id)
        if match is None:
            raise LookupError(match_id)
        if key is not None:
            found = db.execute(
                "SELECT seq, digest FROM actions WHERE match_id = ? AND key = ?", [match_id, key]
            ).fetchone()
            if found is not None:
                if found[1] != fingerprint:
                    raise KeyReused(key)
                return Appended(found[0], match, state_of(match), replayed=True)
        if version != match.version:
            raise StaleVersion(match.version)
        if step is None or (isinstance(step, Step) and step.before is not match):  # another writer got in
            step = decide(match, events)
        if isinstance(step, BaseException):
            raise step
        _store(db, step, key, fingerprint)
    remember(step.after, step.state, step.counted)
    return Appended(version, step.after, step.state)


def _store(db: Database, step: Step, key: str | None, fingerprint: str, chain: str | None = None) -> None:
    """The rows of one step (inside the caller's transaction); ``chain``: the match's digest after
    them, if the caller has worked it out (a new match's), else chained on here (a tap's few events)."""
    match, after, first = step.before, step.after, step.before.version
    rows = [
        (match.id, first + i, event.type, payload, after.recorded_at[first + i], after.steps[first + i])
        for i, (event, payload) in enumerate(zip(after.events[first:], step.payloads, strict=True))
    ]
    db.conn.executemany(
        "INSERT INTO events (match_id, seq, type, payload, recorded_at, step) VALUES (?, ?, ?, ?, ?, ?)", rows
    )
    if chain is None:  # the match's digest, chained on over the events just stored (contents.py)
        (chain,) = db.execute("SELECT chain FROM matches WHERE id = ?", [match.id]).fetchone()
        chain = None if chain is None else contents.chained(chain, ((row[2], row[3]) for row in rows))
    if key is not None:
        db.execute(
            "INSERT INTO actions (match_id, key, seq, digest) VALUES (?, ?, ?, ?)",
            [match.id, key, first, fingerprint],
        )
    state = step.state
    db.execute(
        "UPDATE matches SET version = ?, updated_at = ?, status = ?, winner = ?, round = ?, chain = ?"
        " WHERE id = ?",
        [
            after.version,
            after.updated_at,
            "finished" if state.is_finished else "in_progress",
            state.winner_name,
            state.round,
            chain,
            match.id,
        ],
    )
    if step.figures is not None and step.chart is not None:
        figures.write(db, match.id, step.figures, step.chart)


def creation_digest(players: Sequence[str], rules: Rules, events: Sequence[Event] = ()) -> str:
    """What a creation key made, by default: the players, rules and first events (TRUST.md W3)."""
    content = {"players": list(players), "rules": rules.to_dict(), "events": [write_event(e) for e in events]}
    return roles.digest(json.dumps(content, sort_keys=True))


def created(key: str, fingerprint: str) -> tuple[str, str] | None:
    """The match a creation key already made and its creator's secret, or None for a new key.

    Raises ``KeyReused`` if the key made something other than ``fingerprint``.
    """
    found = (
        get_db()
        .execute("SELECT match_id, digest FROM creations WHERE key = ?", [roles.digest(key)])
        .fetchone()
    )
    if found is None:
        return None
    if found[1] != fingerprint:
        raise KeyReused(key)
    return found[0], roles.creator_secret(key)


def _first_step(
    empty: StoredMatch, events: Sequence[Event], payloads: Sequence[str], imported: Imported | None
) -> Step:
    """A new match's first events decided: one fold of them all, so that a refusal names the
    event's index, as ``scorekeeper check`` does. An imported match keeps its file's times: its
    start and each event's, where the file gives them (the import's time stands in elsewhere)."""
    state = replay(empty.players, empty.rules, events)
    step = decide(empty, events, state, empty.updated_at, one_step=False, payloads=payloads)
    if imported is None:
        return step
    stamps = tuple(at or empty.updated_at for at in imported.at)
    after = replace(step.after, updated_at=stamps[-1] if stamps else empty.created_at, recorded_at=stamps)
    return replace(step, after=after)


def stored_as(chain: str, imported: Imported) -> str | None:
    """The match already stored with this chain (``contents.of``) and the same times: its start and
    each event's, a time the file does not give the same as one the import had to stand in for
    (``untimed``); None if there is none."""
    db = get_db()
    start = imported.start
    found = db.execute("SELECT id, created_at, untimed FROM matches WHERE chain = ? ORDER BY rowid", [chain])
    for match_id, created_at, untimed in found.fetchall():
        if start != (None if untimed else created_at):
            continue
        stored = db.execute(
            "SELECT recorded_at, untimed FROM events WHERE match_id = ? ORDER BY seq", [match_id]
        )
        if list(imported.at) == [None if gone else at for at, gone in stored.fetchall()]:
            return str(match_id)
    return None


def create_match(
    players: tuple[str, ...],
    rules: Rules,
    events: Sequence[Event] = (),
    key: str | None = None,
    fingerprint: str | None = None,
    *,
    imported: Imported | None = None,
    rematch_of: str | None = None,
) -> tuple[str, str]:
    """Store a new match with its first events (a dealer, or a whole imported file); return id and secret.

    The engine decides first, outside the write lock; the match row, its people and its
    events are then written in one transaction, or nothing is. With a ``key`` (the
    form's one-time key, TRUST.md W8) a repeat stores nothing and answers with the
    match the key made; ``fingerprint`` says what it made (``creation_digest`` by default).

    An import (``imported``: the file's times) of a match already stored raises
    ``AlreadyStored`` and stores nothing: the same file imported twice counts once.
    ``rematch_of``: the match a rematch was started from.
    """
    if key is not None:
        fingerprint = fingerprint or creation_digest(players, rules, events)
        found = created(key, fingerprint)  # a repeat is answered without replaying anything
        if found is not None:
            return found
    imported = None if imported is None else imported.of(len(events))
    # The events as the log stores them, and the match's digest over them: worked out once, here,
    # outside the write lock (a file's 5,000 events take some 30 ms).
    payloads = [contents.payload(event) for event in events]
    chain = contents.chained(
        contents.seed(players, rules), zip((e.type for e in events), payloads, strict=True)
    )
    if imported is not None and (same := stored_as(chain, imported)) is not None:
        raise AlreadyStored(same)  # before the replay: a file stored already costs no more
    stamp = now()
    start = None if imported is None else imported.start
    empty = StoredMatch(secrets.token_urlsafe(16), MatchFile(players, rules), 0, start or stamp, stamp, ())
    # Decided before the transaction: an imported file's replay takes long.
    step = _first_step(empty, events, payloads, imported)
    keeper = roles.new_secret() if key is None else roles.creator_secret(key)
    db = get_db()
    with immediate(db):
        if key is not None and fingerprint is not None:
            found = created(key, fingerprint)  # another post of the same form got in first
            if found is not None:
                return found
        if imported is not None and (same := stored_as(chain, imported)) is not None:
            raise AlreadyStored(same)  # another import of the same file got in first
        _insert_match(db, empty, keeper, chain, imported, rematch_of)
        if key is not None:
            db.execute(
                "INSERT INTO creations (key, digest, match_id, created_at) VALUES (?, ?, ?, ?)",
                [roles.digest(key), fingerprint, empty.id, stamp],
            )
        people.note_players(db, players, stamp)
        _store(db, step, None, "", chain)
        if imported is not None:  # the events whose time the import's stands in for
            untimed = [(empty.id, seq) for seq, at in enumerate(imported.at) if at is None]
            db.conn.executemany("UPDATE events SET untimed = 1 WHERE match_id = ? AND seq = ?", untimed)
    remember(step.after, step.state, step.counted)
    return empty.id, keeper


def _insert_match(
    db: Database,
    empty: StoredMatch,
    keeper: str,
    chain: str,
    imported: Imported | None,
    rematch_of: str | None,
) -> None:
    """A new match's row (inside the caller's transaction): an imported one says when it was
    imported, and whether its start is the import's (its file gave none)."""
    db.execute(
        "INSERT INTO matches (id, keeper_hash, watch_hash, players, rules, created_at, updated_at,"
        " version, status, round, chain, imported_at, untimed, rematch_of)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'in_progress', 0, ?, ?, ?, ?)",
        [
            empty.id,
            roles.digest(keeper),
            roles.digest(roles.watch_token(empty.id)),
            json.dumps(list(empty.players)),
            json.dumps(empty.rules.to_dict()),
            empty.created_at,
            empty.updated_at,
            chain,
            None if imported is None else empty.updated_at,
            int(imported is not None and imported.start is None),
            rematch_of,
        ],
    )
