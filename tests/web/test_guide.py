"""Issue 6: the rules page, a match's house rules on it, and refusals that link to the rule they enforce."""

from __future__ import annotations

from webtools import soup

from scorekeeper.refusals import Refusal, Section


def test_every_refusal_links_to_a_section_of_the_rules_page(client):
    page = soup(client.get("/rules"))
    ids = {element["id"] for element in page.select("h2[id]")}
    assert {refusal.section.value for refusal in Refusal} <= ids
    assert {section.value for section in Section} <= ids


def test_the_base_rules_show_the_base_points(client):
    page = soup(client.get("/rules"))
    rows = {tr.td.text: tr.select("td")[1].text for tr in page.select("table.sheet tbody tr")}
    assert rows["Pair"] == "1" and rows["Royal flush"] == "52" and rows["Last trick"] == "5"
    assert page.select_one(".house") is None  # no match, no house rules
    assert "only with at least 15 points" in page.text


def test_a_matchs_house_rules_are_listed_and_used_in_the_text(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna", target="30", chicago_min="13", **{"points.four_of_a_kind": "8"})
    page = soup(client.get(f"/rules?m={keeper.match_id}"))
    changes = [li.text for li in page.select(".house li")]
    assert changes == [
        "The target is 30 points.",
        "Four of a kind: 8 points.",
        "A player needs at least 13 points to call Chicago.",
    ]
    rows = {tr.td.text: tr.select("td")[1].text for tr in page.select("table.sheet tbody tr")}
    assert rows["Four of a kind"] == "8"
    assert "only with at least 13 points" in page.text
    assert "if anyone has 30 points or more, the player with the highest total wins" in page.text


def test_a_match_on_the_base_rules_says_so(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    page = soup(client.get(f"/rules?m={keeper.match_id}"))
    assert "This match follows the standard rules." in page.select_one(".house").text


def test_an_unknown_match_shows_the_base_rules(client):
    response = client.get("/rules?m=nope")
    assert response.status_code == 200
    assert soup(response).select_one(".house") is None


def test_the_rules_page_says_how_the_standings_rate_and_what_the_room_board_shows(client):
    """Issue 28: the rules page describes the variants, the standings and the room board."""
    page = soup(client.get("/rules"))
    section = page.select_one("#standings").find_next_siblings("p", limit=2)
    assert "finished matches only" in section[0].text and "final totals" in section[0].text
    assert "every match in progress" in section[1].text and "read-only" in section[1].text
    assert page.select_one("#variants") is not None
