"""The variants of RULES.md in the new-match form: each a house rule, off unless ticked, stored in the
match's rules; a bad value refused with a clear message, nothing stored."""

import pytest
from webtools import soup

from scorekeeper.web.store import db as database
from scorekeeper.web.store import eventlog

THREE = ["Anna", "Bo", "Cia"]


def start(client, names=THREE, **fields):
    data = {"name": names, "dealer": "draw", "start": "1", **fields}
    return client.post("/new", data=data)


def stored_matches(app) -> int:
    with app.app_context():
        return database.get_db().table("matches").count


def test_the_form_offers_every_variant_switched_off(client):
    page = soup(client.get("/new"))
    variants = page.select_one("details.house-rules fieldset.variants")
    boxes = {box["name"]: box for box in variants.select("input[type=checkbox]")}
    assert set(boxes) == {
        "chicago_to_win",
        "four_of_a_kind_resets",
        "instant_win",
        "blanco_chicago",
        "chicago_break_bonus",
        "over_target_resets",
        "phases",
        "more_players",
    }
    assert not any(box.has_attr("checked") for box in variants.select("input[type=checkbox]"))
    for label in variants.select("label.variant"):  # each with one line saying what it does
        assert label.select_one("small.hint").text.strip()
    assert page.select_one("details.house-rules").has_attr("open") is False


@pytest.mark.parametrize(
    ("fields", "names", "rules"),
    [
        ({"chicago_to_win": "on"}, THREE, {"chicago_to_win": True}),
        ({"four_of_a_kind_resets": "on"}, THREE, {"four_of_a_kind_resets": True}),
        (
            {"instant_win": ["straight_flush", "royal_flush"]},
            THREE,
            {"instant_win": ["straight_flush", "royal_flush"]},
        ),
        ({"blanco_chicago": "on", "blanco_chicago.points": "30"}, THREE, {"blanco_chicago": 30}),
        ({"blanco_chicago": "on", "blanco_chicago.points": ""}, THREE, {"blanco_chicago": 30}),
        ({"blanco_chicago.points": "40"}, THREE, {}),  # a value without its box: not played
        (
            {"chicago_break_bonus": "on", "chicago_break_bonus.points": "12"},
            THREE,
            {"chicago_break_bonus": 12},
        ),
        ({"over_target_resets": "on"}, THREE, {"over_target_resets": True}),
        ({"phases": "2"}, THREE, {"phases": 2}),
        ({"more_players": "on"}, [*THREE, "Dan", "Eva", "Fay"], {"more_players": True}),
        ({"more_players": "on"}, ["Anna", "Bo", "Cia", "Dan", "Eva", ""], {"more_players": True}),
    ],
    ids=[
        "chicago-to-win",
        "four-of-a-kind-resets",
        "instant-win",
        "blanco",
        "blanco-usual-value",
        "blanco-value-alone",
        "break-bonus",
        "over-target-resets",
        "two-phases",
        "six-players",
        "five-players",
    ],
)
def test_each_variant_is_stored_in_the_match_rules(app, client, fields, names, rules):
    response = start(client, names, **fields)
    assert response.status_code == 303, response.text
    with app.app_context():
        match = eventlog.load_match(response.headers["Location"].rsplit("/", 1)[1])
    assert match.rules.to_dict() == rules
    assert match.players == tuple(name for name in names if name)


@pytest.mark.parametrize(
    ("fields", "names", "message"),
    [
        ({}, [*THREE, "Dan", "Eva"], "A fifth or sixth player needs the house rule “Five or six players”."),
        ({"blanco_chicago": "on", "blanco_chicago.points": "1001"}, THREE, "Blanco Chicago value must be"),
        ({"blanco_chicago": "on", "blanco_chicago.points": "thirty"}, THREE, "Blanco Chicago value must be"),
        (
            {"chicago_break_bonus": "on", "chicago_break_bonus.points": "-3"},
            THREE,
            "Bonus for breaking a Chicago must be a whole number from 0 to 1000",
        ),
        ({"phases": "4"}, THREE, "must be 3 or 2"),
        ({"instant_win": "five_aces"}, THREE, "is not a hand name"),
        ({"more_players": "on"}, ["Anna", "", "", "", "", ""], "Chicago is played by 2 to 6 players, not 1"),
    ],
    ids=[
        "fifth-without-variant",
        "blanco-too-high",
        "blanco-not-a-number",
        "negative-bonus",
        "phases",
        "hand",
        "one",
    ],
)
def test_a_bad_variant_is_refused_with_a_clear_message_and_nothing_is_stored(
    app, client, fields, names, message
):
    response = start(client, names, **fields)
    assert response.status_code == 422
    assert message in soup(response).select_one(".refusal").text
    assert stored_matches(app) == 0
    page = soup(response)  # the form comes back as it was filled in
    assert [field["value"] for field in page.select("input[name=name]") if field["value"]] == [
        n for n in names if n
    ]


def test_seats_five_and_six_stay_with_their_names_when_a_seat_moves(client):
    names = ["Anna", "Bo", "Cia", "Dan", "Eva", "Fay"]
    response = client.post("/new", data={"name": names, "more_players": "on", "move": "4"})
    assert response.status_code == 200
    page = soup(response)
    assert [field["value"] for field in page.select("input[name=name]")] == [
        "Anna",
        "Bo",
        "Cia",
        "Eva",
        "Dan",
        "Fay",
    ]
    assert page.select_one("input[name=more_players]").has_attr("checked")
    dealers = page.select(".first-dealer label:not([hidden]) input[type=radio]")
    assert len(dealers) == 7  # the draw, and each of six players


def test_the_rules_page_states_every_variant_and_the_matchs_active_ones(app, client):
    general = soup(client.get("/rules")).select_one("#variants").parent
    assert "Blanco Chicago" in general.text and "Five or six players" in general.text
    response = start(client, chicago_to_win="on", phases="2", chicago_break_bonus="on")
    match_id = response.headers["Location"].rsplit("/", 1)[1]
    page = soup(client.get(f"/rules?m={match_id}"))
    said = [li.text for li in page.select(".house li")]
    assert said == [
        "Only a player who has won a Chicago can win the match.",
        "Breaking a Chicago scores 10.",
        "A round has two phases.",
    ]
    on = [item.select_one("dt").text.strip() for item in page.select("#variants ~ dl .on")]
    assert on == ["Chicago required to win", "Bonus for breaking a Chicago", "Two phases instead of three"]


def test_the_rules_pages_points_table_gives_the_blanco_and_break_bonus_values(client):
    response = start(
        client, blanco_chicago="on", chicago_break_bonus="on", **{"chicago_break_bonus.points": "12"}
    )
    match_id = response.headers["Location"].rsplit("/", 1)[1]
    rows = [
        [td.text for td in tr.select("td")]
        for tr in soup(client.get(f"/rules?m={match_id}")).select("#points ~ table tr")
    ]
    assert ["Blanco Chicago won", "30"] in rows and ["Blanco Chicago lost", "−30"] in rows
    assert ["Chicago broken", "12"] in rows
