"""Issue 25, item 5: a tap whose answer is lost is sent again by itself, recorded once, and never said
to be "not saved"; the offline page reloads itself when the server answers again (TRUST.md W2, W6).

The important case is the tap the server stored whose answer never came back: a route lets the
request reach the server and drops the answer, as a table's wifi does.
"""

from __future__ import annotations

import re
import time

import pytest
from browsertools import SETTLED, draw_for_deal, start_match, wait_until
from playwright.sync_api import Error as PlaywrightError

pytestmark = pytest.mark.browser

TAPS = re.compile(r"/m/[^/]+/(record|showdown)$")
# Every text the banner shows, kept for the tab across reloads; set down before the page's own scripts run.
WATCH_BANNER = """
new MutationObserver(() => {
  const banner = document.getElementById("offline");
  const said = JSON.parse(sessionStorage.getItem("test.banner") || "[]");
  if (banner && !banner.hidden && said[said.length - 1] !== banner.textContent) {
    said.push(banner.textContent);
    sessionStorage.setItem("test.banner", JSON.stringify(said));
  }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""
SAVED = "Saved."
WAITING = "No answer from the server yet: trying again…"
PHONE = {"width": 390, "height": 844}
# What the banner says: hidden, waiting (a tap sent again), saved, failed (the server's own words).
STATE = "(b => b.hidden ? 'hidden' : b.dataset.state)(document.getElementById('offline'))"


@pytest.fixture
def phone(browser):
    """A phone without the service worker, so that the test's routes see every tap."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True, service_workers="block"
    )
    context.add_init_script(WATCH_BANNER)
    yield context
    context.close()


def banner_said(page) -> list[str]:
    return page.evaluate("JSON.parse(sessionStorage.getItem('test.banner') || '[]')")


def stored(page, server: str) -> list[dict]:
    """The match's events as the server has them (its export)."""
    match_id = re.search(r"/m/([^/?#]+)", page.url).group(1)
    return page.request.get(f"{server}/m/{match_id}/export").json()["events"]


def new_table(page, server: str):
    start_match(page, server, "Anna", "Bo")
    draw_for_deal(page, Anna="5h", Bo="Ks")
    return page.locator("#turn button", has_text="passes").first


def feed(page) -> int:
    return page.locator("#feed li").count()


def across_reloads(page, predicate: str, timeout: float = 15.0) -> None:
    """``wait_until`` for a page that reloads itself meanwhile (the offline page)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(predicate):
                return
        except PlaywrightError as error:  # the page was navigating: ask the next one
            if "context was destroyed" not in str(error) and "navigat" not in str(error):
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {predicate}")
        page.wait_for_timeout(50)


def lose_the_first_answer(page) -> list[int]:
    """Let the next tap reach the server, then drop its answer; later taps go through. Returns the
    statuses the server gave to the taps whose answers were dropped."""
    dropped: list[int] = []

    def handle(route):
        if dropped:
            route.continue_()
            return
        dropped.append(route.fetch().status)  # the server has it...
        route.abort("internetdisconnected")  # ...and the phone never hears back

    page.route(TAPS, handle)
    return dropped


def recorded_once(page, server: str, events: int, lines: int) -> None:
    """The tap ("everybody passes": each of the two players passes) is stored once, the table shows it,
    and the banner never said "not saved"."""
    added = stored(page, server)[events:]
    assert [(e["type"], e["player"]) for e in added] == [("pass", "Bo"), ("pass", "Anna")], added
    assert feed(page) == lines + len(added)
    assert not [said for said in banner_said(page) if said.startswith("Not saved")]


def test_a_stored_tap_whose_answer_was_lost_is_sent_again_once_and_said_saved(phone, server, screens):
    page = phone.new_page()
    passes = new_table(page, server)
    events, lines = len(stored(page, server)), feed(page)
    dropped = lose_the_first_answer(page)
    with page.expect_response(lambda r: r.request.method == "POST") as again:
        passes.click()
        wait_until(page, f"{STATE} === 'waiting'")
        assert page.locator("#offline").inner_text() == WAITING
        assert dropped == [200] and len(stored(page, server)) > events  # stored, the phone cannot know
        assert feed(page) == lines
        screens(page, "no-answer-yet")
    assert again.value.status == 200  # sent again by itself: the answer the key recorded
    wait_until(page, f"{STATE} === 'saved'", timeout=15)
    wait_until(page, SETTLED)
    assert page.locator("#offline").inner_text() == SAVED
    recorded_once(page, server, events, lines)
    screens(page, "saved")


def test_a_tap_sent_again_after_a_reload_is_saved_not_refused_though_the_table_moved_on(phone, server):
    page = phone.new_page()
    passes = new_table(page, server)
    events, lines = len(stored(page, server)), feed(page)
    dropped = lose_the_first_answer(page)
    passes.click()
    wait_until(page, f"{STATE} === 'waiting'")
    page.reload()  # the table shows the tap now; the tap kept for the tab carries the old version
    wait_until(page, f"{STATE} === 'saved'", timeout=15)
    wait_until(page, SETTLED)
    assert dropped == [200] and page.locator("#offline").inner_text() == SAVED
    assert page.locator("#table .refusal").count() == 0  # not "The table moved on": the key answered
    recorded_once(page, server, events, lines)


def test_a_tap_made_without_the_network_is_sent_when_it_is_back(phone, server, screens):
    page = phone.new_page()
    passes = new_table(page, server)
    events, lines = len(stored(page, server)), feed(page)
    phone.set_offline(True)
    passes.click()
    wait_until(page, f"{STATE} === 'waiting'")
    page.wait_for_timeout(4000)  # a try or two while the phone is offline
    assert page.evaluate(STATE) == "waiting" and len(stored(page, server)) == events
    phone.set_offline(False)
    wait_until(page, f"{STATE} === 'saved'", timeout=15)
    wait_until(page, SETTLED)
    recorded_once(page, server, events, lines)
    screens(page, "sent-when-back")


def test_the_offline_page_reloads_itself_and_the_tap_is_sent(context, server, screens):
    context.add_init_script(WATCH_BANNER)
    page = context.new_page()
    new_table(page, server)
    events, lines = len(stored(page, server)), feed(page)
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.active.state)") == "activated"
    page.reload()  # now under the service worker's control
    wait_until(page, "navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.locator("#turn button", has_text="passes").first.click()
    wait_until(page, f"{STATE} === 'waiting'")
    page.reload()  # the person reloads: the service worker's offline page
    main = page.inner_text("main")
    assert (
        "The score is safe on the server" in main
        and "This page reloads as soon as the server answers" in main
    )
    assert page.locator("#table").count() == 0 and page.evaluate(STATE) == "waiting"
    screens(page, "offline-page")
    context.set_offline(False)  # and nothing more: the page reloads itself, then sends the tap
    across_reloads(page, f"document.getElementById('table') !== null && {STATE} === 'saved'")
    wait_until(page, SETTLED)
    recorded_once(page, server, events, lines)
    screens(page, "back-and-saved")
