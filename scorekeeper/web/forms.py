"""Turn a posted form into an event, through the match file's own reader.

A form posts the file's field names (``type``, ``player``, ``hand``, …); cards
come typed (``cards``) and/or picked (``pick``, one per card). Anything that
does not make a valid event raises ``FormatError`` with a message for people:
what to do on the screen, in the reader's language, never the file's words
(its event types and field names are for the file's readers, not the table).
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import fields
from typing import Any

from werkzeug.datastructures import MultiDict

from scorekeeper.cards import Card, CardError, Rank, parse_card, parse_rank
from scorekeeper.events import Declare, Event
from scorekeeper.hands import Category
from scorekeeper.matchfile import EVENT_TYPES, FormatError, read_event
from scorekeeper.quick import drawn_by_rank
from scorekeeper.rules import NUMBERS, Bounds
from scorekeeper.words import N_, said

# The form's number fields: where the match file keeps them (their range, rules.NUMBERS) and the
# label the scorekeeper reads beside them.
NUMBER_FIELDS = {
    "count": ("exchange.count", N_("Cards exchanged")),
    "points": ("adjust.points", N_("Points (+ or −)")),
}
# The correction form's sign, a choice of its own (an iPhone's number pad has no minus): its points
# are then a size, and a form without it (the "take back" button) posts the points signed.
SIGNS = {"add": 1, "take": -1}
SIZE = Bounds(0, NUMBERS["adjust.points"].high)
# The shell's own numbers: a person's id, a seat, a page, a match's version. Nine digits stay
# within SQLite's integers, and a match never has a billion events.
WHOLE = Bounds(0, 999_999_999)
# A creating form's one-time key derives the creator's secret: 128 bits or more, URL-safe.
CREATION_KEY = re.compile(r"[A-Za-z0-9_-]{22,64}")

CHOOSE_PLAYER = N_("Choose a player first")
# What each form must carry, and what to do when it does not (said with the player it is about).
NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "dealer": (("player", N_("Tap who deals first")),),
    "exchange": (("player", CHOOSE_PLAYER), ("count", N_("Tap how many cards {player} exchanges"))),
    "show": (
        ("player", CHOOSE_PLAYER),
        ("cards", N_("Enter the five cards {player} shows, or go on without checking them")),
    ),
    "declare": (("player", CHOOSE_PLAYER), ("hand", N_("Tap the hand {player} declares, or pass"))),
    "pass": (("player", CHOOSE_PLAYER),),
    "chicago": (("player", N_("Tap who calls Chicago")),),
    "blanco": (("player", N_("Tap who calls a blanco Chicago")),),
    "trick": (("winner", N_("Tap who took the trick")),),
    "last_trick": (("winner", N_("Tap who took the last trick")),),
    "adjust": (("player", CHOOSE_PLAYER), ("points", N_("Enter how many points to add or take away"))),
}
# A form no screen sends (a field of the wrong kind, a hand or an action that does not exist).
NOT_UNDERSTOOD = N_("The app did not understand this form. Reload the page and try again.")
OUT_OF_DATE = N_("This form is out of date. Reload the page and try again.")
# A one-time key sent again with another form (TRUST.md W3).
ALREADY_USED = N_("This button was already used. Reload the page and try again.")


def whole_number(text: str, bounds: Bounds = WHOLE) -> int | None:
    """A whole number within ``bounds`` (0 to 999,999,999) written in ASCII digits, or None.

    ``int`` alone is not enough: it reads ``'١٢'`` as 12 and ``'1_000'`` as 1000, and SQLite
    refuses integers past 64 bits.

    >>> whole_number("12"), whole_number("¹"), whole_number("-1"), whole_number(""), whole_number("9" * 30)
    (12, None, None, None, None)
    """
    return bounds.read(text)


def creation_key(form: MultiDict[str, str]) -> str | None:
    """The one-time key of a form that creates a match (TRUST.md W8), or None if it has none.

    A form without a key (an old page, a plain client) still works, unprotected.
    """
    key = form.get("key", "")
    if not key:
        return None
    if CREATION_KEY.fullmatch(key) is None:
        raise FormatError(said(OUT_OF_DATE))
    return key


def cards_from(form: MultiDict[str, str], field: str = "cards") -> str | None:
    """Typed and picked cards together, or None when neither was given."""
    parts = [form.get(field, "").strip(), *form.getlist("pick")]
    text = " ".join(p for p in parts if p)
    return text or None


def event_from_form(form: MultiDict[str, str]) -> Event:
    """Read the posted fields as one event; raise ``FormatError`` (words for people) if they make none."""
    kind = form.get("type", "")
    if kind not in EVENT_TYPES or kind == "undo":
        raise FormatError(said(N_("That is not an action the scorekeeper can record")))
    data: dict[str, Any] = {"type": kind}
    for key in ("player", "hand", "winner", "card", "reason"):
        value = form.get(key, "").strip()
        if value:
            data[key] = value
    for key, (where, label) in NUMBER_FIELDS.items():
        if key in form:  # typed empty: the range names the field (TRUST.md I6)
            bounds = NUMBERS[where]
            if key == "points" and "sign" in form:
                bounds, label = SIZE, N_("Points")
            data[key] = whole_number(form[key].strip(), bounds)
            if data[key] is None:
                raise FormatError(bounds.refusal(said(label)))
    if kind == "adjust" and "sign" in form:
        if form["sign"] not in SIGNS:
            raise FormatError(said(NOT_UNDERSTOOD))
        if "points" in data:
            data["points"] *= SIGNS[form["sign"]]
    cards = cards_from(form)
    if kind == "draw":
        data["cards"] = _drawn(form)
    elif kind == "tie":
        data.pop("player", None)
        if cards is not None:
            data.pop("winner", None)
            data["cards"] = {form.get("player", ""): cards}
        elif "winner" in form:
            data["winner"] = data.get("winner")  # the verdict button with no name: identical hands
        else:
            raise FormatError(said(N_("Say whose hand is higher, or enter the cards")))
    elif cards is not None:
        data["cards"] = cards
    if kind == "adjust":
        data.setdefault("reason", "")
    for key, what_to_do in NEEDS.get(kind, ()):
        if key not in data:
            raise FormatError(said(what_to_do, player=data.get("player", "")))
    known = {f.name for f in fields(EVENT_TYPES[kind])}
    try:  # a field this action does not have is left out, as a form no screen sends would be
        return read_event({key: value for key, value in data.items() if key == "type" or key in known})
    except FormatError as error:
        if error.words is None or error.about_file:  # the file's own words ("a 'show' event needs …")
            raise FormatError(said(NOT_UNDERSTOOD)) from None
        raise


def _drawn(form: MultiDict[str, str]) -> dict[str, str]:
    """The draw's cards by player: a rank tapped gets a suit (``quick.drawn_by_rank``), a card typed
    stays as typed (the match file reads it). Every player drawing (``drawing``, or a ``draw.`` field
    each) must have drawn: a rank not tapped is asked for."""
    drawn = {k[5:]: v.strip() for k, v in form.items() if k.startswith("draw.") and v.strip()}
    drawing = form.getlist("drawing") or [k[5:] for k in form if k.startswith("draw.")]
    if not drawn or any(name not in drawn for name in drawing):
        raise FormatError(said(N_("Tap the rank each player drew")))
    known: dict[str, Rank | Card] = {}
    for name, text in drawn.items():
        rank = parse_rank(text)
        if rank is not None:
            known[name] = rank
        else:
            with suppress(CardError):  # not a card: left as typed, for the match file to refuse
                known[name] = parse_card(text)
    if not any(isinstance(rank, Rank) for rank in known.values()):
        return drawn
    cards = drawn_by_rank(known).cards
    return {name: repr(cards[name]) if name in cards else text for name, text in drawn.items()}


def showdown_from_form(form: MultiDict[str, str]) -> tuple[str | None, Category | None]:
    """Who scored a one-tap showdown, with what (both None: nobody scores).

    The grid posts ``tap`` as ``<hand>:<player>`` (a name may hold a colon); a plain form may post
    ``player`` and ``hand``.
    """
    player, hand = form.get("player", ""), form.get("hand", "")
    if "tap" in form:
        hand, _colon, player = form["tap"].partition(":")
    if not (player or hand):
        return None, None
    event = event_from_form(MultiDict({"type": "declare", "player": player, "hand": hand}))
    assert isinstance(event, Declare)
    return event.player, event.hand


def typed_back(form: MultiDict[str, str]) -> dict[str, dict[str, str]]:
    """What a refused form held, by the action it was for, for the screen to show it again.

    Cards picked are added to the typed ones, as one text (the picker opens with it).
    """
    kept = ("player", "card", "points", "sign", "reason")
    values = {k: v for k, v in form.items() if k in kept or k.startswith("draw.")}
    cards = cards_from(form)
    if cards is not None:
        values["cards"] = cards
    return {form.get("type", ""): values}
