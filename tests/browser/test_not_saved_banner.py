"""TRUST.md R6 on the phone: a tap while the disk is full says why on the screen, and the next tap
once space returns is saved and the words go (the database on a small tmpfs: root, see disktools)."""

from __future__ import annotations

import pytest
from browsertools import SETTLED, draw_for_deal, start_match, tap, wait_until
from disktools import fill, small_disk
from servertools import Server

pytestmark = pytest.mark.browser

REASON = "Scores cannot be saved because the disk is full. Free space on the server, then tap again."


def test_a_tap_on_a_full_disk_shows_the_reason_and_the_same_tap_is_saved_once_space_returns(
    page, tmp_path, screens
):
    with small_disk(tmp_path / "disk", "8m") as disk:
        server = Server(disk / "scores.sqlite").start()
        try:
            url = f"http://127.0.0.1:{server.port}"
            page.context.add_cookies([{"name": "entry", "value": "detail", "url": url}])
            start_match(page, url, "Anna", "Bo")
            draw_for_deal(page, Anna="5h", Bo="Ks")
            banner = page.locator("#offline")
            passes = page.locator("#turn button", has_text="passes").first
            filler = fill(disk)
            with page.expect_response(lambda r: r.request.method == "POST") as answer:
                passes.click()
            assert answer.value.status == 503
            wait_until(page, SETTLED)
            wait_until(page, "() => !document.getElementById('offline').hidden")
            assert banner.inner_text().startswith(REASON)
            screens(page, "disk-full")
            assert page.locator("#feed li").count() == 1  # the draw; the pass is not shown as saved
            filler.unlink()
            tap(page, passes)
            assert banner.is_hidden()
            feed = page.locator("#feed li")
            assert feed.count() == 2 and "passed" in feed.first.inner_text()
            screens(page, "saved-again")
        finally:
            server.stop()
