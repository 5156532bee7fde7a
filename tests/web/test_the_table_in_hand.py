"""Issue 25, items 4 and 8: the table as it is used, cards in one hand and the phone in the other."""

from __future__ import annotations

from webtools import HX, soup  # noqa: F401


def test_the_first_submit_button_of_the_new_match_form_starts_the_match(client):
    """Enter or "Go" presses a form's first submit button: it must start the match, not move a seat."""
    page = soup(client.get("/new"))
    first = page.select_one("form.new-match button")
    assert (first["name"], first["value"]) == ("start", "1")
    assert first.get("tabindex") == "-1" and first.get("aria-hidden") == "true"


def test_the_draw_for_the_first_deal_takes_ranks_and_gives_each_a_suit_of_its_own(keeper):
    keeper.new("Anna", "Bo", "Cia")
    drawn = {"draw.Anna": "7", "draw.Bo": "7", "draw.Cia": "10"}
    response = keeper.post(type="draw", drawing=["Anna", "Bo", "Cia"], **drawn)
    assert response.status_code == 200, response.text
    (draw,) = keeper.match.events
    assert {name: repr(card) for name, card in draw.cards.items()} == {"Anna": "7s", "Bo": "7h", "Cia": "Ts"}
    radios = soup(response).select("form.draw fieldset.ranks input[type=radio]")
    assert [r["value"] for r in radios[:13]] == [
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "J",
        "Q",
        "K",
        "A",
    ]
