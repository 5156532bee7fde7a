"""Poker hands: what five cards make, and which of two hands is higher (RULES.md, "Poker hands").

``evaluate`` looks the five cards up in two tables built once at import from
``_classify``, the plain reading of the rules: one keyed by the ranks of a
flush, one by the product of the ranks' primes for everything else. Every
one of the 7,462 distinct hands is a single shared ``Hand`` value.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from scorekeeper.cards import Card, CardError, Rank, Suit, parse_hand
from scorekeeper.words import N_, NC_, Said, said


class Category(StrEnum):
    """A hand's category, lowest first; the value is MATCH_FORMAT's hand name."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"
    ROYAL_FLUSH = "royal_flush"

    @property
    def label(self) -> str:
        """The name for people: ``Two pair``."""
        return _LABELS[self]

    @property
    def phrase(self) -> Said:
        """The category's name inside a sentence: ``two pair``, ``flush`` (its own message per language)."""
        return _PHRASES[self]

    @property
    def named(self) -> Said:
        """The category's name after a verb or a preposition: ``a pair``, ``two pair`` (English's article)."""
        return _NAMED[self]

    @property
    def order(self) -> int:
        """Strength of the category: 0 for high card up to 9 for a royal flush."""
        return _ORDER[self]

    @property
    def is_declarable(self) -> bool:
        """High card is no poker hand: a player holding it can only pass."""
        return self is not Category.HIGH_CARD


_ORDER = {c: i for i, c in enumerate(Category)}
_LABELS = {
    Category.HIGH_CARD: N_("High card"),
    Category.PAIR: N_("Pair"),
    Category.TWO_PAIR: N_("Two pair"),
    Category.THREE_OF_A_KIND: N_("Three of a kind"),
    Category.STRAIGHT: N_("Straight"),
    Category.FLUSH: N_("Flush"),
    Category.FULL_HOUSE: N_("Full house"),
    Category.FOUR_OF_A_KIND: N_("Four of a kind"),
    Category.STRAIGHT_FLUSH: N_("Straight flush"),
    Category.ROYAL_FLUSH: N_("Royal flush"),
}
DECLARABLE: tuple[Category, ...] = tuple(c for c in Category if c.is_declarable)


@dataclass(frozen=True, slots=True, eq=False)
class Hand:
    """The value of five cards: its category and the ranks that break a tie, most significant first.

    Hands compare by ``strength`` (0 is the weakest of the 7,462 distinct values);
    suits never enter, so equal ranks in the same category are equal hands.
    """

    category: Category
    ranks: tuple[Rank, ...]
    strength: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and self.strength == other.strength

    def __hash__(self) -> int:
        return self.strength

    def __lt__(self, other: Hand) -> bool:
        return self.strength < other.strength

    def __le__(self, other: Hand) -> bool:
        return self.strength <= other.strength

    def __gt__(self, other: Hand) -> bool:
        return self.strength > other.strength

    def __ge__(self, other: Hand) -> bool:
        return self.strength >= other.strength

    def __repr__(self) -> str:
        return f"<Hand {self.describe()}>"

    def describe(self) -> str:
        """Say the hand the way a player would: its name, then its ranks (in words, never "9s").

        Each rank word is its own message in the plain plural or singular, so a translation may
        stand it alone ("par: kungar") where its language would bend it after a preposition.

        >>> evaluate("Qs Qh 9c 9d 2s").describe()
        'Two pair, queens and nines'
        >>> evaluate("Ah 2c 3d 4s 5h").describe()
        'Straight, 5 high'
        >>> evaluate("Th Jh Qh Kh Ah").describe()
        'Royal flush'
        """
        return str(self.words())

    def words(self) -> Said:
        """``describe``, kept apart for translation."""
        r = self.ranks
        match self.category:
            case Category.HIGH_CARD:
                return said(N_("High card, {rank} high"), rank=r[0].noun_words)
            case Category.PAIR:
                return said(N_("Pair of {ranks}"), ranks=r[0].plural_words)
            case Category.TWO_PAIR:
                return said(N_("Two pair, {high} and {low}"), high=r[0].plural_words, low=r[1].plural_words)
            case Category.THREE_OF_A_KIND:
                return said(N_("Three of a kind, {ranks}"), ranks=r[0].plural_words)
            case Category.STRAIGHT:
                return said(N_("Straight, {rank} high"), rank=r[0].noun_words)
            case Category.FLUSH:
                return said(N_("Flush, {rank} high"), rank=r[0].noun_words)
            case Category.FULL_HOUSE:
                return said(
                    # Translators: {high} are the three cards, {low} the two; both are rank words
                    # in the plural.
                    N_("Full house, {high} over {low}"),
                    high=r[0].plural_words,
                    low=r[1].plural_words,
                )
            case Category.FOUR_OF_A_KIND:
                return said(N_("Four of a kind, {ranks}"), ranks=r[0].plural_words)
            case Category.STRAIGHT_FLUSH:
                return said(N_("Straight flush, {rank} high"), rank=r[0].noun_words)
        return said(self.category.label)


