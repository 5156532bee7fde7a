"""History, statistics, the hand checker, import and export (issue 4), through the test client."""

import json
import os
import random
import subprocess
import sys

import pytest
from simulate import random_events
from webtools import MATCHES, form_for, recorded, soup

from scorekeeper.matchfile import load
from scorekeeper.rules import Rules
from scorekeeper.web.store import db as database
from scorekeeper.web.store import eventlog, figures, stats


def import_recorded(client, name: str):
    response = client.post("/import", data={"text": (MATCHES / f"{name}.json").read_text()})
    assert response.status_code == 303, response.text
    return response.headers["Location"].split("/")[2]


def counts(app) -> tuple[int, int, int]:
    with app.app_context():
        db = database.get_db()
        return tuple(
            db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("matches", "events", "people")
        )


def test_a_match_page_has_the_score_sheet_the_chart_and_every_event(client):
    match_id = import_recorded(client, "two-players-to-royal-flush")
    page = soup(client.get(f"/m/{match_id}/history"))
    sheet = page.select_one("table.sheet.changes").text
    assert "royal flush" in sheet and "Chicago won" in sheet and "Chicago lost" in sheet
    assert "correction (show did not support the straight flush)" in sheet
    totals = [[td.text for td in row.select("td")] for row in page.select("table.sheet.changes tr.totals")]
    assert totals[-1] == ["after the round", "Anna 32 · Bo 60"]
    chart = page.select_one("svg.chart")
    assert len(chart.select("polyline.line")) == 2
    assert chart.select_one("line.target") is not None
    assert len(chart.select_one("polyline.s1")["points"].split()) == 5  # the start and 4 rounds
    assert len(page.select("ol.log li")) == len(recorded("two-players-to-royal-flush")["events"])
    assert len(page.select("ol.log li.undone")) == 1


def test_stepping_through_shows_the_table_as_it_was(client):
    match_id = import_recorded(client, "two-players-to-royal-flush")
    page = soup(client.get(f"/m/{match_id}/at/5"))
    scores = {s.select_one(".name").text: s.select_one(".score").text for s in page.select(".seat")}
    assert scores == {"Anna": "0", "Bo": "2"}
    assert "Event 5 of" in page.select_one(".steps").text
    assert page.select_one("a[rel=prev]")["href"].endswith("/at/4")
    assert client.get(f"/m/{match_id}/at/0").status_code == 200
    assert client.get(f"/m/{match_id}/at/999").status_code == 404


def test_the_csv_score_sheet_lists_every_change_and_the_totals(client):
    match_id = import_recorded(client, "tie-break-to-ten")
    lines = client.get(f"/m/{match_id}/export.csv").text.splitlines()
    assert lines[0] == "round,phase,player,points,for,total Anna,total Bo"
    assert "1,1,Bo,5,flush" in lines
    assert lines[-1] == "2,,,,end of round,11,15"


def test_export_then_import_gives_the_identical_match(client, app):
    """Imported into the same server, the export is the match already stored (issue 25): the answer
    links to it, and nothing is stored again."""
    match_id = import_recorded(client, "two-players-to-royal-flush")
    exported = client.get(f"/m/{match_id}/export").get_data(as_text=True)
    before = counts(app)
    again = client.post("/import", data={"text": exported})
    assert again.status_code == 200 and counts(app) == before
    assert soup(again).select_one("p.stored a")["href"] == f"/m/{match_id}/history"
    assert load(json.loads(exported)) == load(recorded("two-players-to-royal-flush"))


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "chicago-below-15",
            "Nothing was imported: event 8 breaks a rule (Cia has 9 points; Chicago needs 15)",
        ),
        ("bad-card", "Nothing was imported: event 3 cannot be read (“11s” is not a card)"),
        ("truncated", "Not a match file: not valid JSON"),
    ],
)
def test_a_refused_import_says_why_and_stores_nothing(client, app, name, message):
    before = counts(app)
    response = client.post("/import", data={"text": (MATCHES / f"{name}.json").read_text()})
    assert response.status_code == 422
    assert message in response.text
    assert counts(app) == before


def test_a_match_file_upload_is_imported(client):
    from io import BytesIO

    data = {"file": (BytesIO((MATCHES / "tie-break-to-ten.json").read_bytes()), "m.json")}
    assert client.post("/import", data=data, content_type="multipart/form-data").status_code == 303


