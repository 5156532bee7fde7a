"""Issue 11, item 5: what a new user hit at the table, each fixed with a test that failed before."""

from __future__ import annotations

from webtools import soup


def correction_form(page):
    return page.select_one("details.correct form")


def test_a_correction_takes_points_away_without_a_minus_key(keeper):
    """An iPhone's number pad has no minus: the sign is a choice of its own, and plain forms work."""
    keeper.new("Anna", "Bo", dealer="Anna")
    form = correction_form(keeper.page())
    signs = {i["value"]: i.has_attr("checked") for i in form.select("input[type=radio][name=sign]")}
    assert signs == {"add": True, "take": False}
    assert form.select_one("input[name=points]")["min"] == "0"
    assert keeper.post(type="adjust", player="Bo", sign="add", points="7", reason="start").status_code == 200
    assert keeper.post(type="adjust", player="Bo", sign="take", points="5", reason="typo").status_code == 200
    assert keeper.match.file.replay().totals["Bo"] == 2
    taken_back = keeper.post(type="adjust", player="Bo", points="-2", reason="x")  # signed: no choice posted
    assert taken_back.status_code == 200
    assert keeper.match.file.replay().totals["Bo"] == 0


def test_a_correction_with_a_sign_takes_a_size_and_a_refused_one_keeps_what_was_typed(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="adjust", player="Bo", sign="take", points="-5", reason="typo")
    assert response.status_code == 422
    page = soup(response)
    assert "Points must be a whole number from 0 to 1000" in page.select_one("p.refusal").text
    assert keeper.rows() == rows
    assert page.select_one("details.correct").has_attr("open")
    form = correction_form(page)
    assert form.select_one("option[selected]").text == "Bo"
    assert form.select_one("input[name=sign][checked]")["value"] == "take"
    assert form.select_one("input[name=points]")["value"] == "-5"
    assert form.select_one("input[name=reason]")["value"] == "typo"
    assert keeper.post(type="adjust", player="Bo", sign="minus", points="5", reason="").status_code == 422


# Bo: 5 in round 1, 5 in round 2, and a correction of -1 in round 3, which is under way.
TWO_ROUNDS_PLAYED = (
    "pass Bo; pass Anna; pass Bo; pass Anna; last_trick Bo; pass Bo; pass Anna;"
    " pass Anna; pass Bo; pass Anna; pass Bo; last_trick Bo; pass Anna; pass Bo; adjust Bo -1 typo"
)


def two_rounds_played(keeper):
    from script import events

    keeper.new("Anna", "Bo", dealer="Anna")
    for event in events(TWO_ROUNDS_PLAYED):
        assert keeper.record(event).status_code == 200
    return keeper.match_id


def test_points_per_round_count_only_the_rounds_played_to_the_end(keeper, client, app):
    """9 points over 2 rounds played is 4.5, whatever the rounds under way (or just dealt) hold."""
    from scorekeeper.web.store import stats

    two_rounds_played(keeper)
    keeper.new("Anna", "Bo", dealer="Bo")  # a new match, its first round dealt and not played
    with app.app_context():
        bo = stats.person_id_of("Bo")
    page = soup(client.get(f"/players/{bo}"))
    figures = {d.select_one("dt").text: d.select_one("dd").text for d in page.select(".figures div")}
    assert figures["Points per round"] == "4.5"


def test_an_unfinished_matchs_chart_stops_at_the_last_round_played(keeper, client):
    match_id = two_rounds_played(keeper)
    page = soup(client.get(f"/m/{match_id}/history"))
    chart = page.select_one("figure.chart-box svg")
    assert [t.text for t in chart.select("text.tick")][2:] == ["0", "1", "2"]  # after the top and the 0
    assert [len(line["points"].split()) for line in chart.select("polyline")] == [3, 3]
    legend = page.select_one("figure.chart-box .legend").text
    assert "Bo 9" in legend  # the total now, beside the chart


