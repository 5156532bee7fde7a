"""TRUST.md I7 through the test client: an import is replayed outside the write lock, capped, rate-limited.

The load goal (taps during imports, the worker's memory) is tests/load/test_creations_and_imports.py.
"""

import json
import sqlite3
import threading
import time
import tracemalloc

import pytest
from trusttools import Browser, fingerprint, strict_app
from webtools import MATCHES

from scorekeeper import matchfile
from scorekeeper.web import create_app
from scorekeeper.web.cache import cache
from scorekeeper.web.settings import IMPORT_LIMIT, MAX_EVENTS
from scorekeeper.web.store import creations, eventlog, writes
from scorekeeper.web.store import db as database


def write_lock_is_free(path: str) -> bool:
    """True if another connection could start writing right now (nobody holds the write lock)."""
    other = sqlite3.connect(path, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


def test_an_import_is_replayed_before_the_write_lock_is_taken(app, client, monkeypatch):
    seen = []
    real = writes.replay

    def watched(players, rules, events):
        db = database.open_connection()
        in_transaction = db is not None and db.conn.in_transaction
        seen.append((len(events), in_transaction, write_lock_is_free(app.config["DATABASE"])))
        return real(players, rules, events)

    monkeypatch.setattr(creations, "replay", watched)
    response = client.post("/import", data={"text": (MATCHES / "tie-break-to-ten.json").read_text()})
    assert response.status_code == 303
    ((count, in_transaction, lock_free),) = seen
    assert count > 0 and not in_transaction and lock_free


def started_at(text: str, minute: int) -> str:
    """The same match file, saying it was started at another time: another match, stored anew
    (the same file again is the match already stored, and is not replayed: issue 25)."""
    document = json.loads(text)
    document["created_at"] = f"2025-03-01T19:{minute:02d}:00Z"
    return json.dumps(document)


def match_file(events: int, pad: int = 0) -> str:
    """A match file of ``events`` undos (the engine refuses them; the caps come first), padded to size."""
    document = {"format": "chicago-match/1", "players": ["Anna", "Bo"], "events": [{"type": "undo"}] * events}
    if pad:
        document["note"] = "x" * pad
    return json.dumps(document)


def test_a_file_with_more_events_than_any_real_match_is_refused_before_an_event_is_read(
    app, client, monkeypatch
):
    read = []
    monkeypatch.setattr(matchfile, "read_event", lambda data: read.append(data))
    before = fingerprint(app)
    response = client.post("/import", data={"text": match_file(MAX_EVENTS + 1)})
    assert response.status_code == 422
    assert (
        f"at most {MAX_EVENTS} events" in response.text and f"this one has {MAX_EVENTS + 1}" in response.text
    )
    assert read == [] and fingerprint(app) == before


def test_a_file_of_as_many_events_as_the_cap_is_read_and_judged_by_the_engine(client):
    response = client.post("/import", data={"text": match_file(MAX_EVENTS)})
    assert response.status_code == 422
    assert "breaks a rule (" in response.text and "at most" not in response.text


def test_the_cap_on_events_is_said_in_the_readers_language(client):
    response = client.post(
        "/import", data={"text": match_file(MAX_EVENTS + 1)}, headers={"Accept-Language": "sv"}
    )
    assert response.status_code == 422
    assert f"{MAX_EVENTS + 1}" in response.text and "A match file may hold" not in response.text


def upload(client, text: str, pasted: bool, **headers):
    """The import form as a browser sends it (multipart): the file uploaded or pasted.

    The body is built here: the test client's own encoder spools a large one to a temporary
    file that it never closes.
    """
    boundary = "----chicago-boundary"
    disposition = 'name="text"' if pasted else 'name="file"; filename="match.json"'
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; {disposition}\r\n\r\n{text}\r\n--{boundary}--\r\n"
    ).encode()
    content_type = f"multipart/form-data; boundary={boundary}"
    return client.post("/import", data=body, content_type=content_type, headers=headers)


@pytest.mark.both_profiles
@pytest.mark.parametrize("pasted", [True, False], ids=["pasted", "uploaded"])
def test_a_file_up_to_2_mib_is_taken_pasted_or_uploaded(client, pasted):
    real = json.loads((MATCHES / "two-players-to-royal-flush.json").read_text())
    real["note"] = "x" * (IMPORT_LIMIT - 100 * 1024)
    response = upload(client, json.dumps(real), pasted)
    assert response.status_code == 303


@pytest.mark.parametrize("pasted", [True, False], ids=["pasted", "uploaded"])
def test_a_file_over_2_mib_gets_a_clear_refusal_and_changes_nothing(app, client, pasted):
    before = fingerprint(app)
    response = upload(client, match_file(1, pad=IMPORT_LIMIT), pasted)
    assert response.status_code == 413
    assert "A match file may be at most 2 MB" in response.text
    assert 'name="file"' in response.text  # the import form again, to choose another file
    assert fingerprint(app) == before
    swedish = upload(client, match_file(1, pad=IMPORT_LIMIT), pasted, **{"Accept-Language": "sv"})
    assert swedish.status_code == 413 and "A match file may be at most" not in swedish.text


