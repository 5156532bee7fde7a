"""The new-match form: names in seat order, the first dealer, and the house rules.

Reordering works without JavaScript: the arrow buttons post the form back and
it is shown again with two seats swapped (nothing is stored until "Start").
"""

from __future__ import annotations

from typing import Any

from werkzeug.datastructures import MultiDict

from scorekeeper.hands import DECLARABLE
from scorekeeper.matchfile import FormatError, read_players
from scorekeeper.rules import BASE_POINTS, NUMBERS, Rules, RulesError
from scorekeeper.web.forms import whole_number
from scorekeeper.web.store import people
from scorekeeper.words import N_, Said, said

SEATS = 4
# The house rules typed as numbers, with the labels the form shows them by (their ranges: rules.NUMBERS).
INT_RULES = {
    "target": N_("Target"),
    "last_trick": N_("Last trick"),
    "chicago": N_("Chicago value"),
    "chicago_min": N_("Chicago may be called from (points)"),
    "no_exchange_at": N_("No exchanges from this many points (empty: never)"),
}
FLAG_RULES = ("chicago_leads", "deuce_last_trick_double")


def _names(form: MultiDict[str, str] | None) -> list[str]:
    names = [n.strip() for n in form.getlist("name")] if form is not None else []
    names = (names + [""] * SEATS)[:SEATS]
    move = form.get("move", "") if form is not None else ""
    i = whole_number(move)
    if i is not None and 0 < i < SEATS:
        names[i - 1], names[i] = names[i], names[i - 1]
    return names


def new_match_form(form: MultiDict[str, str] | None) -> dict[str, Any]:
    """What the form shows: the names (reordered if asked), the chosen options, known players."""
    base = Rules()
    values: dict[str, Any] = {key: getattr(base, key) for key in INT_RULES}
    values["no_exchange_at"] = ""
    values["win"] = base.win.value
    values.update({key: False for key in FLAG_RULES})
    points: dict[str, Any] = {c.value: BASE_POINTS[c] for c in DECLARABLE}
    dealer = "draw"
    if form is not None:
        values.update({key: form.get(key, "") for key in INT_RULES})
        values["win"] = form.get("win", base.win.value)
        values.update({key: key in form for key in FLAG_RULES})
        points.update({c.value: form.get(f"points.{c.value}", "") for c in DECLARABLE})
        dealer = form.get("dealer", "draw")
    return {
        "names": _names(form),
        "rules": values,
        "points": points,
        "hands": DECLARABLE,
        "dealer": dealer,
        "known_players": people.known_players(),
        "numbers": NUMBERS,
    }


def _number(text: str, key: str, label: Said) -> int:
    """A house rule's number in ASCII digits within its range, or a refusal naming the field."""
    value = whole_number(text, NUMBERS[key])
    if value is None:
        raise FormatError(NUMBERS[key].refusal(label))
    return value


def read_new_match(form: MultiDict[str, str]) -> tuple[tuple[str, ...], Rules, str | None]:
    """The players in seat order, the rules, and the first dealer (None: draw for it)."""
    players = read_players([n for n in _names(form) if n])
    base = Rules()
    overrides: dict[str, Any] = {}
    for key in INT_RULES:
        text = form.get(key, "").strip()
        if text:
            value = _number(text, key, said(INT_RULES[key]))
            if value != getattr(base, key):
                overrides[key] = value
    if form.get("win", "end_of_round") != "end_of_round":
        overrides["win"] = form.get("win")
    overrides.update({key: True for key in FLAG_RULES if key in form})
    points = {}
    for hand in DECLARABLE:
        text = form.get(f"points.{hand.value}", "").strip()
        worth = _number(text, "points", said(N_("Points for {hand}"), hand=hand)) if text else None
        if worth is not None and worth != BASE_POINTS[hand]:
            points[hand.value] = worth
    if points:
        overrides["points"] = points
    try:
        rules = Rules.from_dict(overrides)
    except RulesError as error:
        raise FormatError(error.words) from None
    dealer = form.get("dealer", "draw")
    if dealer == "draw":
        return players, rules, None
    seat = whole_number(dealer)
    if seat is None or not seat < len(players):
        raise FormatError(said(N_("Pick the first dealer among the players, or draw for it")))
    return players, rules, players[seat]
