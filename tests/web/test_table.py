"""The scoring screen through the Flask test client: every route, htmx and plain, refusals, persistence."""

import pytest
from webtools import HX, MATCHES, Keeper, recorded, soup

from scorekeeper.matchfile import load
from scorekeeper.web import create_app


def test_index_and_new_match_pages_render(client):
    assert client.get("/").status_code == 200
    page = soup(client.get("/new"))
    assert len(page.select("fieldset:not(.variants) input[name=name]")) == 4
    assert len(page.select(".variants .more-seats input[name=name]")) == 2  # with "Five or six players"


def test_starting_a_match_redirects_to_its_table(keeper, client):
    keeper.new("Anna", "Bo", "Cia")
    page = keeper.page()
    assert page.select_one("#table") is not None
    assert "Who deals first?" in page.select_one("#turn").text


def test_the_first_dealer_can_be_picked_when_starting(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Bo")
    assert keeper.match.version == 1
    assert "Bo deals" in keeper.page().select_one(".where").text


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["Anna", "", "", ""], "Chicago is played by 2 to 4 players, not 1"),
        (["Anna", "anna", "", ""], "Each player needs a different name"),
    ],
)
def test_a_bad_new_match_is_refused_and_stores_nothing(client, names, message):
    response = client.post("/new", data={"name": names, "dealer": "draw", "start": "1"})
    assert response.status_code == 422
    assert message in response.text
    assert "/m/" not in response.headers.get("Location", "")


def test_seats_are_reordered_without_storing_anything(client):
    response = client.post("/new", data={"name": ["Anna", "Bo", "Cia", ""], "move": "2"})
    assert response.status_code == 200
    assert [i["value"] for i in soup(response).select("input[name=name]")][:3] == ["Anna", "Cia", "Bo"]
    assert "Anna" not in client.get("/").text


def test_house_rules_are_stored_and_summarised(keeper):
    keeper.new("Anna", "Bo", target="30", win="first_to_reach", **{"points.four_of_a_kind": "8"})
    assert keeper.match.rules.to_dict() == {
        "target": 30,
        "win": "first_to_reach",
        "points": {"four_of_a_kind": 8},
    }
    footer = keeper.page().select_one("footer.links p").text
    assert footer.startswith(
        "This match has house rules. The target is 30 points. Four of a kind: 8 points."
        " The first to reach the target wins immediately."
    )


def test_one_house_rule_is_introduced_in_the_singular(keeper):
    keeper.new("Anna", "Bo", target="10")
    footer = keeper.page().select_one("footer.links p").text
    assert footer.startswith("This match has a house rule. The target is 10 points. ")


def test_the_history_gives_the_target_once(keeper, client):
    keeper.new("Anna", "Bo", target="10", win="first_to_reach")
    meta = [p.text for p in soup(client.get(f"/m/{keeper.match_id}/history")).select("main p.meta")]
    assert any(text.endswith(" · target 10") for text in meta)
    # Two house rules, the target said in the line above: the sentence counts both.
    assert "This match has house rules. The first to reach the target wins immediately." in meta
    assert not any("The target is" in text for text in meta)


def test_a_history_with_only_the_target_changed_has_no_house_rules_line(keeper, client):
    keeper.new("Anna", "Bo", target="10")
    meta = [p.text for p in soup(client.get(f"/m/{keeper.match_id}/history")).select("main p.meta")]
    assert any(text.endswith(" · target 10") for text in meta)
    assert not any("house rule" in text or "standard rules" in text for text in meta)


def test_the_table_and_the_rules_page_say_the_house_rules_alike(keeper, client):
    keeper.new("Anna", "Bo", chicago_min="13", no_exchange_at="40")
    client.set_cookie("lang", "sv")
    footer = keeper.page().select_one("footer.links p").text
    rules_page = soup(client.get(f"/rules?m={keeper.match_id}"))
    said = [li.text for li in rules_page.select(".house li")]
    assert said == [
        "Chicago får ropas med 13 poäng eller mer.",
        "Köpstopp för den som har 40 poäng eller mer.",
    ]
    assert footer.startswith("Den här matchen har husregler. " + " ".join(said))


