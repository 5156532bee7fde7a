"""The rules page, written for players: the base rules, and a match's house rules where they differ."""

from __future__ import annotations

from flask import Blueprint, render_template, request
from flask_babel import gettext as _

from scorekeeper.hands import DECLARABLE
from scorekeeper.rules import BASE_POINTS, Rules, WinMode
from scorekeeper.web import eventlog
from scorekeeper.web.i18n import hand_name

bp = Blueprint("guide", __name__)


def changes(rules: Rules) -> list[str]:
    """Each way ``rules`` differ from the base rules, said for players."""
    said = []
    if rules.target != Rules().target:
        said.append(_("The target is %(target)s points.", target=rules.target))
    for hand in DECLARABLE:
        if rules.points[hand] != BASE_POINTS[hand]:
            said.append(_("%(hand)s scores %(points)s.", hand=hand_name(hand), points=rules.points[hand]))
    if rules.last_trick != Rules().last_trick:
        said.append(_("The last trick scores %(points)s.", points=rules.last_trick))
    if rules.chicago != Rules().chicago:
        said.append(_("Chicago is worth %(points)s.", points=rules.chicago))
    if rules.chicago_min != Rules().chicago_min:
        said.append(_("Chicago may be called from %(points)s points.", points=rules.chicago_min))
    if rules.win is WinMode.FIRST_TO_REACH:
        said.append(_("The first to reach the target wins at once."))
    if rules.no_exchange_at is not None:
        said.append(_("No exchanges from %(points)s points.", points=rules.no_exchange_at))
    if rules.chicago_leads:
        said.append(_("The Chicago player leads the first trick."))
    if rules.deuce_last_trick_double:
        said.append(_("The last trick won with a 2 scores double."))
    return said


@bp.get("/rules")
def rules() -> str:
    """The rules; with ``?m=<match id>``, as that match plays them."""
    match = eventlog.load_match(request.args.get("m", "")) if request.args.get("m") else None
    played = match.rules if match is not None else Rules()
    points = [(hand_name(hand), played.points[hand]) for hand in reversed(DECLARABLE)]
    context = {"match": match, "rules": played, "changes": changes(played), "points": points}
    return render_template("guide/rules.html", **context)
