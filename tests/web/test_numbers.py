"""TRUST.md I6 (issue 12, item 3): every number typed or carried by a file has a range; past it, a 4xx
naming the field and the range, never a 500, and nothing stored."""

from __future__ import annotations

import json

import pytest
from trusttools import fingerprint
from webtools import soup

HUGE = [10**30, 2**63, -(2**63) - 1]


def match_file(rules=None, events=()):
    return json.dumps(
        {
            "format": "chicago-match/1",
            "players": ["Anna", "Bo"],
            "rules": rules or {},
            "events": [{"type": "dealer", "player": "Anna"}, *events],
        }
    )


IMPORTS = [
    *[(match_file({"points": {"pair": v}}), "points.pair", "0 to 1000") for v in HUGE],
    *[(match_file({"target": v}), "target", "1 to 1000") for v in (*HUGE, 0)],
    *[
        (match_file({key: 1001}), key, "0 to 1000")
        for key in ("last_trick", "chicago", "chicago_min", "no_exchange_at")
    ],
    *[
        (
            match_file(events=[{"type": "adjust", "player": "Bo", "points": v, "reason": ""}]),
            "points",
            "−1000 to 1000",
        )
        for v in (*HUGE, 1001, -1001)
    ],
    (match_file(events=[{"type": "exchange", "player": "Bo", "count": 10**30}]), "count", "0 to 5"),
]


@pytest.mark.parametrize(
    ("text", "field", "bounds"), IMPORTS, ids=[f"{f}-{i}" for i, (_, f, _) in enumerate(IMPORTS)]
)
def test_an_imported_number_out_of_its_range_is_refused_naming_the_field(app, client, text, field, bounds):
    before = fingerprint(app)
    response = client.post("/import", data={"text": text})
    assert response.status_code == 422
    assert f"“{field}” must be a whole number from {bounds}" in response.text
    assert fingerprint(app) == before


# The scorekeeper's forms: numbers typed (or forged) into a post.

TYPED = ["1001", str(2**63), str(10**30), "١٢", "１２", "1_000", "+5", "1e3", "12.0", "0x10", ""]


@pytest.mark.parametrize("value", [*TYPED, "-1001", str(-(2**63) - 1)])
def test_a_correction_out_of_its_range_is_refused_naming_the_field(keeper, value):
    keeper.new("Anna", "Bo", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="adjust", player="Bo", points=value, reason="typo")
    assert response.status_code == 422
    assert "Points (+ or −) must be a whole number from −1000 to 1000" in response.text
    assert keeper.rows() == rows


@pytest.mark.parametrize("value", [*TYPED, "-1", "6", "١"])
def test_an_exchange_count_out_of_its_range_is_refused_naming_the_field(keeper, value):
    keeper.new("Anna", "Bo", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="exchange", player="Bo", count=value)
    assert response.status_code == 422
    assert "Cards exchanged must be a whole number from 0 to 5" in response.text
    assert keeper.rows() == rows


@pytest.mark.parametrize("value", ["-1000", "1000", "-7", "0042"])
def test_a_correction_within_its_range_is_recorded(keeper, value):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post(type="adjust", player="Bo", points="1000", reason="start")
    assert keeper.post(type="adjust", player="Bo", points=value, reason="typo").status_code == 200
    assert keeper.match.events[-1].points == int(value)


@pytest.mark.parametrize("value", ["١", "1_0", "-1", str(10**30), "v1", "1.0", ""])
def test_a_version_that_is_not_a_whole_number_is_a_400_saying_the_form_is_out_of_date(keeper, value):
    """The version is a hidden field: the refusal tells the person what to do, not what the field holds."""
    keeper.new("Anna", "Bo", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="pass", player="Bo", version=value)
    assert response.status_code == 400
    refusal = soup(response).select_one("p.refusal[role=alert]").text
    assert refusal == "This form is out of date. Reload the page and try again."
    assert keeper.rows() == rows