def test_matches_stored_before_count_their_rounds_again_at_start(keeper, app):
    """Migration m007: a match still going stored the round under way; its figures are worked out again."""
    import json

    from scorekeeper.web import create_app
    from scorekeeper.web.store import db as database

    match_id = two_rounds_played(keeper)
    db = database.connect(app.config["DATABASE"])
    with db.conn:  # as the app stored them before: the round under way counted, and charted
        db.execute("UPDATE match_players SET rounds = 3 WHERE match_id = ?", [match_id])
        old_chart = json.dumps([[0, 0], [0, 5], [0, 10], [0, 9]])
        db.execute("UPDATE matches SET chart = ? WHERE id = ?", [old_chart, match_id])
        db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_rounds_played'")
    create_app(dict(app.config))
    rounds = db.execute("SELECT rounds FROM match_players WHERE match_id = ?", [match_id]).fetchall()
    chart = db.execute("SELECT chart FROM matches WHERE id = ?", [match_id]).fetchone()[0]
    db.close()
    assert rounds == [(2,), (2,)]
    assert json.loads(chart) == [[0, 0], [0, 5], [0, 10]]


TO_A_TIE_BREAK = (
    "declare Bo flush; pass Cia; pass Anna; pass Bo; pass Cia; declare Anna flush; last_trick Anna;"
    " declare Bo flush; pass Cia; pass Anna"
)


def test_a_tie_break_round_is_said_plainly_with_who_sits_out(keeper, client, app):
    from script import events

    keeper.new("Anna", "Bo", "Cia", dealer="Anna", target="10")
    for event in events(TO_A_TIE_BREAK):
        assert keeper.record(event).status_code == 200
    page = keeper.page()
    # At the table: the round line carries the flag, the seat says who sits out, the notes say why.
    assert page.select_one("#scoreboard .where .badge").text == "Tie-break round"
    assert [s.select_one(".name").text for s in page.select("#scoreboard .seat.out")] == ["Cia"]
    banner = page.select_one("#turn .tiebreak")
    assert banner is not None and banner["role"] == "status"
    assert (
        " ".join(banner.text.split()) == "Anna and Bo were tied, so they play one more round; Cia sits out."
    )
    swedish = soup(client.get(f"/m/{keeper.match_id}", headers={"Accept-Language": "sv"}))
    assert "Anna och Bo hade lika många poäng" in swedish.select_one("#turn .tiebreak").text
    stranger = soup(app.test_client().get(f"/m/{keeper.match_id}"))  # the read-only board
    assert "Cia sits out" in stranger.select_one("#board .tiebreak").text


def test_a_finished_match_shows_no_dealer(keeper):
    from webtools import recorded

    from scorekeeper.matchfile import load

    keeper.new("Anna", "Bo", dealer="Anna", target="10")
    for event in load(recorded("tie-break-to-ten")).events[1:]:
        keeper.record(event)
    page = keeper.page()
    assert "wins with" in page.select_one("#turn").text
    assert [b.text for b in page.select("#scoreboard .badge")] == ["winner"]
    assert page.select_one(".tiebreak") is None


def dealer_choices(response) -> list[str]:
    shown = soup(response).select(".first-dealer label:not([hidden])")  # seats 5 and 6: once named
    return [" ".join(label.text.split()) for label in shown]


def test_the_first_dealer_choices_name_the_players_once_typed(client):
    assert dealer_choices(client.get("/new"))[1:] == [f"Seat {n} deals" for n in (1, 2, 3, 4)]
    moved = client.post("/new", data={"name": ["Anna", "Bo", "Cia", ""], "move": "2"})  # a seat moved up
    assert dealer_choices(moved)[1:] == ["Anna deals", "Cia deals", "Bo deals", "Seat 4 deals"]
    refused = client.post("/new", data={"name": ["Anna", "Bo", "", ""], "target": "0", "start": "1"})
    assert refused.status_code == 422
    assert dealer_choices(refused)[1:] == ["Anna deals", "Bo deals", "Seat 3 deals", "Seat 4 deals"]
    swedish = client.post(
        "/new", data={"name": ["Anna", "Bo", "", ""], "move": "1"}, headers={"Accept-Language": "sv"}
    )
    assert dealer_choices(swedish)[1:3] == ["Bo ger", "Anna ger"]
    assert soup(swedish).select_one(".first-dealer")["data-named"] == "{name} ger"  # for app.js


