"""TRUST.md W6 in a real browser: a double tap sends one request, and the form is disabled in flight."""

from __future__ import annotations

import pytest
from browsertools import SETTLED, draw_for_deal, start_match, wait_until

pytestmark = pytest.mark.browser


def test_a_double_tap_sends_one_post_and_records_once(page, server):
    page.context.add_cookies([{"name": "entry", "value": "detail", "url": server}])  # a single pass button
    start_match(page, server, "Anna", "Bo")
    draw_for_deal(page, Anna="5h", Bo="Ks")
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    in_flight = page.evaluate(
        """() => {
          const button = [...document.querySelectorAll('#turn button')].find(b => b.textContent.includes('passes'));
          button.click();
          const disabled = button.closest('form').hasAttribute('disabled');
          const untappable = getComputedStyle(button).pointerEvents === 'none';
          button.click();  // the second tap of a double tap
          return [disabled, untappable];
        }"""
    )
    assert in_flight == [True, True]
    wait_until(page, SETTLED)
    page.wait_for_timeout(300)
    assert len(posts) == 1
    feed = page.locator("#feed li")
    assert feed.count() == 2 and "passed" in feed.first.inner_text()  # the draw, and one pass
