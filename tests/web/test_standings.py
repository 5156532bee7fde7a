"""The standings page and the ratings behind it: openskill's Plackett–Luce model over the finished matches."""

from __future__ import annotations

import json

import pytest
from openskill.models import PlackettLuce
from test_imported_matches import import_text, imported_id, timed
from webtools import soup

from scorekeeper.web.store import ratings

FOUR = ("Greta", "Henrik", "Ingrid", "Jonatan")  # final totals 62, 15, 8, 60 (tests/matches)
TWO = ("Anna", "Bo")  # final totals 11, 15 (target 10, a tie-break round)


def played_as(name: str, names: tuple[str, ...], minutes: int) -> str:
    """A recorded match file with its players renamed in seat order (every event follows), as JSON."""
    document = timed(name, minutes)
    renamed = dict(zip(document["players"], names, strict=True))
    document["players"] = list(names)
    for event in document["events"]:
        for key in ("player", "winner"):
            if event.get(key) in renamed:
                event[key] = renamed[event[key]]
        if isinstance(event.get("cards"), dict):
            event["cards"] = {renamed.get(k, k): v for k, v in event["cards"].items()}
    return json.dumps(document)


def by_hand(*orders: list[list[str]]) -> dict[str, float]:
    """openskill called directly: each match a finishing order (a list of places, each a list of
    names sharing it), everybody starting afresh; each name's ordinal after the last."""
    model = PlackettLuce()
    skill: dict[str, object] = {}
    for places in orders:
        names = [name for place in places for name in place]
        ranks = [float(rank) for rank, place in enumerate(places, start=1) for _ in place]
        teams = [[skill.get(name) or model.rating()] for name in names]
        for name, (rated,) in zip(names, model.rate(teams, ranks=ranks), strict=True):
            skill[name] = rated
    return {name: rated.ordinal() for name, rated in skill.items()}


def rating(value: float, spec: str = ".1f") -> str:
    """A rating as a page shows it: one decimal, a negative one with the minus sign (U+2212)."""
    return format(value, spec).replace("-", "\u2212")


def page_ratings(client, query: str = "period=all") -> dict[str, str]:
    page = soup(client.get(f"/standings?{query}"))
    rows = page.select("table.standings-table tbody tr")
    return {row.select("td")[0].text: row.select("td")[1].text.split()[0] for row in rows}


def test_the_standings_match_openskill_called_directly_on_the_same_orders(client, app):
    for names, minutes, name in (
        (("Cia", "Bo", "Eva", "Dan"), 0, "four-players-tie-break-and-correction"),
        (("Cia", "Bo"), 5, "tie-break-to-ten"),
        (("Eva", "Cia", "Dan", "Bo"), 10, "four-players-tie-break-and-correction"),
    ):
        imported_id(import_text(client, played_as(name, names, minutes)))
    # In the order they finished: the two-player match (started at minute 5) ends before the first
    # four-player one (139 events, a minute each) does.
    expected = by_hand(
        [["Bo"], ["Cia"]],
        [["Cia"], ["Dan"], ["Bo"], ["Eva"]],
        [["Eva"], ["Bo"], ["Cia"], ["Dan"]],  # seats 62, 15, 8, 60
    )
    with app.test_request_context():
        rated = ratings.ratings_between()
    assert rated.matches == 3
    got = {s.name: s.rating for s in rated.standings.values()}
    assert got == pytest.approx(expected)
    shown = page_ratings(client)
    assert shown == {name: rating(value) for name, value in expected.items()}
    assert list(shown) == sorted(expected, key=lambda name: -expected[name])


def test_a_tie_in_final_totals_shares_a_rank():
    seat = lambda person, score: ratings.Seat(person, f"P{person}", score, 0, 1, 0, 0)  # noqa: E731
    match = ratings.Finished("m", "2025-03-01", (seat(1, 62), seat(2, 30), seat(3, 30), seat(4, 8)))
    rated = ratings.rate([match])
    model = PlackettLuce()
    direct = model.rate([[model.rating()] for _ in range(4)], ranks=[1.0, 2.0, 2.0, 4.0])
    assert [c.rank for c in rated.changes["m"]] == [1, 2, 2, 4]
    assert [c.after for c in rated.changes["m"]] == pytest.approx([team[0].ordinal() for team in direct])


