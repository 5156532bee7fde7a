"""Poker hands and tie comparisons (RULES.md, "Poker hands and tie comparisons")."""

import itertools
from collections import Counter

import pytest

from scorekeeper.cards import DECK, CardError, parse_hand
from scorekeeper.hands import Category, classify, compare, distinct_hands, evaluate

# RULES.md, Poker hands: standard five-card ranking, royal flush its own category.
CATEGORIES = [
    ("Ts Js Qs Ks As", Category.ROYAL_FLUSH),
    ("9h Th Jh Qh Kh", Category.STRAIGHT_FLUSH),
    ("Ad 2d 3d 4d 5d", Category.STRAIGHT_FLUSH),
    ("7c 7d 7h 7s Kd", Category.FOUR_OF_A_KIND),
    ("Kc Kd Ks 4h 4d", Category.FULL_HOUSE),
    ("Qh 9h 7h 4h 2h", Category.FLUSH),
    ("5c 6d 7h 8s 9c", Category.STRAIGHT),
    ("Ah 2c 3d 4s 5h", Category.STRAIGHT),
    ("Tc Jd Qh Ks Ac", Category.STRAIGHT),
    ("8s 8h 8d 9c 2h", Category.THREE_OF_A_KIND),
    ("Qs Qh 9c 9d 2s", Category.TWO_PAIR),
    ("Qs Qh 9c 5d 2s", Category.PAIR),
    ("Ac Kd 9s 7h 4d", Category.HIGH_CARD),
    # An ace is never in the middle of a straight: Q-K-A-2-3 is no straight.
    ("Qc Kd As 2h 3c", Category.HIGH_CARD),
    ("Kc As 2d 3h 4s", Category.HIGH_CARD),
    ("Qc Kc Ac 2c 3c", Category.FLUSH),
]


@pytest.mark.parametrize(("hand", "category"), CATEGORIES, ids=[h for h, _ in CATEGORIES])
def test_five_cards_make_their_category(hand, category):
    assert classify(hand) is category
    assert evaluate(hand).category is category


def test_the_categories_rank_from_high_card_to_royal_flush():
    hands = [evaluate(h) for h, _ in CATEGORIES if "2c 3c" not in h and "Qc Kd" not in h and "Kc As" not in h]
    assert [h.category for h in sorted(hands, reverse=True)][0] is Category.ROYAL_FLUSH
    ordered = sorted(Category, key=lambda c: c.order)
    assert ordered[0] is Category.HIGH_CARD and ordered[-1] is Category.ROYAL_FLUSH
    assert evaluate("Ad 2d 3d 4d 5d") > evaluate("7c 7d 7h 7s Kd") > evaluate("Kc Kd Ks 4h 4d")
    assert evaluate("Kc Kd Ks 4h 4d") > evaluate("Qh 9h 7h 4h 2h") > evaluate("5c 6d 7h 8s 9c")
    assert evaluate("Ah 2c 3d 4s 5h") > evaluate("As Ah Ac Kd Qh") > evaluate("Qs Qh 9c 9d 2s")
    assert evaluate("2s 2h 3c 3d 4s") > evaluate("As Ah Kc Qd Js") > evaluate("Ac Kd Qs Jh 9d")