def test_any_other_post_over_16_kib_still_gets_the_plain_413_page(app, client):
    client.post("/new", data={"name": ["Anna", "Bo"], "dealer": "draw", "start": "1"})
    response = client.post("/players/1/rename", data={"name": "x" * 20_000})
    assert response.status_code == 413 and "That is too large to send." in response.text


@pytest.mark.both_profiles
def test_more_than_10_imports_a_minute_from_one_address_get_429_and_nothing_else_is_limited(app):
    browser = Browser(strict_app(app))
    text = (MATCHES / "two-players-to-royal-flush.json").read_text()
    statuses = [
        browser.post("/import", {"text": started_at(text, i) if i % 2 else "not json"}).status_code
        for i in range(10)
    ]
    assert statuses == [422, 303] * 5  # a refused file costs a replay too: it counts
    before = fingerprint(app)
    response = browser.post("/import", {"text": text})
    assert response.status_code == 429
    assert "Too many imports from this address" in response.text and 'name="file"' in response.text
    assert fingerprint(app) == before
    assert browser.get("/import").status_code == 200  # the form itself is not limited
    swedish = browser.post("/import", {"text": text}, headers={"Accept-Language": "sv"})
    assert swedish.status_code == 429 and "Too many imports" not in swedish.text
    elsewhere = browser.post(
        "/import", {"text": started_at(text, 59)}, environ_overrides={"REMOTE_ADDR": "192.0.2.7"}
    )
    assert elsewhere.status_code == 303  # another address has its own allowance
    match_id = browser.new_match("Anna", "Bo")  # and the other posts are never limited
    for version in range(1, 31):
        response = browser.post(
            f"/m/{match_id}/record",
            {"version": str(version), "type": "adjust", "player": "Bo", "points": "1"},
        )
        assert response.status_code == 303


@pytest.mark.both_profiles
def test_an_import_over_the_limit_is_refused_before_its_form_is_read(app):
    browser = Browser(strict_app(app))
    text = (MATCHES / "two-players-to-royal-flush.json").read_text()
    assert browser.post("/import", {"text": text}, token="wrong").status_code == 400  # the token is checked
    for _ in range(9):
        browser.post("/import", {"text": text})
    # Its form is not even read for the CSRF token: a 429, not a 400.
    assert browser.post("/import", {"text": text}, token="wrong").status_code == 429


def test_the_import_rate_is_a_setting(app):
    generous = create_app(
        {
            **app.config,
            "WTF_CSRF_ENABLED": True,
            "RATELIMIT_ENABLED": True,
            "IMPORT_RATE_LIMIT": "2 per minute",
        }
    )
    browser = Browser(generous)
    text = (MATCHES / "two-players-to-royal-flush.json").read_text()
    statuses = [browser.post("/import", {"text": started_at(text, i)}).status_code for i in range(3)]
    assert statuses == [303, 303, 429]


def test_a_worker_reads_and_replays_one_import_at_a_time(app, monkeypatch):
    replaying, most = [], []
    real = writes.replay

    def slow(players, rules, events):
        replaying.append(1)
        most.append(len(replaying))
        time.sleep(0.05)  # long enough for the other imports to arrive
        replaying.pop()
        return real(players, rules, events)

    monkeypatch.setattr(creations, "replay", slow)
    text = (MATCHES / "tie-break-to-ten.json").read_text()
    statuses = []

    def post(minute: int) -> None:
        statuses.append(
            app.test_client().post("/import", data={"text": started_at(text, minute)}).status_code
        )

    threads = [threading.Thread(target=post, args=(minute,)) for minute in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [303] * 4 and max(most) == 1


@pytest.mark.parametrize("letter", ["x", "é", "ő", "🂡"], ids=["ascii", "latin-1", "2 bytes", "4 bytes"])
def test_a_kept_match_with_a_long_correction_costs_no_more_than_its_estimate(app, client, letter):
    """The cache is bounded by memory (I7): an imported correction's reason may take most of 2 MiB."""
    document = json.loads((MATCHES / "two-players-to-royal-flush.json").read_text())
    reason = letter * 100_000
    document["events"].insert(3, {"type": "adjust", "player": "Anna", "points": 1, "reason": reason})
    match_id = client.post("/import", data={"text": json.dumps(document)}).headers["Location"].split("/")[2]
    with app.test_request_context():
        cache().clear()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        eventlog.state_of(eventlog.load_match(match_id))
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert 0 < used <= cache().bytes < 4 * used, (used, cache().bytes)


def test_identical_imports_at_once_read_the_file_once(app, monkeypatch):
    """W8 and I7: the repeats of one import form wait for the first, then find the match it stored."""
    from scorekeeper.web.store import imports

    read = []
    real = imports.load

    def counted(document):
        read.append(1)
        time.sleep(0.05)  # the repeats arrive meanwhile
        return real(document)

    monkeypatch.setattr(imports, "load", counted)
    form = {"text": (MATCHES / "tie-break-to-ten.json").read_text(), "key": "k" * 22}
    locations = []

    def post() -> None:
        locations.append(app.test_client().post("/import", data=form).headers["Location"])

    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(locations) == 4 and len(set(locations)) == 1 and read == [1]
