"""Why the engine refuses an event: one ``Refusal`` per rule, with its English text and section.

The text is word for word what RULES.md has the app say; the code (the
member's value) and the parameters let the web layer say it in another
language, and the section is where the rules page explains the rule.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any

from scorekeeper.words import N_, NP_, Said, Worded, said, said_n


class Section(StrEnum):
    """A section of the rules page (``/rules#<section>``)."""

    DEAL = "deal"
    EXCHANGE = "exchange"
    SHOWDOWN = "showdown"
    SHOW = "show"
    CHICAGO = "chicago"
    TRICKS = "tricks"
    POINTS = "points"
    HANDS = "hands"
    DECK = "deck"
    WINNING = "winning"


class Refusal(Worded):
    """A rule an event can break: its stable code (the value), its message and the section it enforces."""

    def __init__(self, code: str, message: str | tuple[str, str], section: Section) -> None:
        self.message = message
        self.section = section

    NO_DEALER = (
        "no_dealer",
        N_("Choose who deals first: draw for it, or pick the dealer"),
        Section.DEAL,
    )
    DEALER_KNOWN = (
        "dealer_known",
        N_("The first dealer has already been chosen"),
        Section.DEAL,
    )
    DRAW_PLAYERS = (
        "draw_players",
        N_("This draw is for {players}"),
        Section.DEAL,
    )
    DRAW_CARD_TWICE = (
        "draw_card_twice",
        N_("{card} was drawn twice: there is only one deck"),
        Section.DECK,
    )
    UNKNOWN_PLAYER = (
        "unknown_player",
        N_("{player} is not playing in this match"),
        Section.DEAL,
    )
    SITTING_OUT = (
        "sitting_out",
        N_("{player} sits out this tie-break round"),
        Section.WINNING,
    )
    FINISHED = (
        "finished",
        N_("The match is over: {winner} won"),
        Section.WINNING,
    )
    EXCHANGE_TWICE = (
        "exchange_twice",
        N_("{player} has already exchanged in phase {phase}"),
        Section.EXCHANGE,
    )
    EXCHANGE_ORDER = (
        "exchange_order",
        N_("Exchanges go clockwise from the dealer's left: {player} comes before {last}"),
        Section.EXCHANGE,
    )
    EXCHANGE_CLOSED = (
        "exchange_closed",
        N_("The phase {phase} exchange is over"),
        Section.EXCHANGE,
    )
    EXCHANGE_THRESHOLD = (
        "exchange_threshold",
        NP_(
            "{player} has {score} point and cannot exchange: the limit is {threshold}",
            "{player} has {score} points and cannot exchange: the limit is {threshold}",
        ),
        Section.EXCHANGE,
    )
    SHOW_PHASE = (
        "show_phase",
        N_("A hand is shown in phase 2, before exchanging"),
        Section.SHOW,
    )
    SHOW_NOBODY = (
        "show_nobody",
        N_("Nobody scored in phase 1, so nobody shows their hand"),
        Section.SHOW,
    )
    SHOW_PLAYER = (
        "show_player",
        N_("Only {scorer}, who scored in phase 1, shows their hand"),
        Section.SHOW,
    )
    SHOW_TWICE = (
        "show_twice",
        N_("{player} has already shown their hand"),
        Section.SHOW,
    )
    SHOW_LATE = (
        "show_late",
        N_("{player} must show their hand before exchanging"),
        Section.SHOW,
    )
    TRICKS_FIRST = (
        "tricks_first",
        N_("Play the tricks first: the last showdown comes after them"),
        Section.TRICKS,
    )
    DECLARE_TURN = (
        "declare_turn",
        N_("It is {expected}'s turn to declare or pass, not {player}'s"),
        Section.SHOWDOWN,
    )
    HIGH_CARD = (
        "high_card",
        N_("{player} has no poker hand and can only pass"),
        Section.SHOWDOWN,
    )
    DECLARE_TOO_LOW = (
        "declare_too_low",
        N_("{player} must declare at least {best}, or pass"),
        Section.SHOWDOWN,
    )
    CARDS_MAKE = (
        "cards_make",
        N_("{cards} make {actual}, not {hand}"),
        Section.HANDS,
    )
    CARDS_MAKE_NOTHING = (
        "cards_make_nothing",
        N_("{cards} do not make {hand}, or any poker hand"),
        Section.HANDS,
    )
    CARD_IN_TWO_HANDS = (
        "card_in_two_hands",
        N_("{other} already holds {card}: there is only one deck"),
        Section.DECK,
    )
    CARD_TWICE_IN_HAND = (
        "card_twice_in_hand",
        N_("{player} cannot hold {card} twice: there is only one deck"),
        Section.DECK,
    )
    TIE_PENDING = (
        "tie_pending",
        N_("First settle the tie between {players}"),
        Section.HANDS,
    )
    NO_TIE = (
        "no_tie",
        N_("There is no tie to settle"),
        Section.HANDS,
    )
    NOT_IN_TIE = (
        "not_in_tie",
        N_("{player} is not in the tie between {players}"),
        Section.HANDS,
    )
    TIE_CARDS_KNOWN = (
        "tie_cards_known",
        N_("{player}'s cards are already known"),
        Section.HANDS,
    )
    CHICAGO_PHASE = (
        "chicago_phase",
        N_("Chicago is called in phase 3, before the first trick"),
        Section.CHICAGO,
    )
    CHICAGO_MIN = (
        "chicago_min",
        NP_(
            "{player} has {score} point; Chicago needs {min}",
            "{player} has {score} points; Chicago needs {min}",
        ),
        Section.CHICAGO,
    )
    CHICAGO_TWICE = (
        "chicago_twice",
        N_("{caller} has already called Chicago this round"),
        Section.CHICAGO,
    )
    CHICAGO_LAST_PHASE = (
        "chicago_last_phase",
        N_("Chicago is called in the last phase, before the first trick"),
        Section.CHICAGO,
    )
    BLANCO_OFF = (
        "blanco_off",
        N_("Blanco Chicago is not played in this match"),
        Section.CHICAGO,
    )
    BLANCO_PHASE = (
        "blanco_phase",
        N_("A blanco Chicago is called in the last phase, before the exchange"),
        Section.CHICAGO,
    )
    BLANCO_EXCHANGED = (
        "blanco_exchanged",
        N_("{player} has already exchanged: a blanco Chicago is called before exchanging"),
        Section.CHICAGO,
    )
    BLANCO_TWICE = (
        "blanco_twice",
        N_("{caller} has already called a blanco Chicago this round"),
        Section.CHICAGO,
    )
    BLANCO_NO_CHICAGO = (
        "blanco_no_chicago",
        N_("{caller} called a blanco Chicago: nobody may call Chicago this round"),
        Section.CHICAGO,
    )
    BLANCO_NO_EXCHANGE = (
        "blanco_no_exchange",
        N_("{player} called a blanco Chicago and takes no new cards"),
        Section.CHICAGO,
    )
    TRICKS_LAST_PHASE = (
        "tricks_last_phase",
        N_("Tricks are played in the last phase, after the exchange"),
        Section.TRICKS,
    )
    TRICKS_PHASE = (
        "tricks_phase",
        N_("Tricks are played in phase 3, after the exchange"),
        Section.TRICKS,
    )
    TRICKS_OVER = (
        "tricks_over",
        N_("Trick play is over; now the last showdown"),
        Section.TRICKS,
    )
    TRICKS_ONE_BY_ONE = (
        "tricks_one_by_one",
        N_("Tricks are recorded in order: record trick {number} next"),
        Section.TRICKS,
    )
    DEUCE_CARD = (
        "deuce_card",
        N_("Say which card won the last trick: with this house rule a 2 scores double"),
        Section.TRICKS,
    )
    TRICK_CARD_PLAYED = (
        "trick_card_played",
        N_("{card} was already played in trick {number}"),
        Section.TRICKS,
    )
    ADJUST_ZERO = (
        "adjust_zero",
        N_("A correction of 0 points changes nothing"),
        Section.POINTS,
    )
    NOTHING_TO_UNDO = (
        "nothing_to_undo",
        N_("There is nothing to undo"),
        Section.POINTS,
    )
    BAD_CARDS = (
        "bad_cards",
        N_("{error}"),
        Section.HANDS,
    )


class RuleBroken(Exception):
    """An event that breaks a rule. ``index`` is set by ``replay``: the event's position."""

    def __init__(self, refusal: Refusal, **params: Any) -> None:
        self.refusal = refusal
        self.params = params
        self.index: int | None = None
        self.state: Any = None  # replay sets the MatchState just before the event
        super().__init__(self.message)

    @property
    def code(self) -> str:
        """The refusal's stable code, such as ``declare_too_low``."""
        return self.refusal.value

    @property
    def section(self) -> Section:
        """The rules page's section for this refusal (``/rules#<section>``)."""
        return self.refusal.section

    @property
    def message(self) -> str:
        """The refusal in English, parameters filled in (hands by their label)."""
        words = {k: getattr(v, "label", v) if isinstance(v, Enum) else v for k, v in self.params.items()}
        template = self.refusal.message
        if isinstance(template, tuple):  # singular or plural, by the part "score"
            template = template[0] if self.params.get("score") == 1 else template[1]
        return template.format(**words)

    @property
    def words(self) -> Said:
        """The refusal kept apart for translation (a hand by its name inside a sentence)."""
        if isinstance(self.refusal.message, tuple):
            return said_n(self.refusal.message, "score", **self.params)
        return said(self.refusal.message, **self.params)

    def __str__(self) -> str:
        if self.index is None:
            return self.message
        return f"event {self.index}: {self.message}"