# RULES.md, tie comparisons: (higher, lower) within one category, rank by rank.
HIGHER_LOWER = [
    # Rule text's own example: a queen-high flush beats a 9-high flush.
    ("Qh 8h 6h 4h 2h", "9s 7s 5s 4s 3s", "higher first card, queen against 9"),
    ("Qh 9h 7h 4h 3h", "Qs 9s 7s 4s 2s", "higher fifth card, 3 against 2"),
    ("7c 7d 7h 7s 3d", "6c 6d 6h 6s Ad", "higher four of a kind, sevens against sixes"),
    ("7c 7d 7h 7s Kd", "7c 7d 7h 7s Qd", "higher kicker, king against queen"),
    ("Kc Kd Ks 2h 2d", "Qc Qd Qs Ah Ad", "higher three of a kind, kings against queens"),
    ("Kc Kd Ks 5h 5d", "Kc Kd Ks 4h 4d", "higher pair, fives against fours"),
    ("2c 3d 4h 5s 6c", "Ah 2c 3d 4s 5h", "higher top card, 6 against 5"),
    ("Tc Jd Qh Ks Ac", "9c Td Jh Qs Kc", "higher top card, ace against king"),
    ("2h 3h 4h 5h 6h", "Ad 2d 3d 4d 5d", "higher top card, 6 against 5"),
    ("8s 8h 8d 2c 3h", "7s 7h 7d Ac Kh", "higher three of a kind, eights against sevens"),
    ("8s 8h 8d Kc 3h", "8s 8h 8d Qc Jh", "higher first kicker, king against queen"),
    ("8s 8h 8d Kc 4h", "8s 8h 8d Kc 3h", "higher second kicker, 4 against 3"),
    ("Ks Kh 3c 3d 2s", "Qs Qh Jc Jd As", "higher first pair, kings against queens"),
    ("Ks Kh 5c 5d 2s", "Ks Kh 4c 4d As", "higher second pair, fives against fours"),
    ("Ks Kh 4c 4d 9s", "Kd Kc 4h 4s 2s", "higher kicker, 9 against 2"),
    ("Qs Qh 2c 3d 4s", "Js Jh Ac Kd Qs", "higher pair, queens against jacks"),
    ("Qs Qh Kc 3d 2s", "Qd Qc Jc 9h 8d", "higher first kicker, king against jack"),
    ("Qs Qh 9c 5d 2s", "Qd Qc 8c 5h 2d", "higher first kicker, 9 against 8"),
    ("Qs Qh 9c 5d 2s", "Qd Qc 9h 4h 2d", "higher second kicker, 5 against 4"),
    ("Qs Qh 9c 5d 3s", "Qd Qc 9h 5h 2d", "higher third kicker, 3 against 2"),
    ("Ac 9d 7s 4h 3d", "Kh Qc Jd 9h 7h", "higher first card, ace against king"),
]


@pytest.mark.parametrize(
    ("higher", "lower", "reason"), HIGHER_LOWER, ids=[f"{h} > {lo}" for h, lo, _ in HIGHER_LOWER]
)
def test_tie_comparison_goes_rank_by_rank(higher, lower, reason):
    assert evaluate(higher) > evaluate(lower)
    assert evaluate(lower) < evaluate(higher)
    assert compare(higher, lower).order == 1
    assert compare(lower, higher).order == -1
    assert compare(higher, lower).reason == reason
    assert compare(lower, higher).reason == reason


def test_different_categories_are_explained_by_category():
    assert compare("Ah 2c 3d 4s 5h", "As Ah Ac Kd Qh").reason == "a straight against three of a kind"


def test_suits_never_break_a_tie():
    same = compare("9h 7h 5h 4h 2h", "9s 7s 5s 4s 2s")
    assert same.order == 0
    assert same.reason == "the hands were equal, so nobody scored"
    assert evaluate("Ks Kh 4c 4d 9s") == evaluate("Kd Kc 4h 4s 9c")


def test_ace_low_straight_is_the_lowest_straight():
    assert evaluate("Ah 2c 3d 4s 5h") < evaluate("2c 3d 4h 5s 6c")
    assert evaluate("Ah 2c 3d 4s 5h").ranks[0] == 5


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("As Kd Tc 9h", "A hand is five cards, not 4"),
        ("As Kd Tc 9h 2s 3s", "A hand is five cards, not 6"),
        ("As Kd Tc 9h As", "A♠ is in the hand twice"),
        ("As Kd Tc 9h 1x", "“1x” is not a card"),
    ],
)
def test_a_wrong_hand_is_a_clear_error(cards, message):
    with pytest.raises(CardError, match=message):
        evaluate(cards)


def test_evaluate_takes_a_string_card_strings_or_cards():
    by_text = evaluate("As Kd Tc 9h 2s")
    assert evaluate(["As", "Kd", "Tc", "9h", "2s"]) == by_text
    assert evaluate(parse_hand("As Kd Tc 9h 2s")) == by_text
    assert evaluate(list(parse_hand("As Kd Tc 9h 2s"))) == by_text
    with pytest.raises(CardError, match="A♠ is in the hand twice"):
        evaluate(parse_hand("As Kd Tc 9h 2s")[:4] + parse_hand("As Kd Tc 9h 2s")[:1])


def test_there_are_7462_distinct_hand_values():
    assert distinct_hands() == 7462


# treys' and every poker text's counts over the 2,598,960 five-card hands.
EXPECTED_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


@pytest.mark.slow
def test_every_five_card_hand_is_counted_in_its_category():
    counts: Counter[Category] = Counter()
    strengths: set[int] = set()
    for cards in itertools.combinations(DECK, 5):
        hand = evaluate(cards)
        counts[hand.category] += 1
        strengths.add(hand.strength)
    assert sum(counts.values()) == 2_598_960
    assert counts == EXPECTED_COUNTS
    assert len(strengths) == 7462