def test_the_figures_count_finished_matches_only(client, keeper):
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))
    keeper.new("Anna", "Bo", dealer="Anna")  # under way: not rated, not counted
    page = soup(client.get("/standings?period=all"))
    cells = {
        row.select("td")[0].text: [td.text for td in row.select("td")] for row in page.select("tbody tr")
    }
    assert cells["Bo"][2] == "1 of 1" and cells["Anna"][2] == "0 of 1"
    assert cells["Bo"][3] == "7.5"  # 15 points in 2 rounds
    assert cells["Bo"][4] == "0 won, 0 lost"
    assert "Based on 1 finished match" in page.text


def test_a_period_rates_only_its_matches_and_starts_afresh(client):
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))  # 2025-03-01
    assert page_ratings(client, "period=between&from=2025-03-02&to=2025-12-31") == {}
    one_day = page_ratings(client, "period=between&from=2025-03-01&to=2025-03-01")
    assert one_day == {name: rating(v) for name, v in by_hand([["Bo"], ["Anna"]]).items()}
    assert page_ratings(client, "period=month") == {}  # this month: the import is from 2025


def test_the_circle_lists_and_charts_only_the_chosen(client, app):
    imported_id(import_text(client, played_as("four-players-tie-break-and-correction", FOUR, 0)))
    with app.app_context():
        ids = ratings.people_named(range(1, 5))
    greta = next(i for i, n in ids.items() if n == "Greta")
    ingrid = next(i for i, n in ids.items() if n == "Ingrid")
    page = soup(client.get(f"/standings?period=all&player={greta}&player={ingrid}"))
    assert [row.select_one("td").text for row in page.select("tbody tr")] == ["Greta", "Ingrid"]
    assert [t.text for t in page.select("svg.chart polyline title")] == ["Greta", "Ingrid"]


def test_a_finished_matchs_history_says_what_it_did_to_each_rating(client):
    match_id = imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))
    expected = by_hand([["Bo"], ["Anna"]])
    said = [li.text for li in soup(client.get(f"/m/{match_id}/history")).select("#match-ratings li")]
    assert said == [
        f"{n}: 0.0 → {rating(expected[n])} ({rating(expected[n], '+.1f')})" for n in ("Bo", "Anna")
    ]  # best first


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [(3.44, 6.16, "2.8"), (0.0, 2.75, "2.8"), (6.16, 3.44, "-2.8"), (1.25, 1.25, "0.0")],
    ids=["rounded-apart", "half-to-even-like-babel", "a-fall", "no-change"],
)
def test_a_rating_change_is_shown_as_the_difference_of_the_figures_shown(before, after, shown):
    """ "Bo: 3.4 → 6.2 (+2.8)": the change adds up with the two rounded ratings beside it."""
    assert str(ratings.Change(1, "Bo", 1, before, after).shown_delta) == shown


def test_the_standings_show_the_last_change_as_the_match_history_does():
    """Standings "6.2 +2.8" beside history "3.4 → 6.2 (+2.8)", not "+2.7" from the unrounded ratings."""
    standing = ratings.Standing(1, "Bo")
    seat = ratings.Seat(1, "Bo", 10, 1, 3, 0, 0)
    ratings._count(standing, seat, ratings.Change(1, "Bo", 1, 3.44, 6.16), 1)
    assert str(standing.change) == "2.8"


def test_a_players_change_in_the_standings_is_the_one_their_last_match_history_shows(client):
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))
    last = imported_id(import_text(client, played_as("tie-break-to-ten", ("Bo", "Anna"), 5)))
    history = [li.text for li in soup(client.get(f"/m/{last}/history")).select("#match-ratings li")]
    page = soup(client.get("/standings?period=all"))
    standings = [
        f"{row.select('td')[0].text}: {row.select_one('small.delta').text}"
        for row in page.select("table.standings-table tbody tr")
    ]
    assert sorted(standings) == sorted(f"{line.split(':')[0]}: {line.split('(')[1][:-1]}" for line in history)


