"""Issue 25, items 4 and 8: the table as it is used, cards in one hand and the phone in the other."""

from __future__ import annotations

from webtools import HX, soup  # noqa: F401


def test_the_first_submit_button_of_the_new_match_form_starts_the_match(client):
    """Enter or "Go" presses a form's first submit button: it must start the match, not move a seat."""
    page = soup(client.get("/new"))
    first = page.select_one("form.new-match button")
    assert (first["name"], first["value"]) == ("start", "1")
    assert first.get("tabindex") == "-1" and first.get("aria-hidden") == "true"

