"""The players blueprint: everybody who played, each one's figures, and renames and merges (TRUST.md P1).

Reading routes are GETs that write nothing; rename, merge and their undo are
plain form posts like every other write, each logged and undoable.
"""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.matchfile import FormatError
from scorekeeper.web.forms import whole_number
from scorekeeper.web.present.i18n import error_text
from scorekeeper.web.routes.matches import PAGE, link_number
from scorekeeper.web.store import people, peoplelog, stats
from scorekeeper.words import N_

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("players", __name__)


@bp.get("/players")
def players() -> str:
    """Everybody, a page at a time by name, and the people log: every rename and merge, each
    undoable (TRUST.md P1)."""
    page = link_number("page", PAGE, N_("The page number")) if "page" in request.args else 1
    return _players_page(page)


def _players_page(page: int = 1, **refused: str) -> str:
    """A page of the players (``stats.PEOPLE_PAGE`` of them), whether more follow, and the people log."""
    size = stats.PEOPLE_PAGE
    found = stats.people((page - 1) * size, size + 1)
    return render_template(
        "history/players.html",
        people=found[:size],
        more=len(found) > size,
        page=page,
        log=peoplelog.log(),
        **refused,
    )


@bp.get("/players/<int(max=999999999):person_id>")
def player(person_id: int) -> str:
    person = stats.person(person_id)
    if person is None:
        abort(404)
    return render_template("history/player.html", person=person, others=stats.names())


@bp.post("/players/<int(max=999999999):person_id>/rename")
def rename(person_id: int) -> BaseResponse | tuple[str, int]:
    person = stats.person(person_id)
    if person is None:
        abort(404)
    try:
        people.rename_person(person_id, request.form.get("name", ""))
    except people.NotFound:
        abort(404)  # merged into someone else meanwhile
    except (FormatError, people.NameTaken) as error:
        typed = request.form.get("name", "")  # a refused form shows what was typed into it
        refused = {"refusal": error_text(error), "typed_name": typed}
        page = render_template("history/player.html", person=person, others=stats.names(), **refused)
        return page, 422
    return redirect(url_for("players.player", person_id=person_id), 303)


@bp.post("/players/<int(max=999999999):person_id>/merge")
def merge(person_id: int) -> BaseResponse:
    other = whole_number(request.form.get("other", ""))
    if stats.person(person_id) is None or other is None:
        abort(404)
    try:
        people.merge_people(person_id, other)  # a second tap finds it done, and answers the same
    except people.NotFound:
        abort(404)
    return redirect(url_for("players.player", person_id=person_id), 303)


@bp.post("/players/log/<int(max=999999999):entry_id>/undo")
def undo_change(entry_id: int) -> BaseResponse | tuple[str, int]:
    """Take back one rename or merge of the people log, in one tap (TRUST.md P1)."""
    try:
        people.undo_change(entry_id, request.form.get("key") or None)
    except people.NotFound:
        abort(404)
    except people.Refused as error:
        return _players_page(refusal=error_text(error)), error.status
    return redirect(url_for("players.players"), 303)
