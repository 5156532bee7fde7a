"""Taps per round and per match: recorded matches played through the browser by the quickest entry.

Serves the app (``scorekeeper serve``) on 127.0.0.1 and plays each match in Debian's
Chromium (Playwright) at a phone's size, one fresh phone per match, as a scorekeeper
who makes no mistake taps it (the events still in effect; see ``quickest`` in
tests/browser/player.py for what the quickest legal entry is). Every click and every
field filled is one tap; the setup (the new-match form) is round 0 and counts in the
match's average. After each match the scoreboard, and the exported match file
replayed, must show the file's totals: a mismatch is reported and makes the exit
status 1.

Matches: tests/matches/*.json that are valid and hold at least one whole round, and
whole matches to 52 from tests/simulate.py (seeded; weighed like a real table, plus
one straight from the generator, whose corrections come at random).

Run: python bench/taps.py [--seeds 38:3,35:4,25:4,28:3] [--raw 10:3]
Goals (issue 11): a typical round (no tie, no Chicago, no correction) <= 4 taps (a round in which
four of a kind or better scored is counted apart: the grid keeps those hands behind a row of their
own, one tap to open, so that the common ones fit a 360x640 screen); a round
with one Chicago <= 6; a whole match to 52 <= 5 taps per round on average, setup included;
the one-tap grid adds <= 6 KB to a swap.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]  # the browser tests' conftest first

from browsertools import launch  # noqa: E402
from conftest import PHONE  # noqa: E402
from player import Plan, Played, Refused, Table, quickest, simulated  # noqa: E402
from servers import Served  # noqa: E402  (bench/, this script's folder)

from scorekeeper.matchfile import FormatError, MatchFile, loads  # noqa: E402
from scorekeeper.refusals import RuleBroken  # noqa: E402
from scorekeeper.web.present.turn import RARE  # noqa: E402

NAMES = ("Anna", "Bo", "Cia", "Dan")
GOAL_TYPICAL, GOAL_CHICAGO, GOAL_MATCH, GOAL_GRID = 4, 6, 5.0, 6 * 1024


def recorded() -> list[tuple[str, MatchFile]]:
    """The recorded matches that replay without error and hold at least one whole round."""
    out = []
    for path in sorted((ROOT / "tests" / "matches").glob("*.json")):
        try:
            file = loads(path.read_text())
            state = file.replay()
        except (FormatError, RuleBroken):
            continue
        if state.round > 1 or state.is_finished:
            out.append((path.stem, file))
    return out


def seeds(text: str) -> list[tuple[int, int]]:
    return [(int(s), int(n)) for s, n in (part.split(":") for part in text.split(",") if part)]


@dataclass
class Result:
    plan: Plan
    played: Played
    exported: dict[str, int]
    to_52: bool
    raw: bool = False

    @property
    def rare(self) -> set[int]:
        """The rounds in which a hand of the grid's rare row scored (its row is opened first: a tap)."""
        return {
            s.round
            for s in self.plan.steps
            if s.kind in ("quick", "quicktie") and s.event is not None and s.event.hand in RARE
        }

    def rounds(
        self,
        *,
        ties: bool | None = None,
        chicago: bool | None = None,
        corrections: bool | None = None,
        rare: bool | None = None,
    ):
        """Taps of the whole rounds that match the filters (None: either)."""
        out = []
        for number, kind in self.plan.rounds.items():
            if not kind.complete:
                continue
            if rare is not None and (number in self.rare) != rare:
                continue
            if ties is not None and bool(kind.ties) != ties:
                continue
            if chicago is not None and kind.chicago != chicago:
                continue
            if corrections is not None and bool(kind.corrections) != corrections:
                continue
            out.append(self.played.taps[number])
        return out

    @property
    def per_round(self) -> float:
        return self.played.total / max(1, len(self.plan.rounds))

    @property
    def ok(self) -> bool:
        return self.played.totals == self.plan.expected == self.exported


def tie_rate(players: int, deals: int = 20000) -> float:
    """How often a showdown's best category is declared twice at a real table: random deals, no exchange."""
    import random

    from scorekeeper.cards import parse_card
    from scorekeeper.hands import evaluate

    deck = [parse_card(rank + suit) for rank in "23456789TJQKA" for suit in "shdc"]
    rng = random.Random(11)
    ties = 0
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [evaluate(tuple(deck[5 * i : 5 * i + 5])).category for i in range(players)]
        declared = [h for h in hands if h.is_declarable]
        if declared and declared.count(max(declared, key=lambda h: h.order)) > 1:
            ties += 1
    return ties / deals


