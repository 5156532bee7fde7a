"""Replay a recorded match of 250 to 2,000 events; print milliseconds and the cost per event.

Run: python bench/replay.py
Goal (issue 2): a 1,000-event match in under 10 ms, cost growing linearly.
The match comes from random legal play (tests/simulate.py) with a fixed seed
and a high target, so that it is one long match of real rounds.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from simulate import random_events  # noqa: E402

from scorekeeper.match import replay  # noqa: E402
from scorekeeper.matchfile import MatchFile, dumps, loads  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402

PLAYERS = ("Anna", "Bo", "Cia", "Dan")
RULES = Rules(target=2_000)


def timings(runs: int, fn) -> tuple[float, float]:
    """Best and median of ``runs`` (this machine is a VM whose speed swings between runs)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[0], times[len(times) // 2]


def calibration_ms() -> float:
    """A fixed pure-Python loop, timed the same way: it shows how fast the machine is right now."""

    def loop() -> int:
        total = 0
        for i in range(1_000_000):
            total += i
        return total

    return timings(5, loop)[0] * 1e3


def main() -> None:
    rng = random.Random(2026)
    events, states = random_events(PLAYERS, RULES, rng.choice, 2_000, undo=False)
    text = dumps(MatchFile(PLAYERS, RULES, tuple(events)))
    match = loads(text)
    print(f"recorded match: {len(events)} events, {states[-1].round} rounds, {len(text):,} bytes of JSON")
    print(f"{'events':>7} {'best ms':>8} {'median ms':>10} {'µs/event':>9} {'read+replay ms':>15}")
    for n in (250, 500, 1_000, 2_000):
        part = match.events[:n]
        best, median = timings(60, lambda part=part: replay(PLAYERS, RULES, part))
        sub = dumps(MatchFile(PLAYERS, RULES, part))
        with_read, _ = timings(20, lambda sub=sub: loads(sub).replay())
        print(
            f"{n:>7} {best * 1e3:>8.2f} {median * 1e3:>10.2f} {best * 1e6 / n:>9.2f} {with_read * 1e3:>15.2f}"
        )
    print("goal: 1,000 events under 10 ms; µs/event flat (linear growth)")
    took = calibration_ms()
    print(f"calibration: a 1,000,000-step Python loop took {took:.1f} ms (about 35 ms on a quiet run)")


if __name__ == "__main__":
    main()