def test_ratings_follow_an_undo_and_a_re_open(client):
    first = imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Bo", "Cia"), 5)))
    before = page_ratings(client)
    version = soup(client.get(f"/m/{first}")).select_one("#turn form input[name=version]")["value"]
    assert client.post(f"/m/{first}/undo", data={"version": version}).status_code == 303  # re-opened
    assert page_ratings(client) == {n: rating(v) for n, v in by_hand([["Cia"], ["Bo"]]).items()}
    assert soup(client.get(f"/m/{first}/history")).select("#match-ratings") == []
    # Finished again by the same last event: rated again, in its new place (it finished last).
    again = {"version": str(int(version) + 1), "type": "pass", "player": "Bo"}
    assert client.post(f"/m/{first}/record", data=again).status_code == 303
    assert page_ratings(client) == {
        n: rating(v) for n, v in by_hand([["Cia"], ["Bo"]], [["Bo"], ["Anna"]]).items()
    }
    assert page_ratings(client) != before


def test_ratings_follow_a_rename_and_a_merge_and_their_undo(client, app):
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Anna", "Bo"), 0)))
    imported_id(import_text(client, played_as("tie-break-to-ten", ("Bosse", "Cia"), 5)))
    with app.app_context():
        ids = {name: person for person, name in ratings.people_named(range(1, 10)).items()}
    assert client.post(f"/players/{ids['Bo']}/rename", data={"name": "Bo B"}).status_code == 303
    assert page_ratings(client) == {
        {"Bo": "Bo B"}.get(n, n): rating(v)
        for n, v in by_hand([["Bo"], ["Anna"]], [["Cia"], ["Bosse"]]).items()
    }
    assert client.post(f"/players/{ids['Bo']}/merge", data={"other": str(ids["Bosse"])}).status_code == 303
    merged = by_hand([["Bo"], ["Anna"]], [["Cia"], ["Bo"]])
    assert page_ratings(client) == {{"Bo": "Bo B"}.get(n, n): rating(v) for n, v in merged.items()}
    log = soup(client.get("/players")).select("ol.people-log li form")
    assert client.post(log[0]["action"], data={}).status_code == 303  # the merge undone
    assert page_ratings(client) == {
        {"Bo": "Bo B"}.get(n, n): rating(v)
        for n, v in by_hand([["Bo"], ["Anna"]], [["Cia"], ["Bosse"]]).items()
    }


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("period=week", "The period must be"),
        ("period=between&from=2025-13-01", "The start date must be a date written as 2025-03-01"),
        ("period=between&to=2025-02-30", "The end date must be a date written as 2025-03-01"),
        ("period=between&from=99999-01-01", "The start date must be"),
        ("period=between&from=٢٠٢٥-03-01", "The start date must be"),
        ("period=between&from=2025-03-02&to=2025-03-01", "The start date must not be after the end date"),
        ("player=77", "There is no player number 77"),
        ("player=abc", "Player must be a whole number"),
        ("player=" + "9" * 40, "Player must be a whole number"),
        ("player=-1", "Player must be a whole number"),
        ("&".join(["player=1"] * 51), "Choose at most 50 players"),
    ],
    ids=[
        "period",
        "month 13",
        "30 February",
        "year 99999",
        "arabic digits",
        "backwards",
        "unknown player",
        "word",
        "huge",
        "negative",
        "too many",
    ],
)
def test_a_standings_link_that_cannot_be_read_is_answered_400_saying_why(client, query, message):
    response = client.get(f"/standings?{query}")
    assert response.status_code == 400
    assert message in soup(response).select_one("main [role=alert]").text


def test_the_last_day_of_the_calendar_is_a_period_end(client):
    assert client.get("/standings?period=between&from=0001-01-01&to=9999-12-31").status_code == 200