def spread(taps: list[int]) -> str:
    if not taps:
        return "-"
    if min(taps) == max(taps):
        return f"{len(taps)}×{taps[0]}"
    return f"{len(taps)}: {min(taps)}–{max(taps)} (mean {statistics.mean(taps):.1f})"


def play(browser, server: str, name: str, file: MatchFile, raw: bool = False) -> Result:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        plan = quickest(file, name)
        played = Table(page, server).play(plan, compare_styles=True)
        exported = loads(page.request.get(played.url + "/export").text()).replay().totals
    finally:
        context.close()
    return Result(plan, played, exported, file.rules.target == 52 and file.replay().is_finished, raw)


def report(results: list[Result]) -> bool:
    print(
        f"{'match':<28} {'pl':>2} {'rounds':>6} {'taps':>5} {'setup':>5} {'/round':>6}  "
        f"{'typical rounds':<24} {'Chicago rounds':<16} {'tie rounds':<24} {'totals'}"
    )
    for r in results:
        chicago = [
            f"{r.played.taps[n]}" + ("t" if k.ties else "") + ("c" if k.corrections else "")
            for n, k in r.plan.rounds.items()
            if k.chicago and k.complete
        ]
        totals = (
            "ok" if r.ok else f"MISMATCH screen {r.played.totals} export {r.exported} file {r.plan.expected}"
        )
        print(
            f"{r.plan.name:<28} {len(r.plan.players):>2} {len(r.plan.rounds):>6} {r.played.total:>5} "
            f"{r.played.taps[0]:>5} {r.per_round:>6.2f}  "
            f"{spread(r.rounds(ties=False, chicago=False, corrections=False, rare=False)):<24} "
            f"{', '.join(chicago) or '-':<16} {spread(r.rounds(ties=True)):<24} {totals}"
        )
    print(
        "typical: a whole round with no tie, no Chicago, no correction, no rare hand (four of a kind or better);"
        " Chicago rounds: t = also a tie, c = a correction"
    )
    print()
    print(
        "taps by round (setup | each round; t a tie, C Chicago, c a correction, b a tie-break round, r a rare hand)"
    )
    for r in results:
        marks = []
        for n, k in r.plan.rounds.items():
            flags = (
                "t" * k.ties + "C" * k.chicago + "c" * k.corrections + "b" * k.tiebreak + "r" * (n in r.rare)
            )
            marks.append(f"{r.played.taps[n]}{flags}")
        print(f"  {r.plan.name:<28} {r.played.taps[0]} | {' '.join(marks)}")

    table = [r for r in results if not r.raw]
    typical = [t for r in table for t in r.rounds(ties=False, chicago=False, corrections=False, rare=False)]
    rare = [t for r in table for t in r.rounds(ties=False, chicago=False, corrections=False, rare=True)]
    chicago = [t for r in table for t in r.rounds(ties=False, chicago=True, corrections=False)]
    matches = [r for r in table if r.to_52]
    print()
    print("goals (matches weighed like a real table and the recorded ones; the raw generator's apart):")
    if typical:
        over = sum(t > GOAL_TYPICAL for t in typical)
        print(
            f"  typical round <= {GOAL_TYPICAL} taps: max {max(typical)}, mean {statistics.mean(typical):.2f}, "
            f"{over} of {len(typical)} over ({'met' if not over else 'NOT met'})"
        )
    if rare:
        over = sum(t > GOAL_TYPICAL + 1 for t in rare)
        print(
            f"  a round like those in which a rare hand scored <= {GOAL_TYPICAL + 1} (its row opened: a tap): "
            f"max {max(rare)}, {over} of {len(rare)} over ({'met' if not over else 'NOT met'})"
        )
    if chicago:
        over = sum(t > GOAL_CHICAGO for t in chicago)
        print(
            f"  round with one Chicago (no tie, no correction) <= {GOAL_CHICAGO}: max {max(chicago)}, "
            f"{over} of {len(chicago)} over ({'met' if not over else 'NOT met'})"
        )
    for r in matches:
        verdict = "met" if r.per_round <= GOAL_MATCH else "NOT met"
        print(f"  whole match to 52 <= {GOAL_MATCH} taps/round: {r.plan.name} {r.per_round:.2f} ({verdict})")
    for r in results:
        if r.raw:
            print(f"  (raw generator, corrections at random: {r.plan.name} {r.per_round:.2f} taps/round)")

    showdowns = sum(1 for r in table for s in r.plan.steps if s.kind == "quick")
    ties = sum(1 for r in table for s in r.plan.steps if s.kind == "quicktie")
    groups = sum(1 for r in table for s in r.plan.steps if s.kind == "quicktie" and len(s.others) > 1)
    detail = sum(1 for r in table for s in r.played.swaps if s.kind in ("detail", "tie", "entry"))
    print(
        f"  ties: {ties} of {showdowns + ties} showdowns, each on the grid: the hand's name, then the tied players' "
        f"verdict (2 taps; {groups} of them ties of three or more); {detail} taps went to declaration by declaration"
    )
    for label, chosen in (
        ("every", matches),
        ("the simulated", [r for r in matches if r.plan.name.startswith("simulated")]),
    ):
        if chosen:
            taps = sum(r.played.total for r in chosen)
            rounds = sum(len(r.plan.rounds) for r in chosen)
            print(
                f"  {label} whole match to 52 together: {taps} taps over {rounds} rounds, {taps / rounds:.2f} per round"
            )
    print(
        "  at a real table (random deals, no exchanges) a showdown's best hand is declared twice in "
        + ", ".join(f"{tie_rate(n):.0%} with {n} players" for n in (2, 3, 4))
    )

    print()
    print("swaps: bytes of the answer htmx swaps in (raw HTML / compressed on the wire)")
    by_kind: dict[str, list] = {}
    for r in results:
        for swap in r.played.swaps:
            by_kind.setdefault(swap.kind, []).append(swap)
    for kind in ("quick", "detail", "tie", "last_trick", "chicago", "entry", "adjust"):
        swaps = by_kind.get(kind, [])
        if swaps:
            raw = statistics.mean(s.raw for s in swaps) / 1024
            wire = statistics.mean(s.wire for s in swaps) / 1024
            most = max(s.raw for s in swaps) / 1024
            print(
                f"  {kind:<10} {len(swaps):>4} taps: mean {raw:5.1f} KB / {wire:4.1f} KB, max {most:5.1f} KB raw"
            )
    added = [r.played.styles["quick"].raw - r.played.styles["detail"].raw for r in results if r.played.styles]
    wire = [
        r.played.styles["quick"].wire - r.played.styles["detail"].wire for r in results if r.played.styles
    ]
    if added:
        print(
            f"  the same phase-1 showdown screen, one-tap grid minus declaration by declaration: "
            f"{min(added) / 1024:+.1f} to {max(added) / 1024:+.1f} KB raw, {min(wire) / 1024:+.1f} to {max(wire) / 1024:+.1f} KB on the wire "
            f"(goal: the grid adds <= {GOAL_GRID // 1024} KB: {'met' if max(added) <= GOAL_GRID else 'NOT met'})"
        )
        grids = [r.played.grid for r in results if r.played.grid]
        print(
            f"  the grid's own form on that screen: {min(grids) / 1024:.1f} to {max(grids) / 1024:.1f} KB raw"
        )
    return all(r.ok for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="38:3,35:4,25:4,28:3", help="seed:players of table-like matches")
    parser.add_argument("--raw", default="10:3", help="seed:players straight from the generator")
    args = parser.parse_args()
    matches: list[tuple[str, MatchFile, bool]] = [(name, file, False) for name, file in recorded()]
    for seed, n in seeds(args.seeds):
        matches.append((f"simulated seed {seed}", simulated(seed, NAMES[:n]), False))
    for seed, n in seeds(args.raw):
        matches.append((f"simulated raw seed {seed}", simulated(seed, NAMES[:n], table=False), True))

    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-taps-"))
    app = Served("app", folder / "t.sqlite")  # the app as every bench serves it (servers.py)
    results: list[Result] = []
    failed: list[str] = []
    try:
        server = app.start().base
        with sync_playwright() as playwright:
            browser = launch(playwright.chromium)
            for name, file, raw in matches:
                try:
                    results.append(play(browser, server, name, file, raw))
                except Refused as error:
                    failed.append(f"{name}: {error}")
            browser.close()
    finally:
        app.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print("taps by the quickest legal entry, Chromium at 390x844 (a tap: a click or a field filled)")
    ok = report(results)
    for line in failed:
        print("REFUSED", line)
    if failed or not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
