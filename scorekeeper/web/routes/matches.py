"""The matches blueprint: the list of matches, a new match, and the table where it is scored.

Every route that records does four things in order: parse the form into
events, let the engine decide on them against the whole match and store them
(``writes.append_events``, the one way in for every write), refuse with the
engine's words and status 422 (nothing stored), or answer (fragment for htmx,
303 to the page otherwise). Only a browser holding the match's scorekeeper
role may record (``@keeper_required``, read per request); the live view and
everybody else only read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.events import Dealer, Event, Tie, Undo
from scorekeeper.matchfile import FormatError
from scorekeeper.quick import showdown_events
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.rules import Bounds
from scorekeeper.web import roles
from scorekeeper.web.forms import (
    ALREADY_USED,
    OUT_OF_DATE,
    WHOLE,
    creation_key,
    event_from_form,
    showdown_from_form,
    typed_back,
    whole_number,
)
from scorekeeper.web.newmatch import new_match_form, read_new_match
from scorekeeper.web.present.chart import chart
from scorekeeper.web.present.htmx import no_content, render, wants_partial
from scorekeeper.web.present.i18n import error_text, refusal_text, say
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.table import table_context
from scorekeeper.web.present.turn import ENTRY_COOKIE, ENTRY_STYLES
from scorekeeper.web.roles import keeper_required
from scorekeeper.web.security import creation_limit
from scorekeeper.web.store import creations, eventlog, stats, writes
from scorekeeper.web.store.eventlog import match_or_404
from scorekeeper.web.store.stored import StoredMatch
from scorekeeper.words import N_, said

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("matches", __name__)

STALE = N_(
    "The score changed after this screen was loaded (another tap, or another phone), "
    "so nothing was recorded. This is the current score."
)
NOT_KEEPER = N_(
    "Only the scorekeeper's phone can record scores. Ask the scorekeeper for the scorekeeping link."
)
PAGE = PERSON = Bounds(1, WHOLE.high)  # the match list's links: a page, a person's id


@bp.get("/")
def index() -> Response:
    """Matches, newest first, optionally one player's; each with a small chart of its totals."""
    person = link_number("player", PERSON, N_("Player")) if request.args.get("player") else None
    page = link_number("page", PAGE, N_("The page number")) if "page" in request.args else 1
    rows, more = stats.list_matches(person, page)
    for row in rows:
        points = row["chart"] or [[0] * len(row["players"])]
        row["small_chart"] = chart(points, row["players"], row["target"], 96, 28)
    context: dict[str, Any] = {"matches": rows, "more": more, "page": page, "person": person}
    people = stats.recent_people(person)  # not everybody: the page keeps its size however many there are
    return render("matches/index.html", "matches/index.html", people=people, **context)


def link_number(name: str, bounds: Bounds, label: str) -> int:
    """A number in the page's link, or a 400 naming it (TRUST.md I6)."""
    value = whole_number(request.args[name], bounds)
    if value is None:
        message = say(bounds.refusal(said(label)))
        page = render_template("error.html", code=400, title=_("Request not understood"), message=message)
        abort(Response(page, 400))
    return value


@bp.route("/new", methods=["GET", "POST"])
@creation_limit
def new() -> BaseResponse:
    """The new-match form; its buttons reorder seats, and its last one starts the match."""
    if request.method == "GET":
        return render("matches/new.html", "matches/new.html", **new_match_form(None))
    form = new_match_form(request.form)
    if request.form.get("start") is None:  # a seat-order button: show the form again
        return render("matches/new.html", "matches/new.html", **form)
    try:
        players, rules, dealer = read_new_match(request.form)
        key = creation_key(request.form)
        first = () if dealer is None else (Dealer(dealer),)
        match_id = creations.create_match(players, rules, first, key)  # a repeat: the same match
    except FormatError as error:
        return render("matches/new.html", "matches/new.html", status=422, refusal=error_text(error), **form)
    except writes.KeyReused:
        refusal = _(ALREADY_USED)
        return render("matches/new.html", "matches/new.html", status=422, refusal=refusal, **form)
    roles.grant(match_id)
    return redirect(url_for("matches.show", match_id=match_id), 303)


def _table(match: StoredMatch, status: int = 200, **extra: Any) -> Response:
    keeper = roles.is_keeper(match.id)
    context = table_context(match, eventlog.state_of(match), spectator=not keeper, **extra)
    if not keeper:
        return render("matches/watch.html", "matches/_board.html", status=status, **context)
    return render("matches/show.html", "matches/_table.html", status=status, **context)


@bp.get("/m/<match_id>")
def show(match_id: str) -> Response:
    """The scorekeeper's table; everybody else sees it read-only (``?tie=`` picks a tie on the grid)."""
    return _table(match_or_404(match_id), tie_pick=request.args.get("tie", "")[:200])


def _not_keeper(match_id: str) -> Response:
    return _table(match_or_404(match_id), 403, refusal=_(NOT_KEEPER))


