"""A new match, the one way in for its first events: a new match's dealer, a rematch, an imported file.

Like every write it goes through the engine first (``writes.decide``), and one
``BEGIN IMMEDIATE`` transaction then stores the match row, its people and its
events, or nothing. A creating form's one-time key (TRUST.md W8) makes a repeat
answer with the match it made; an imported file already stored is not stored again.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlite_utils import Database

from scorekeeper.events import Event
from scorekeeper.match import replay
from scorekeeper.matchfile import MatchFile, write_event
from scorekeeper.rules import Rules
from scorekeeper.web import roles
from scorekeeper.web.store import contents, people
from scorekeeper.web.store.db import get_db, immediate, now
from scorekeeper.web.store.eventlog import remember
from scorekeeper.web.store.stored import StoredMatch
from scorekeeper.web.store.writes import KeyReused, Step, _store, decide


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


def creation_digest(players: Sequence[str], rules: Rules, events: Sequence[Event] = ()) -> str:
    """What a creation key made, by default: the players, rules and first events (TRUST.md W3)."""
    content = {"players": list(players), "rules": rules.to_dict(), "events": [write_event(e) for e in events]}
    return roles.digest(json.dumps(content, sort_keys=True))


def created(key: str, fingerprint: str) -> str | None:
    """The match a creation key already made, or None for a new key.

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
    return str(found[0])


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
) -> str:
    """Store a new match with its first events (a dealer, or a whole imported file); return its id.

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
    db = get_db()
    with immediate(db):
        if key is not None and fingerprint is not None:
            found = created(key, fingerprint)  # another post of the same form got in first
            if found is not None:
                return found
        if imported is not None and (same := stored_as(chain, imported)) is not None:
            raise AlreadyStored(same)  # another import of the same file got in first
        _insert_match(db, empty, chain, imported, rematch_of)
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
    return empty.id


def _insert_match(
    db: Database,
    empty: StoredMatch,
    chain: str,
    imported: Imported | None,
    rematch_of: str | None,
) -> None:
    """A new match's row (inside the caller's transaction): an imported one says when it was
    imported, and whether its start is the import's (its file gave none). Its ``keeper_hash`` stays
    empty: only a match from before roles moved to the server has a secret of its own."""
    db.execute(
        "INSERT INTO matches (id, keeper_hash, watch_hash, players, rules, created_at, updated_at,"
        " version, status, round, chain, imported_at, untimed, rematch_of)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 0, 'in_progress', 0, ?, ?, ?, ?)",
        [
            empty.id,
            None,
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
