"""The room board: every match under way at once, for a tablet or a TV at a club evening.

Read-only, and open to whoever may open the match list (``matches.index``,
which asks for nothing): it shows what that list shows and the scoreboards,
and no secret of any match (no live-view or hand-over link). The board polls
itself as the live view's does, answered 304 while nothing shown has changed:
its ETag is a digest of the matches shown and their versions.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, render_template, request
from markupsafe import Markup

from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present import qr
from scorekeeper.web.present.i18n import get_locale
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.reach import share_reach
from scorekeeper.web.present.table import board_context
from scorekeeper.web.store import eventlog
from scorekeeper.web.store.db import get_db

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("room", __name__)

# A match is under way while it is played: one untouched this long was left, not played on.
IDLE = timedelta(hours=6)
# A finished match stays on the board this long, with its winner, so that the room sees who won.
WON = timedelta(minutes=20)
# Tables on one board: the largest club evening we imagine (50 tables) and room to spare. Newest
# first: the evening's matches lead, and one left open from earlier falls to the end, then off.
MOST = 60
SHOWN = """
    SELECT id, version FROM matches
    WHERE (status != 'finished' AND updated_at >= ?) OR (status = 'finished' AND updated_at >= ?)
    ORDER BY created_at DESC, rowid DESC LIMIT ?
"""


def _shown() -> list[tuple[str, int]]:
    """The matches on the board, newest first, and their versions."""
    now = datetime.now(UTC)
    since = [(now - IDLE).isoformat(), (now - WON).isoformat()]
    return [(row[0], row[1]) for row in get_db().execute(SHOWN, [*since, MOST]).fetchall()]


def _version(shown: list[tuple[str, int]]) -> str:
    """The board's version (its ETag, unquoted): which matches it shows, at which versions, in which
    language."""
    return hashlib.sha256(repr((shown, str(get_locale()))).encode()).hexdigest()[:20]


def _tables(shown: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """Each match's scoreboard as the live view's board has it, without its live-view link."""
    tables = []
    for match_id, _version in shown:
        match = eventlog.load_match(match_id)
        if match is not None:
            tables.append(board_context(match, eventlog.state_of(match), watch_token=None))
    return tables


def _board(shown: list[tuple[str, int]], version: str) -> str:
    """The board's HTML, rendered once per version for every screen in the room."""
    return cache().kept(
        "room",
        (version, request.script_root),
        lambda: render_template("room/_room.html", tables=_tables(shown), version=version),
        text_size,
    )


@bp.get("/room")
def page() -> str:
    """The board, with a QR code of its own link for the next screen or phone."""
    shown = _shown()
    link = share_reach().url("room.page")
    code = qr.svg(link, _("The room board"))
    return render_template(
        "room/page.html", board=Markup(_board(shown, _version(shown))), link=link, code=code
    )


@bp.get("/room/board")
def board() -> Response:
    """The board fragment; 304 when nothing on it has changed since the version the page holds."""
    shown = _shown()
    version = _version(shown)
    etag = f'"{version}"'
    if request.headers.get("If-None-Match") == etag:
        response = Response(status=304)
    else:
        response = Response(_board(shown, version), mimetype="text/html")
        response.vary.add("HX-Request")
    response.headers["ETag"] = etag
    return response
