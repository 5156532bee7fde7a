"""One frozen dataclass per event type of ``chicago-match/1`` (MATCH_FORMAT.md, "Events").

Class names are the file's ``type`` in CamelCase and field names are the
file's field names; ``matchfile.EVENT_TYPES`` maps one to the other.
Players are named by their name, as in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from scorekeeper.cards import Card
from scorekeeper.hands import Category


@dataclass(frozen=True, slots=True)
class Draw:
    """Players draw one card each for the first deal; the lowest rank deals."""

    type: ClassVar[str] = "draw"
    cards: Mapping[str, Card]


@dataclass(frozen=True, slots=True)
class Dealer:
    """The first dealer, set directly instead of by drawing."""

    type: ClassVar[str] = "dealer"
    player: str


@dataclass(frozen=True, slots=True)
class Exchange:
    """A player exchanged ``count`` cards (0 is a pass) in the current phase."""

    type: ClassVar[str] = "exchange"
    player: str
    count: int


@dataclass(frozen=True, slots=True)
class Show:
    """Phase 2: the phase-1 scorer shows their hand before exchanging."""

    type: ClassVar[str] = "show"
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Declare:
    """A declaration in the current showdown, with the five cards if they were shown."""

    type: ClassVar[str] = "declare"
    player: str
    hand: Category
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """The player passes in the current showdown."""

    type: ClassVar[str] = "pass"
    player: str


@dataclass(frozen=True, slots=True)
class Tie:
    """Settles a tie for the best declared hand.

    Either by the cards of tied players (``cards``; the tie stays open until
    every tied player's cards are known), or by the scorekeeper's verdict
    (``cards`` is None): ``winner`` names the higher hand, None means identical.
    """

    type: ClassVar[str] = "tie"
    winner: str | None = None
    cards: Mapping[str, tuple[Card, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Chicago:
    """Phase 3, before the first trick: the player declares Chicago."""

    type: ClassVar[str] = "chicago"
    player: str


@dataclass(frozen=True, slots=True)
class Blanco:
    """House rule ``blanco_chicago``: in the last phase, before its exchange, the player calls a
    blanco Chicago (and exchanges no cards)."""

    type: ClassVar[str] = "blanco"
    player: str


@dataclass(frozen=True, slots=True)
class Trick:
    """The winner of the next trick (1 to 5), and the card that won it if known."""

    type: ClassVar[str] = "trick"
    winner: str
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class LastTrick:
    """Only the winner of the last trick is recorded (no ``Trick`` events this round)."""

    type: ClassVar[str] = "last_trick"
    winner: str
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Adjust:
    """The scorekeeper's correction of a player's points; never below 0."""

    type: ClassVar[str] = "adjust"
    player: str
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Undo:
    """Cancels the most recent event still in effect (never an undo)."""

    type: ClassVar[str] = "undo"


Event = (
    Draw
    | Dealer
    | Exchange
    | Show
    | Declare
    | Pass
    | Tie
    | Chicago
    | Blanco
    | Trick
    | LastTrick
    | Adjust
    | Undo
)
