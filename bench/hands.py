"""Evaluate all 2,598,960 five-card hands; print hands/second beside treys' Evaluator on the same hands.

Run: pip install -e '.[bench]' && python bench/hands.py [--runs 3]
Goal (issue 2): at least half of treys' speed; never slower than a tenth.
Each timed loop does only the evaluation: treys' (hand, board) split of every hand
is made before the clock starts (slicing inside the loop was 25% of treys' time).
Rates are the slowest and the median of ``--runs`` runs, ours and treys' interleaved; the
ratio is taken run by run (min/median). In-process:
no server, so no server CPU to report.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from scorekeeper.cards import DECK  # noqa: E402
from scorekeeper.hands import evaluate  # noqa: E402

HANDS = 2_598_960


def time_ours(hands: list[tuple]) -> float:
    start = time.perf_counter()
    for cards in hands:
        evaluate(cards)
    return time.perf_counter() - start


def time_treys(hands: list[tuple[list[int], list[int]]]) -> float:
    from treys import Evaluator

    evaluator = Evaluator()
    score = evaluator.evaluate
    start = time.perf_counter()
    for hand, board in hands:
        score(hand, board)
    return time.perf_counter() - start


def rate(times: list[float]) -> str:
    """Hands per second of the slowest and the median run, and the median time."""
    return f"{HANDS / max(times):>10,.0f}/{HANDS / statistics.median(times):<10,.0f} hands/s  ({statistics.median(times):.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    hands = list(itertools.combinations(DECK, 5))
    assert len(hands) == HANDS
    try:
        from treys import Card
    except ImportError:
        print("treys is not installed (pip install -e '.[bench]'): no reference figure")
        treys_hands = None
    else:
        as_int = {card: Card.new(repr(card)) for card in DECK}
        # treys takes (hand, board); 2 + 3 is its five-card path. Split here, outside the clock.
        treys_hands = [([as_int[c] for c in cards[:2]], [as_int[c] for c in cards[2:]]) for cards in hands]
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):  # interleaved, so that other load on the machine falls on both alike
        ours.append(time_ours(hands))
        if treys_hands is not None:
            theirs.append(time_treys(treys_hands))
    print(f"slowest/median of {runs} runs over all {HANDS:,} hands")
    print(f"scorekeeper.hands.evaluate: {rate(ours)}")
    if theirs:
        print(f"treys Evaluator.evaluate:   {rate(theirs)}")
        ratios = [t / o for t, o in zip(theirs, ours, strict=True)]
        print(
            f"ratio (ours / treys):       {min(ratios):.2f}/{statistics.median(ratios):.2f} run by run   goal >= 0.50"
        )


if __name__ == "__main__":
    main()
