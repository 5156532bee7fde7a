"""Issue 11, item 3: nothing below the fold.

At 360×640, 390×844 and 412×915, on every screen of a round (each exchange,
each showdown in both entry styles, a tie, the show, Chicago, the tricks, the
round's summary, the winner, a tie-break round), every seat's total and every
enabled control of the steps open now in ``#turn`` are inside the viewport at
scroll position 0, after a page load and after the swap a tap brings, and
each control is at least 44 px high with 16 px text. The walk runs twice: a
4-player table with long names in English at the three sizes, and a 3-player
table in Swedish (the longest words) in dark mode at the two smaller ones.

One walk measures each screen at several sizes: the phone's viewport is
resized in place (no script of the app looks at the viewport, so a screen laid
out again at another size is the screen that size shows). The sizes are
measured in turn, the other way round after each reload: a walk's first size
right after each swap, its last right after each load.

What may lie below the fold: a card picker's field, tiles and send button once
the picker is open (its summary is a control and must show), the switch
between entry styles (a setting of the phone), the correction form, the feed,
and the footer links. Nothing else, at any of the three sizes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browsertools import SETTLED, import_events, pick_cards, tap, wait_until

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "test-output" / "fold"
SIZES = {"360x640": (360, 640), "390x844": (390, 844), "412x915": (412, 915)}
THREE = ("Annabelle", "Göran P", "Cia")
FOUR = ("Annabelle", "Göran P", "Cia", "Dan")

# The controls of the step open now and every seat's total, measured as laid out at scroll 0.
# A card picker's summary is a control; once the picker is open, its field, its 52 tiles and the
# button after them that sends the cards may scroll. Which style a phone enters showdowns in is a
# setting of the phone, not part of the step.
MEASURE = """
() => {
  const shown = el => el.checkVisibility({visibilityProperty: true});
  const afterOpenPicker = el => {
    const picker = el.closest('form')?.querySelector('details.picker[open]');
    return picker !== null && picker !== undefined && !picker.querySelector('summary').contains(el)
      && (picker.compareDocumentPosition(el) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)) !== 0;
  };
  const controls = [...document.querySelectorAll(
      '#turn button, #turn a.button, #turn input:not([type=hidden]), #turn select, #turn summary')]
    .filter(el => !el.disabled && shown(el) && !afterOpenPicker(el) && !el.closest('form.entry-style'));
  const scores = [...document.querySelectorAll('#scoreboard .seat .score')];
  const describe = (el, what) => {
    const r = el.getBoundingClientRect();
    const text = (el.getAttribute('aria-label') || el.textContent || el.name || '').trim().replace(/\\s+/g, ' ');
    return {what, text: text.slice(0, 50), value: el.value || '', rare: el.matches('details.quick-rare > summary'), top: Math.round(r.top), bottom: Math.round(r.bottom),
            left: Math.round(r.left), right: Math.round(r.right), height: Math.round(r.height),
            font: parseFloat(getComputedStyle(el).fontSize)};
  };
  return {
    scrollY: window.scrollY,
    width: document.documentElement.clientWidth,
    height: window.innerHeight,
    controls: controls.map(el => describe(el, 'control')),
    scores: scores.map(el => describe(el, 'score')),
  };
}
"""


class Fold:
    """Measures each screen of a walk at each size; collects what is out of view, and the lowest
    control's bottom (per size)."""

    def __init__(self, page, sizes: list[str], config: str, screens=None) -> None:
        self.page = page
        self.sizes = list(sizes)
        self.config = config
        self.screens = screens
        self.problems: list[str] = []
        self.lowest: dict[str, dict[str, int]] = {size: {} for size in sizes}
        self.found: dict[str, dict[str, dict]] = {size: {} for size in sizes}

    def settle(self) -> None:
        # app.js shows the wake-lock toggle once the browser has answered: wait for it before measuring.
        wait_until(self.page, SETTLED)
        wait_until(
            self.page,
            "(() => { const w = document.getElementById('wake');"
            " return document.readyState === 'complete' && (!w || w.dataset.state !== undefined); })()",
        )

    def measure(self, screen: str, how: str) -> None:
        """The screen at each size in turn, starting with the size the page has now."""
        for size in self.sizes:
            width, height = SIZES[size]
            self.page.set_viewport_size({"width": width, "height": height})
            self.measure_at(size, screen, how)
            if self.screens is not None and size == "360x640" and how == "swap":
                self.screens(self.page, re.sub(r"\W+", "-", screen).strip("-"))
        self.sizes.reverse()

    def measure_at(self, size: str, screen: str, how: str) -> None:
        self.settle()
        found = self.page.evaluate(MEASURE)
        where = f"{size} {self.config} · {screen} · after the {how}"
        if found["scrollY"] != 0:
            self.problems.append(f"{where}: the page is scrolled to {found['scrollY']}")
        if not found["controls"]:
            self.problems.append(f"{where}: no control in #turn")
        for box in found["controls"] + found["scores"]:
            if box["top"] < 0 or box["bottom"] > found["height"] or box["right"] > found["width"]:
                self.problems.append(
                    f"{where}: {box['what']} {box['text']!r} at y {box['top']}–{box['bottom']}"
                )
        for box in found["controls"]:
            if box["height"] < 44 or box["font"] < 16:
                self.problems.append(
                    f"{where}: {box['text']!r} is {box['height']} px high, {box['font']} px text"
                )
        self.lowest[size][f"{screen} · {how}"] = max((b["bottom"] for b in found["controls"]), default=0)
        self.found[size][f"{screen} · {how}"] = found

    def check(self, screen: str) -> None:
        """The screen as the last tap left it, then as a fresh page load shows it."""
        self.measure(screen, "swap")
        self.page.reload()
        self.measure(screen, "load")

    def check_both_styles(self, screen: str) -> None:
        """A showdown: in the style this phone uses, then in the other one (switching is a tap too)."""
        style = "one tap" if self.page.locator("#turn .quick-grid").count() else "declaration by declaration"
        self.check(f"{screen} ({style})")
        tap(self.page, self.page.locator("#turn form.entry-style button"))
        style = "one tap" if self.page.locator("#turn .quick-grid").count() else "declaration by declaration"
        self.check(f"{screen} ({style})")


