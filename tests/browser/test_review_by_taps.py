"""History at phone size (issue 4): the match list, a match with its chart, stepping back, the hand checker."""

import re
from pathlib import Path

import pytest
from browsertools import another_match, pick_cards

pytestmark = pytest.mark.browser

MATCH = Path(__file__).parents[1] / "matches" / "two-players-to-royal-flush.json"


def test_review_a_match_step_back_and_check_hands(page, server, screens):
    page.goto(server + "/import")
    page.fill("textarea[name=text]", another_match(MATCH.read_text()))
    page.get_by_role("button", name="Import").click()
    page.wait_for_url(re.compile(r"/history$"))
    assert page.locator("svg.chart polyline.line").count() == 2
    # The last row of totals: the correction's (its reason on a row of its own below it, issue 25).
    last = page.locator("table.protocol tbody tr:not(.why)").last
    assert last.locator("td strong").all_inner_texts() == ["32", "60"]
    page.locator("details.changes summary").click()
    assert "Anna 32 · Bo 60" in page.locator("table.sheet.changes tr.totals").last.inner_text()
    screens(page, "match-page", full_page=True)

    page.locator("ol.log a").nth(10).click()  # the 43rd event of 53, newest first
    assert "Event 43 of 53" in page.locator(".steps").inner_text()
    screens(page, "step")
    page.get_by_role("link", name="← Previous").click()
    assert "Event 42 of 53" in page.locator(".steps").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390

    page.goto(server + "/")
    assert page.locator("ul.matches svg.chart.small").count() >= 1
    screens(page, "match-list", full_page=True)
    page.get_by_role("link", name="Players").click()
    page.get_by_role("link", name="Bo").click()
    assert "Royal flush" in page.locator(".figures").inner_text()
    screens(page, "player", full_page=True)

    page.get_by_role("link", name="Hands", exact=True).click()
    pick_cards(page, "h1", "9s 7s 5s 4s 2s")
    pick_cards(page, "h2", "Qh 9h 7h 4h 2h")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_load_state()
    ranked = page.locator("ol.ranked").inner_text()
    assert "Beats Hand 1: higher first card, queen against 9." in ranked
    screens(page, "hand-checker", full_page=True)
