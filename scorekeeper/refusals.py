"""Why the engine refuses an event: a stable code, its parameters, and the English text.

The text is word for word what RULES.md has the app say; the code and the
parameters let the web layer say it in another language.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

MESSAGES: dict[str, str] = {
    "no_dealer": "Choose the first dealer first: draw for it, or pick the dealer",
    "dealer_known": "The first dealer is already chosen",
    "draw_players": "This draw is for {players}",
    "draw_card_twice": "{card} was drawn twice: one deck is in play",
    "unknown_player": "{player} is not playing in this match",
    "sitting_out": "{player} sits out this tie-break round",
    "finished": "The match is over: {winner} won",
    "exchange_twice": "{player} has already exchanged in phase {phase}",
    "exchange_order": "Exchanges go clockwise from the dealer's left: {player} comes before {last}",
    "exchange_closed": "The exchange of phase {phase} is over",
    "exchange_threshold": "{player} has {score} points; no exchanges from {threshold}",
    "show_phase": "A hand is shown in phase 2, before exchanging",
    "show_nobody": "Nobody scored in phase 1, so nobody has to show",
    "show_player": "Only {scorer}, who scored in phase 1, shows their hand",
    "show_twice": "{player} has already shown their hand",
    "show_late": "{player} must show before exchanging",
    "tricks_first": "Play the tricks first: the last showdown comes after them",
    "declare_turn": "It is {expected}'s turn to declare or pass, not {player}'s",
    "high_card": "{player} has no poker hand and can only pass",
    "declare_too_low": "{player} must declare at least {best}, or pass",
    "cards_make": "{cards} make {actual}, not {hand}",
    "card_in_two_hands": "{card} is already in {other}'s hand: one deck is in play",
    "tie_pending": "First settle the tie between {players}",
    "no_tie": "There is no tie to settle",
    "not_in_tie": "{player} is not in the tie between {players}",
    "tie_cards_known": "{player}'s cards are already known",
    "chicago_phase": "Chicago is called in phase 3, before the first trick",
    "chicago_min": "{player} has {score} points; Chicago needs {min}",
    "chicago_twice": "{caller} has already called Chicago this round",
    "tricks_phase": "Tricks are played in phase 3, after the exchange",
    "tricks_over": "The trick play is over; now the last showdown",
    "tricks_one_by_one": "The tricks of this round are recorded one by one: record trick {number}",
    "deuce_card": "Say which card won the last trick: with this house rule a 2 scores double",
    "trick_card_played": "{card} was already played in trick {number}",
    "adjust_zero": "An adjustment of 0 points changes nothing",
    "nothing_to_undo": "There is nothing to undo",
    "bad_cards": "{error}",
}


class RuleBroken(Exception):
    """An event that breaks a rule. ``index`` is set by ``replay``: the event's position."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        self.index: int | None = None
        self.state: Any = None  # replay sets the MatchState just before the event
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The refusal in English, parameters filled in (hands by their label)."""
        words = {k: getattr(v, "label", v) if isinstance(v, Enum) else v for k, v in self.params.items()}
        return MESSAGES[self.code].format(**words)

    def __str__(self) -> str:
        if self.index is None:
            return self.message
        return f"event {self.index}: {self.message}"
