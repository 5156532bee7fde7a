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
    ranks = [o.get_text() for o in soup(response).select("form.draw select[name='draw.Anna'] option")]
    assert ranks == ["–", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]  # a tie: again


def _chicago_called(keeper):
    """Anna deals; Bo scores a pair in phase 1 and calls Chicago in phase 3 (it needs 1 point here)."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna", chicago_min="1")
    keeper.post("showdown", tap="pair:Bo")
    keeper.post("showdown", tap="")
    keeper.post(type="chicago", player="Bo")


def test_a_chicago_is_asked_in_the_words_of_the_table(keeper):
    _chicago_called(keeper)
    tricks = keeper.page().select_one("#turn .tricks")
    assert tricks.select_one("h2").get_text(strip=True) == "Did Bo make the Chicago?"
    buttons = [(b["value"], b.get_text(strip=True)) for b in tricks.select("form.last-trick button")]
    assert buttons == [
        ("Bo", "Bo made the Chicago"),
        ("Cia", "Cia took a trick"),
        ("Anna", "Anna took a trick"),
    ]


def test_a_broken_chicago_is_logged_as_it_happened(keeper):
    _chicago_called(keeper)
    keeper.post(type="last_trick", winner="Cia")
    page = keeper.page()
    assert page.select_one("#feed li").get_text(" ", strip=True).endswith("Cia broke Bo's Chicago")
    assert "Cia broke Bo's Chicago" in page.select_one("button.undo").get_text()
    keeper.post("undo")
    line = keeper.page().select_one("#feed li").get_text(" ", strip=True)
    assert line.endswith("Undone: Cia broke Bo's Chicago")


def test_a_chicago_made_is_logged_as_made(keeper):
    _chicago_called(keeper)
    keeper.post(type="last_trick", winner="Bo")
    assert keeper.page().select_one("#feed li").get_text(" ", strip=True).endswith("Bo made the Chicago")


def test_a_chicago_made_trick_by_trick_is_logged_at_its_fifth_trick(keeper):
    _chicago_called(keeper)
    for _ in range(5):
        keeper.post(type="trick", winner="Bo")
    lines = [li.get_text(" ", strip=True) for li in keeper.page().select("#feed li")[:5]]
    assert lines[0].endswith("Bo made the Chicago")
    assert all(line.endswith("Bo took a trick") for line in lines[1:])


def test_a_show_whose_cards_hold_says_so_until_the_phase_ends(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="two_pair:Bo")
    assert keeper.page().select_one("p.held") is None
    keeper.post(type="show", player="Bo", cards="Kd Kc 4h 4s 9s")
    held = keeper.page().select_one("#turn p.held[role=status]")
    assert held.get_text(strip=True) == "Bo showed at least two pair: the phase-1 points stand."
    keeper.post("showdown", tap="")
    assert keeper.page().select_one("p.held") is None  # phase 3


def test_a_show_whose_cards_do_not_hold_is_not_said_to_hold(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="two_pair:Bo")
    keeper.post(type="show", player="Bo", cards="Kd Kc 4h 3s 9s")
    page = keeper.page()
    assert page.select_one("p.held") is None and page.select_one("#turn .flag") is not None


def test_undo_offers_redo_which_records_the_step_again_once(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="flush:Cia")
    assert keeper.page().select_one("button.undo small").get_text() == "Cia declared a flush"
    keeper.post("undo")
    redo = keeper.page().select_one("form.redo")
    assert redo.select_one("button small").get_text() == "Cia declared a flush"
    assert "key" in redo["hx-vals"] and redo["hx-sync"] == "this:drop"
    version, key = keeper.version, redo.select_one("input[name=key]")["value"]
    first = keeper.post("redo", key=key)
    assert first.status_code == 200
    again = keeper.post("redo", key=key, version=version)  # a retry of the same tap: the same answer
    assert again.status_code == 200 and again.headers["X-Event-Seq"] == first.headers["X-Event-Seq"]
    events = keeper.match.events
    assert [e.type for e in events[-3:]] == ["pass", "declare", "pass"] and len(events) == 1 + 3 + 3 + 3
    page = keeper.page()
    assert page.select_one("form.redo") is None
    assert page.select_one("#scoreboard .seat:nth-of-type(3) .score").get_text() == "5"


def test_a_redo_from_a_stale_screen_or_after_another_tap_records_nothing(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="pair:Bo")
    keeper.post("undo")
    stale = keeper.version
    keeper.post("showdown", tap="")  # the table moved on
    rows = keeper.rows()
    assert keeper.post("redo", version=stale).status_code == 409
    refused = keeper.post("redo")  # the latest tap was not an undo
    assert refused.status_code == 422 and "nothing to redo" in refused.text
    assert keeper.rows() == rows


def test_redo_is_offered_for_a_few_seconds_only(keeper, monkeypatch):
    from scorekeeper.web.present import feed

    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post("undo")
    assert keeper.page().select_one("button.redo")["data-redo-left"] in {str(n) for n in range(1, 9)}
    monkeypatch.setattr(feed, "REDO_SECONDS", 0)
    assert keeper.page().select_one("form.redo") is None


def test_the_grid_columns_are_the_seats_in_order_and_the_first_speaker_is_marked(keeper):
    keeper.new("Anna", "Bo", "Cia", "Dan", dealer="Bo")  # Cia speaks first
    grid = keeper.page().select_one("#turn form.quick .quick-grid")
    pair = [b["value"].split(":")[1] for b in grid.select("button[value^='pair:']")]
    assert pair == ["Anna", "Bo", "Cia", "Dan"]  # the scoreboard's order, not the speaking order
    assert {b["value"] for b in grid.select("button.first")} == {
        f"{hand}:Cia" for hand in ("pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house")
    } | {f"{hand}:Cia" for hand in ("four_of_a_kind", "straight_flush", "royal_flush")}
    keeper.post("showdown", tap="")
    keeper.post("showdown", tap="")
    keeper.post(type="last_trick", winner="Anna")
    keeper.post("showdown", tap="")  # round 2: Cia deals, Dan speaks first
    grid = keeper.page().select_one("#turn form.quick .quick-grid")
    assert [b["value"].split(":")[1] for b in grid.select("button[value^='pair:']")] == [
        "Anna",
        "Bo",
        "Cia",
        "Dan",
    ]
    assert grid.select_one("button.first")["value"] == "pair:Dan"
