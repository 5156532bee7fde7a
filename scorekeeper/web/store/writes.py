"""The one way in for every write: a tap, several events from one tap, an undo, a new match, an import.

Every change to a match goes through ``append_events`` or, for a new match
with its first events, ``creations.create_match``: ``decide`` is pure (the engine folds
the events on the match at the version the screen showed, or refuses) and
runs before the write lock is taken, so other writers never wait on Python;
the write stores the events, the idempotency key, the version and the
figures in one ``BEGIN IMMEDIATE`` transaction. Events stored by one call
share a ``step`` (the seq of its first event), and one undo takes a whole
step back (``StoredMatch.last_step``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from scorekeeper.events import Event, Undo
from scorekeeper.match import apply, replay, walk_back
from scorekeeper.matchfile import MatchFile, write_event
from scorekeeper.refusals import RuleBroken
from scorekeeper.state import MatchState
from scorekeeper.summary import Tally, tally
from scorekeeper.web import roles
from scorekeeper.web.store import contents, figures
from scorekeeper.web.store.db import get_db, immediate, now
from scorekeeper.web.store.eventlog import kept_tally, load_match, remember, state_at, state_of
from scorekeeper.web.store.stored import StoredMatch


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