def test_the_hand_checker_names_each_hand_in_error_and_says_every_error_at_once(client):
    response = client.get("/hands?hand1=Ah+Kh+1x+9d+2s&hand2=Ah+Kd+Qc+Js+9s&hand3=As+Ad&hand4=Kd+Qs+Jh+Tc+8c")
    assert response.status_code == 422
    page = soup(response)
    errors = [li.text for li in page.select(".refusal[role=alert] li")]
    assert errors == [
        "Hand 1: “1x” is not a card",
        "Hand 3: A hand is five cards, not 2",
        "K♦ is in Hand 2 and in Hand 4: there is only one deck",
    ]
    assert [f.select_one("legend").text for f in page.select(".checker fieldset.wrong")] == [
        "Hand 1",
        "Hand 3",
        "Hand 4",
    ]
    swedish = soup(
        client.get("/hands?hand1=Ah+Kh+Qh+9d+2s&hand2=Ah+Kd+Qc+Js+9s", headers={"Accept-Language": "sv"})
    )
    assert [li.text for li in swedish.select(".refusal li")] == [
        "A♥ finns i Hand 1 och i Hand 2: det finns bara en kortlek"
    ]


def test_the_hand_checker_shows_the_cards_beside_each_result_and_keeps_them_in_view(client):
    page = soup(client.get("/hands?hand1=9s+7s+5s+4s+2s&pick2=Qh&pick2=9h&pick2=7h&pick2=4h&hand2=2h"))
    results = page.select("ol.ranked li")
    assert [li.select_one(".hand-cards").text for li in results] == ["2♥Q♥9♥7♥4♥", "9♠7♠5♠4♠2♠"]  # as given
    assert [[s["class"] for s in li.select(".hand-cards span")][0] for li in results] == [["red"], ["black"]]
    assert results[0].select_one(".sr").text.startswith("2 of hearts, queen of hearts")
    pickers = page.select(".checker details.picker")
    assert [p.has_attr("open") for p in pickers] == [True, True, False, False]  # the hands checked
    assert [p.select_one("input[type=text], input:not([type])")["value"] for p in pickers[:2]] == [
        "9s 7s 5s 4s 2s",
        "2h Qh 9h 7h 4h",
    ]


def test_a_refused_rename_keeps_the_name_typed(client, app):
    from test_history import import_recorded

    from scorekeeper.web.store import stats

    import_recorded(client, "two-players-to-royal-flush")
    with app.app_context():
        bo = stats.person_id_of("Bo")
    page = soup(client.post(f"/players/{bo}/rename", data={"name": "Anna"}))
    assert page.select_one("details.correct").has_attr("open")
    assert page.select_one("input[name=name]")["value"] == "Anna"
    assert not soup(client.get(f"/players/{bo}")).select_one("details.correct").has_attr("open")


def test_the_scoreboard_names_the_showdown_it_reports_by_its_phase(keeper):
    """ "Last showdown:" read as the round's final showdown while the table asked for that one."""
    from script import events

    keeper.new("Anna", "Bo", dealer="Anna")
    for event in events("declare Bo pair; pass Anna; pass Bo; pass Anna"):
        assert keeper.record(event).status_code == 200
    outcome = keeper.page().select_one("#scoreboard p.outcome").text.strip()
    assert outcome == "Showdown, phase 2: everybody passed, so nobody scored"  # the table asks for phase 3's
    assert "last" not in outcome.lower()
    for event in events("last_trick Anna; pass Bo; pass Anna"):
        assert keeper.record(event).status_code == 200
    outcome = keeper.page().select_one("#scoreboard p.outcome").text.strip()
    assert outcome == "Showdown, round 1, phase 3: everybody passed, so nobody scored"
