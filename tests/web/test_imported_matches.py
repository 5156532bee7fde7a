"""Issue 25, item 7: an import keeps the match's own times, and a match already stored is stored
once (and counted once in statistics)."""

import json
import threading

import pytest
from webtools import MATCHES, recorded, soup

from scorekeeper.web.store import db as database
from scorekeeper.web.store import eventlog, stats

STARTED = "2025-03-01T19:00:00+01:00"  # 18:00 UTC


def timed(name: str, minutes: int = 0) -> dict:
    """A recorded match file with its times: started at STARTED (``minutes`` later), an event a minute."""
    document = recorded(name)
    document["created_at"] = f"2025-03-01T18:{minutes:02d}:00Z"
    for i, event in enumerate(document["events"]):
        event["at"] = f"2025-03-01T{18 + (minutes + i + 1) // 60:02d}:{(minutes + i + 1) % 60:02d}:30Z"
    return document


def import_text(client, text: str):
    return client.post("/import", data={"text": text})


def imported_id(response) -> str:
    assert response.status_code == 303, response.text
    return response.headers["Location"].split("/")[2]


def rows(app) -> tuple[int, int, int]:
    with app.app_context():
        db = database.get_db()
        return tuple(
            db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("matches", "events", "creations")
        )


def test_an_import_keeps_the_files_start_and_each_events_time(client, app):
    document = timed("tie-break-to-ten")
    match_id = imported_id(import_text(client, json.dumps(document)))
    with app.app_context():
        match = eventlog.load_match(match_id)
    assert match.created_at == "2025-03-01T18:00:00.000+00:00"
    assert match.recorded_at[0] == "2025-03-01T18:01:30.000+00:00"
    assert match.recorded_at[-1] == f"2025-03-01T18:{len(document['events']):02d}:30.000+00:00"
    assert match.updated_at == match.recorded_at[-1]  # the match list orders it by when it was played
    page = soup(client.get(f"/m/{match_id}/history"))
    meta = page.select_one("p.meta").text
    assert "started Mar 1, 2025, 6:00:00\u202fPM" in meta and "imported" in meta
    times = [time.text for time in page.select("ol.log time")]
    assert times[-1] == "18:01" and times[0] == f"18:{len(document['events']):02d}"  # newest first
    assert page.select("ol.log .untimed") == []


def test_the_export_of_an_imported_match_carries_the_files_times_back(client):
    document = timed("tie-break-to-ten")
    match_id = imported_id(import_text(client, json.dumps(document)))
    exported = json.loads(client.get(f"/m/{match_id}/export").text)
    assert exported["created_at"] == "2025-03-01T18:00:00.000+00:00"
    assert [e["at"] for e in exported["events"]] == [
        e["at"].replace("Z", ".000+00:00") for e in document["events"]
    ]


def test_where_the_file_gives_no_time_the_history_says_so(client, app):
    document = recorded("tie-break-to-ten")  # no created_at, no event's "at"
    document["events"][2]["at"] = "2025-03-01T18:02:30Z"  # but one
    match_id = imported_id(import_text(client, json.dumps(document)))
    page = soup(client.get(f"/m/{match_id}/history"))
    meta = page.select_one("p.meta").text
    # The first time the file gives stands for its start.
    assert "started Mar 1, 2025" in meta and "imported" in meta
    log = page.select("ol.log li")
    assert [li.select_one(".untimed") is None for li in log][::-1][:4] == [False, False, True, False]
    assert log[-3].select_one("time").text == "18:02"
    count = len(document["events"]) - 1
    assert f"The match file gives no time for {count} events: they are marked “no time”." in page.text
    exported = json.loads(client.get(f"/m/{match_id}/export").text)  # left out again, not made up
    assert [("at" in e) for e in exported["events"]][:4] == [False, False, True, False]


def test_a_file_without_any_time_says_it_does_not_know_when_the_match_started(client):
    match_id = imported_id(import_text(client, (MATCHES / "tie-break-to-ten.json").read_text()))
    page = soup(client.get(f"/m/{match_id}/history"))
    meta = page.select_one("p.meta").text
    assert "start time unknown" in meta and "started" not in meta.replace("it started", "")
    assert "created_at" not in json.loads(client.get(f"/m/{match_id}/export").text)


def test_a_time_that_is_not_iso_8601_is_refused_and_nothing_is_stored(client, app):
    document = timed("tie-break-to-ten")
    document["events"][3]["at"] = "half past seven"
    before = rows(app)
    response = import_text(client, json.dumps(document))
    assert response.status_code == 422
    assert "event 4 cannot be read (“at” must be a time, such as" in response.text  # the 4th, index 3
    assert rows(app) == before


