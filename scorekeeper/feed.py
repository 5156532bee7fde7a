"""Events and score changes said in words, for the event feed and the undo button."""

from __future__ import annotations

from scorekeeper.cards import format_hand
from scorekeeper.events import (
    Adjust,
    Chicago,
    Dealer,
    Declare,
    Draw,
    Event,
    Exchange,
    LastTrick,
    Pass,
    Show,
    Tie,
    Trick,
    Undo,
)
from scorekeeper.state import MatchState, ScoreChange


def describe(event: Event) -> str:
    """Say what an event recorded.

    >>> from scorekeeper.hands import Category
    >>> describe(Declare("Bo", Category.TWO_PAIR))
    'Bo declared two pair'
    """
    match event:
        case Draw(cards=cards):
            return "Drew for the deal: " + ", ".join(f"{n} {c.label}" for n, c in cards.items())
        case Dealer(player=player):
            return f"{player} deals first"
        case Exchange(player=player, count=0):
            return f"{player} kept all five cards"
        case Exchange(player=player, count=count):
            return f"{player} exchanged {count} card{'s' if count != 1 else ''}"
        case Show(player=player, cards=cards):
            return f"{player} showed {format_hand(cards)}"
        case Declare(player=player, hand=hand, cards=None):
            return f"{player} declared {hand.label.lower()}"
        case Declare(player=player, hand=hand, cards=cards):
            return f"{player} declared {hand.label.lower()} ({format_hand(cards or ())})"
        case Pass(player=player):
            return f"{player} passed"
        case Tie(cards=None, winner=None):
            return "Tie: identical hands"
        case Tie(cards=None, winner=winner):
            return f"Tie: {winner}'s hand is higher"
        case Tie(cards=cards):
            return "Tie: " + "; ".join(f"{n} showed {format_hand(h)}" for n, h in (cards or {}).items())
        case Chicago(player=player):
            return f"{player} called Chicago"
        case Trick(winner=winner, card=card):
            return f"{winner} took a trick" + (f" with {card.label}" if card else "")
        case LastTrick(winner=winner, card=card):
            return f"{winner} took the last trick" + (f" with {card.label}" if card else "")
        case Adjust(player=player, points=points, reason=reason):
            return f"Correction: {player} {points:+d}" + (f" ({reason})" if reason else "")
        case Undo():
            return "Undo"
    raise TypeError(event)  # pragma: no cover - every event type is listed above


REASONS = {
    "hand": "",
    "last_trick": "last trick",
    "chicago_won": "Chicago won",
    "chicago_lost": "Chicago lost",
    "adjust": "correction",
}


def describe_change(state: MatchState, change: ScoreChange) -> str:
    """Say a change of a total: ``Bo +2, two pair``."""
    what = change.hand.label.lower() if change.hand is not None else REASONS[change.reason]
    if change.reason == "adjust" and change.note:
        what = f"correction: {change.note}"
    return f"{state.players[change.seat]} {change.delta:+d}, {what}"
