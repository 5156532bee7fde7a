"""Issue 25 at 360 × 640: a spectator's live view follows the rematch and shows the winner's banner,
a Chicago and the tie-break; the score sheet of four players fits, a correction on its own row and
the tie-break round marked. Screenshots go to test-output/screens/."""

import json
import re
from pathlib import Path

import pytest
from browsertools import another_match, quick, wait_until
from test_accessibility import AXE, violations

pytestmark = pytest.mark.browser

MATCHES = Path(__file__).parents[1] / "matches"
SMALL = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core, to check each new screen in light and dark mode (test_accessibility.py's way)."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci` (the README's test command does)")
    return AXE.read_text()


def small_phone(browser):
    return browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)


def fresh(name: str, events: slice = slice(None)) -> str:
    """A recorded match file (``events`` of it), a match of its own (``another_match``)."""
    document = json.loads((MATCHES / f"{name}.json").read_text())
    document["events"] = document["events"][events]
    return another_match(json.dumps(document))


def import_text(page, server: str, text: str) -> str:
    """Import through the page (this phone keeps the match); the match's id."""
    page.goto(server + "/import")
    page.fill("textarea[name=text]", text)
    page.locator("form button.primary").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+/history$"))
    return page.url.rsplit("/", 2)[1]


def watch_link(page, server: str, match_id: str) -> str:
    """The live-view link the scorekeeper's share page shows."""
    page.goto(f"{server}/m/{match_id}/handover")
    return page.locator("a[href*='/watch?t=']").first.get_attribute("href")