def _record(match_id: str, events_of: Callable[[StoredMatch], Sequence[Event]]) -> BaseResponse:
    """The shared path of record and undo: versions, key, engine, answer (the role is checked already)."""
    match = match_or_404(match_id)
    if request.mimetype != "application/x-www-form-urlencoded":
        abort(415)  # every action is a plain form post (TRUST.md I3)
    if_match = request.headers.get("If-Match")
    sent = request.form.get("version", "") if if_match is None else if_match.strip('"v')
    # A hidden field: missing, or not ASCII digits (int() reads '١' as 1, TRUST.md I6), is an old form.
    version = whole_number(sent.strip())
    if version is None:
        return _table(match, 400, refusal=_(OUT_OF_DATE))
    key = request.form.get("key") or None
    # The events are worked out on the match as the screen showed it, so that a tap sent again after
    # its answer was lost carries the events of its first sending, and its key answers with what that
    # recorded (TRUST.md W2) however the match has moved on since (an undo: the tap the screen named).
    shown = match.at(version) if version < match.version else match
    try:
        appended = writes.append_events(match_id, version, events_of(shown), key, seen=match)
    except RuleBroken as error:  # the engine's words, and a link to the rule it enforces
        refused = {"refusal": refusal_text(error), "refusal_rule": error.section}
        return _table(match_or_404(match_id), 422, typed=typed_back(request.form), **refused)
    except FormatError as error:  # a refused form shows what was typed into it
        return _table(match_or_404(match_id), 422, refusal=error_text(error), typed=typed_back(request.form))
    except writes.KeyReused:
        return _table(
            match_or_404(match_id),
            422,
            refusal=_(ALREADY_USED),
        )
    except writes.StaleVersion:
        return _table(match_or_404(match_id), 412 if if_match is not None else 409, refusal=_(STALE))
    except writes.MatchFinished as finished:
        return _table(
            match_or_404(match_id),
            409,
            refusal=refusal_text(RuleBroken(Refusal.FINISHED, winner=finished.winner)),
        )
    response: BaseResponse
    if "return=minimal" in request.headers.get("Prefer", ""):  # RFC 7240: the acknowledgement only
        response = no_content()
        response.headers["Preference-Applied"] = "return=minimal"
    elif wants_partial():  # the match as this tap left it (or as a repeated key found it)
        response = _table(appended.match)
    else:
        response = redirect(url_for("matches.show", match_id=match_id), 303)
    response.headers["X-Event-Seq"] = str(appended.seq)
    return response


@bp.post("/m/<match_id>/record")
@keeper_required(_not_keeper)
def record(match_id: str) -> BaseResponse:
    """Record one scorekeeper action (one event)."""
    return _record(match_id, lambda _: (event_from_form(request.form),))


def _showdown_events(match: StoredMatch) -> tuple[Event, ...]:
    """A quick entry's form (who scored with what; nobody for "nobody scores") as its events."""
    player, declared = showdown_from_form(request.form)
    tied = tuple(request.form.getlist("with"))  # a tie: these declared the same hand
    events = showdown_events(eventlog.state_of(match), player, declared, tied)
    if "winner" in request.form:  # and the tie's verdict: whose hand was higher ("" identical)
        events += (Tie(winner=request.form["winner"] or None),)
    return events


@bp.post("/m/<match_id>/showdown")
@keeper_required(_not_keeper)
def showdown(match_id: str) -> BaseResponse:
    """Record a whole showdown from one tap: who scored with what (one step, taken back by one undo)."""
    return _record(match_id, _showdown_events)


@bp.post("/m/<match_id>/entry")
@keeper_required(_not_keeper)
def entry(match_id: str) -> BaseResponse:
    """Switch between the quick entry and declaration by declaration; this phone remembers the choice."""
    style = request.form.get("style", "")
    if style not in ENTRY_STYLES:
        abort(400)
    response: BaseResponse = redirect(url_for("matches.show", match_id=match_id), 303)
    if wants_partial():
        response = _table(match_or_404(match_id), entry_style=style)
    response.set_cookie(
        ENTRY_COOKIE,
        style,
        max_age=365 * 24 * 3600,
        httponly=True,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    return response


@bp.post("/m/<match_id>/undo")
@keeper_required(_not_keeper)
def undo(match_id: str) -> BaseResponse:
    """Take back the latest tap still in effect: one undo event for each event it recorded."""
    return _record(match_id, lambda match: (Undo(),) * match.last_step())


def _redo_events(match: StoredMatch) -> tuple[Event, ...]:
    """The events the undo on the screen took back, to be recorded again (a stale screen: none, and the
    version check refuses it). Worked out at the screen's version, so that a repeat of the same tap
    carries the same events and its key answers with the first one's result (TRUST.md W1, W2)."""
    if_match = request.headers.get("If-Match")
    sent = request.form.get("version", "") if if_match is None else if_match.strip('"v')
    version = whole_number(sent.strip())
    if version is None or version > match.version:
        return ()
    shown = match.at(version)
    undone = shown.undone_step()
    if not undone:
        raise FormatError(said(N_("There is nothing to redo: the last tap was not an undo.")))
    return tuple(shown.events[i] for i in undone)


@bp.post("/m/<match_id>/redo")
@keeper_required(_not_keeper)
def redo(match_id: str) -> BaseResponse:
    """Record again the tap the latest undo took back, as a new tap (an undo never undoes an undo)."""
    return _record(match_id, _redo_events)
