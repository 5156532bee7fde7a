"""Importing a ``chicago-match/1`` file: parsed, replayed by the engine, then stored through the write path.

The replay runs before the write lock is taken (``writes.create_match``),
so a long file never holds up the scorekeepers' taps; a refused file stores
nothing.
"""

from __future__ import annotations

import hashlib

from scorekeeper.matchfile import loads
from scorekeeper.web import writes


def import_match(text: str | bytes, key: str | None = None) -> tuple[str, str]:
    """Store a match file as a new match; return its id and the scorekeeper's secret.

    Raises ``FormatError`` for a file that is not a match file, ``RuleBroken`` for one
    whose events break a rule. A repeat of the same form (its ``key``, TRUST.md W8)
    answers with the match the first one stored, without reading the file again.
    """
    fingerprint = None
    if key is not None:
        fingerprint = hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()
        found = writes.created(key, fingerprint)
        if found is not None:
            return found
    file = loads(text)
    return writes.create_match(file.players, file.rules, file.events, key, fingerprint)
