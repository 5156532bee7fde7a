"""Issue 13: the hand buttons fit a 360 px phone in every language, their words whole.

The one-tap grid (``matches/turn/_quick.html``, its rarest hands opened) and the declaration
buttons of declaration-by-declaration entry, for four players with long names: no sideways
scrolling, and no button, hand name or summary whose text is wider than its box.
"""

import pytest
from browsertools import button, start_match, tap

from scorekeeper.web.present.i18n import LANGUAGES

pytestmark = pytest.mark.browser

# Each element whose text could be cut: its text and how much wider the text is than the box.
CLIPPED = """
(selector) => [...document.querySelectorAll(selector)]
  .filter(el => el.offsetParent !== null)
  .map(el => ({what: el.innerText.trim(), over: el.scrollWidth - el.clientWidth}))
  .filter(el => el.over > 0)
"""
HAND_BUTTONS = "#turn .quick-grid .quick-hand, #turn .quick-grid button, #turn .quick-rare summary, #turn .hand-buttons button"


def overflow(page, where: str) -> list[str]:
    """What does not fit: the page wider than the screen, or a hand button's text cut."""
    width = page.evaluate("document.documentElement.clientWidth")
    scroll = page.evaluate("document.documentElement.scrollWidth")
    found = [f"{where}: the page is {scroll}px wide in {width}px"] if scroll > width else []
    return found + [
        f"{where}: {c['what']!r} is {c['over']}px too wide" for c in page.evaluate(CLIPPED, HAND_BUTTONS)
    ]


def test_the_hand_buttons_fit_at_360_px_in_every_language(browser, server, screens):
    context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True)
    page = context.new_page()
    start_match(page, server, "Annabelle", "Bartholomew", "Cia", "Dan")  # in English: the form's labels
    tap(page, button(page, "Dan deals"))
    table = page.url
    problems = []
    for lang in LANGUAGES:
        context.add_cookies([{"name": "lang", "value": lang, "url": server}])
        context.add_cookies([{"name": "entry", "value": "quick", "url": server}])
        page.goto(table)
        assert page.evaluate("document.documentElement.lang") == lang
        page.locator("#turn details.quick-rare > summary").click()
        assert page.locator("#turn .quick-grid button").count() >= 9 * 4
        problems += overflow(page, f"{lang}, one tap")
        screens(page, f"quick-{lang}", full_page=True)
        context.add_cookies([{"name": "entry", "value": "detail", "url": server}])
        page.goto(table)
        assert page.locator("#turn .hand-buttons button").count() == 9
        problems += overflow(page, f"{lang}, declaring")
        screens(page, f"declare-{lang}", full_page=True)
    context.close()
    assert problems == [], "\n".join(problems)