# Taps by form field, not by wording, so that the walk runs in every language.
def act(page, selector: str) -> None:
    tap(page, page.locator(selector))


def style(page, wanted: str) -> None:
    """Switch this phone to the one-tap grid ("quick") or to declaration by declaration ("detail")."""
    toggle = page.locator(f"#turn form.entry-style button[value={wanted}]")
    if toggle.count():
        tap(page, toggle)


def quick(page, player: str | None, hand: str = "") -> None:
    style(page, "quick")
    if player is None:
        act(page, "#turn button.nobody")
        return
    cell = page.locator(f"#turn .quick-grid button[value='{hand}:{player}']")
    if not cell.is_visible():  # one of the rarest hands, behind their row
        page.locator("#turn details.quick-rare > summary").click()
    tap(page, cell)


def declare(page, player: str, hand: str) -> None:
    style(page, "detail")
    assert player in page.locator("#turn .declare h2").inner_text()
    act(page, f"#turn button[name=hand][value={hand}]")


def pass_(page, player: str) -> None:
    style(page, "detail")
    assert player in page.locator("#turn .declare h2").inner_text()
    act(page, "#turn form:has(input[name=type][value=pass]) button")


def trick(page, winner: str) -> None:
    toggle = page.locator(".tricks details.trick-by-trick:not([open]) summary")
    if toggle.count():
        toggle.click()
    act(page, f".tricks form:not(.last-trick) button[name=winner][value='{winner}']")


def walk(page, server: str, players, fold: Fold) -> None:
    """A match to the winner that passes every kind of screen a scorekeeper meets, then a tie-break round."""
    dealer, first, second, *rest = players
    import_events(page, server, players, [], rules={"target": 30})
    fold.check("who deals first")
    act(page, f"#turn form.buttons button[name=player][value='{dealer}']")
    fold.check_both_styles("round 1, phase 1: the first exchange and the showdown")
    for n, name in enumerate((first, second, *rest)):
        act(page, f"#turn .counts button[value='{n % 3}']")
        fold.check(f"phase 1: {name}'s exchange done")
    act(page, "#turn .counts button[value='0']")  # the dealer's exchange
    fold.check_both_styles("phase 1: the showdown")
    declare(page, first, "two_pair")
    fold.check("phase 1: after a declaration (declaration by declaration)")
    declare(page, second, "two_pair")
    for name in (*rest, dealer):
        pass_(page, name)
    fold.check("a tie: two pair against two pair")
    act(page, f"#turn form:has(input[name=type][value=tie]) button[name=winner][value='{second}']")
    fold.check_both_styles("phase 2 after a phase-1 score: the show, the exchange and the showdown")
    page.locator(".show summary").click()
    pick_cards(page, "show", "Kd Kc 4h 3s 9s")
    act(page, ".show form > button")
    fold.check_both_styles("the cards shown do not make the hand: take the points back")
    act(page, "#turn .flag button")
    quick(page, second, "full_house")
    fold.check("phase 3: the exchange and the last trick (no Chicago yet)")
    trick(page, first)
    fold.check("trick 2 of 5")
    for _ in range(4):
        trick(page, second)
    fold.check_both_styles("the last showdown")
    quick(page, second, "four_of_a_kind")
    fold.check_both_styles("round 2: the round's summary, the exchange and the showdown")
    quick(page, None)
    quick(page, None)
    fold.check("phase 3: Chicago may be called")
    act(page, f".chicago button[name=player][value='{second}']")
    fold.check("Chicago called: trick 1 of 5")
    for _ in range(5):
        trick(page, second)
    quick(page, None)
    fold.check("the winner")

    # A tie-break round: the first two reach the target of 10 together in round 1.
    others = [{"type": "pass", "player": name} for name in rest]
    flush = [{"type": "declare", "player": second, "hand": "flush"}]
    events = [
        {"type": "dealer", "player": dealer},
        {"type": "declare", "player": first, "hand": "flush"},
        {"type": "pass", "player": second},
        *others,
        {"type": "pass", "player": dealer},
        {"type": "pass", "player": first},
        *flush,
        *others,
        {"type": "pass", "player": dealer},
        {"type": "last_trick", "winner": first},
        {"type": "pass", "player": first},
        *flush,
        *others,
        {"type": "pass", "player": dealer},
    ]
    import_events(page, server, players, events, rules={"target": 10})
    fold.check_both_styles("a tie-break round")


