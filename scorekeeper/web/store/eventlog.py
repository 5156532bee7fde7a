"""The event log, read: a match as stored, its state, and the matches behind secrets.

A match at a given version never changes, so the parsed match and its state
are kept in the app's cache per (id, version). ``version`` is the number of
events, which the step-through pages and the ETag rely on. Writing is
``writes.py``'s alone.

Events are only ever added, so a match at a version begins with the match at
any earlier one. The cache keeps, per match, only its newest version and its
newest few states (``keep``; the one before the newest is where an undo of the
latest tap starts): a version it does not hold yet is read from the newest it
holds, only the events written since, and its state is folded on from there
(replayed only over an undo). The process that did not take a tap reads a match
this way at each tap its spectators see.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from flask import abort
from sqlite_utils import Database

from scorekeeper.events import Adjust, Event, Undo
from scorekeeper.match import apply, replay
from scorekeeper.matchfile import MatchFile, read_event
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState
from scorekeeper.summary import Tally
from scorekeeper.web import roles
from scorekeeper.web.cache import cache
from scorekeeper.web.store.db import get_db, row_dict
from scorekeeper.web.store.stored import StoredMatch

# A match at a given version never changes: the parsed match and its state are kept per
# (id, version). Sizes are estimates from measurement, at or above what tracemalloc counts
# (test_a_kept_match_and_state_cost_no_more_than_their_estimate, a short match and a long one):
# a parsed event with its stamp and step is about 240 bytes, a state about 50 bytes per event.
MATCH_BYTES, MATCH_EVENT_BYTES = 3_000, 260
STATE_BYTES, STATE_EVENT_BYTES = 2_000, 80
# A match's tally (summary.Tally, kept for its next figures): each seat's points by source, and
# everybody's totals at each round's end (a round's entry, its tuple and each total above 256).
TALLY_BYTES, TALLY_ROUND_BYTES, TALLY_SEAT_ROUND_BYTES = 1_500, 80, 40
# How many versions of each kind are kept per match: the newest match (a newer version is read
# on from it); the newest four states (an undo of the latest tap starts at the one before, and
# undos one after the other at those before it; older ones are replayed).
VERSIONS_KEPT = {"match": 1, "state": 4, "tally": 1}
# What a state below a match's newest holds that the newest does not (test_a_state_below_the_newest
# _holds_no_more_than_it_is_charged measures it): a state is folded on from the one before and shares
# its history. A match keeps one version only, so nothing below it is charged apart.
OLDER_STATE_BYTES = 2_500
OLDER_CHARGED = {"match": None, "state": OLDER_STATE_BYTES, "tally": None}


def events_text(events: Sequence[Event]) -> int:
    """The free text ``events`` carry: a correction's reason, which an imported file may make
    as long as the import's bytes allow (TRUST.md I7: the cache is bounded by memory)."""
    return sum(sys.getsizeof(e.reason) for e in events if isinstance(e, Adjust))


def text_bytes(match: StoredMatch) -> int:
    """The free text of the match's events: counted once, as it was read or written, and then
    added to as it grows (a tap's page does not read the whole log again)."""
    return events_text(match.events) if match.text is None else match.text


def match_size(match: StoredMatch, text: int | None = None) -> int:
    """What ``match`` costs to keep (``text``: its ``text_bytes``, if already counted)."""
    return MATCH_BYTES + MATCH_EVENT_BYTES * len(match.events) + (text_bytes(match) if text is None else text)


def state_size(match: StoredMatch, text: int | None = None) -> int:
    """What the state of ``match`` costs to keep (its text counted again: it may outlive the match)."""
    return STATE_BYTES + STATE_EVENT_BYTES * len(match.events) + (text_bytes(match) if text is None else text)


def tally_size(state: MatchState) -> int:
    """What a tally of ``state`` costs to keep (the note of the change it counted up to included)."""
    last = state.last_change
    note = sys.getsizeof(last.note) if last is not None and isinstance(last.note, str) else 0
    per_round = TALLY_ROUND_BYTES + TALLY_SEAT_ROUND_BYTES * len(state.players)
    return TALLY_BYTES + per_round * (state.round + 1) + note


def remember(match: StoredMatch, state: MatchState, counted: Tally | None = None) -> None:
    """Keep a match just written, its state and the tally its figures were counted from, each
    charged what it costs (the write path hands them over; the books are kept here)."""
    text = text_bytes(match)
    keep("match", match, match, match_size(match, text))
    keep("state", match, state, state_size(match, text))
    if counted is not None:
        keep("tally", match, counted, tally_size(state))


def kept_tally(match: StoredMatch) -> Tally | None:
    """The newest tally kept of ``match`` at its version or before, if any (``summary.tally``
    goes on from it if it counted up to a change the match's state still holds)."""
    found = cache().newest("tally", match.id, match.version + 1)
    return None if found is None else found[1]


