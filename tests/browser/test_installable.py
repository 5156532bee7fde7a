"""Issue 6: the app installs to the home screen, opens offline, and keeps the screen on during a match."""

from __future__ import annotations

import struct

import pytest
from browsertools import SETTLED, draw_for_deal, start_match, tap, wait_until

pytestmark = pytest.mark.browser


def png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", body[16:24])


def test_the_manifest_makes_the_app_installable(page, server, screens):
    page.goto(server + "/")
    manifest_url = page.locator("link[rel=manifest]").get_attribute("href")
    response = page.request.get(server + manifest_url)
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["name"] == "Chicago Scorekeeper" and manifest["short_name"] == "Chicago"
    assert manifest["display"] == "standalone" and manifest["theme_color"].startswith("#")
    assert manifest["start_url"] == "/"
    sizes = {}
    for icon in manifest["icons"]:
        body = page.request.get(server + icon["src"]).body()
        width, height = png_size(body)
        assert f"{width}x{height}" == icon["sizes"]
        sizes[icon["sizes"]] = icon
    assert {"192x192", "512x512"} <= set(sizes)
    touch = page.locator("link[rel=apple-touch-icon]").get_attribute("href")
    assert png_size(page.request.get(server + touch).body()) == (180, 180)
    assert page.locator("meta[name=theme-color]").get_attribute("content") == manifest["theme_color"]
    screens(page, "home")


def test_the_service_worker_keeps_the_shell_and_shows_the_offline_page(page, context, server, screens):
    start_match(page, server, "Anna", "Bo")
    draw_for_deal(page, Anna="5h", Bo="Ks")
    table = page.url
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.active.state)") == "activated"
    cached = page.evaluate(
        "caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))"
        ".then(lists => lists.flat().map(r => new URL(r.url).pathname))"
    )
    assert "/offline" in cached and all(path.startswith("/a/") or path == "/offline" for path in cached)
    page.reload()  # now under the service worker's control
    wait_until(page, "navigator.serviceWorker.controller !== null")

    context.set_offline(True)
    page.goto(table)
    assert "The score is safe on the server; reconnect to continue." in page.inner_text("main")
    screens(page, "offline")
    context.set_offline(False)  # the offline page reloads itself once the server answers (issue 25)
    page.wait_for_selector("#table", timeout=15_000)
    assert page.url == table and page.locator("[data-reload-when-back]").count() == 0
    page.goto(table)
    assert page.locator("#table").count() == 1  # a page is never served from the cache when online
    # A tap without the network waits, and says so (test_lost_answer.py: it is sent again when the
    # network is back); writes never go through the cache.
    context.set_offline(True)
    page.locator("#turn button", has_text="passes").first.click()
    wait_until(page, "!document.getElementById('offline').hidden")
    context.set_offline(False)
    cached_after = page.evaluate(
        "caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))"
        ".then(lists => lists.flat().map(r => new URL(r.url).pathname))"
    )
    assert sorted(cached_after) == sorted(cached)  # no match page or fragment was kept


def wake(page) -> list:
    return page.locator("#wake").evaluate("b => [b.hidden, b.getAttribute('aria-pressed'), b.dataset.state]")


def test_the_screen_stays_on_during_a_match_with_a_toggle(page, server, screens):
    page.goto(server + "/new")
    page.locator("input[name=name]").nth(0).fill("Anna")
    page.locator("input[name=name]").nth(1).fill("Bo")
    page.locator("details.house-rules summary").click()
    page.locator("select[name=win]").select_option("first_to_reach")  # so that a correction ends it
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url("**/m/**")
    wait_until(page, "document.getElementById('wake').dataset.state === 'on'")
    assert wake(page) == [False, "true", "on"]
    screens(page, "wake-on")
    page.get_by_role("button", name="Keep the screen on").click()
    wait_until(page, "document.getElementById('wake').dataset.state === 'off'")
    assert wake(page) == [False, "false", "off"]
    page.reload()  # remembered on this phone
    wait_until(page, SETTLED)
    assert wake(page)[1:] == ["false", "off"]
    page.get_by_role("button", name="Keep the screen on").click()
    wait_until(page, "document.getElementById('wake').dataset.state === 'on'")
    # Hidden and shown again (the browser drops the lock when the page is hidden): taken again.
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
    # Ending the match lets the screen sleep again: a correction takes Anna to the target.
    page.locator("details.correct summary").click()
    form = page.locator("details.correct form").first
    form.locator("select[name=player]").select_option("Anna")
    form.locator("input[name=points]").fill("52")
    tap(page, form.get_by_role("button"))
    wait_until(page, "document.getElementById('wake').hidden")
    assert wake(page) == [True, "true", "off"]
    screens(page, "finished")


def test_without_service_worker_or_wake_lock_everything_still_works(browser, server, screens):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    context.add_init_script("delete Navigator.prototype.wakeLock; delete Navigator.prototype.serviceWorker;")
    context.add_cookies([{"name": "entry", "value": "detail", "url": server}])  # one player's pass button
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_match(page, server, "Anna", "Bo")
    assert page.evaluate("'serviceWorker' in navigator || 'wakeLock' in navigator") is False
    wait_until(page, "!document.getElementById('wake').hidden")  # NoSleep.js keeps the screen on instead
    draw_for_deal(page, Anna="5h", Bo="Ks")
    tap(page, page.locator("#turn button", has_text="passes").first)
    assert page.locator(".feed").inner_text().count("passed") == 1
    assert errors == []
    context.close()


def test_the_language_switch_at_the_foot_of_every_page(page, server, screens):
    start_match(page, server, "Anna", "Bo")
    table = page.url
    page.select_option("footer.language select", "sv")
    page.get_by_role("button", name="Change language").click()
    page.wait_for_url(table)  # back on the same page, now in Swedish
    assert page.locator("html").get_attribute("lang") == "sv"
    assert page.get_by_role("button", name="Spara dragningen").is_visible()
    screens(page, "swedish")
    page.goto(server + "/rules")  # remembered on this phone
    assert page.locator("h1").inner_text() == "Reglerna för Chicago"
    for lang, title in (("el", "Οι κανόνες του Σικάγο"), ("hi", "शिकागो के नियम"), ("ja", "シカゴのルール")):
        page.select_option("footer.language select", lang)
        page.locator("footer.language button").click()
        page.wait_for_url(server + "/rules")
        assert page.locator("h1").inner_text() == title
        assert page.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth"
        )  # no sideways scroll
    page.goto(table)
    screens(page, "japanese", full_page=True)
    page.select_option("footer.language select", "en")
    page.locator("footer.language button").click()
    page.wait_for_url(table)
    assert page.get_by_role("button", name="Record the draw").is_visible()
