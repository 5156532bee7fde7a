"""Issue 25, item 2: on the table's own network (plain HTTP, not localhost) the screen stays on and the
share page works.

Chromium's --host-resolver-rules maps table.home to 127.0.0.1, so the app is served from an origin
that is not a secure context (localhost would be one): no Screen Wake Lock API, no Clipboard API, no
Web Share, as on a phone at the table. There NoSleep.js (static/vendor/) keeps the screen on.
"""

from __future__ import annotations

import re

import pytest
from browsertools import CHROMIUM_ARGS, SETTLED, launch, start_match, wait_until

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 640}
# The browser tests' Chromium flags, the table's name for this machine, and a phone's autoplay rule.
ARGS = [
    *CHROMIUM_ARGS,
    "--host-resolver-rules=MAP table.home 127.0.0.1",
    "--autoplay-policy=user-gesture-required",  # as on a phone: a video starts only after a tap
]
# Every Content-Security-Policy violation and page error, kept where the test can read them.
WATCH_CSP = """window.violations = [];
document.addEventListener('securitypolicyviolation', e => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));"""


@pytest.fixture(scope="module")
def table_home(browser):
    """A Chromium that knows this machine as table.home, as the phones on the table's network do."""
    other = launch(browser.browser_type, ARGS)
    yield other
    other.close()


@pytest.fixture
def origin(server) -> str:
    return server.replace("127.0.0.1", "table.home")


def phone(table_home, **options):
    context = table_home.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True, **options)
    context.add_init_script(WATCH_CSP)
    return context


def errors_of(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def wake(page) -> list:
    return page.locator("#wake").evaluate("b => [b.hidden, b.getAttribute('aria-pressed'), b.dataset.state]")


def test_the_origin_is_not_a_secure_context(table_home, origin):
    context = phone(table_home)
    page = context.new_page()
    page.goto(origin + "/")
    assert page.evaluate("[window.isSecureContext, 'wakeLock' in navigator, !!navigator.clipboard]") == [
        False,
        False,
        False,
    ]
    context.close()


def test_the_screen_stays_on_by_nosleep_on_the_table_and_the_live_view(table_home, origin, screens):
    context = phone(table_home)
    starter = context.new_page()
    start_match(starter, origin, "Anna", "Bo")
    # The table opened afresh in a tab no tap has touched: the tap that started the match on the
    # form's page may, as the browser sees fit, still count as a gesture on the page it led to.
    page = context.new_page()
    errors = errors_of(page)
    page.goto(starter.url)
    starter.close()
    wait_until(page, "!document.getElementById('wake').hidden")  # NoSleep.js loaded: the switch is offered
    assert page.evaluate("typeof window.NoSleep") == "function"
    assert wake(page) == [False, "true", "off"]  # wanted, but no video starts before a tap
    page.get_by_role("button", name="Keep the screen on").click()  # a tap on the switch starts it
    wait_until(page, "document.getElementById('wake').dataset.state === 'on'")
    assert wake(page) == [False, "true", "on"]
    screens(page, "table-wake-on")
    page.get_by_role("button", name="Keep the screen on").click()
    wait_until(page, "document.getElementById('wake').dataset.state === 'off'")
    assert wake(page) == [False, "false", "off"]
    page.reload()  # remembered on this phone: off stays off whatever is tapped
    wait_until(page, SETTLED)
    wait_until(page, "!document.getElementById('wake').hidden")
    page.locator("main").click(position={"x": 2, "y": 2})
    assert wake(page) == [False, "false", "off"]
    page.get_by_role("button", name="Keep the screen on").click()
    wait_until(page, "document.getElementById('wake').dataset.state === 'on'")
    # Hidden and shown again: the video stops with the page and starts again with it.
    page.evaluate(
        "Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    wait_until(page, "document.getElementById('wake').dataset.state === 'off'")
    page.evaluate(
        "Object.defineProperty(document, 'visibilityState', {value: 'visible', configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    wait_until(page, "document.getElementById('wake').dataset.state === 'on'")

    page.locator("footer.links a[href$='/handover']").click()
    page.wait_for_url(re.compile(r"/handover$"))
    watch = page.locator("a#watch-link").get_attribute("href")
    assert watch.startswith(origin + "/watch?t=")
    viewer = phone(table_home).new_page()  # another phone at the table, on the live view
    viewer_errors = errors_of(viewer)
    viewer.goto(watch)
    wait_until(viewer, "!document.getElementById('wake').hidden")
    assert wake(viewer) == [False, "true", "off"]  # on once the phone is touched
    viewer.locator("p.readonly").click()  # the first tap anywhere starts it
    wait_until(viewer, "document.getElementById('wake').dataset.state === 'on'")
    screens(viewer, "live-view-wake-on")
    for each in (page, viewer):
        assert each.evaluate("window.violations") == []
    assert errors == [] and viewer_errors == []
    viewer.context.close()
    context.close()


def test_the_share_page_on_the_tables_network(table_home, origin, screens):
    """The links name the address the page was opened at; Copy selects and copies the link's text (no
    Clipboard API here), Share is not offered (no Web Share): no button that does nothing."""
    context = phone(table_home)
    page = context.new_page()
    errors = errors_of(page)
    start_match(page, origin, "Anna", "Bo")
    page.locator("footer.links a[href$='/handover']").click()
    page.wait_for_url(re.compile(r"/handover$"))
    assert page.locator(".reach").count() == 0  # nothing to warn about: other phones reach table.home
    watch = page.locator("a#watch-link")
    assert watch.get_attribute("href").startswith(origin + "/watch?t=")
    assert page.locator("svg.qr").first.bounding_box()["width"] >= 200
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    assert page.locator("[data-share]:visible").count() == 0
    screens(page, "share-on-the-tables-network")
    copy = page.locator("[data-copy=watch-link]")
    assert copy.is_visible()
    copy.click()
    wait_until(page, "!document.querySelector('[data-copied=watch-link]').hidden")
    assert page.evaluate("window.getSelection().toString()") == watch.get_attribute("href")
    assert page.locator("#announce").inner_text() == "Copied"
    screens(page, "share-copied")
    assert page.evaluate("window.violations") == [] and errors == []
    context.close()
