"""Turn a posted form into an event, through the match file's own reader.

A form posts the file's field names (``type``, ``player``, ``hand``, …); cards
come typed (``cards``) and/or picked (``pick``, one per card). Anything that
does not make a valid event raises ``FormatError`` with a message for people.
"""

from __future__ import annotations

import re
from typing import Any

from werkzeug.datastructures import MultiDict

from scorekeeper.events import Event
from scorekeeper.matchfile import EVENT_TYPES, FormatError, read_event
from scorekeeper.rules import NUMBERS, Bounds
from scorekeeper.words import N_, said

# The form's number fields: where the match file keeps them (their range, rules.NUMBERS) and the
# label the scorekeeper reads beside them.
NUMBER_FIELDS = {
    "count": ("exchange.count", N_("Cards exchanged")),
    "points": ("adjust.points", N_("Points (+ or −)")),
}
# The shell's own numbers: a person's id, a seat, a page, a match's version. Nine digits stay
# within SQLite's integers, and a match never has a billion events.
WHOLE = Bounds(0, 999_999_999)
# A creating form's one-time key derives the creator's secret: 128 bits or more, URL-safe.
CREATION_KEY = re.compile(r"[A-Za-z0-9_-]{22,64}")


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
        raise FormatError(said(N_("This form is out of date: reload the page.")))
    return key


def cards_from(form: MultiDict[str, str], field: str = "cards") -> str | None:
    """Typed and picked cards together, or None when neither was given."""
    parts = [form.get(field, "").strip(), *form.getlist("pick")]
    text = " ".join(p for p in parts if p)
    return text or None


def event_from_form(form: MultiDict[str, str]) -> Event:
    """Read the posted fields as one event; raise ``FormatError`` if they do not make one."""
    kind = form.get("type", "")
    if kind not in EVENT_TYPES or kind == "undo":
        raise FormatError(said(N_("That is not an action the scorekeeper can record")))
    data: dict[str, Any] = {"type": kind}
    for key in ("player", "hand", "winner", "card", "reason"):
        value = form.get(key, "").strip()
        if value:
            data[key] = value
    for key, (where, label) in NUMBER_FIELDS.items():
        if key in form:
            bounds = NUMBERS[where]
            data[key] = whole_number(form[key].strip(), bounds)
            if data[key] is None:
                raise FormatError(bounds.refusal(said(label)))
    cards = cards_from(form)
    if kind == "draw":
        data["cards"] = {k[5:]: v.strip() for k, v in form.items() if k.startswith("draw.") and v.strip()}
        if len(data["cards"]) != len([k for k in form if k.startswith("draw.")]):
            raise FormatError(said(N_("Enter the card each player drew")))
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
    return read_event(data)
