"""What the table offers for a variant (issue 28): a blanco Chicago call only where the engine allows it,
the round's own Chicago value, who plays on without a Chicago, the hand that won at once; a blanco
call refused by the engine stores nothing."""

from __future__ import annotations

import json

from webtools import HX, recorded, soup

from scorekeeper.web import roles
from scorekeeper.web.store import eventlog, stats


def imported(client, name: str, cut: int, **rules) -> str:
    """Import a variant match up to ``cut`` events (this client keeps it); its id."""
    document = recorded(f"variants/{name}")
    document = {**document, "events": document["events"][:cut], "rules": {**document["rules"], **rules}}
    response = client.post("/import", data={"text": json.dumps(document)})
    assert response.status_code == 303, response.text
    return response.headers["Location"].split("/")[2]


def blanco_buttons(client, match_id: str) -> list[str]:
    return [
        b["value"] for b in soup(client.get(f"/m/{match_id}")).select("#turn form.blanco button[name=player]")
    ]


def test_a_blanco_call_is_offered_before_the_exchange_to_who_has_the_chicago_minimum(client):
    match_id = imported(client, "blanco-chicago", 17)
    assert blanco_buttons(client, match_id) == ["Bo"]  # Cia and Anna have 0: below 15


def test_no_blanco_call_without_the_variant_or_after_the_caller_exchanged(client):
    assert blanco_buttons(client, imported(client, "chicago-break-bonus", 17)) == []  # not played there
    match_id = imported(client, "blanco-chicago", 17)
    for version, player in enumerate(("Cia", "Anna", "Bo"), start=17):
        assert blanco_buttons(client, match_id) == ["Bo"]  # Bo has yet to exchange
        data = {"type": "exchange", "player": player, "count": "1", "version": str(version)}
        assert client.post(f"/m/{match_id}/record", data=data).status_code == 303
    assert blanco_buttons(client, match_id) == []


def test_a_blanco_call_the_engine_refuses_stores_nothing(app, client):
    match_id = imported(client, "blanco-chicago", 17)
    response = client.post(
        f"/m/{match_id}/record", data={"type": "blanco", "player": "Cia", "version": "17"}, headers=HX
    )
    assert response.status_code == 422
    assert "Cia has 0 points; Chicago needs 15" in soup(response).select_one(".refusal").text
    with app.app_context():
        assert eventlog.load_match(match_id).version == 17
    response = client.post(f"/m/{match_id}/record", data={"type": "blanco", "version": "17"}, headers=HX)
    assert response.status_code == 422
    assert "Tap who calls a blanco Chicago" in soup(response).select_one(".refusal").text


def test_a_blanco_call_is_said_with_its_own_value(client):
    match_id = imported(client, "blanco-chicago", 17)
    response = client.post(
        f"/m/{match_id}/record", data={"type": "blanco", "player": "Bo", "version": "17"}, headers=HX
    )
    assert response.status_code == 200
    turn = soup(response).select_one("#turn")
    assert "Bo called a blanco Chicago: all five tricks, or lose 30." in turn.text
    assert turn.select("form.blanco") == [] and turn.select(".chicago form") == []


def test_a_chicago_is_said_with_the_matchs_own_value(client):
    match_id = imported(client, "chicago-to-win", 18)  # Bo called Chicago, worth 10 in this match
    assert "Bo called Chicago: all five tricks, or lose 10." in soup(client.get(f"/m/{match_id}")).text


def test_the_table_says_who_plays_on_without_the_chicago_needed_to_win(client):
    match_id = imported(client, "chicago-to-win", 17)
    said = soup(client.get(f"/m/{match_id}")).select_one(".needs-chicago").text
    assert said == "Bo has 20 points but has not won a Chicago, which is needed to win"


def test_an_instant_win_says_the_hand_at_the_table_and_in_the_history(client):
    match_id = imported(client, "instant-win", 7)
    how = "Cia scored with a straight flush, which wins the match immediately."
    assert soup(client.get(f"/m/{match_id}")).select_one(".won-with").text == how
    assert how in [p.text for p in soup(client.get(f"/m/{match_id}/history")).select(".meta")]


def test_several_instant_win_hands_are_one_sentence_with_or(client):
    """RULES.md's instant-win variant may name several hands: one sentence, the language's "or" list."""
    from scorekeeper.hands import Category
    from scorekeeper.rules import Rules

    rules = Rules(instant_win=(Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH))
    assert [str(s) for s in rules.changes() if "immediately" in str(s)] == [
        "Whoever scores with a straight flush or a royal flush wins the match immediately."
    ]


def test_a_players_figures_count_the_points_of_each_variant_by_its_reason(app, client):
    imported(client, "blanco-chicago", 29)
    imported(client, "chicago-break-bonus", 35)
    with app.app_context():
        bo = stats.person(stats.person_id_of("Bo"))
        anna = stats.person(stats.person_id_of("Anna"))
    assert bo.by_source["blanco_won"] == 30 and bo.by_source["chicago_broken"] == 10
    assert anna.by_source == {"chicago_broken": 10}
    page = soup(client.get(f"/players/{anna.id}"))
    assert [row.text.strip() for row in page.select("tbody tr td:first-child")][-1:] == ["Chicago broken"]


def test_the_score_sheet_says_who_played_on_without_the_chicago_needed_to_win(client):
    match_id = imported(client, "chicago-to-win", 26)
    page = soup(client.get(f"/m/{match_id}/history"))
    assert [row.text for row in page.select("tr.played-on")] == [
        "Bo has 20 points but has not won a Chicago, which is needed to win"
    ]
    assert page.select_one(".meta").text.startswith("Bo won after 2 rounds")


def test_the_feed_says_a_blanco_chicago_made_or_broken(client):
    match_id = imported(client, "blanco-chicago", 26)
    assert (
        soup(client.get(f"/m/{match_id}")).select_one("#feed li").text.endswith("Bo made the blanco Chicago")
    )
    match_id = imported(client, "blanco-chicago", 20)
    data = {"type": "last_trick", "winner": "Cia", "version": "20"}
    page = soup(client.post(f"/m/{match_id}/record", data=data, headers=HX))
    assert page.select_one("#feed li").text.endswith("Cia broke Bo's blanco Chicago")
    assert "Bo −16, blanco Chicago lost" in page.select_one("#scoreboard").text  # 30, floored at 0


def test_the_live_view_says_a_blanco_chicago_and_who_must_still_win_one(app, client):
    match_id = imported(client, "blanco-chicago", 18)
    with app.test_request_context():
        token = roles.watch_token(match_id)
    board = soup(client.get(f"/watch/board?t={token}"))
    assert (
        board.select_one(".chicago-on").text.strip()
        == "Bo called a blanco Chicago: all five tricks, or lose 30."
    )
    match_id = imported(client, "chicago-to-win", 17)
    with app.test_request_context():
        token = roles.watch_token(match_id)
    board = soup(client.get(f"/watch/board?t={token}"))
    assert (
        board.select_one(".needs-chicago").text
        == "Bo has 20 points but has not won a Chicago, which is needed to win"
    )
