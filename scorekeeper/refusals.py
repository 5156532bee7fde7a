"""Why the engine refuses an event: a stable code, its parameters, and the English text.

The text is word for word what RULES.md has the app say; the code and the
parameters let the web layer say it in another language.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from scorekeeper.words import N_

MESSAGES: dict[str, str] = {
    "no_dealer": N_("Choose the first dealer first: draw for it, or pick the dealer"),
    "dealer_known": N_("The first dealer is already chosen"),
    "draw_players": N_("This draw is for {players}"),
    "draw_card_twice": N_("{card} was drawn twice: one deck is in play"),
    "unknown_player": N_("{player} is not playing in this match"),
    "sitting_out": N_("{player} sits out this tie-break round"),
    "finished": N_("The match is over: {winner} won"),
    "exchange_twice": N_("{player} has already exchanged in phase {phase}"),
    "exchange_order": N_("Exchanges go clockwise from the dealer's left: {player} comes before {last}"),
    "exchange_closed": N_("The exchange of phase {phase} is over"),
    "exchange_threshold": N_("{player} has {score} points; no exchanges from {threshold}"),
    "show_phase": N_("A hand is shown in phase 2, before exchanging"),
    "show_nobody": N_("Nobody scored in phase 1, so nobody has to show"),
    "show_player": N_("Only {scorer}, who scored in phase 1, shows their hand"),
    "show_twice": N_("{player} has already shown their hand"),
    "show_late": N_("{player} must show before exchanging"),
    "tricks_first": N_("Play the tricks first: the last showdown comes after them"),
    "declare_turn": N_("It is {expected}'s turn to declare or pass, not {player}'s"),
    "high_card": N_("{player} has no poker hand and can only pass"),
    "declare_too_low": N_("{player} must declare at least {best}, or pass"),
    "cards_make": N_("{cards} make {actual}, not {hand}"),
    "card_in_two_hands": N_("{card} is already in {other}'s hand: one deck is in play"),
    "card_twice_in_hand": N_("{card} is twice in {player}'s hand: one deck is in play"),
    "tie_pending": N_("First settle the tie between {players}"),
    "no_tie": N_("There is no tie to settle"),
    "not_in_tie": N_("{player} is not in the tie between {players}"),
    "tie_cards_known": N_("{player}'s cards are already known"),
    "chicago_phase": N_("Chicago is called in phase 3, before the first trick"),
    "chicago_min": N_("{player} has {score} points; Chicago needs {min}"),
    "chicago_twice": N_("{caller} has already called Chicago this round"),
    "tricks_phase": N_("Tricks are played in phase 3, after the exchange"),
    "tricks_over": N_("The trick play is over; now the last showdown"),
    "tricks_one_by_one": N_("The tricks of this round are recorded one by one: record trick {number}"),
    "deuce_card": N_("Say which card won the last trick: with this house rule a 2 scores double"),
    "trick_card_played": N_("{card} was already played in trick {number}"),
    "adjust_zero": N_("An adjustment of 0 points changes nothing"),
    "nothing_to_undo": N_("There is nothing to undo"),
    "bad_cards": N_("{error}"),
}


# The section of the rules page (``/rules#<section>``) that each refusal enforces.
SECTIONS = ("deal", "exchange", "showdown", "show", "chicago", "tricks", "points", "hands", "deck", "winning")
RULE_OF: dict[str, str] = {
    "no_dealer": "deal",
    "dealer_known": "deal",
    "draw_players": "deal",
    "draw_card_twice": "deck",
    "unknown_player": "deal",
    "sitting_out": "winning",
    "finished": "winning",
    "exchange_twice": "exchange",
    "exchange_order": "exchange",
    "exchange_closed": "exchange",
    "exchange_threshold": "exchange",
    "show_phase": "show",
    "show_nobody": "show",
    "show_player": "show",
    "show_twice": "show",
    "show_late": "show",
    "tricks_first": "tricks",
    "declare_turn": "showdown",
    "high_card": "showdown",
    "declare_too_low": "showdown",
    "cards_make": "hands",
    "card_in_two_hands": "deck",
    "card_twice_in_hand": "deck",
    "tie_pending": "hands",
    "no_tie": "hands",
    "not_in_tie": "hands",
    "tie_cards_known": "hands",
    "chicago_phase": "chicago",
    "chicago_min": "chicago",
    "chicago_twice": "chicago",
    "tricks_phase": "tricks",
    "tricks_over": "tricks",
    "tricks_one_by_one": "tricks",
    "deuce_card": "tricks",
    "trick_card_played": "tricks",
    "adjust_zero": "points",
    "nothing_to_undo": "points",
    "bad_cards": "hands",
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
    def section(self) -> str:
        """The rules page's section for this refusal (``/rules#<section>``)."""
        return RULE_OF[self.code]

    @property
    def message(self) -> str:
        """The refusal in English, parameters filled in (hands by their label)."""
        words = {k: getattr(v, "label", v) if isinstance(v, Enum) else v for k, v in self.params.items()}
        return MESSAGES[self.code].format(**words)

    def __str__(self) -> str:
        if self.index is None:
            return self.message
        return f"event {self.index}: {self.message}"
