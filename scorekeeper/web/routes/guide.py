"""The rules page, written for players: the base rules, and a match's house rules where they differ."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from scorekeeper.hands import DECLARABLE
from scorekeeper.rules import Rules
from scorekeeper.web.present.i18n import hand_name, say
from scorekeeper.web.store import eventlog

bp = Blueprint("guide", __name__)


@bp.get("/rules")
def rules() -> str:
    """The rules; with ``?m=<match id>``, as that match plays them."""
    match = eventlog.load_match(request.args.get("m", "")) if request.args.get("m") else None
    played = match.rules if match is not None else Rules()
    points = [(hand_name(hand), played.points[hand]) for hand in reversed(DECLARABLE)]
    changes = [say(change) for change in played.changes()]
    context = {"match": match, "rules": played, "changes": changes, "points": points}
    return render_template("guide/rules.html", **context)
