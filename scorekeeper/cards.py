"""Cards and hands as MATCH_FORMAT.md writes them: ``Qs``, ``10♥``, ``"Qs Qh 9c 9d 2s"``.

The canonical form is a rank from ``23456789TJQKA`` and a lower-case suit
letter; parsing accepts ``10`` for ``T``, the suit symbols, and any case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from scorekeeper.words import N_, NC_, Said, quoted, said


class CardError(ValueError):
    """A card or a hand that cannot be read, said in words a player understands (``words``)."""

    def __init__(self, words: Said) -> None:
        super().__init__(str(words))
        self.words = words


class Rank(IntEnum):
    """A card's rank; its value is its strength (an ace is 14, and may play low in A-2-3-4-5)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The one-character file spelling: ``2``…``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return "23456789TJQKA"[self - 2]

    @property
    def label(self) -> str:
        """The spelling for people: ``10`` rather than ``T``."""
        return "10" if self is Rank.TEN else self.symbol

    @property
    def noun_words(self) -> Said | str:
        """The rank as a word: a face card's (``queen``), or the number itself (``9``).

        >>> str(Rank.QUEEN.noun_words), Rank.NINE.noun_words, str(Rank.NINE.plural_words)
        ('queen', '9', 'nines')
        """
        return said(_NOUNS[self]) if self in _NOUNS else self.label

    @property
    def plural_words(self) -> Said:
        """The rank as a word, plural: ``queens``, ``nines`` (never ``9s``: the nine of spades)."""
        return _PLURALS[self]


_NOUNS = {Rank.JACK: N_("jack"), Rank.QUEEN: N_("queen"), Rank.KING: N_("king"), Rank.ACE: N_("ace")}
# Translators: a rank in the plural, standing alone after a colon ("pair: kings"), so in its
# plain (nominative) form; where the language does not say numbers as words, the digit will do.
_PLURALS = {
    Rank.TWO: NC_("rank, several cards", "twos"),
    Rank.THREE: NC_("rank, several cards", "threes"),
    Rank.FOUR: NC_("rank, several cards", "fours"),
    Rank.FIVE: NC_("rank, several cards", "fives"),
    Rank.SIX: NC_("rank, several cards", "sixes"),
    Rank.SEVEN: NC_("rank, several cards", "sevens"),
    Rank.EIGHT: NC_("rank, several cards", "eights"),
    Rank.NINE: NC_("rank, several cards", "nines"),
    Rank.TEN: NC_("rank, several cards", "tens"),
    Rank.JACK: NC_("rank, several cards", "jacks"),
    Rank.QUEEN: NC_("rank, several cards", "queens"),
    Rank.KING: NC_("rank, several cards", "kings"),
    Rank.ACE: NC_("rank, several cards", "aces"),
}


class Suit(StrEnum):
    """A suit; its value is the file spelling. Suits never rank."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

    @property
    def symbol(self) -> str:
        """The suit symbol: ♠ ♥ ♦ ♣."""
        return {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[self.value]

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the 52. Its repr is the canonical form, ``Ts``.

    ``prime`` and ``bit`` are precomputed for the hand evaluator's lookup tables.
    """

    rank: Rank
    suit: Suit
    prime: int = field(init=False, repr=False, compare=False)
    bit: int = field(init=False, repr=False, compare=False)
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "prime", _PRIMES[self.rank - 2])
        object.__setattr__(self, "bit", 1 << (self.rank - 2))
        object.__setattr__(self, "index", "shdc".index(self.suit.value) * 13 + self.rank - 2)

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Card) and self.index == other.index)

    def __repr__(self) -> str:
        return self.rank.symbol + self.suit.value

    def __str__(self) -> str:
        return repr(self)

    @property
    def label(self) -> str:
        """The card for people: ``10♥``."""
        return self.rank.label + self.suit.symbol


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)

_RANK_ALIASES = {r.symbol: r for r in Rank} | {"10": Rank.TEN}
_SUIT_ALIASES = {s.value: s for s in Suit} | {s.symbol: s for s in Suit}
_SUIT_ALIASES |= {"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS}
_CARDS = {(c.rank, c.suit): c for c in DECK}
_PARSED: dict[str, Card] = {}
for _rank_text, _rank in _RANK_ALIASES.items():
    for _suit_text, _suit in _SUIT_ALIASES.items():
        _PARSED[_rank_text + _suit_text] = _CARDS[_rank, _suit]


def parse_card(text: str) -> Card:
    """Read one card, in any case, with a letter or a symbol for the suit.

    >>> parse_card("qh"), parse_card("10♠"), parse_card("Td")
    (Qh, Ts, Td)
    >>> parse_card("1x")
    Traceback (most recent call last):
    ...
    scorekeeper.cards.CardError: “1x” is not a card
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(said(N_("{card} is not a card"), card=quoted(text)))
    card = _PARSED.get(_normalise(text))
    if card is None:
        raise CardError(said(N_("{card} is not a card"), card=quoted(text.strip())))
    return card


def parse_rank(text: str) -> Rank | None:
    """A rank alone (``7``, ``10`` or ``T``, ``q``), or None when ``text`` is not one.

    >>> parse_rank("10"), parse_rank("q"), parse_rank("7h")
    (<Rank.TEN: 10>, <Rank.QUEEN: 12>, None)
    """
    return _RANK_ALIASES.get(text.strip().upper())


def _normalise(text: str) -> str:
    """Upper-case the rank and lower-case the suit, the way the lookup table is keyed."""
    text = text.strip()
    return text[:-1].upper() + text[-1:].lower()


def parse_cards(cards: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Read cards separated by spaces or commas (or an iterable of cards), any number.

    >>> parse_cards("As, kd 10c")
    (As, Kd, Tc)
    """
    if isinstance(cards, str):
        tokens: Iterable[str | Card] = [t for t in re.split(r"[\s,]+", cards) if t]
    else:
        tokens = cards
    return tuple(parse_card(t) for t in tokens)  # type: ignore[arg-type]


def parse_hand(cards: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Read exactly five different cards.

    >>> parse_hand("Qs Qh 9c 9d 2s")
    (Qs, Qh, 9c, 9d, 2s)
    >>> parse_hand("Qs Qs 9c 9d 2s")
    Traceback (most recent call last):
    ...
    scorekeeper.cards.CardError: Q♠ is in the hand twice
    """
    hand = parse_cards(cards)
    if len(hand) != 5:
        raise CardError(said(N_("A hand is five cards, not {count}"), count=len(hand)))
    check_distinct(hand)
    return hand


def check_distinct(cards: Iterable[Card]) -> None:
    """Raise CardError naming the first card that appears twice (one deck is in play)."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(said(N_("{card} is in the hand twice"), card=card.label))
        seen.add(card)


def format_hand(cards: Iterable[Card]) -> str:
    """Write cards in the canonical form, separated by spaces.

    >>> format_hand(parse_hand("10♥ j♥ Q♥ K♥ A♥"))
    'Th Jh Qh Kh Ah'
    """
    return " ".join(repr(c) for c in cards)


def label_hand(cards: Iterable[Card]) -> str:
    """Write cards for people, as the app draws them everywhere else (the feed, the picker).

    >>> label_hand(parse_hand("Th jh Qh 4s 9c"))
    '10♥ J♥ Q♥ 4♠ 9♣'
    """
    return " ".join(c.label for c in cards)
