"""What a match holds, as one digest: so that an import of a match already stored is found.

A match's ``chain`` is a SHA-256 chained over its players, rules and every event
in the order stored (undos included), each event in the canonical form the
event log stores: a tap adds its events to it (``writes._store``) without
reading the log again, and a file is chained the same way before it is
replayed. Two matches with the same chain hold the same players, rules and
events (TRUST.md W8: the same file imported twice is stored once).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database

from scorekeeper.events import Event
from scorekeeper.matchfile import read_event, write_event
from scorekeeper.rules import Rules


def payload(event: Event) -> str:
    """An event's fields as the event log stores them (JSON, without its ``type``)."""
    fields: dict[str, Any] = write_event(event)
    del fields["type"]
    return json.dumps(fields, ensure_ascii=False)


def seed(players: Sequence[str], rules: Rules) -> str:
    """The chain of a match with no event yet."""
    return _sha(json.dumps({"players": list(players), "rules": rules.to_dict()}, sort_keys=True))


def chained(chain: str, stored: Iterable[tuple[str, str]]) -> str:
    """``chain`` followed by events stored as (type, payload)."""
    for kind, fields in stored:
        chain = _sha(f"{chain}\n{kind}\n{fields}")
    return chain


def of(players: Sequence[str], rules: Rules, events: Sequence[Event]) -> str:
    """The chain of a whole match."""
    return chained(seed(players, rules), ((event.type, payload(event)) for event in events))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fill_in(db: Database) -> None:
    """Chain every match that has no chain (stored before there were chains), in the caller's
    transaction. Each event is read and written again in today's canonical form, as a file is."""
    missing = [row[0] for row in db.execute("SELECT id FROM matches WHERE chain IS NULL").fetchall()]
    for match_id in missing:
        players, rules = db.execute("SELECT players, rules FROM matches WHERE id = ?", [match_id]).fetchone()
        stored = db.execute("SELECT type, payload FROM events WHERE match_id = ? ORDER BY seq", [match_id])
        events = [read_event({"type": k, **json.loads(p)}, bounded=False) for k, p in stored.fetchall()]
        played_by = Rules.from_dict(json.loads(rules), bounded=False)
        chain = of(json.loads(players), played_by, events)
        db.execute("UPDATE matches SET chain = ? WHERE id = ?", [chain, match_id])
