"""The reference pages: the rules, written for players, and the hand checker.

The rules page shows a match's house rules where they differ from the base rules.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from scorekeeper.cards import Card, CardError, parse_hand
from scorekeeper.hands import DECLARABLE, rank_hands
from scorekeeper.rules import Rules
from scorekeeper.web.present.i18n import error_text, hand_name, say
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.store import eventlog

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("guide", __name__)

HAND_SLOTS = 4
HAND_TEXT, HAND_PICKS = 60, 8  # room for five cards with spaces, symbols and mistakes


@bp.get("/rules")
def rules() -> str:
    """The rules; with ``?m=<match id>``, as that match plays them."""
    match = eventlog.load_match(request.args.get("m", "")) if request.args.get("m") else None
    played = match.rules if match is not None else Rules()
    points = [(hand_name(hand), played.points[hand]) for hand in reversed(DECLARABLE)]
    changes = [say(change) for change in played.changes()]
    context = {"match": match, "rules": played, "changes": changes, "points": points}
    return render_template("guide/rules.html", **context)


@bp.get("/hands")
def hands() -> tuple[str, int] | str:
    """The hand checker: type or pick up to four hands; see each one and who wins, card by card."""
    slots: list[dict[str, Any]] = []
    for i in range(1, HAND_SLOTS + 1):
        # A hand is five cards: what is typed past a few dozen characters, or picked past a few
        # cards, is not read (20,000 cards took 134 ms and a 164 KB page of errors, TRUST.md I8).
        typed = request.args.get(f"hand{i}", "").strip()[:HAND_TEXT]
        picked = request.args.getlist(f"pick{i}")[:HAND_PICKS]
        slots.append({"index": i, "text": " ".join(p for p in [typed, *picked] if p), "wrong": False})
    errors = _hand_errors(slots)
    given = [(str(_("Hand %(num)d", num=s["index"])), s["text"]) for s in slots if s["text"]]
    ranked = rank_hands(given) if given and not errors else []
    page = render_template(
        "history/hands.html", slots=slots, ranked=ranked, errors=errors, points=Rules().points
    )
    return (page, 422) if errors else page


def _hand_errors(slots: list[dict[str, Any]]) -> list[str]:
    """Every error at once, each naming its hand: each hand read alone, then no card in two hands."""
    errors: list[str] = []
    owner: dict[Card, int] = {}  # each card read so far, and the hand it is in
    for slot in slots:
        if not slot["text"]:
            continue
        try:
            cards = parse_hand(slot["text"])
        except CardError as error:
            slot["wrong"] = True
            hand = _("Hand %(num)d", num=slot["index"])
            errors.append(str(_("%(hand)s: %(error)s", hand=hand, error=error_text(error))))
            continue
        for card in cards:
            if card in owner:  # RULES.md: one deck is in play
                slot["wrong"] = True
                twice = _(
                    "%(card)s is in Hand %(first)d and in Hand %(second)d: there is only one deck",
                    card=card.label,
                    first=owner[card],
                    second=slot["index"],
                )
                errors.append(str(twice))
            else:
                owner[card] = slot["index"]
    return errors
