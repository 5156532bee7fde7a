"""Importing a ``chicago-match/1`` file: parsed, replayed by the engine, then stored through the write path.

The replay runs before the write lock is taken (``eventlog.create_match``),
so a long file never holds up the scorekeepers' taps; a refused file stores
nothing.
"""

from __future__ import annotations

from scorekeeper.matchfile import loads
from scorekeeper.web.writes import create_match


def import_match(text: str | bytes) -> tuple[str, str]:
    """Store a match file as a new match; return its id and the scorekeeper's secret.

    Raises ``FormatError`` for a file that is not a match file, ``RuleBroken`` for one
    whose events break a rule.
    """
    file = loads(text)
    return create_match(file.players, file.rules, file.events)
