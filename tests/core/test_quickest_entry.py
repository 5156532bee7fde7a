"""The browser player's plans (tests/browser/player.py) record what the file says, without a browser.

``bench/taps.py`` and the browser tests tap these plans into the app; if a plan were
wrong, a mismatch there would be the plan's fault, not the app's. Here each plan's
events, a quick tap expanded as the app expands it, replay to the file's totals
after every round.
"""

from pathlib import Path

import pytest
from player import detailed, events_of, quickest, simulated

from scorekeeper.events import Declare, Pass, Tie
from scorekeeper.match import replay
from scorekeeper.matchfile import MatchFile, loads
from scorekeeper.summary import totals_by_round

MATCHES = Path(__file__).resolve().parents[1] / "matches"
RECORDED = ["two-players-to-royal-flush", "tie-break-to-ten", "four-players-in-progress"]


def by_round(file: MatchFile, events) -> list:
    return totals_by_round(replay(file.players, file.rules, events))


SIMULATED = {f"seed {seed}": (seed, n) for seed, n in ((38, 3), (35, 4), (25, 4), (28, 3), (2, 3), (7, 4))}


def match_named(name: str) -> MatchFile:
    """A recorded match, a simulated one (made when its test runs, not at every worker's collection), or
    the raw simulated match of seed 10."""
    if name in RECORDED:
        return loads((MATCHES / f"{name}.json").read_text())
    if name == "raw seed 10":
        return simulated(10, ("Anna", "Bo", "Cia"), table=False)
    seed, n = SIMULATED[name]
    return simulated(seed, ("Anna", "Bo", "Cia", "Dan")[:n])


@pytest.mark.parametrize("name", [*RECORDED, *SIMULATED, "raw seed 10"])
def test_both_plans_replay_to_the_files_totals_round_by_round(name):
    file = match_named(name)
    expected = totals_by_round(file.replay())
    assert by_round(file, events_of(quickest(file, name))) == expected
    assert by_round(file, events_of(detailed(file, name))) == expected


def test_the_quickest_plan_takes_a_tie_of_two_on_the_grid_and_the_rest_in_one_tap():
    file = loads((MATCHES / "two-players-to-royal-flush.json").read_text())
    plan = quickest(file)
    assert plan.dealer == "Bo"  # the draw's result, picked in the new-match form
    round_one = [(s.kind, type(s.event).__name__) for s in plan.steps if s.round == 1]
    assert round_one == [
        ("quick", "Declare"),  # phase 1: Bo's two pair beat Anna's pair
        ("quicktie", "Declare"),  # phase 2: two flushes, a tie and its verdict on the grid
        ("event", "LastTrick"),  # five tricks in the file, the last one counts
        ("quick", "Declare"),
    ]
    tie_steps = [s.event for s in plan.steps if isinstance(s.event, Declare | Pass | Tie)]
    assert all(getattr(e, "cards", None) is None for e in tie_steps)
    assert plan.rounds[3].ties == 2 and plan.rounds[3].chicago
