"""The matches blueprint: start a match, score it at the table, watch it, export it.

Every route that records does four things in order: parse the form into an
event, let the engine check it against the whole match (``append_event``
replays inside the write transaction), refuse with the engine's words and
status 422 (nothing stored), or store it and answer (fragment for htmx,
303 to the page otherwise).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, redirect, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.events import Undo
from scorekeeper.matchfile import FormatError, dumps
from scorekeeper.refusals import RuleBroken
from scorekeeper.web import stats, storage
from scorekeeper.web.chart import chart
from scorekeeper.web.forms import event_from_form
from scorekeeper.web.htmx import HTMX_SCRIPT, render
from scorekeeper.web.newmatch import new_match_form, read_new_match
from scorekeeper.web.table import table_context

__all__ = ["HTMX_SCRIPT", "bp"]

bp = Blueprint("matches", __name__)

STALE = (
    "The table moved on since this screen (another tap or phone): nothing was recorded. This is the latest."
)


def _match_or_404(match_id: str) -> storage.StoredMatch:
    match = storage.load_match(match_id)
    if match is None:
        abort(404)
    return match


@bp.get("/")
def index() -> Response:
    """Matches, newest first, optionally one player's; each with a small chart of its totals."""
    player = request.args.get("player", "")
    person = int(player) if player.isdigit() else None
    page_arg = request.args.get("page", "1")
    page = int(page_arg) if page_arg.isdigit() and int(page_arg) > 0 else 1
    rows, more = stats.list_matches(person, page)
    for row in rows:
        row["small_chart"] = chart(
            row["chart"] or [[0] * len(row["players"])], row["players"], row["target"], 96, 28
        )
    context: dict[str, Any] = {
        "matches": rows,
        "more": more,
        "page": page,
        "person": person,
        "people": stats.names(),
    }
    return render("matches/index.html", "matches/index.html", **context)


@bp.route("/new", methods=["GET", "POST"])
def new() -> BaseResponse:
    """The new-match form; its buttons reorder seats, and its last one starts the match."""
    if request.method == "GET":
        return render("matches/new.html", "matches/new.html", **new_match_form(None))
    form = new_match_form(request.form)
    if request.form.get("start") is None:  # a seat-order or add/remove button: show the form again
        return render("matches/new.html", "matches/new.html", **form)
    try:
        players, rules, dealer = read_new_match(request.form)
    except FormatError as error:
        return render("matches/new.html", "matches/new.html", status=422, refusal=error.message, **form)
    match_id = storage.create_match(players, rules)
    if dealer is not None:
        from scorekeeper.events import Dealer

        storage.append_event(match_id, 0, Dealer(dealer))
    return redirect(url_for("matches.show", match_id=match_id), 303)


def _table(match: storage.StoredMatch, status: int = 200, **extra: Any) -> Response:
    context = table_context(match, storage.state_of(match), **extra)
    return render("matches/show.html", "matches/_table.html", status=status, **context)


@bp.get("/m/<match_id>")
def show(match_id: str) -> Response:
    return _table(_match_or_404(match_id))


def _version() -> int | None:
    try:
        return int(request.form.get("version", ""))
    except ValueError:
        return None


@bp.post("/m/<match_id>/record")
def record(match_id: str) -> BaseResponse:
    """Record one scorekeeper action (one event)."""
    version = _version()
    if version is None:
        return _table(_match_or_404(match_id), 400, refusal="This form is out of date: reload the page.")
    try:
        event = event_from_form(request.form)
        storage.append_event(match_id, version, event)
    except LookupError:
        abort(404)
    except (FormatError, RuleBroken) as error:
        return _table(_match_or_404(match_id), 422, refusal=error.message)
    except storage.StaleVersion:
        return _table(_match_or_404(match_id), 409, refusal=STALE)
    return _after_write(match_id)


@bp.post("/m/<match_id>/undo")
def undo(match_id: str) -> BaseResponse:
    """Cancel the latest event still in effect."""
    version = _version()
    if version is None:
        return _table(_match_or_404(match_id), 400, refusal="This form is out of date: reload the page.")
    try:
        storage.append_event(match_id, version, Undo())
    except LookupError:
        abort(404)
    except RuleBroken as error:
        return _table(_match_or_404(match_id), 422, refusal=error.message)
    except storage.StaleVersion:
        return _table(_match_or_404(match_id), 409, refusal=STALE)
    return _after_write(match_id)


def _after_write(match_id: str) -> BaseResponse:
    from scorekeeper.web.htmx import wants_partial

    if wants_partial():
        return _table(_match_or_404(match_id))
    return redirect(url_for("matches.show", match_id=match_id), 303)


@bp.get("/m/<match_id>/export")
def export(match_id: str) -> Response:
    """Download the match as a ``chicago-match/1`` file."""
    match = _match_or_404(match_id)
    text = dumps(match.file, id=match.id, created_at=match.created_at, app_version=_app_version())
    response = Response(text, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="chicago-{match.id}.json"'
    return response


def _app_version() -> str:
    from scorekeeper import __version__

    return __version__


# The live view: read-only, for the others at the table.


def _watched(watch_id: str) -> storage.StoredMatch:
    match = storage.load_match(watch_id, by_watch_id=True)
    if match is None:
        abort(404)
    return match


@bp.get("/w/<watch_id>")
def watch(watch_id: str) -> Response:
    match = _watched(watch_id)
    context = table_context(match, storage.state_of(match), spectator=True)
    return render("matches/watch.html", "matches/_board.html", **context)


@bp.get("/w/<watch_id>/board")
def watch_board(watch_id: str) -> Response:
    """The board fragment; 304 when the match has not changed since the version the page holds."""
    version = storage.current_version(watch_id)
    if version is None:
        abort(404)
    etag = f'"v{version}"'
    if request.headers.get("If-None-Match") == etag:
        response = Response(status=304)
    else:
        match = _watched(watch_id)
        etag = f'"v{match.version}"'
        context = table_context(match, storage.state_of(match), spectator=True)
        response = render("matches/_board.html", "matches/_board.html", **context)
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = "no-store"
    return response


def json_dumps(value: Any) -> str:
    return json.dumps(value)
