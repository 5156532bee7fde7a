"""Issue 11, item 5: what a new user hit, checked on a 360 px phone in a real browser.

Screens are kept under test-output/screens/<test>/ to be looked at.
"""

import pytest
from browsertools import another_match

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 640}


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def test_the_first_dealer_choices_follow_the_names_as_they_are_typed(phone, server, screens):
    page = phone.new_page()
    page.goto(server + "/new")
    choices = page.locator(".first-dealer label")
    assert choices.nth(1).inner_text().strip() == "Seat 1 deals"
    page.locator("input[name=name]").nth(0).fill("Anna")
    page.locator("input[name=name]").nth(1).fill("Bo")
    assert [choices.nth(i).inner_text().strip() for i in range(1, 5)] == [
        "Anna deals",
        "Bo deals",
        "Seat 3 deals",
        "Seat 4 deals",
    ]
    page.locator("input[name=name]").nth(1).fill("")
    assert choices.nth(2).inner_text().strip() == "Seat 2 deals"
    screens(page, "new-match-names-typed", full_page=True)


ROWS_OF_EACH_SUIT = """
(root) => [...document.querySelectorAll(root + ' .suit-row')].filter(r => r.closest('details').open).map(row => {
  const tops = {};
  for (const label of row.querySelectorAll('label.card')) {
    const top = Math.round(label.getBoundingClientRect().top);
    tops[top] = (tops[top] || 0) + 1;
  }
  return Object.keys(tops).sort((a, b) => a - b).map(t => tops[t]);
})
"""


@pytest.mark.parametrize("width", [320, 360, 390, 700])
def test_the_hand_checkers_picker_wraps_each_suit_evenly(browser, server, screens, width):
    from test_phone_layout import check_phone_page

    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server + "/hands")
    rows = page.evaluate(ROWS_OF_EACH_SUIT, ".checker")
    assert len(rows) == 8  # two hands open, four suits each
    for suit in rows:
        assert sum(suit) == 13 and max(suit) - min(suit) <= 1, f"{width}px: cards per line {suit}"
    check_phone_page(page, f"hand checker at {width}px")
    screens(page, f"hand-checker-{width}", full_page=True)
    context.close()


def test_the_hand_checker_at_360px_after_check(phone, server, screens):
    page = phone.new_page()
    page.goto(server + "/hands")
    page.locator("input[name=hand1]").fill("Ah Kh Qh 9d 2s")
    page.locator("input[name=hand2]").fill("Ah Kd Qc Js 1x")
    page.locator(".checker > fieldset").nth(2).locator("summary").click()
    page.locator("label[for=h3-Ks]").click()
    page.locator("label[for=h3-Qs]").click()
    page.get_by_role("button", name="Compare", exact=True).click()
    page.wait_for_load_state()
    assert page.locator(".refusal li").all_inner_texts() == [
        "Hand 2: “1x” is not a card",
        "Hand 3: A hand is five cards, not 2",
    ]
    assert page.locator("input[name=hand2]").input_value() == "Ah Kd Qc Js 1x"
    assert page.locator("input[name=hand3]").input_value() == "Qs Ks"  # the picks, in the deck's order
    screens(page, "checker-errors", full_page=True)
    page.locator("input[name=hand2]").fill("Ac Kd Qc Js 9s")
    page.locator("input[name=hand3]").fill("")
    page.get_by_role("button", name="Compare", exact=True).click()
    page.wait_for_load_state()
    assert page.locator("ol.ranked li").count() == 2
    assert page.locator("input[name=hand2]").is_visible()
    screens(page, "checker-ranked", full_page=True)


# Each word of a table cell, as a Range: on more than one line means the word broke; and the
# headers whose text is wider than their cell.
BROKEN_WORDS = """
() => {
  const broken = [];
  for (const cell of document.querySelectorAll('table.sheet th, table.sheet td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  const headers = [...document.querySelectorAll('table.sheet th')]
    .filter(th => th.scrollWidth > th.clientWidth).map(th => th.textContent.trim());
  return {broken, headers};
}
"""


def test_the_table_of_a_new_user_at_360px(phone, server, screens):
    """In place, with htmx: a refused draw keeps its cards, the show asks for cards in words, a
    correction takes points away, and a tie-break round says so."""
    import json

    from browsertools import button, draw_for_deal, start_match, tap

    page = phone.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    start_match(page, server, "Anna", "Bo", "Cia")
    draw_for_deal(page, Anna="7", Cia="K")  # Bo's rank not tapped
    assert page.locator(".refusal").inner_text().startswith("Tap the rank each player drew")
    chosen = [page.input_value(f"select[name='draw.{n}']") for n in ("Anna", "Bo", "Cia")]
    assert chosen == ["7", "", "K"]
    screens(page, "draw-refused")
    draw_for_deal(page, Bo="2")  # Bo deals: Cia speaks first
    tap(page, page.locator("#turn .quick-grid button[value='pair:Cia']"))
    # The show: "Check" appears only once the card entry is open, so it cannot be tapped with no
    # cards (the refusal for a post without cards, in words and in Swedish, is in test_form_errors).
    show = page.locator("#turn .show")
    assert not show.locator("form button").is_visible()
    assert show.locator("details.picker summary").is_visible()
    screens(page, "show-without-cards")
    show.locator("details.picker summary").click()
    assert show.get_by_role("button", name="Check Cia's cards").is_visible()
    show.locator("details.picker summary").click()  # closed again: the exchange goes on unchecked
    page.locator("details.correct summary").click()
    page.select_option("details.correct select[name=player]", "Cia")
    page.locator("details.correct label", has_text="Take points away").click()
    page.fill("details.correct input[name=points]", "1")
    page.fill("details.correct input[name=reason]", "no pair after all")
    screens(page, "correction", full_page=True)
    tap(page, button(page, "Record the correction"))
    assert page.locator("#scoreboard .seat", has_text="Cia").locator(".score").inner_text() == "0"

    # A tie-break round: imported just as it begins.
    events = [{"type": "dealer", "player": "Anna"}]
    for line in (
        "declare Bo flush; pass Cia; pass Anna; pass Bo; pass Cia; declare Anna flush; last_trick Anna;"
        " declare Bo flush; pass Cia; pass Anna"
    ).split(";"):
        kind, *words = line.split()
        if kind == "declare":
            events.append({"type": kind, "player": words[0], "hand": words[1]})
        elif kind == "pass":
            events.append({"type": kind, "player": words[0]})
        else:
            events.append({"type": kind, "winner": words[0]})
    document = {"format": "chicago-match/1", "players": ["Anna", "Bo", "Cia"], "rules": {"target": 10}}
    page.goto(server + "/import")
    page.fill("textarea[name=text]", another_match(json.dumps({**document, "events": events})))
    page.locator("form button.primary").click()
    page.get_by_role("link", name="Resume").click()
    page.wait_for_load_state()
    assert page.locator("#scoreboard .where .badge").inner_text() == "Tie-break round"
    banner = page.locator("#turn .tiebreak")
    assert banner.inner_text().endswith("Anna and Bo were tied, so they play one more round; Cia sits out.")
    screens(page, "tie-break")
