"""Importing a ``chicago-match/1`` file: parsed, replayed by the engine, then stored through the write path.

The replay runs before the write lock is taken (``creations.create_match``),
so a long file never holds up the scorekeepers' taps; a refused file stores
nothing. An import is capped by what a real match can be, and the server reads
one import at a time (TRUST.md I7).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from flask import current_app

from scorekeeper.matchfile import FormatError, MatchFile, dumps, load, not_json
from scorekeeper.web.settings import MAX_EVENTS
from scorekeeper.web.store import creations
from scorekeeper.web.store.db import get_db
from scorekeeper.web.store.stored import StoredMatch
from scorekeeper.words import N_, said

TOO_MANY = N_(
    "A match file may hold at most {limit} events (a long match has a few hundred); this one has {count}."
)
EXTENSION = "scorekeeper.imports"


class TooManyEvents(FormatError):
    """A file with more events than any real match has (refused before any event is read)."""

    def __init__(self, count: int) -> None:
        super().__init__(said(TOO_MANY, limit=MAX_EVENTS, count=count))


def _document(text: str | bytes) -> Any:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise FormatError(not_json(error)) from None
    events = document.get("events") if isinstance(document, dict) else None
    if isinstance(events, list) and len(events) > MAX_EVENTS:
        raise TooManyEvents(len(events))
    return document


def _file(text: str | bytes) -> MatchFile:
    return load(_document(text))


def _one_at_a_time() -> threading.Lock:
    """The app's import lock (on the app, as the cache is).

    Reading and replaying a file is CPU work that holds the GIL: two imports at once
    finish no sooner than one after the other, and take twice the share of the
    interpreter from the threads answering taps.
    """
    lock: threading.Lock = current_app.extensions.setdefault(EXTENSION, threading.Lock())
    return lock


def import_match(text: str | bytes, key: str | None = None) -> str:
    """Store a match file as a new match; return its id.

    Raises ``FormatError`` for a file that is not a match file (``TooManyEvents`` for one
    longer than any real match), ``RuleBroken`` for one whose events break a rule, and
    ``creations.AlreadyStored`` for a match stored already (nothing is stored again: it counts
    once). A repeat of the same form (its ``key``, TRUST.md W8) answers with the match the
    first one stored, without reading the file again. The match keeps the file's times.
    """
    fingerprint = None if key is None else hashlib.sha256(_bytes(text)).hexdigest()
    with _one_at_a_time():
        # A repeat waits for the first post of the form, then finds what it stored.
        found = None if key is None or fingerprint is None else creations.created(key, fingerprint)
        if found is not None:
            return found
        file = _file(text)
        imported = creations.Imported(file.created_at, file.at)
        return creations.create_match(
            file.players, file.rules, file.events, key, fingerprint, imported=imported
        )


def _bytes(text: str | bytes) -> bytes:
    return text.encode() if isinstance(text, str) else text


@dataclass(frozen=True)
class Origin:
    """When an imported match was imported, and which of its times its file did not give (the
    import's time stands in for those: the history says so, and an export leaves them out)."""

    imported_at: str
    start_untimed: bool
    untimed: frozenset[int]  # the indexes of the events without a time of their own


def origin(match_id: str) -> Origin | None:
    """How a match came to be stored: None if it was recorded here."""
    db = get_db()
    found = db.execute("SELECT imported_at, untimed FROM matches WHERE id = ?", [match_id]).fetchone()
    if found is None or found[0] is None:
        return None
    rows = db.execute("SELECT seq FROM events WHERE match_id = ? AND untimed = 1", [match_id]).fetchall()
    return Origin(found[0], bool(found[1]), frozenset(seq for (seq,) in rows))


def export_text(match: StoredMatch, **extra: Any) -> str:
    """A stored match as a ``chicago-match/1`` file, with its times: when it began and when each
    event was recorded (MATCH_FORMAT.md), except those an imported file did not give."""
    known = origin(match.id)
    untimed = known.untimed if known is not None else frozenset()
    at = [None if i in untimed else t for i, t in enumerate(match.recorded_at)]
    start = None if known is not None and known.start_untimed else match.created_at
    return dumps(match.file, at, id=match.id, **({"created_at": start} if start else {}), **extra)
