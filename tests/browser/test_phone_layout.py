"""Phone-first (issue 3, item 7): no sideways scrolling at 360 px, tap targets of 44 px, 16 px text, no JS needed."""

import re

import pytest
from browsertools import button, declare, start_match, tap

pytestmark = pytest.mark.browser

# Every control a thumb may need, measured as laid out (hidden ones are skipped). A radio or
# checkbox inside its label is tapped through the label, so the label is what is measured.
TARGETS = """
() => [...document.querySelectorAll('button, a, input:not([type=checkbox]), input[type=checkbox]:not(.deck *), select, summary, label.card')]
  .filter(el => el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden')
  .map(el => { const box = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
    const r = box.getBoundingClientRect();
    return {what: el.outerHTML.slice(0, 80), w: r.width, h: r.height}; })
"""


def check_phone_page(page, where: str) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{where}: {scroll}px wide in a {width}px screen"
    small = [t for t in page.evaluate(TARGETS) if t["h"] < 44 or t["w"] < 44]
    # Inline text links in running prose are exempt (WCAG 2.5.8); everything else is a tap target.
    small = [t for t in small if not t["what"].startswith("<a href") or "button" in t["what"]]
    assert small == [], f"{where}: targets under 44px: {small[:5]}"
    size = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert size >= 16


@pytest.mark.parametrize("width", [360, 390])
def test_every_screen_fits_a_phone_and_every_target_is_thumb_sized(browser, server, screens, width):
    context = browser.new_context(viewport={"width": width, "height": 780}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server + "/new")
    page.locator("details.house-rules summary").click()
    check_phone_page(page, "new match")
    screens(page, f"new-{width}", full_page=True)
    start_match(page, server, "Annabelle", "Bartholomew", "Cia", "Dan")
    check_phone_page(page, "draw")
    tap(page, button(page, "Dan deals"))
    page.locator("#turn details.picker summary").click()
    page.locator("details.correct summary").click()
    check_phone_page(page, "showdown with the picker open")
    screens(page, f"showdown-{width}", full_page=True)
    declare(page, "Annabelle", "two_pair")
    declare(page, "Bartholomew", "two_pair")
    for name in ("Cia", "Dan"):
        tap(page, button(page, f"{name} passes"))
    check_phone_page(page, "tie")
    screens(page, f"tie-{width}", full_page=True)
    tap(page, button(page, "Identical: nobody scores"))
    for name in ("Annabelle", "Bartholomew", "Cia", "Dan"):  # phase 2
        tap(page, button(page, f"{name} passes"))
    assert "Trick 1 of 5" in page.locator("#turn").inner_text()
    check_phone_page(page, "phase 3")
    screens(page, f"phase-3-{width}", full_page=True)
    page.goto(server + "/")
    check_phone_page(page, "match list")
    context.close()


def test_a_match_can_be_scored_without_javascript(browser, server, screens):
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    start_match(page, server, "Anna", "Bo")
    page.get_by_role("button", name="Anna deals", exact=True).click()
    page.wait_for_load_state()
    page.get_by_role("button", name="Bo passes", exact=True).click()
    page.wait_for_load_state()
    assert "Bo passed" in page.locator("#feed").inner_text()
    assert re.search(r"/m/[\w-]+$", page.url)
    page.locator("button[name=hand][value=pair]").click()  # Anna may declare: a plain post
    page.wait_for_load_state()
    assert "Anna +1, pair" in page.locator("#scoreboard").inner_text()
    screens(page, "no-javascript")
    context.close()
