"""Phone-first (issue 3, item 7): no sideways scrolling at 360 px, tap targets of 44 px, 16 px text, no JS needed."""

import re
from pathlib import Path

import pytest
from browsertools import button, declare, detailed_entry, open_imported, start_match, tap
from test_new_user_in_browser import BROKEN_WORDS

pytestmark = pytest.mark.browser

# Every control a thumb may need, measured as laid out (hidden ones are skipped). A radio or
# checkbox inside its label is tapped through the label, so the label is what is measured.
TARGETS = """
() => [...document.querySelectorAll('button, a, input:not([type=checkbox]), input[type=checkbox]:not(.deck *), select, summary, label.card')]
  .filter(el => el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden')
  // The new-match form's hidden default Start (what Enter submits) is no target: nobody taps it.
  .filter(el => !el.closest('[aria-hidden=true]'))
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


def check_header(page, where: str) -> None:
    """The header's links on one line, each named and thumb-sized, within 360 px."""
    header = page.locator("header.top").bounding_box()
    assert header["height"] <= 64, f"{where}: the header is {header['height']} px high"
    assert header["width"] <= 360
    links = page.locator("header.top a")
    tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
    assert len(tops) == 1, f"{where}: the header's links lie on {len(tops)} lines"
    hidden = page.evaluate("(n => n.scrollWidth - n.clientWidth)(document.querySelector('header.top nav'))")
    assert hidden <= 0, f"{where}: the header's last link is {hidden} px out of sight"
    for i in range(links.count()):  # every link still has a name (a label, or one for screen readers)
        assert links.nth(i).evaluate("a => a.innerText.trim() || a.getAttribute('aria-label')")
        box = links.nth(i).bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44


@pytest.mark.parametrize("width", [360, 390])
def test_every_screen_fits_a_phone_and_every_target_is_thumb_sized(browser, server, screens, width):
    context = browser.new_context(viewport={"width": width, "height": 780}, is_mobile=True, has_touch=True)
    context.add_cookies(
        [{"name": "entry", "value": "detail", "url": server}]
    )  # the flow with the card picker
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server + "/new")
    page.locator("details.house-rules summary").click()
    check_phone_page(page, "new match")
    screens(page, f"new-{width}", full_page=True)
    start_match(page, server, "Annabelle", "Bartholomew", "Cia", "Dan")
    check_phone_page(page, "draw")
    tap(page, button(page, "Dan deals"))
    check_phone_page(page, "showdown, one tap")
    screens(page, f"showdown-one-tap-{width}", full_page=True)
    detailed_entry(page)  # the card picker is in declaration-by-declaration entry
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
    tap(page, button(page, "Equal: Annabelle and Bartholomew"))
    for name in ("Annabelle", "Bartholomew", "Cia", "Dan"):  # phase 2
        tap(page, button(page, f"{name} passes"))
    assert "Who took the last trick?" in page.locator("#turn").inner_text()
    page.locator(".tricks details.trick-by-trick summary").click()
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
    page.locator("form.entry-style button[value=detail]").click()  # a plain post too; remembered
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


@pytest.mark.parametrize("lang", ["en", "sv", "el", "ca", "uz", "hi", "ja"])
def test_every_page_fits_a_phone_in_every_language(browser, server, screens, lang):
    """Longer words (Greek, Catalan) and other scripts (Hindi, Japanese) must not push a page wider,
    wrap the header's menu (in Swedish it took a second line: 190 px of header on every page) or
    break a word inside a table ('Rou/nd', 'Pha/se', 'An/na' on the score sheet and head to head)."""
    from scorekeeper.matchfile import dumps, loads

    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "lang", "value": lang, "url": server}])
    page = context.new_page()
    matches = Path(__file__).resolve().parents[1] / "matches"
    for name in ("tie-break-to-ten", "four-players-in-progress"):  # Anna and Bo in both: head to head
        table = open_imported(page, server, dumps(loads((matches / f"{name}.json").read_text())))
    match = table.rsplit("/", 1)[1]
    paths = ["/", "/new", f"/m/{match}", f"/m/{match}/history", f"/m/{match}/at/5", f"/m/{match}/handover"]
    paths += [
        "/players",
        "/players/1",
        "/hands?hand1=Ks+Kh+4c+4d+9s&hand2=Kd+Kc+4h+4s+2s",
        "/import",
        "/rules",
    ]
    for path in paths:
        page.goto(server + path)
        assert page.locator("html").get_attribute("lang") == lang
        check_phone_page(page, f"{lang} {path}")
        if path in ("/", "/players", "/rules"):
            check_header(page, f"{lang} {path}")
        if path.endswith("/history"):
            assert page.evaluate(BROKEN_WORDS) == {"broken": [], "headers": []}, f"{lang} score sheet"
    page.goto(server + "/players")
    page.locator(".people a", has_text="Anna").first.click()
    page.wait_for_load_state()
    assert page.locator("table.sheet").count() == 2  # her matches, and head to head
    assert page.evaluate(BROKEN_WORDS) == {"broken": [], "headers": []}, f"{lang} player page"
    screens(page, f"rules-{lang}", full_page=True)
    page.goto(server + f"/m/{match}")
    screens(page, f"table-{lang}", full_page=True)
    context.close()
