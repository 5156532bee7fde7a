"""The new-match form: names in seat order, the first dealer, and the house rules.

Reordering works without JavaScript: the arrow buttons post the form back and
it is shown again with two seats swapped (nothing is stored until "Start").
The variants of RULES.md are house rules too, each a checkbox (all off: the base
rules); seats 5 and 6 count only with the variant "Five or six players".
"""

from __future__ import annotations

from typing import Any

from werkzeug.datastructures import MultiDict

from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.matchfile import FormatError, read_players
from scorekeeper.rules import BASE_POINTS, NUMBERS, Rules, RulesError
from scorekeeper.web.forms import whole_number
from scorekeeper.web.store import people
from scorekeeper.words import N_, Said, said

SEATS = 4  # the seats the form shows first; two more with the variant "more_players"
MOST_SEATS = 6
# The house rules typed as numbers, with the labels the form shows them by (their ranges: rules.NUMBERS).
INT_RULES = {
    "target": N_("Target"),
    "last_trick": N_("Last trick"),
    "chicago": N_("Chicago value"),
    "chicago_min": N_("Minimum score to call Chicago"),
    # Translators: a number field's label on the new-match form; also the subject of its refusal
    # ("… must be a whole number from 0 to 1000"), so a noun phrase.
    "no_exchange_at": N_("Exchange limit"),
}
FLAG_RULES = ("chicago_leads", "deuce_last_trick_double")
# The variants of RULES.md that are on or off, in its order.
VARIANT_FLAGS = ("chicago_to_win", "four_of_a_kind_resets", "over_target_resets", "more_players")
# The variants worth a number: a checkbox turns one on, its field (``<key>.points``) says how much.
VARIANT_POINTS = {
    "blanco_chicago": (30, N_("Blanco Chicago value")),
    "chicago_break_bonus": (10, N_("Bonus for breaking a Chicago")),
}
# The hands a table may make an instant win (RULES.md: for example a straight flush, or a royal flush).
INSTANT_HANDS = (Category.FOUR_OF_A_KIND, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)
MORE_PLAYERS = N_("A fifth or sixth player needs the house rule “Five or six players”.")


def _names(form: MultiDict[str, str] | None) -> list[str]:
    names = [n.strip() for n in form.getlist("name")] if form is not None else []
    names = (names + [""] * MOST_SEATS)[:MOST_SEATS]
    move = form.get("move", "") if form is not None else ""
    i = whole_number(move)
    if i is not None and 0 < i < MOST_SEATS:
        names[i - 1], names[i] = names[i], names[i - 1]
    return names


def new_match_form(form: MultiDict[str, str] | None) -> dict[str, Any]:
    """What the form shows: the names (reordered if asked), the chosen options, known players."""
    base = Rules()
    values: dict[str, Any] = {key: getattr(base, key) for key in INT_RULES}
    values["no_exchange_at"] = ""
    values["win"] = base.win.value
    values.update({key: False for key in (*FLAG_RULES, *VARIANT_FLAGS, *VARIANT_POINTS)})
    values.update({f"{key}.points": worth for key, (worth, _label) in VARIANT_POINTS.items()})
    values["phases"] = base.phases
    values["instant_win"] = ()
    points: dict[str, Any] = {c.value: BASE_POINTS[c] for c in DECLARABLE}
    dealer = "draw"
    if form is not None:
        values.update({key: form.get(key, "") for key in INT_RULES})
        values["win"] = form.get("win", base.win.value)
        values.update({key: key in form for key in (*FLAG_RULES, *VARIANT_FLAGS, *VARIANT_POINTS)})
        values.update({f"{key}.points": form.get(f"{key}.points", "") for key in VARIANT_POINTS})
        values["phases"] = 2 if form.get("phases") == "2" else base.phases
        values["instant_win"] = tuple(form.getlist("instant_win"))
        points.update({c.value: form.get(f"points.{c.value}", "") for c in DECLARABLE})
        dealer = form.get("dealer", "draw")
    return {
        "names": _names(form),
        "rules": values,
        "points": points,
        "hands": DECLARABLE,
        "instant_hands": INSTANT_HANDS,
        "seats": SEATS,
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
    names = _names(form)
    more = "more_players" in form
    if not more and any(names[SEATS:]):
        raise FormatError(said(MORE_PLAYERS))
    players = read_players([n for n in names if n], Rules(more_players=more), in_file=False)
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
    overrides.update({key: True for key in (*FLAG_RULES, *VARIANT_FLAGS) if key in form})
    overrides.update(_variants(form))
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


def _variants(form: MultiDict[str, str]) -> dict[str, Any]:
    """The variants worth a number (their value: the field, or the usual one left empty), two
    phases, and the instant-win hands, as ``rules`` keys; anything else is for ``Rules`` to refuse."""
    out: dict[str, Any] = {}
    for key, (usual, label) in VARIANT_POINTS.items():
        if key in form:
            text = form.get(f"{key}.points", "").strip()
            out[key] = _number(text, key, said(label)) if text else usual
    if "phases" in form:
        out["phases"] = 2 if form["phases"] == "2" else form["phases"]
    if "instant_win" in form:
        out["instant_win"] = form.getlist("instant_win")
    return out