def _classify(ranks: Sequence[Rank], flush: bool) -> tuple[Category, tuple[Rank, ...]]:
    """Classify five ranks the plain way: the reference the lookup tables are built from."""
    counts = Counter(ranks)
    # Most cards first, then highest rank: the tie-break order of RULES.md.
    groups = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    distinct = sorted(counts, reverse=True)
    top: Rank | None = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = distinct[0]
    elif distinct == [Rank.ACE, Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO]:
        top = Rank.FIVE  # A-2-3-4-5: the ace plays low; never in the middle.
    if top is not None and flush:
        category = Category.ROYAL_FLUSH if top is Rank.ACE else Category.STRAIGHT_FLUSH
        return category, (top,)
    if shape == [4, 1]:
        return Category.FOUR_OF_A_KIND, tuple(groups)
    if shape == [3, 2]:
        return Category.FULL_HOUSE, tuple(groups)
    if flush:
        return Category.FLUSH, tuple(distinct)
    if top is not None:
        return Category.STRAIGHT, (top,)
    by_shape = {
        (3, 1, 1): Category.THREE_OF_A_KIND,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.PAIR,
        (1, 1, 1, 1, 1): Category.HIGH_CARD,
    }
    return by_shape[tuple(shape)], tuple(groups)


_RANK_PRIMES = {rank: Card(rank, Suit.SPADES).prime for rank in Rank}  # a card's prime is its rank's


def _prime_product(ranks: Iterable[Rank]) -> int:
    """The lookup key of a hand that is not a flush: its ranks' primes multiplied."""
    return math.prod(_RANK_PRIMES[rank] for rank in ranks)


def _build_tables() -> tuple[dict[int, Hand], dict[int, Hand]]:
    """Classify every distinct hand once, rank them all, and key them for lookup."""
    unsorted: list[tuple[Category, tuple[Rank, ...], bool, tuple[Rank, ...]]] = []
    ranks: tuple[Rank, ...]
    for ranks in itertools.combinations_with_replacement(Rank, 5):
        if max(Counter(ranks).values()) > 4:
            continue
        unsorted.append((*_classify(ranks, flush=False), False, ranks))
        if len(set(ranks)) == 5:
            unsorted.append((*_classify(ranks, flush=True), True, ranks))
    unsorted.sort(key=lambda row: (row[0].order, row[1]))
    flushes: dict[int, Hand] = {}
    others: dict[int, Hand] = {}
    strength = -1
    previous: tuple[Category, tuple[Rank, ...]] | None = None
    for category, key, flush, ranks in unsorted:
        if (category, key) != previous:
            strength += 1
            previous = (category, key)
        hand = Hand(category, key, strength)
        if flush:
            flushes[sum(1 << (r - 2) for r in ranks)] = hand
        else:
            others[_prime_product(ranks)] = hand
    return flushes, others


# Built on the first hand evaluated, not on import: a server that never reads cards starts 0.25 s sooner.
_tables = functools.cache(_build_tables)


def distinct_hands() -> int:
    """How many hands of different value there are (7,462: the tables hold each once)."""
    flushes, others = _tables()
    return len(set(flushes.values()) | set(others.values()))


def evaluate(cards: str | Iterable[str | Card]) -> Hand:
    """Evaluate five cards: a string such as ``"As Kd Tc 9h 2s"``, or card strings or Cards.

    >>> evaluate("Qs Qh 9c 9d 2s").category
    <Category.TWO_PAIR: 'two_pair'>
    >>> evaluate("9h 7h 5h 4h 2h") == evaluate("9s 7s 5s 4s 2s")
    True
    >>> evaluate("As Kd Tc 9h")
    Traceback (most recent call last):
    ...
    scorekeeper.cards.CardError: A hand is five cards, not 4
    """
    if type(cards) is tuple and len(cards) == 5:
        c1, c2, c3, c4, c5 = cards
        if not (type(c1) is type(c2) is type(c3) is type(c4) is type(c5) is Card):
            c1, c2, c3, c4, c5 = parse_hand(cards)
        elif c1 == c2 or len({c1, c2, c3, c4, c5}) != 5:
            c1, c2, c3, c4, c5 = parse_hand(cards)  # raises, naming the repeated card
    else:
        c1, c2, c3, c4, c5 = parse_hand(cards)
    if c1.suit is c2.suit is c3.suit is c4.suit is c5.suit:
        return _tables()[0][c1.bit | c2.bit | c3.bit | c4.bit | c5.bit]
    return _tables()[1][c1.prime * c2.prime * c3.prime * c4.prime * c5.prime]


