"""Evaluate all 2,598,960 five-card hands; print hands/second beside treys' Evaluator on the same hands.

Run: pip install -e '.[bench]' && python bench/hands.py
Goal (issue 2): at least half of treys' speed; never slower than a tenth.
"""

from __future__ import annotations

import itertools
import time

from scorekeeper.cards import DECK
from scorekeeper.hands import evaluate

HANDS = 2_598_960


def time_ours(hands: list[tuple]) -> float:
    start = time.perf_counter()
    for cards in hands:
        evaluate(cards)
    return time.perf_counter() - start


def time_treys(hands: list[list[int]]) -> float:
    from treys import Evaluator

    evaluator = Evaluator()
    score = evaluator.evaluate
    start = time.perf_counter()
    for cards in hands:
        score(cards[:2], cards[2:])  # treys takes (hand, board); 2 + 3 is its five-card path
    return time.perf_counter() - start


def main() -> None:
    hands = list(itertools.combinations(DECK, 5))
    assert len(hands) == HANDS
    ours = min(time_ours(hands) for _ in range(2))
    print(f"scorekeeper.hands.evaluate: {HANDS / ours:>12,.0f} hands/s  ({ours:.2f} s for all {HANDS:,})")
    try:
        from treys import Card
    except ImportError:
        print("treys is not installed (pip install -e '.[bench]'): no reference figure")
        return
    as_int = {card: Card.new(repr(card)) for card in DECK}
    treys_hands = [[as_int[c] for c in cards] for cards in hands]
    theirs = min(time_treys(treys_hands) for _ in range(2))
    print(f"treys Evaluator.evaluate:   {HANDS / theirs:>12,.0f} hands/s  ({theirs:.2f} s)")
    print(f"ratio (ours / treys):       {theirs / ours:>12.2f}   goal >= 0.50")


if __name__ == "__main__":
    main()
