"""Issue 25, items 4 and 8: the table as it is used, cards in one hand and the phone in the other.

Each test plays its screens at 360 × 640 (a small phone, keyboard closed) and keeps screenshots of
them at 360 × 640 and 390 × 844 under test-output/screens/.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from browsertools import SETTLED, draw_for_deal, start_match, tap, wait_until

pytestmark = pytest.mark.browser

SMALL, TALL = {"width": 360, "height": 640}, {"width": 390, "height": 844}
FOUR = ("Annabelle", "Göran P", "Cia", "Dan")


def phone(browser, viewport=SMALL):
    context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=True, has_touch=True)
    return context, context.new_page()


def import_match(page, server: str, players, events, rules=None) -> None:
    """Store a match from its file through the import page; open its table (this phone keeps score).

    Each file gets its own ``created_at``: the same file imported twice is one match.
    """
    text = json.dumps(
        {
            "format": "chicago-match/1",
            "created_at": datetime.now(UTC).isoformat(),
            "players": list(players),
            "rules": rules or {},
            "events": events,
        }
    )
    page.goto(server + "/import")
    page.fill("textarea[name=text]", text)
    page.locator("form button.primary").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+/history$"))
    page.goto(page.url.removesuffix("/history"))


def passes(*players: str) -> list[dict]:
    return [{"type": "pass", "player": name} for name in players]


def in_view(page, locator) -> bool:
    """The element lies wholly inside the viewport as the page is scrolled now."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and (box["x"] + box["width"] <= size["width"])
    )


@pytest.mark.parametrize("viewport", [SMALL, TALL], ids=["360x640", "390x844"])
def test_go_on_the_new_match_form_starts_the_match_with_the_seats_as_typed(
    browser, server, screens, viewport
):
    context, page = phone(browser, viewport)
    try:
        page.goto(server + "/new")
        for i, name in enumerate(FOUR):
            page.locator("input[name=name]").nth(i).fill(name)
        start = page.locator("form.new-match > button.primary")
        assert in_view(page, start), start.bounding_box()
        screens(page, "four-names-typed")
        page.locator("input[name=name]").nth(3).press("Enter")  # the keyboard's "Go"
        page.wait_for_url(re.compile(r"/m/[\w-]+$"))
        wait_until(page, SETTLED)
        assert page.locator("#scoreboard .seat .name").all_inner_texts() == list(FOUR)
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [SMALL, TALL], ids=["360x640", "390x844"])
def test_the_draw_for_the_first_deal_is_a_tap_on_each_rank(browser, server, screens, viewport):
    context, page = phone(browser, viewport)
    try:
        start_match(page, server, *FOUR)
        for control in page.locator("#turn fieldset.ranks label, #turn button").all():
            assert in_view(page, control), control.inner_text()
        screens(page, "the-draw")
        draw_for_deal(page, Annabelle="7", **{"Göran P": "7"}, Cia="K", Dan="9")  # a tie for the lowest
        assert page.locator("#turn fieldset.ranks").count() == 2  # only the tied draw again
        screens(page, "the-draw-again")
        draw_for_deal(page, Annabelle="A", **{"Göran P": "2"})
        assert "Göran P deals" in page.locator(".where").inner_text()
    finally:
        context.close()


# Dan deals; Annabelle scores a pair in phase 1 and calls Chicago (it needs 1 point here).
CHICAGO_CALLED = [
    {"type": "dealer", "player": "Dan"},
    {"type": "declare", "player": "Annabelle", "hand": "pair"},
    *passes("Göran P", "Cia", "Dan", "Annabelle", "Göran P", "Cia", "Dan"),
    {"type": "chicago", "player": "Annabelle"},
]


@pytest.mark.parametrize("viewport", [SMALL, TALL], ids=["360x640", "390x844"])
def test_a_chicago_is_asked_and_logged_in_the_words_of_the_table(browser, server, screens, viewport):
    context, page = phone(browser, viewport)
    try:
        import_match(page, server, FOUR, CHICAGO_CALLED, rules={"chicago_min": 1})
        assert page.locator("#turn .tricks h2").first.inner_text() == "Did Annabelle make the Chicago?"
        outcome = page.locator("#turn form.chicago-outcome button")
        assert outcome.all_inner_texts() == [
            "Annabelle made the Chicago",
            "Göran P took a trick",
            "Cia took a trick",
            "Dan took a trick",
        ]
        for i in range(outcome.count()):
            assert in_view(page, outcome.nth(i))
        screens(page, "did-annabelle-make-the-chicago")
        tap(page, page.get_by_role("button", name="Cia took a trick"))
        assert (
            page.locator("#feed li")
            .first.inner_text()
            .endswith("Annabelle's Chicago broke: Cia took a trick")
        )
        screens(page, "the-chicago-broke")
    finally:
        context.close()