def on_first_screen(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= SMALL["height"]


def test_the_spectator_sees_the_winner_then_follows_the_rematch(browser, server, screens, axe):
    keeper, spectator = small_phone(browser), small_phone(browser)
    table, live = keeper.new_page(), spectator.new_page()
    table.on("dialog", lambda dialog: dialog.accept())
    match_id = import_text(
        table, server, fresh("tie-break-to-ten", slice(None, -2))
    )  # the last showdown left
    watch_url = watch_link(table, server, match_id)
    table.goto(f"{server}/m/{match_id}")
    live.goto(watch_url)
    wait_until(live, "() => document.body.dataset.stream === 'open'")
    assert "Tie-break round" in live.locator("#board").inner_text()
    screens(live, "tie-break-round")

    quick(table, None)  # everybody passes: Bo wins the tie-break round, 15 to 11
    wait_until(live, "() => document.querySelector('#board .won') !== null")
    banner = live.locator("#board .won")
    assert banner.locator("h2").inner_text() == "Bo wins with 15 points!"
    assert banner.locator("ol.standings li").all_inner_texts() == ["Bo 15", "Anna 11"]
    assert on_first_screen(live, "#board .won")  # the first thing a spectator sees
    assert live.locator("#board p.next").count() == 0
    screens(live, "winner-banner")
    assert violations(live, axe) == []

    old_url = live.url
    table.get_by_role("button", name="Rematch: same players and rules").click()
    table.wait_for_url(re.compile(r"/m/[\w-]+$"))
    new_id = table.url.rsplit("/", 1)[1]
    assert new_id != match_id
    # The spectator's page moves on by itself: no new link, no scan.
    live.wait_for_url(lambda url: url != old_url, timeout=10_000)
    live.wait_for_load_state()
    assert re.search(r"/watch\?t=[0-9a-f]+$", live.url)
    wait_until(
        live, "() => document.getElementById('board') && 'live' in document.getElementById('board').dataset"
    )
    assert "Choosing the first dealer" in live.locator("#board").inner_text()
    assert live.url == watch_link(table, server, new_id)  # the rematch's own live view
    screens(live, "rematch-followed")
    assert violations(live, axe) == []
    keeper.close()
    spectator.close()


def test_the_spectator_sees_a_chicago_called(browser, server, screens, axe):
    keeper, spectator = small_phone(browser), small_phone(browser)
    table, live = keeper.new_page(), spectator.new_page()
    document = json.loads((MATCHES / "two-players-to-royal-flush.json").read_text())
    called = next(i for i, e in enumerate(document["events"]) if e["type"] == "chicago")
    match_id = import_text(table, server, fresh("two-players-to-royal-flush", slice(None, called + 1)))
    live.goto(watch_link(table, server, match_id))
    said = live.locator("#board p.chicago-on")
    caller = document["events"][called]["player"]
    assert said.inner_text() == f"{caller} called Chicago: all five tricks, or lose 15."
    assert on_first_screen(live, "#board p.chicago-on")
    screens(live, "chicago-called")
    assert violations(live, axe) == []
    # A new user (issue 25): the call stayed said after the Chicago was settled, until the round ended.
    round_line = live.locator("#board .where").inner_text()
    table.goto(f"{server}/m/{match_id}")
    other = next(name for name in document["players"] if name != caller)
    table.get_by_role("button", name=f"{other} took a trick", exact=True).click()
    wait_until(live, "() => document.querySelector('#board p.chicago-on') === null", 10)
    board = live.locator("#board").inner_text()
    assert f"{other} broke {caller}'s Chicago" in board
    assert live.locator("#board .where").inner_text() == round_line  # the round goes on
    screens(live, "chicago-broken")
    keeper.close()
    spectator.close()


def test_four_players_score_sheet_fits_360_px_with_its_correction_and_tie_break(
    browser, server, screens, axe
):
    context = small_phone(browser)
    page = context.new_page()
    text = fresh("four-players-tie-break-and-correction")
    import_text(page, server, text)
    history = page.url
    sheet = page.locator("table.protocol")
    assert sheet.locator("thead th").all_inner_texts()[1:] == ["Greta\nwinner", "Henrik", "Ingrid", "Jonatan"]
    # No sideways scrolling: neither the page nor the sheet's own box.
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    assert page.evaluate(
        "(() => { const w = document.querySelector('.sheet-wrap'); return w.scrollWidth <= w.clientWidth; })()"
    )
    # No name broken inside a word: each heading is as wide as its name needs.
    assert page.evaluate(
        "[...document.querySelectorAll('table.protocol thead th')].every(th => th.scrollWidth <= th.clientWidth)"
    )
    heads = [row.locator("th, td").first.inner_text() for row in sheet.locator("tbody tr").all()]
    # The correction was typed at the start of round 5 (for round 4's last trick): where it was made.
    assert heads[:8] == ["1", "2", "3", "4", "correction", "forgot the last trick", "5", "6"]
    assert heads[-2:] == ["Tie-break round", "11"]
    correction = sheet.locator("tbody tr.correction")
    assert correction.count() == 1
    assert [" ".join(td.split()) for td in correction.locator("td").all_inner_texts()] == [
        "+5 20",
        "6",
        "1",
        "27",
    ]
    tiebreak = sheet.locator("tbody tr.tiebreak")  # marked, and said on a row of its own above it
    assert tiebreak.count() == 1 and tiebreak.locator("th").inner_text() == "11"
    note = sheet.locator("tbody tr.tiebreak-note")
    assert note.count() == 1 and note.locator(".badge").inner_text() == "Tie-break round"
    assert note.locator("xpath=following-sibling::tr[1]").get_attribute("class") == "tiebreak"
    assert [" ".join(td.split()) for td in tiebreak.locator("td").all_inner_texts()] == [
        "+9 62",
        "15",
        "8",
        "+7 60",
    ]
    for cell in sheet.locator("tbody td").all():  # every cell within the phone's width
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    page.evaluate("document.querySelector('table.protocol').scrollIntoView()")
    screens(page, "score-sheet-top")
    page.evaluate("document.querySelector('table.protocol tr.correction').scrollIntoView()")
    screens(page, "score-sheet-correction")
    page.evaluate("document.querySelector('table.protocol tr.tiebreak').scrollIntoView({block: 'center'})")
    screens(page, "score-sheet-tie-break")
    # The list of every event: 139 of them, the numbers from 100 up inside the page.
    first = page.locator("ol.log li").first
    assert first.get_attribute("value") == "139"
    # The marker ("139.") sits in the list's left padding: it must fit there and on the page.
    room, needed = page.evaluate(
        """(() => {
            const ol = document.querySelector('ol.log'), li = ol.querySelector('li');
            const probe = document.createElement('span');
            probe.textContent = li.value + '. ';
            probe.style.font = getComputedStyle(li).font;
            document.body.append(probe);
            const needed = probe.getBoundingClientRect().width;
            probe.remove();
            return [parseFloat(getComputedStyle(ol).paddingLeft) + ol.getBoundingClientRect().left, needed];
        })()"""
    )
    assert needed <= room
    first.scroll_into_view_if_needed()
    screens(page, "every-event")
    assert violations(page, axe) == []
    # The same file again: the match already stored, a link to it, nothing stored twice.
    page.goto(server + "/import")
    page.fill("textarea[name=text]", text)
    page.locator("form button.primary").click()
    page.wait_for_load_state()
    stored = page.locator("p.stored[role=status]")
    assert "already stored" in stored.inner_text()
    screens(page, "already-stored")
    assert violations(page, axe) == []
    stored.get_by_role("link").click()
    page.wait_for_url(history)
    context.close()