def test_a_version_in_if_match_is_read_the_same_way(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    path = f"/m/{keeper.match_id}/record"
    response = client.post(path, data={"type": "pass", "player": "Bo"}, headers={"If-Match": '"v1_0"'})
    assert response.status_code == 400 and keeper.rows() == 1
    assert "This form is out of date. Reload the page and try again." in response.text
    response = client.post(path, data={"type": "pass", "player": "Bo"}, headers={"If-Match": '"v1"'})
    assert response.status_code == 303 and keeper.rows() == 2


# The new-match form's house rules.

HOUSE_RULES = [
    *[("target", v, "Target must be a whole number from 1 to 1000") for v in (*TYPED[:-1], "0", "-1")],
    *[
        (key, v, f"{label} must be a whole number from 0 to 1000")
        for key, label in [
            ("last_trick", "Last trick"),
            ("chicago", "Chicago value"),
            ("chicago_min", "Minimum score to call Chicago"),
            ("no_exchange_at", "Exchange limit"),
        ]
        for v in ("1001", str(10**20), "١٢", "1_000", "-1")
    ],
    *[
        (f"points.{hand}", v, f"Points for {name} must be a whole number from 0 to 1000")
        for hand, name in [("pair", "a pair"), ("royal_flush", "a royal flush")]
        for v in ("1001", str(10**20), "١٢", "1_000", "-3")
    ],
]


@pytest.mark.parametrize(
    ("field", "value", "message"), HOUSE_RULES, ids=[f"{f}={v}" for f, v, _ in HOUSE_RULES]
)
def test_a_house_rule_out_of_its_range_is_refused_naming_the_field(app, client, field, value, message):
    before = fingerprint(app)
    response = client.post("/new", data={"name": ["Anna", "Bo"], "dealer": "0", "start": "1", field: value})
    assert response.status_code == 422
    assert message in response.text
    assert fingerprint(app) == before


def test_house_rules_at_the_ends_of_their_ranges_start_a_match(keeper):
    rules = {"target": "1000", "points.royal_flush": "1000", "points.pair": "0", "no_exchange_at": "0"}
    keeper.new("Anna", "Bo", dealer="Anna", **rules)
    assert keeper.match.rules.to_dict() == {
        "target": 1000,
        "points": {"pair": 0, "royal_flush": 1000},
        "no_exchange_at": 0,
    }


def test_the_refusal_is_said_in_the_readers_language(client):
    data = {"name": ["Anna", "Bo"], "dealer": "0", "start": "1", "target": str(10**20), "points.pair": "1"}
    response = client.post("/new", data=data, headers={"Accept-Language": "sv"})
    assert response.status_code == 422
    assert "Mål måste vara ett heltal från 1 till 1000" in response.text
    data = {**data, "target": "52", "points.two_pair": "١٢"}
    response = client.post("/new", data=data, headers={"Accept-Language": "sv"})
    assert "Poäng för två par måste vara ett heltal från 0 till 1000" in response.text


def test_the_form_tells_the_browser_each_range(client):
    page = soup(client.get("/new"))
    assert (page.select_one("input[name=target]")["min"], page.select_one("input[name=target]")["max"]) == (
        "1",
        "1000",
    )
    assert page.select_one("input[name='points.royal_flush']")["max"] == "1000"


# The match list's links.


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("page=١٢", "The page number must be a whole number from 1 to 999999999"),
        ("page=0", "The page number must be a whole number from 1 to 999999999"),
        ("page=abc", "The page number must be a whole number from 1 to 999999999"),
        (f"page={10**30}", "The page number must be a whole number from 1 to 999999999"),
        ("player=1_0", "Player must be a whole number from 1 to 999999999"),
        ("player=-1", "Player must be a whole number from 1 to 999999999"),
    ],
)
def test_a_page_or_player_in_the_link_that_is_not_a_number_in_range_is_a_400_naming_it(
    client, query, message
):
    response = client.get(f"/?{query}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    assert message in response.text


def test_the_match_list_reads_its_page_and_player(client):
    assert client.get("/?page=2&player=").status_code == 200
    assert client.get("/?player=1").status_code == 200


# Numbers in paths and on the command line.


@pytest.mark.parametrize("path", ["/players/١", "/players/１", "/players/١/rename", "/m/{id}/at/١"])
def test_a_number_in_a_path_is_ascii_digits_or_not_found(keeper, client, path):
    """werkzeug's ``<int>`` matches ``\\d+``, which takes '١' (Arabic-Indic one) for person 1."""
    keeper.new("Anna", "Bo", dealer="Anna")
    path = path.format(id=keeper.match_id)
    response = client.post(path, data={"name": "Eve"}) if path.endswith("rename") else client.get(path)
    assert response.status_code == 404
    assert client.get("/players/1").status_code == 200 and "Eve" not in client.get("/players/1").text


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--port", "١٢"),
        ("--port", "8_000"),
        ("--port", "70000"),
        ("--streams", "-1"),
        ("--threads", str(10**30)),
    ],
)
def test_serve_refuses_an_option_out_of_its_range_naming_it(capsys, option, value):
    from scorekeeper.web.cli import build_parser

    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", option, value])
    assert stopped.value.code == 2
    assert f"argument {option}: must be a whole number from" in capsys.readouterr().err


def test_serve_reads_its_options():
    from scorekeeper.web.cli import build_parser

    args = build_parser().parse_args(["serve", "--port", "8000", "--streams", "2", "--threads", "4"])
    assert (args.port, args.streams, args.threads) == (8000, 2, 4)


# Matches recorded before the ranges existed stay readable (nothing lost).


def test_a_match_stored_with_numbers_past_todays_ranges_still_opens(app, keeper):
    """The forms used to take a target of 10**20 and a correction of 5000: such a match was stored,
    and the event log is read as it was written (only what comes in is checked)."""
    import sqlite3

    from scorekeeper.web import create_app

    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post(type="adjust", player="Bo", points="7", reason="head start")
    conn = sqlite3.connect(app.config["DATABASE"])
    with conn:
        conn.execute(
            "UPDATE matches SET rules = ?, chart = NULL WHERE id = ?",
            [json.dumps({"target": 10**20}), keeper.match_id],
        )
        conn.execute(
            "UPDATE events SET payload = ? WHERE match_id = ? AND type = 'adjust'",
            [json.dumps({"player": "Bo", "points": 5000, "reason": "typo"}), keeper.match_id],
        )
    conn.close()
    again = create_app(dict(app.config)).test_client()  # a new start: the figures are worked out again
    for path in ("", "/history", "/export", "/at/2"):
        assert again.get(f"/m/{keeper.match_id}{path}").status_code == 200, path
    assert again.get(f"/m/{keeper.match_id}/export").get_json()["rules"] == {"target": 10**20}