def test_the_round_summary_names_only_the_players_whose_totals_changed(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    for fields in ({"tap": "pair:Bo"}, {"tap": ""}):
        assert keeper.post("showdown", **fields).status_code == 200
    assert keeper.post(type="last_trick", winner="Cia").status_code == 200
    assert keeper.post("showdown", tap="").status_code == 200
    summary = keeper.page().select_one("p.summary").text
    assert summary == "Round 1: Bo +1 and Cia +5. Bo deals round 2."  # Anna scored nothing: no "Anna +0"


def test_a_round_that_changed_no_total_says_nobody_scored(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna", chicago_min="0")
    for _ in range(2):
        assert keeper.post("showdown", tap="").status_code == 200
    assert keeper.post(type="chicago", player="Bo").status_code == 200
    assert keeper.post(type="trick", winner="Cia").status_code == 200  # Bo's Chicago lost, floored at 0
    assert keeper.post("showdown", tap="").status_code == 200
    assert keeper.page().select_one("p.summary").text == "Round 1: nobody scored. Bo deals round 2."


def test_a_match_on_the_base_rules_says_so_at_the_foot_of_the_table(keeper):
    keeper.new("Anna", "Bo")
    assert (
        keeper.page().select_one("footer.links p").text.startswith("This match follows the standard rules.")
    )


def test_an_htmx_action_returns_the_table_fragment(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    response = keeper.post(type="pass", player="Bo")
    assert response.status_code == 200
    assert "<html" not in response.text
    assert soup(response).find().get("id") == "table"
    assert "HX-Request" in response.headers["Vary"]


def test_a_plain_action_redirects_to_the_table(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    response = keeper.post(type="pass", player="Bo", htmx=False)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/m/{keeper.match_id}")


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_refused_action_shows_the_engines_message_and_stores_nothing(keeper, htmx):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    rows = keeper.rows()
    response = keeper.declare("Cia", "pair", htmx=htmx)
    assert response.status_code == 422
    refusal = soup(response).select_one("p.refusal[role=alert]")
    assert refusal.text == "Cia must declare at least two pair, or pass The rule"
    assert refusal.a["href"] == f"/rules?m={keeper.match_id}#showdown"  # the rule it enforces
    assert ("<html" in response.text) is not htmx
    assert keeper.rows() == rows


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"type": "declare", "player": "Bo", "hand": "pair", "cards": "Qs Qh 1x 5d 2s"},
            "“1x” is not a card",
        ),
        ({"type": "declare", "player": "Bo", "hand": "high_card"}, "The app did not understand this form"),
        (
            {"type": "exchange", "player": "Bo", "count": "many"},
            "Cards exchanged must be a whole number from 0 to 5",
        ),
        (
            {"type": "exchange", "player": "Bo", "count": "9"},
            "Cards exchanged must be a whole number from 0 to 5",
        ),
        ({"type": "shuffle"}, "That is not an action the scorekeeper can record"),
        ({"type": "tie"}, "Say whose hand is higher, or enter the cards"),
        ({}, "That is not an action the scorekeeper can record"),
    ],
)
def test_a_malformed_post_gets_a_clear_error_and_changes_nothing(keeper, fields, message):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(**fields)
    assert response.status_code == 422
    assert message in response.text
    assert keeper.rows() == rows


@pytest.mark.parametrize(
    "cards", [{"cards": "Qs Qs 9c 5d 2s"}, {"cards": "Qs 9c 5d 2s", "pick": "Qs"}], ids=["typed", "picked"]
)
def test_a_card_twice_in_one_hand_is_refused_by_the_one_deck_rule_in_the_readers_language(
    keeper, client, cards
):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    rows = keeper.rows()
    data = {"version": str(keeper.version), "type": "declare", "player": "Bo", "hand": "pair", **cards}
    headers = {**HX, "Accept-Language": "sv"}
    response = client.post(f"/m/{keeper.match_id}/record", data=data, headers=headers)
    assert response.status_code == 422
    refusal = soup(response).select_one("p.refusal[role=alert]")
    assert "Bo kan inte ha Q♠ två gånger: det finns bara en kortlek" in refusal.text
    assert refusal.a["href"] == f"/rules?m={keeper.match_id}#deck"
    assert keeper.rows() == rows