def classify(cards: str | Iterable[str | Card]) -> Category:
    """Name the category of five cards.

    >>> classify("Qs Qh 9c 9d 2s")
    <Category.TWO_PAIR: 'two_pair'>
    """
    return evaluate(cards).category


# What each position of a category's tie-break ranks is called (after "higher": "higher kicker"), and
# whether it is a group of cards (its ranks said in the plural) or a single card.
_CARDS = (
    NC_("tie-break position", "first card"),
    NC_("tie-break position", "second card"),
    NC_("tie-break position", "third card"),
    NC_("tie-break position", "fourth card"),
    NC_("tie-break position", "fifth card"),
)
_KICKERS = (
    NC_("tie-break position", "first kicker"),
    NC_("tie-break position", "second kicker"),
    NC_("tie-break position", "third kicker"),
)
_KICKER = NC_("tie-break position", "kicker")
_ROLES: dict[Category, tuple[tuple[Said, bool], ...]] = {
    Category.HIGH_CARD: tuple((card, False) for card in _CARDS),
    Category.PAIR: ((_PAIR := NC_("tie-break position", "pair"), True),)
    + tuple((k, False) for k in _KICKERS),
    Category.TWO_PAIR: (
        (NC_("tie-break position", "first pair"), True),
        (NC_("tie-break position", "second pair"), True),
        (_KICKER, False),
    ),
    Category.THREE_OF_A_KIND: ((_THREE := NC_("tie-break position", "three of a kind"), True),)
    + tuple((k, False) for k in _KICKERS[:2]),
    Category.STRAIGHT: ((_TOP := NC_("tie-break position", "top card"), False),),
    Category.FLUSH: tuple((card, False) for card in _CARDS),
    Category.FULL_HOUSE: ((_THREE, True), (_PAIR, True)),
    Category.FOUR_OF_A_KIND: ((NC_("tie-break position", "four of a kind"), True), (_KICKER, False)),
    Category.STRAIGHT_FLUSH: ((_TOP, False),),
    Category.ROYAL_FLUSH: (),
}
# Translators: a poker hand's name inside a sentence ("Bo declared two pair"), lower case where
# the language writes it so.
_PHRASES = {
    Category.HIGH_CARD: NC_("hand, in a sentence", "high card"),
    Category.PAIR: NC_("hand, in a sentence", "pair"),
    Category.TWO_PAIR: NC_("hand, in a sentence", "two pair"),
    Category.THREE_OF_A_KIND: NC_("hand, in a sentence", "three of a kind"),
    Category.STRAIGHT: NC_("hand, in a sentence", "straight"),
    Category.FLUSH: NC_("hand, in a sentence", "flush"),
    Category.FULL_HOUSE: NC_("hand, in a sentence", "full house"),
    Category.FOUR_OF_A_KIND: NC_("hand, in a sentence", "four of a kind"),
    Category.STRAIGHT_FLUSH: NC_("hand, in a sentence", "straight flush"),
    Category.ROYAL_FLUSH: NC_("hand, in a sentence", "royal flush"),
}
# Translators: a poker hand's name after a verb or a preposition ("Bo declared a pair", "at least a
# flush"), with the article English gives it. Where the language needs none, or the sentence around
# it gives it, the same as the hand's name in a sentence.
_NAMED = {
    Category.HIGH_CARD: NC_("hand, after a verb", "no pair"),
    Category.PAIR: NC_("hand, after a verb", "a pair"),
    Category.TWO_PAIR: NC_("hand, after a verb", "two pair"),
    Category.THREE_OF_A_KIND: NC_("hand, after a verb", "three of a kind"),
    Category.STRAIGHT: NC_("hand, after a verb", "a straight"),
    Category.FLUSH: NC_("hand, after a verb", "a flush"),
    Category.FULL_HOUSE: NC_("hand, after a verb", "a full house"),
    Category.FOUR_OF_A_KIND: NC_("hand, after a verb", "four of a kind"),
    Category.STRAIGHT_FLUSH: NC_("hand, after a verb", "a straight flush"),
    Category.ROYAL_FLUSH: NC_("hand, after a verb", "a royal flush"),
}


