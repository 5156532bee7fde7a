"""Every variant of RULES.md played through in the browser at 360 × 640, on the one-tap entry and on the
detailed one (issue 28): each match of tests/matches/variants/ imported up to just before the variant's
moment, then only the taps that play it, and the totals or the winner it leads to.

Kept cheap on purpose (the suite must get faster): one import and a handful of taps a test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from browsertools import open_imported, scores
from player import Plan, Table, detailed, quickest

from scorekeeper.events import Exchange, LastTrick, Trick
from scorekeeper.matchfile import MatchFile, load

pytestmark = pytest.mark.browser

VARIANTS = Path(__file__).resolve().parents[1] / "matches" / "variants"
SMALL = {"width": 360, "height": 640}


@dataclass(frozen=True)
class Variant:
    """A recorded variant match (``name``.json up to ``end``), imported up to ``cut``; ``before`` looks at
    the table as imported, ``after_first`` once the first step from the cut is tapped, ``after`` at the end."""

    name: str
    cut: int
    end: int | None = None
    before: Callable | None = None
    after_first: Callable | None = None
    after: Callable | None = None

    @property
    def document(self) -> dict:
        document = json.loads((VARIANTS / f"{self.name}.json").read_text())
        return {**document, "events": document["events"][: self.end]}

    @property
    def file(self) -> MatchFile:
        return load(self.document)

    keep_exchanges: bool = False  # the detailed entry taps the exchanges (optional: skipped otherwise)
    trick_by_trick: bool = False  # the detailed entry taps each trick (otherwise the last one alone)

    def plan(self, style: str) -> Plan:
        """The taps from the cut: the one-tap entry's, or the showdowns declaration by declaration."""
        if style == "quick":
            return quickest(self.file, self.name, start=self.cut)
        plan = detailed(self.file, self.name, start=self.cut)
        steps: list = []
        for step in plan.steps:
            if isinstance(step.event, Exchange) and not self.keep_exchanges:
                continue
            if isinstance(step.event, Trick) and not self.trick_by_trick:
                if steps and isinstance(steps[-1].event, LastTrick):
                    steps.pop()  # the trick play's last trick so far
                step = replace(step, event=LastTrick(step.event.winner))
            steps.append(step)
        return replace(plan, steps=tuple(steps))


@pytest.fixture(scope="module")
def phone(browser):
    """One phone at 360 × 640 for every case (each imports a match of its own; the entry style is
    switched on the table as a scorekeeper would)."""
    context = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    context.close()


def offered_blanco(page, screens) -> None:
    buttons = page.locator("#turn form.blanco button[name=player]").all()
    assert [b.get_attribute("value") for b in buttons] == ["Bo"]  # only who has the Chicago minimum
    screens(page, "blanco-offered")


def blanco_called(page, screens) -> None:
    assert "Bo called a blanco Chicago: all five tricks, or lose 30." in page.locator("#turn").inner_text()
    assert page.locator("#turn form.blanco").count() == 0 and page.locator("#turn .chicago form").count() == 0
    screens(page, "blanco-called")


def chicago_called(page, screens) -> None:
    assert "Whoever takes a trick from Bo scores 10." in page.locator("#turn").inner_text()
    screens(page, "chicago-to-break")


def needs_a_chicago(page, screens) -> None:
    assert (
        page.locator(".needs-chicago").inner_text()
        == "Bo has 20 points but has not won a Chicago, which is needed to win"
    )


def winner(name: str, won_with: str | None = None) -> Callable:
    def check(page, screens) -> None:
        assert page.locator("#turn h2.winner").inner_text().startswith(f"{name} wins")
        if won_with:
            assert page.locator("#turn .won-with").inner_text() == won_with
        screens(page, "won")

    return check


def show_due_in_the_last_phase(page, screens) -> None:
    assert "Round 1 · phase 2" in page.locator(".where").inner_text()
    assert page.locator("#turn .show").count() == 1  # the phase-2 show rule, moved to the last phase


def round_two_phase_one(page, screens) -> None:
    assert "Round 2 · phase 1" in page.locator(".where").inner_text()


def reshuffle_now(page, screens) -> None:
    assert "The draw pile is empty: shuffle the" in page.locator("#turn .pile").inner_text()
    assert page.locator("#scoreboard .seat").count() == 6
    screens(page, "six-seats", full_page=True)


CASES = {
    "blanco": Variant("blanco-chicago", 17, before=offered_blanco, after_first=blanco_called),
    "break-bonus": Variant("chicago-break-bonus", 17, 23, after_first=chicago_called, trick_by_trick=True),
    "chicago-to-win": Variant("chicago-to-win", 17, before=needs_a_chicago, after=winner("Bo")),
    "four-of-a-kind-resets": Variant("four-of-a-kind-resets", 9),
    "instant-win": Variant(
        "instant-win",
        4,
        after=winner("Cia", "Cia scored with a straight flush, which wins the match immediately."),
    ),
    "over-target-resets": Variant("over-target-resets", 11, 14),
    "six-players": Variant("six-players", 5, 13, after_first=reshuffle_now, keep_exchanges=True),
    "two-phases": Variant("two-phases", 7, 15, before=show_due_in_the_last_phase, after=round_two_phase_one),
}


@pytest.mark.parametrize("style", ["quick", "detail"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_variant_plays_through_on_both_entries(phone, server, screens, case, style):
    variant, page = CASES[case], phone
    open_imported(
        page, server, json.dumps({**variant.document, "events": variant.document["events"][: variant.cut]})
    )
    if variant.before:
        variant.before(page, screens)
    table = Table(page, server)
    table.style(style)
    plan = variant.plan(style)
    if style == "quick" and case == "six-players":  # exchanges are optional: tapped here for the reshuffle
        plan = detailed(variant.file, start=variant.cut)
        plan = replace(plan, steps=plan.steps[:2] + quickest(variant.file, start=variant.cut + 2).steps)
    table.tap_steps(replace(plan, steps=plan.steps[:1]))
    if variant.after_first:
        variant.after_first(page, screens)
    table.tap_steps(replace(plan, steps=plan.steps[1:]))
    assert scores(page) == variant.file.replay().totals
    if variant.after:
        variant.after(page, screens)


def test_five_or_six_players_sit_down_through_the_new_match_form(browser, server, screens):
    """Seats 5 and 6 are out of sight until "Five or six players" is ticked; then Enter goes on to them,
    and each, once named, may be picked to deal."""
    context = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(server + "/new")
        seats = page.locator("input[name=name]")
        assert not seats.nth(4).is_visible() and not seats.nth(5).is_visible()
        for i, name in enumerate(("Anna", "Bo", "Cia", "Dan")):
            seats.nth(i).fill(name)
        assert seats.nth(3).get_attribute("enterkeyhint") == "go"
        page.locator("details.house-rules > summary").click()
        page.locator("input[name=more_players]").check()
        assert seats.nth(4).is_visible() and seats.nth(3).get_attribute("enterkeyhint") == "next"
        seats.nth(4).fill("Eva")
        seats.nth(5).fill("Fay")
        page.locator("input[name=dealer][value='5']").check()  # shown once Fay is named
        screens(page, "six-seats")
        page.locator("form.new-match > button.primary").click()
        page.wait_for_url(re.compile(r"/m/[\w-]+$"))
        assert page.locator("#scoreboard .seat .name").all_inner_texts() == [
            "Anna",
            "Bo",
            "Cia",
            "Dan",
            "Eva",
            "Fay",
        ]
        assert "Fay deals" in page.locator(".where").inner_text()
    finally:
        context.close()