def test_a_post_without_a_version_is_refused(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    response = client.post(f"/m/{keeper.match_id}/record", data={"type": "pass", "player": "Bo"}, headers=HX)
    assert response.status_code == 400
    assert keeper.rows() == 1
    refusal = soup(response).select_one("p.refusal[role=alert]").text
    assert refusal == "This form is out of date. Reload the page and try again."


def test_a_stale_screen_or_a_double_tap_records_once(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    version = keeper.version
    first = keeper.post(type="pass", player="Bo", version=version)
    again = keeper.post(type="pass", player="Bo", version=version)
    assert first.status_code == 200
    assert again.status_code == 409
    assert "nothing was recorded" in again.text
    assert keeper.rows() == 2


def test_undo_says_what_it_undoes_and_walks_back(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "pair")
    keeper.declare("Cia", "flush")
    assert "Cia declared a flush" in keeper.page().select_one("button.undo").text
    keeper.post("undo")
    page = keeper.page()
    assert "Bo declared a pair" in page.select_one("button.undo").text
    assert "Undone: Cia declared a flush" in page.select_one("#feed").text
    keeper.post("undo")
    keeper.post("undo")
    assert keeper.page().select_one("button.undo") is None  # back at the start
    assert keeper.post("undo").status_code == 422


def test_the_undo_button_is_one_tap_and_says_what_it_undoes(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    form = keeper.page().select_one("form.undo")
    assert not form.has_attr("hx-confirm")  # issue 25: "Redo" for a few seconds instead of a dialog
    assert form.select_one("button").get_text(" ", strip=True) == "↶ Undo Anna deals first"


def test_only_legal_declarations_are_enabled_and_lower_ones_are_explained(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna").detailed()
    keeper.declare("Bo", "straight")
    buttons = keeper.page().select(".hand-buttons button")
    enabled = [b["value"] for b in buttons if not b.has_attr("disabled")]
    assert enabled == ["straight", "flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush"]
    assert "At least a straight (the best so far), or pass." in keeper.page().text


def test_cards_shown_in_the_showdown_are_marked_in_the_picker(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna").detailed()
    keeper.declare("Bo", "pair", "Qs Qh 9c 5d 2s")
    picked = keeper.page().select("#turn input[name=pick][disabled]")
    assert sorted(i["value"] for i in picked) == ["2s", "5d", "9c", "Qh", "Qs"]


def test_picked_and_typed_cards_make_one_hand(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    response = keeper.client.post(
        f"/m/{keeper.match_id}/record",
        data={
            "version": "1",
            "type": "declare",
            "player": "Bo",
            "hand": "two_pair",
            "cards": "Qs Qh",
            "pick": ["9c", "9d", "2s"],
        },
        headers=HX,
    )
    assert response.status_code == 200
    assert "Bo declared two pair (Q♠ Q♥ 9♣ 9♦ 2♠)" in response.text


def test_a_correction_is_said_alike_on_the_scoreboard_and_the_score_sheet(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post(type="adjust", player="Bo", points="5", reason="forgot the last trick")
    assert keeper.page().select_one("#scoreboard .last").text == "Bo +5, correction (forgot the last trick)"
    sheet = soup(client.get(f"/m/{keeper.match_id}/history")).select_one("table.sheet.changes").text
    assert "correction (forgot the last trick)" in sheet


def test_chicago_is_offered_only_with_enough_points_and_the_reason_is_shown(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post(type="adjust", player="Bo", points="15", reason="head start")
    for _ in range(2):
        for name in ("Bo", "Cia", "Anna"):
            keeper.post(type="pass", player=name)
    page = keeper.page()
    buttons = {b["value"]: b.has_attr("disabled") for b in page.select(".chicago button")}
    assert buttons == {"Bo": False, "Cia": True, "Anna": True}
    assert "Cia has 0 points; Chicago needs 15" in page.select_one(".chicago").text
    keeper.post(type="chicago", player="Cia")  # a forged tap on a disabled button is refused too
    assert "Cia has 0 points; Chicago needs 15" in keeper.post(type="chicago", player="Cia").text


def test_when_nobody_may_call_chicago_one_line_says_why(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    for _ in range(2):
        keeper.post(type="pass", player="Bo")
        keeper.post(type="pass", player="Anna")
    chicago = keeper.page().select_one(".chicago")
    assert chicago.select("button") == []
    assert chicago.text.strip() == "No Chicago this round: it needs 15 points (Bo 0 and Anna 0)."


def test_a_tie_asks_for_cards_one_player_at_a_time_then_says_who_won(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    keeper.declare("Cia", "two_pair")
    keeper.post(type="pass", player="Anna")
    assert "Enter Bo's cards" in keeper.page().select_one("#turn").text
    keeper.post(type="tie", player="Bo", cards="Ks Kh 4c 4d 2s")
    assert "Enter Cia's cards" in keeper.page().select_one("#turn").text
    response = keeper.post(type="tie", player="Cia", cards="Kd Kc 4h 4s 9s")
    assert "Cia +2, two pair (higher kicker, 9 against 2)" in soup(response).text


def test_a_match_survives_a_new_app_on_the_same_database(keeper, app):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "flush")
    again = create_app(dict(app.config)).test_client()
    page = soup(again.get(f"/m/{keeper.match_id}"))
    assert "Bo declared a flush" in page.select_one("#feed").text


@pytest.mark.parametrize(
    "path", sorted(p.stem for p in MATCHES.glob("*.json") if p.stem not in ("bad-card", "truncated"))
)
def test_a_recorded_match_scored_by_taps_reaches_the_files_result(keeper, path):
    document = recorded(path)
    match = load(document)
    keeper.new(*match.players, **_rule_fields(document.get("rules", {})))
    for index, event in enumerate(match.events):
        response = keeper.record(event)
        if document["expected"]["exit"] == 1 and index == document["expected"]["event"]:
            assert response.status_code == 422
            assert document["expected"]["error"] in response.text.replace("&#39;", "'")
            return
        assert response.status_code == 200, (index, event, soup(response).select_one(".refusal"))
    expected = document["expected"]
    seats = keeper.page().select(".seat")
    scores = {s.select_one(".name").text: int(s.select_one(".score").text) for s in seats}
    assert scores == expected["scores"]
    if expected["winner"]:
        assert f"{expected['winner']} wins with" in keeper.page().select_one("#turn").text


def _rule_fields(rules: dict) -> dict:
    return {key: str(value) for key, value in rules.items()}


def test_export_downloads_the_match_file_that_imports_identically(keeper, client):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "pair", "Qs Qh 9c 5d 2s")
    keeper.post("undo")
    response = client.get(f"/m/{keeper.match_id}/export")
    assert response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    assert load(response.get_json()) == keeper.match.file


def test_an_unknown_match_is_404(client):
    assert client.get("/m/nope").status_code == 404
    assert client.post("/m/nope/record", data={"version": "0"}).status_code == 404


def _keeper_is_used(keeper: Keeper) -> None:  # keep the fixture's type visible to readers
    assert keeper


def test_the_cached_state_after_each_tap_equals_a_full_replay(keeper, app):
    from scorekeeper.web.cache import cache
    from scorekeeper.web.store import eventlog

    document = recorded("two-players-to-royal-flush")
    match = load(document)
    keeper.new(*match.players)
    for event in match.events:
        assert keeper.record(event).status_code == 200
        with app.app_context():
            stored = eventlog.load_match(keeper.match_id)
            cached = eventlog.state_of(stored)
            cache().clear()
            assert eventlog.state_of(stored) == cached