def test_pasted_text_counts_when_the_file_field_is_empty(client):
    from io import BytesIO

    data = {"file": (BytesIO(b""), ""), "text": (MATCHES / "tie-break-to-ten.json").read_text()}
    assert client.post("/import", data=data, content_type="multipart/form-data").status_code == 303


def test_an_empty_import_is_refused(client):
    assert client.post("/import", data={"text": " "}).status_code == 422


def test_a_players_statistics_add_up_from_the_match(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    with app.app_context():
        bo = stats.person(stats.person_id_of("Bo"))
        anna = stats.person(stats.person_id_of("Anna"))
    assert (bo.played, bo.finished, bo.won, bo.win_rate) == (1, 1, 1, 1.0)
    assert bo.points == 60 and bo.rounds == 4 and bo.points_per_round == 15
    assert bo.by_source == {
        "pair": 1,
        "two_pair": 2,
        "three_of_a_kind": 3,
        "four_of_a_kind": 7,
        "royal_flush": 52,
        "last_trick": 10,
        "chicago_lost": -15,
    }
    assert (bo.chicago_won, bo.chicago_lost, bo.chicago_rate) == (0, 1, 0.0)
    assert bo.best_hand.value == "royal_flush"
    assert (anna.chicago_won, anna.best_hand.value) == (1, "straight_flush")
    assert anna.by_source["adjust"] == -8
    assert bo.head_to_head == [{"id": anna.id, "name": "Anna", "together": 1, "won": 1, "lost": 0}]


def test_the_player_page_shows_the_figures(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    with app.app_context():
        bo = stats.person_id_of("Bo")
    page = soup(client.get(f"/players/{bo}"))
    figures = {d.select_one("dt").text: d.select_one("dd").text for d in page.select(".figures div")}
    assert figures["Won"] == "1 of 1 finished match (100%)"  # finished matches only (issue 25)
    assert figures["Best hand declared"] == "Royal flush"
    assert figures["Chicago"] == "0 won, 1 lost (0%)"
    assert "Anna" in page.select("table.sheet")[1].text


def test_a_rename_keeps_every_statistic_and_the_match_record(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    with app.app_context():
        bo = stats.person_id_of("Bo")
        before = stats.person(bo)
    assert client.post(f"/players/{bo}/rename", data={"name": "Bosse"}).status_code == 303
    with app.app_context():
        after = stats.person(bo)
        assert stats.person_id_of("Bo") == stats.person_id_of("Bosse") == bo
    assert after.name == "Bosse" and after.aliases == ["Bo", "Bosse"]
    assert (after.played, after.won, after.points, after.by_source) == (
        before.played,
        before.won,
        before.points,
        before.by_source,
    )
    assert "Also played as Bo." in client.get(f"/players/{bo}").text


def test_a_rename_to_someone_elses_name_is_refused(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    with app.app_context():
        bo = stats.person_id_of("Bo")
    response = client.post(f"/players/{bo}/rename", data={"name": "Anna"})
    assert response.status_code == 422
    assert "Anna already has the name Anna: merge the two instead" in response.text
    assert client.post(f"/players/{bo}/rename", data={"name": " "}).status_code == 422


def test_merging_two_names_adds_their_statistics(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    document = recorded("tie-break-to-ten")
    text = json.dumps(document).replace('"Bo"', '"Bosse"')
    assert client.post("/import", data={"text": text}).status_code == 303
    with app.app_context():
        bo, bosse = stats.person_id_of("Bo"), stats.person_id_of("Bosse")
        assert bo != bosse
    assert client.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303
    with app.app_context():
        merged = stats.person(bo)
        assert stats.person_id_of("Bosse") == bo and stats.person(bosse) is None
    assert (merged.played, merged.won, merged.points) == (2, 2, 75)
    assert merged.head_to_head[0]["together"] == 2


def test_the_match_list_filters_by_player_and_pages(client, app):
    import_recorded(client, "two-players-to-royal-flush")
    import_recorded(client, "four-players-in-progress")
    with app.app_context():
        dan = stats.person_id_of("Dan")
    everyone = soup(client.get("/")).select("ul.matches li")
    dans = soup(client.get(f"/?player={dan}")).select("ul.matches li")
    assert len(everyone) == 2 and len(dans) == 1
    assert "Resume" in dans[0].text and dans[0].select_one("svg.chart.small") is not None
    assert client.get("/?page=abc").status_code == 400  # TRUST.md I6: a 4xx naming the page number


def test_a_rematch_starts_a_new_match_with_the_same_players_and_rules(client, app):
    match_id = import_recorded(client, "tie-break-to-ten")
    response = client.post(f"/m/{match_id}/rematch")
    assert response.status_code == 303
    new_id = response.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        old, new = eventlog.load_match(match_id), eventlog.load_match(new_id)
    assert (new.players, new.rules, new.events) == (old.players, old.rules, ())


def test_a_finished_match_offers_to_re_open_with_confirmation(client):
    match_id = import_recorded(client, "tie-break-to-ten")
    page = soup(client.get(f"/m/{match_id}"))
    reopen = [f for f in page.select("#turn form") if "Reopen" in f.text][0]
    assert reopen["hx-confirm"].startswith("Reopen the match?")
    version = reopen.select_one("input[name=version]")["value"]
    assert client.post(f"/m/{match_id}/undo", data={"version": version}).status_code == 303
    assert "wins with" not in client.get(f"/m/{match_id}").text


def test_the_hand_checker_ranks_hands_card_by_card(client):
    page = soup(
        client.get(
            "/hands?hand1=9s+7s+5s+4s+2s&hand2=Qh+9h+7h+4h+2h&pick3=Ah&pick3=Kd&pick3=Qc&pick3=Js&pick3=Tc"
        )
    )
    ranked = [li.select_one("strong").text for li in page.select("ol.ranked li")]
    assert ranked == ["Hand 2", "Hand 1", "Hand 3"]  # a flush beats a straight, even ace-high
    text = page.select_one("ol.ranked").text
    assert "Beats Hand 1: higher first card, queen against 9." in text
    assert "Beats Hand 3: a flush against a straight." in text


def test_the_hand_checker_shows_equal_hands_as_a_tie(client):
    page = soup(client.get("/hands?hand1=9s+7s+5s+4s+2s&hand2=9h+7h+5h+4h+2h"))
    assert [li["value"] for li in page.select("ol.ranked li")] == ["1", "1"]
    assert "Ties with Hand 2: the hands are equal." in page.text


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "hand1=Qs+Qh+9c+9d+2s&hand2=Qs+Kh+Kc+4d+3s",
            "Q♠ is in Hand 1 and in Hand 2: there is only one deck",
        ),
        ("hand1=Qs+Qh+1x+9d+2s", "Hand 1: “1x” is not a card"),
        ("hand1=Qs+Qh+9d", "Hand 1: A hand is five cards, not 3"),
    ],
)
def test_the_hand_checker_refuses_bad_hands(client, query, message):
    response = client.get(f"/hands?{query}")
    assert response.status_code == 422
    assert message in response.text


def test_kept_figures_equal_figures_worked_out_again(client, keeper, app):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    for fields in (
        {"type": "declare", "player": "Bo", "hand": "flush"},
        {"type": "pass", "player": "Cia"},
        {"type": "pass", "player": "Anna"},
        {"type": "adjust", "player": "Cia", "points": "4", "reason": "x"},
    ):
        keeper.post(**fields)
    keeper.post("undo")
    with app.app_context():
        db = database.get_db()
        kept = db.execute("SELECT * FROM match_players ORDER BY seat").fetchall()
        db.execute("UPDATE matches SET chart = NULL")
        figures.fill_in(db)
        assert db.execute("SELECT * FROM match_players ORDER BY seat").fetchall() == kept
        assert [row[3] for row in kept] == [0, 5, 0]


@pytest.mark.parametrize("seed", range(3))
def test_after_every_tap_the_kept_figures_and_chart_are_those_worked_out_again(
    client, keeper, app, monkeypatch, seed
):
    """A tap that changes no total, round or declared hand leaves the figures as they are (writes._same_figures):
    after every tap of a random match, undos included, they equal the figures worked out from the log."""
    worked_out = []
    work_out = figures.work_out
    monkeypatch.setattr(figures, "work_out", lambda *a: worked_out.append(1) or work_out(*a))
    keeper.new("Anna", "Bo", "Cia").detailed()
    events, _ = random_events(("Anna", "Bo", "Cia"), Rules(), random.Random(seed).choice, 150)
    for version, event in enumerate(events):
        fields = {} if event.type == "undo" else form_for(event)
        answer = keeper.post("undo" if event.type == "undo" else "record", version=version, **fields)
        assert answer.status_code == 200, (version, event)
        with app.app_context():
            db = database.get_db()
            kept = db.execute("SELECT * FROM match_players ORDER BY seat").fetchall()
            chart = db.execute("SELECT chart FROM matches").fetchone()[0]
            db.execute("UPDATE matches SET chart = NULL")
            figures.fill_in(db)
            assert db.execute("SELECT * FROM match_players ORDER BY seat").fetchall() == kept, (
                version,
                event,
            )
            assert db.execute("SELECT chart FROM matches").fetchone()[0] == chart, (version, event)
            db.conn.commit()
    by_taps = len(worked_out) - len(events)  # fill_in works out this one match once after each tap
    assert len(events) - by_taps >= 10  # the taps that changed nothing were left alone


def test_export_import_and_backup_from_the_command_line(tmp_path):
    db = str(tmp_path / "cli.sqlite")
    cli = [sys.executable, "-m", "scorekeeper.web.cli"]

    keyed = {**os.environ, "SCOREKEEPER_SECRET_KEY": "command-line-test-secret-key-0123456789"}

    def run(*args):  # a key of its own: nothing is kept in the user data folder
        return subprocess.run(
            [*cli, *args, "--db", db], capture_output=True, text=True, check=False, env=keyed
        )

    imported = run("import", str(MATCHES / "two-players-to-royal-flush.json"))
    assert imported.returncode == 0, imported.stderr
    match_id = imported.stdout.strip()
    assert run("import", str(MATCHES / "chicago-below-15.json")).returncode == 1
    assert run("import", str(MATCHES / "bad-card.json")).returncode == 2
    exported = run("export", match_id)
    assert exported.returncode == 0
    assert load(json.loads(exported.stdout)) == load(recorded("two-players-to-royal-flush"))
    assert run("export", "nope").returncode == 2
    assert run("backup", str(tmp_path / "copy.sqlite")).returncode == 0
    import sqlite3

    copy = sqlite3.connect(tmp_path / "copy.sqlite")
    assert copy.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 1
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_score_sheet_is_a_protocol_a_row_per_round_a_column_per_player(client):
    """As Chicago players keep score on paper: each cell the round's points and the running total,
    the winner's column marked, a correction on a row of its own where it was made (issue 25); the
    changes it adds up stay behind it, and in the CSV."""
    match_id = import_recorded(client, "two-players-to-royal-flush")
    page = soup(client.get(f"/m/{match_id}/history"))
    protocol = page.select_one("table.sheet.protocol")
    assert [th.text.split()[0] for th in protocol.select("thead th")] == ["Round", "Anna", "Bo"]
    assert [th.text for th in protocol.select("thead th.winner")] == ["Bo winner"]
    rows = [
        [tr.th.text] + [" ".join(td.stripped_strings) for td in tr.select("td")]
        for tr in protocol.select("tbody tr:not(.why)")
    ]
    assert rows == [
        ["1", "+9 9", "+7 7"],
        ["2", "+21 30", "+3 10"],
        ["3", "+2 32", "−8 2"],  # Bo lost a Chicago (a minus sign, not a hyphen)
        # Round 4 split where the correction was typed (after Anna's +8, before Bo's royal flush), on
        # a row of its own: each row's totals are the totals at that moment.
        ["4", "+8 40", "2"],
        ["correction", "−8 32", "2"],
        ["4", "32", "+58 60"],
    ]
    classes = [tr.get("class") for tr in protocol.select("tbody tr")]
    at = classes.index(["correction"])
    assert classes[at + 1] == ["why"]  # why, on a row of its own below it
    assert protocol.select("tbody tr")[at + 1].text.strip() == "show did not support the straight flush"
    assert [cell.split()[-1] for cell in rows[-1][1:]] == ["32", "60"]
    assert all(len(tr.select("td.winner")) == 1 for tr in protocol.select("tbody tr:not(.why)"))
    assert page.select_one("details.changes table.sheet.changes") is not None
