"""The table's record of what happened: the feed of recent changes, the whole log, and what an
undo would take back (or a redo record again)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import render_template, request
from markupsafe import Markup

from scorekeeper.feed import said_at, step_words, undo_words
from scorekeeper.match import undo_walk, walk_back
from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present.i18n import (
    get_locale,
    house_rules,
    say,
)
from scorekeeper.web.store.stored import StoredMatch

FEED_LENGTH = 12
REDO_SECONDS = 8  # how long "Redo" is offered after an undo (issue 25: instead of a confirm dialog)


@dataclass(frozen=True)
class FeedEntry:
    index: int
    text: str
    at: str
    undone: bool


def full_log(match: StoredMatch) -> list[FeedEntry]:
    """Every event of the match, newest first, undone ones marked."""
    return feed(match, undo_walk(match.events)[1], length=len(match.events))


def cancelled_by(match: StoredMatch) -> dict[int, int]:
    """For each undo the feed shows, the event it cancelled (the log read from its end)."""
    return walk_back(match.events, len(match.events) - FEED_LENGTH)[1]


def feed(match: StoredMatch, cancelled: dict[int, int], length: int = FEED_LENGTH) -> list[FeedEntry]:
    events = match.events
    gone = set(cancelled.values())
    entries = []
    for index in range(len(events) - 1, max(-1, len(events) - 1 - length), -1):
        if index in cancelled:
            text = say(undo_words(events[cancelled[index]], said_at(events, cancelled[index])))
        else:
            text = say(said_at(events, index))
        entries.append(FeedEntry(index, text, match.recorded_at[index][11:16], index in gone))
    return entries


def footer(match: StoredMatch) -> Markup:
    """The table's footer (the match's rules, its links): the same at every tap, so rendered once per
    match, language and mount point, and kept."""

    def rendered() -> Markup:
        return Markup(
            render_template("matches/_footer.html", match=match, house_rules=house_rules(match.rules))
        )

    return cache().kept("footer", (match.id, str(get_locale()), request.script_root), rendered, text_size)


def undo_label(match: StoredMatch) -> str | None:
    """What one undo takes back: the latest tap still in effect, said short (a showdown: what decided it)."""
    tap = match.latest_tap()
    return say(step_words(match.events, tap)) if tap else None


def redo(match: StoredMatch) -> dict[str, Any]:
    """What "Redo" records again, for a few seconds after an undo (None: nothing), and how many are left.

    The seconds are counted from the undo's stored time: a page loaded later offers no redo.
    """
    undone = match.undone_step()
    if not undone:
        return {"redo_label": None}
    undone_at = datetime.fromisoformat(match.recorded_at[-1])
    left = REDO_SECONDS - (datetime.now(UTC) - undone_at).total_seconds()
    if left <= 0:
        return {"redo_label": None}
    return {"redo_label": say(step_words(match.events, undone)), "redo_left": math.ceil(left)}