@pytest.mark.parametrize("times", [False, True], ids=["without-times", "with-times"])
def test_a_match_imported_twice_is_stored_once_and_the_second_import_links_to_it(client, app, times):
    text = (
        json.dumps(timed("two-players-to-royal-flush"))
        if times
        else (MATCHES / "two-players-to-royal-flush.json").read_text()
    )
    match_id = imported_id(import_text(client, text))
    with app.app_context():
        anna = stats.person(stats.person_id_of("Anna"))
    before = rows(app)
    again = import_text(client, text)
    assert again.status_code == 200
    link = soup(again).select_one("p.stored[role=status] a")
    assert link["href"] == f"/m/{match_id}/history"
    assert "already stored" in soup(again).select_one("p.stored").text
    assert rows(app) == before
    with app.app_context():  # counted once
        assert stats.person(stats.person_id_of("Anna")) == anna
        assert (anna.played, anna.finished) == (1, 1)


def test_the_second_import_gives_no_role_in_the_stored_match(app):
    """The file of a match anyone may export: importing it again must not make a phone its scorekeeper."""
    text = (MATCHES / "four-players-in-progress.json").read_text()
    match_id = imported_id(import_text(app.test_client(), text))
    other = app.test_client()
    assert import_text(other, text).status_code == 200
    version = json.loads(other.get(f"/m/{match_id}/export").text)["events"].__len__()
    refused = other.post(
        f"/m/{match_id}/record", data={"version": str(version), "type": "pass", "player": "Cia"}
    )
    assert refused.status_code == 403


def test_a_match_recorded_here_is_found_by_its_export(keeper, client, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.declare("Bo", "pair")
    keeper.post(type="pass", player="Anna")
    exported = client.get(f"/m/{keeper.match_id}/export").text
    assert all("at" in e for e in json.loads(exported)["events"])
    before = rows(app)
    again = import_text(client, exported)
    assert again.status_code == 200 and rows(app) == before
    assert soup(again).select_one("p.stored a")["href"] == f"/m/{keeper.match_id}/history"


def test_the_same_events_started_at_another_time_are_another_match(client, app):
    first = imported_id(import_text(client, json.dumps(timed("tie-break-to-ten", 0))))
    second = imported_id(import_text(client, json.dumps(timed("tie-break-to-ten", 30))))
    assert first != second


def test_a_file_with_times_is_not_the_same_match_as_its_copy_without(client):
    """Times known on one side and unknown on the other: nothing says they are one match."""
    plain = imported_id(import_text(client, (MATCHES / "tie-break-to-ten.json").read_text()))
    with_times = imported_id(import_text(client, json.dumps(timed("tie-break-to-ten"))))
    assert plain != with_times


def test_a_repeat_of_the_import_form_still_answers_with_the_match_it_made(client, app):
    """TRUST.md W8: the same form (its one-time key) posted again is the same answer, the role included."""
    form = {"text": json.dumps(timed("tie-break-to-ten")), "key": "k" * 22}
    first = client.post("/import", data=form)
    before = rows(app)
    again = client.post("/import", data=form)
    assert again.status_code == 303 and again.headers["Location"] == first.headers["Location"]
    assert rows(app) == before


@pytest.mark.parametrize("keys", ["one-key", "four-keys"])
def test_four_concurrent_imports_of_one_file_store_one_match(app, keys):
    """W8 holds for imports of a match already stored too: 4 posts at once make 1 match; a repeat of
    the form gets the match it made, another form gets the link to it."""
    text = json.dumps(timed("two-players-to-royal-flush"))
    answers: list = []

    def post(i: int) -> None:
        key = "a" * 22 if keys == "one-key" else f"{i}" * 22
        response = app.test_client().post("/import", data={"text": text, "key": key})
        stored = soup(response).select_one("p.stored a") if response.status_code == 200 else None
        answers.append(response.headers.get("Location") or (stored and stored["href"]))

    before = rows(app)
    threads = [threading.Thread(target=post, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    matches, events, creations = rows(app)
    assert matches == before[0] + 1 and creations == before[2] + 1
    (match_id,) = {answer.split("/")[2] for answer in answers}
    with app.app_context():
        assert eventlog.load_match(match_id).version == events - before[1]


def test_the_digest_chained_at_each_tap_is_the_one_worked_out_anew_at_start(keeper, app):
    """A database from before chains gets them at start (contents.fill_in): the same as the write
    path chains tap by tap, undos included."""
    from scorekeeper.web.store import contents

    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "pair")
    keeper.post("undo")
    keeper.declare("Bo", "flush")
    with app.app_context():
        db = database.get_db()
        chained = db.execute("SELECT chain FROM matches WHERE id = ?", [keeper.match_id]).fetchone()[0]
        with database.immediate(db):
            db.execute("UPDATE matches SET chain = NULL")
            contents.fill_in(db)
        again = db.execute("SELECT chain FROM matches WHERE id = ?", [keeper.match_id]).fetchone()[0]
        match = eventlog.load_match(keeper.match_id)
    assert chained == again == contents.of(match.players, match.rules, match.events)