ALL = ["360x640", "390x844", "412x915"]
CONFIGS = [
    pytest.param(ALL, "light", "en", FOUR, id="4-players"),
    pytest.param(["390x844", "360x640"], "dark", "sv", THREE, id="3-players-swedish-dark"),
]


@pytest.mark.parametrize(("sizes", "scheme", "lang", "players"), CONFIGS)
def test_the_totals_and_the_step_open_now_are_in_view_without_scrolling(
    browser, server, screens, sizes, scheme, lang, players
):
    width, height = SIZES[sizes[0]]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        is_mobile=True,
        has_touch=True,
        color_scheme=scheme,
    )
    context.add_cookies([{"name": "lang", "value": lang, "url": server}])
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    config = f"{scheme} {lang} {len(players)} players"
    fold = Fold(page, sizes, config, screens)
    try:
        walk(page, server, players, fold)
    finally:
        context.close()
        REPORT.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            name = re.sub(r"\W+", "-", f"{size} {config}")
            lowest, found = fold.lowest[size], fold.found[size]
            (REPORT / f"{name}.json").write_text(json.dumps(lowest, indent=1, ensure_ascii=False))
            (REPORT / f"{name}-boxes.json").write_text(json.dumps(found, indent=1, ensure_ascii=False))
    assert fold.problems == [], "\n".join(fold.problems[:40])


# Issue 25: what a scorekeeper opens inside a step, at 360x640: the rare hands' row (its rows show in
# place of the common ones) and the show's card entry (its field, 52 tiles and button). Once open,
# everything they hold is on the screen too, each target 44 px high: the rare hands at the top of the
# page, the picker scrolled up under the scores (which stay in view) by app.js.
OPENED = """
sel => [...document.querySelectorAll(sel)].filter(el => el.checkVisibility()).map(el => {
  const r = el.getBoundingClientRect();
  const text = (el.getAttribute('aria-label') || el.textContent || el.name || '').trim().replace(/\\s+/g, ' ');
  return {text: text.slice(0, 40), top: Math.round(r.top), bottom: Math.round(r.bottom),
          right: Math.round(r.right), height: Math.round(r.height)};
})
"""


@pytest.mark.parametrize("players", [THREE, FOUR], ids=["3-players", "4-players"])
def test_the_opened_rare_hands_and_the_shows_card_entry_are_in_view_at_360x640(
    browser, server, screens, players
):
    from datetime import UTC, datetime

    context = browser.new_context(
        viewport={"width": 360, "height": 640}, device_scale_factor=1, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    problems: list[str] = []

    def look(what: str, selector: str) -> None:
        wait_until(page, SETTLED)
        boxes = page.evaluate(OPENED, selector)
        if not boxes:
            problems.append(f"{what}: nothing found")
        for box in boxes:
            if box["top"] < 0 or box["bottom"] > 640 or box["right"] > 360 or box["height"] < 44:
                problems.append(f"{what}: {box}")
        screens(page, what)

    *others, dealer = players
    first, *rest = others
    events = [{"type": "dealer", "player": dealer}, {"type": "declare", "player": first, "hand": "two_pair"}]
    events += [{"type": "pass", "player": name} for name in (*rest, dealer)]
    document = {
        "format": "chicago-match/1",
        "created_at": datetime.now(UTC).isoformat(),
        "players": list(players),
    }
    try:
        page.goto(server + "/import")
        page.fill("textarea[name=text]", json.dumps({**document, "rules": {}, "events": events}))
        page.locator("form button.primary").click()
        page.wait_for_url(re.compile(r"/m/[\w-]+/history$"))
        page.goto(page.url.removesuffix("/history"))
        page.locator("#turn details.quick-rare > summary").click()
        look(
            "rare-hands-open",
            "#turn .quick-rare summary, #turn .quick-rare button:not([disabled]), #turn button.nobody",
        )
        page.locator("#turn details.quick-rare > summary").click()
        page.locator("#turn .show summary").click()
        wait_until(  # app.js scrolls the opened picker up under the scores
            page,
            "(() => { const b = document.querySelector('#turn .show form > button');"
            " return b !== null && b.getBoundingClientRect().bottom <= window.innerHeight; })()",
        )
        look("shows-card-entry", "#turn .show :is(summary, .card, input[name=cards], form > button)")
    finally:
        context.close()
    assert problems == [], "\n".join(problems)