def explain(higher: Hand, lower: Hand) -> str:
    """Say in words why ``higher`` beats ``lower`` (or that they are identical).

    RULES.md: within a category hands compare rank by rank, most significant first. The
    verdict names the first card (or group of cards) that differs and its two ranks; the
    hands themselves are said elsewhere, so the verdict does not repeat them.

    >>> explain(evaluate("Qs Qh 9c 5d 2s"), evaluate("Qd Qc 8c 5h 2d"))
    'higher first kicker, 9 against 8'
    >>> explain(evaluate("Qh 9h 7h 4h 2h"), evaluate("9s 8s 6s 4s 2s"))
    'higher first card, queen against 9'
    >>> explain(evaluate("8h 8d 5c 4s 2h"), evaluate("7s 7c 6s 4c 2s"))
    'higher pair, eights against sevens'
    >>> explain(evaluate("Qh 9h 7h 4h 2h"), evaluate("Kc Qd Js Th 9c"))
    'a flush against a straight'
    >>> explain(evaluate("9h 7h 5h 4h 2h"), evaluate("9s 7s 5s 4s 2s"))
    'the hands were equal, so nobody scored'
    """
    return str(explain_words(higher, lower))


def explain_words(higher: Hand, lower: Hand) -> Said:
    """``explain``, kept apart for translation."""
    if higher == lower:  # RULES.md: identical best hands, nobody scores
        return said(N_("the hands were equal, so nobody scored"))
    if higher.category is not lower.category:
        return said(N_("{higher} against {lower}"), higher=higher.category.named, lower=lower.category.named)
    roles = _ROLES[higher.category]
    at = next(i for i, (h, lo) in enumerate(zip(higher.ranks, lower.ranks, strict=True)) if h != lo)
    role, is_group = roles[at]
    high, low = higher.ranks[at], lower.ranks[at]
    words = (high.plural_words, low.plural_words) if is_group else (high.noun_words, low.noun_words)
    # Translators: {role} is the card (or cards) that decides ("first kicker"), {high} and {low}
    # its ranks, the higher first: "higher kicker, 9 against 2".
    return said(N_("higher {role}, {high} against {low}"), role=role, high=words[0], low=words[1])


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of comparing two hands: ``order`` is 1, 0 or -1 for the first hand."""

    first: Hand
    second: Hand
    order: int
    reason: str


def compare(first: str | Iterable[str | Card], second: str | Iterable[str | Card]) -> Comparison:
    """Compare two five-card hands card by card and say why.

    >>> compare("Ks Kh 4c 4d 9s", "Kd Kc 4h 4s 2s").reason
    'higher kicker, 9 against 2'
    """
    a, b = evaluate(first), evaluate(second)
    if a == b:
        return Comparison(a, b, 0, explain(a, b))
    if a > b:
        return Comparison(a, b, 1, explain(a, b))
    return Comparison(a, b, -1, explain(b, a))


@dataclass(frozen=True, slots=True)
class Ranked:
    """A hand's place among several (equal hands share a place) and why it beats the next one."""

    place: int
    label: str
    cards: tuple[Card, ...]
    hand: Hand
    beats_next: str | None
    why: Said | None = None  # ``beats_next``, kept apart for translation


def rank_hands(hands: Sequence[tuple[str, str | Iterable[str | Card]]]) -> list[Ranked]:
    """Rank labelled hands from the best down, card by card; one deck, so no card may be in two hands.

    >>> ranked = rank_hands([("Bo", "9s 7s 5s 4s 2s"), ("Cia", "Qh 9h 7h 4h 2h")])
    >>> [(r.place, r.label, r.beats_next) for r in ranked]
    [(1, 'Cia', 'higher first card, queen against 9'), (2, 'Bo', None)]
    >>> rank_hands([("Bo", "Qs Qh 9c 9d 2s"), ("Cia", "Qs Kh Kc 4d 3s")])
    Traceback (most recent call last):
    ...
    scorekeeper.cards.CardError: Bo and Cia cannot both hold Q♠: there is only one deck
    """
    parsed = [(label, parse_hand(cards)) for label, cards in hands]
    owner: dict[Card, str] = {}
    for label, cards in parsed:
        for card in cards:
            if card in owner:
                twice = N_("{first} and {second} cannot both hold {card}: there is only one deck")
                raise CardError(said(twice, card=card.label, first=owner[card], second=label))
            owner[card] = label
    valued = sorted(
        ((evaluate(cards), label, cards) for label, cards in parsed), key=lambda v: v[0], reverse=True
    )
    ranked: list[Ranked] = []
    for i, (hand, label, cards) in enumerate(valued):
        place = ranked[-1].place if ranked and ranked[-1].hand == hand else i + 1
        following = valued[i + 1][0] if i + 1 < len(valued) else None
        why = None if following is None else explain_words(hand, following)
        ranked.append(Ranked(place, label, cards, hand, None if why is None else str(why), why))
    return ranked


__all__ = [
    "Comparison",
    "Ranked",
    "rank_hands",
    "compare",
    "explain",
    "DECLARABLE",
    "distinct_hands",
    "CardError",
    "Category",
    "Hand",
    "classify",
    "evaluate",
]