def _find(db: Database, column: str, value: str) -> dict[str, Any] | None:
    sql = {"id": "SELECT * FROM matches WHERE id = ?", "watch": "SELECT * FROM matches WHERE watch_hash = ?"}
    return row_dict(db.execute(sql[column], [value]))


def load_match(match_id: str, *, watch: str | None = None) -> StoredMatch | None:
    """Read a match and its events, by id or by live-view secret (None if there is no such match)."""
    db = get_db()
    row = _find(db, "id", match_id) if watch is None else _find(db, "watch", roles.digest(watch))
    if row is None:
        return None
    match = cache().get("match", (row["id"], row["version"]))
    if match is None:
        match = _read(db, row, cache().newest("match", row["id"], row["version"]))
        keep("match", match, match, match_size(match))
    return match


def keep(kind: str, match: StoredMatch, value: Any, size: int) -> None:
    """Keep ``value`` (the match itself, or its state) as the match's at its version; older
    versions beyond what ``VERSIONS_KEPT`` allows are dropped. A state below the newest is
    charged ``OLDER_STATE_BYTES``: it shares nearly all its memory with the newer ones."""
    cache().put_version(kind, match.id, match.version, value, size, VERSIONS_KEPT[kind], OLDER_CHARGED[kind])


def _read(db: Database, row: dict[str, Any], since: tuple[int, StoredMatch] | None = None) -> StoredMatch:
    """The match of ``row``; only the events after ``since`` (an earlier version of it) are read.

    Only the events below the row's version: the row and the events are read in two statements,
    and a writer may commit between them. Without the bound the match kept as this version would
    hold the next one's events too, and every version read on from it would repeat them.
    """
    start, earlier = since if since is not None else (0, None)
    rows = db.execute(
        "SELECT type, payload, recorded_at, step FROM events WHERE match_id = ? AND seq >= ? AND seq < ?"
        " ORDER BY seq",
        [row["id"], start, row["version"]],
    ).fetchall()
    # The log is read as it was written: numbers recorded before their ranges stay readable.
    events = tuple(read_event({"type": k, **json.loads(p)}, bounded=False) for k, p, _, _ in rows)
    stamps = tuple(at for _, _, at, _ in rows)
    steps = tuple(seq if step is None else step for seq, (_, _, _, step) in enumerate(rows, start))
    text = events_text(events)
    if earlier is not None:
        file = MatchFile(earlier.players, earlier.rules, earlier.events + events)
        stamps, steps = earlier.recorded_at + stamps, earlier.steps + steps
        text += text_bytes(earlier)
    else:
        rules = Rules.from_dict(json.loads(row["rules"]), bounded=False)
        file = MatchFile(tuple(json.loads(row["players"])), rules, events)
    return StoredMatch(
        row["id"], file, row["version"], row["created_at"], row["updated_at"], stamps, steps, text
    )


def state_of(match: StoredMatch) -> MatchState:
    """The match replayed (kept per version, so an unchanged match is not replayed again); from
    the newest state kept, when only events other than undos were added since."""
    state = cache().get("state", (match.id, match.version))
    if state is None:
        since = cache().newest("state", match.id, match.version)
        added = match.events[since[0] :] if since is not None else ()
        if since is None or any(isinstance(event, Undo) for event in added):
            state = replay(match.players, match.rules, match.events)
        else:
            state = since[1]
            for event in added:
                state = apply(state, event)
        keep("state", match, state, state_size(match))
    return state


def state_at(match: StoredMatch, version: int) -> MatchState | None:
    """The state at ``version`` from the state kept at the start of its tap (the tap's earlier events
    applied again), or None if none is kept or the tap was an undo."""
    start = match.steps[version] if version < match.version else version
    state = cache().get("state", (match.id, start))
    between = match.events[start:version]
    if state is None or any(isinstance(event, Undo) for event in between):
        return None
    for event in between:
        state = apply(state, event)
    return state


def watched_version(watch: str) -> tuple[str, int] | None:
    """The id and version of the match behind a live-view secret (one row read), or None."""
    found = get_db().execute("SELECT id, version FROM matches WHERE watch_hash = ?", [roles.digest(watch)])
    row = found.fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


def rematch_of(match_id: str) -> str | None:
    """The newest rematch started from the match (its live view follows there), or None."""
    found = get_db().execute(
        "SELECT id FROM matches WHERE rematch_of = ? ORDER BY rowid DESC LIMIT 1", [match_id]
    )
    row = found.fetchone()
    return None if row is None else str(row[0])


def match_or_404(match_id: str) -> StoredMatch:
    """The match, or the 404 page."""
    match = load_match(match_id)
    if match is None:
        abort(404)
    return match
