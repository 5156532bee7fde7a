"""The live view pushed (issue 14): a spectator's board follows a tap by the stream, or by polling without it."""

import time

import pytest
from browsertools import draw_for_deal, quick, start_match, wait_until

pytestmark = pytest.mark.browser

STREAM = "**/watch/stream?*"


def share_link(page, server) -> str:
    start_match(page, server, "Anna", "Bo")
    page.locator("footer.links a[href$='/handover']").click()
    watch_url = page.locator(".link-box a").first.get_attribute("href")
    page.go_back()
    return watch_url


def board_requests(live) -> list:
    asked: list = []
    live.on("request", lambda request: asked.append(request) if "/watch/board" in request.url else None)
    return asked


def shown_version(live) -> str:
    return live.evaluate("document.getElementById('board').dataset.version")


def test_a_tap_reaches_the_spectator_by_push_and_the_poll_waits_meanwhile(page, other_phone, server):
    watch_url = share_link(page, server)
    live = other_phone.new_page()
    asked = board_requests(live)
    live.goto(watch_url)
    wait_until(live, "() => document.body.dataset.stream === 'open'")
    before = shown_version(live)
    time.sleep(3)  # longer than the poll's 2 s: while the stream speaks, the page does not poll
    assert asked == []
    draw_for_deal(page, Anna="5h", Bo="Ks")
    wait_until(live, f"() => document.getElementById('board').dataset.version !== '{before}'")
    assert asked == []  # the board came in the stream itself: no fetch
    assert "deals" in live.locator("#board").inner_text()
    dealt = shown_version(live)
    quick(page, "Bo", "pair")  # the board swapped in from the stream follows the next tap too
    wait_until(live, f"() => document.getElementById('board').dataset.version !== '{dealt}'")
    assert asked == [] and "Bo" in live.locator("#board .feed").inner_text()
    live.close()


@pytest.mark.parametrize("cut", ["refused", "declined"], ids=["stream-cannot-connect", "server-declines-204"])
def test_without_the_stream_the_board_polls_and_still_follows(page, other_phone, server, cut):
    watch_url = share_link(page, server)
    if cut == "refused":
        other_phone.route(STREAM, lambda route: route.abort("connectionrefused"))
    else:
        other_phone.route(STREAM, lambda route: route.fulfill(status=204))
    live = other_phone.new_page()
    asked = board_requests(live)
    live.goto(watch_url)
    wait_until(live, "() => document.body.dataset.stream === 'down'")
    before = shown_version(live)
    draw_for_deal(page, Anna="5h", Bo="Ks")
    wait_until(live, f"() => document.getElementById('board').dataset.version !== '{before}'")
    assert asked  # polls brought it
    assert "deals" in live.locator("#board").inner_text()
    live.close()


def test_a_poll_without_an_answer_says_it_tries_again_and_never_not_saved(page, other_phone, server):
    """A spectator saves nothing: a board that does not come says so, and goes when one comes."""
    watch_url = share_link(page, server)
    other_phone.route(STREAM, lambda route: route.abort("connectionrefused"))
    live = other_phone.new_page()
    live.goto(watch_url)
    wait_until(live, "() => document.body.dataset.stream === 'down'")
    other_phone.route("**/watch/board?*", lambda route: route.abort("connectionrefused"))
    banner = live.locator("#offline")
    banner.wait_for(state="visible", timeout=10_000)  # the next poll had no answer
    assert "trying again" in banner.inner_text() and "Not saved" not in banner.inner_text()
    other_phone.unroute("**/watch/board?*")
    draw_for_deal(page, Anna="5h", Bo="Ks")
    banner.wait_for(state="hidden", timeout=10_000)  # a poll answered
    assert "deals" in live.locator("#board").inner_text()
    live.close()
