"""What the table offers now: which partials show the turn, the quick entry's grid, the ties, Chicago."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from flask import request

from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.quick import speakers_left
from scorekeeper.state import MatchState, Stage
from scorekeeper.web.present.i18n import (
    hand_name,
    refusal_text,
)


def chicago_options(state: MatchState) -> list[dict[str, Any]]:
    """Who may call Chicago, and why not in the engine's words."""
    options = []
    for seat in state.order:
        refusal = state.chicago_refusal(seat)
        reason = "" if refusal is None else refusal_text(refusal)
        options.append({"name": state.players[seat], "enabled": refusal is None, "reason": reason})
    return options


_ROUND_STAGES = (Stage.EXCHANGE, Stage.SHOWDOWN, Stage.TRICKS)


def turn_partials(state: MatchState) -> list[str]:
    """The partials of the next action: one per stage open now, after the round's notes in a round."""
    stages = state.open_stages
    partials = [f"matches/turn/_{stage.value}.html" for stage in stages]
    if stages[0] in _ROUND_STAGES:
        partials.insert(0, "matches/turn/_round.html")
    return partials


def used_cards(state: MatchState) -> set[str]:
    used = {repr(c) for d in state.declarations if d.cards for c in d.cards}
    if state.tie is not None:
        used |= {repr(c) for _, cards in state.tie.cards for c in cards}
    return used


ENTRY_COOKIE = "entry"
ENTRY_STYLES = ("quick", "detail")  # one tap per showdown, or declaration by declaration


def entry_style() -> str:
    """How this phone records a showdown (remembered in a cookie; one tap unless it chose otherwise)."""
    chosen = request.cookies.get(ENTRY_COOKIE, "")
    return chosen if chosen in ENTRY_STYLES else ENTRY_STYLES[0]


@dataclass(frozen=True)
class GridRow:
    """A row of the one-tap showdown (attributes, not a dict: the template reads each several times)."""

    hand: Category
    key: str  # the hand's value, as the form sends it
    label: str  # said once a row: the row's name and each cell's spoken label
    points: int
    cells: list[tuple[str, bool]]  # each player in seat order, and whether the cell is legal
    tie: bool  # the hand's name is a link to its tie


# The rarest hands, behind a row of their own: the common taps fit a small phone's first screen.
RARE = (Category.FOUR_OF_A_KIND, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)


def quick_grid(state: MatchState) -> tuple[list[GridRow], list[GridRow]]:
    """The one-tap showdown: a row per declarable hand, a cell per player, legal cells enabled;
    the common hands' rows, then the rare ones'.

    The players are in seat order, the columns of the scoreboard above, every round (the first
    to speak is marked, ``first_speaker``); a row whose hand two players could still both declare
    is also a link to its tie (``tie_row``).
    """
    left, legal = set(speakers_left(state)), set(state.legal_hands())
    names = [state.players[s] for s in sorted(state.order)]
    rows = [
        GridRow(
            hand,
            hand.value,
            hand_name(hand),
            state.rules.points[hand],
            [(name, name in left and hand in legal) for name in names],
            len(left) > 1 and hand in legal,
        )
        for hand in DECLARABLE
    ]
    return [row for row in rows if row.hand not in RARE], [row for row in rows if row.hand in RARE]


def tie_row(state: MatchState, text: str) -> dict[str, Any] | None:
    """A tie on the grid (``?tie=<hand>``): the hand, each pair of players who could have tied in it,
    and each group of three or more, in speaking order.

    One tap on the tied players' verdict records the showdown and settles the tie.
    """
    left = speakers_left(state)
    if text not in {c.value for c in state.legal_hands()} or len(left) < 2:
        return None
    pairs = list(combinations(left, 2))
    groups = [group for size in range(3, len(left) + 1) for group in combinations(left, size)]
    return {"hand": Category(text), "pairs": pairs, "groups": groups}
