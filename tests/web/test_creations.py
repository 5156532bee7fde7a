"""TRUST.md W8 through the test client: forms that create a match are exactly-once, like the taps.

The concurrent case (4 identical posts at once against gunicorn) is in tests/load/test_imports.py.
"""

import io
import json

import pytest
from bs4 import BeautifulSoup
from trusttools import Browser, db_bytes, fingerprint, strict_app
from webtools import MATCHES

from scorekeeper.web import create_app, roles
from scorekeeper.web.store import db as database

NEW_MATCH = {"name": ["Anna", "Bo", "Cia"], "dealer": "0", "start": "1"}


@pytest.fixture
def browser(app):
    return Browser(strict_app(app))


def form_key(browser, path: str) -> str:
    """The one-time key the page's creating form (new, import or rematch) carries."""
    page = BeautifulSoup(browser.get(path).text, "html.parser")
    (form,) = [f for f in page.find_all("form") if f["action"].endswith(("/new", "/import", "/rematch"))]
    return form.find("input", attrs={"name": "key"})["value"]


def match_count(app) -> int:
    with app.app_context():
        return database.get_db().table("matches").count


def forget_roles(browser) -> None:
    """As if the first answer (and the cookie it set) never arrived."""
    with browser.client.session_transaction() as session:
        session.pop(
            "device", None
        )  # roles are kept against the device (m005): a new phone, as far as the app knows


@pytest.mark.both_profiles
def test_a_new_match_form_posted_twice_creates_one_match_and_answers_alike(browser):
    form = {**NEW_MATCH, "key": form_key(browser, "/new")}
    first, again = browser.post("/new", form), browser.post("/new", form)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert match_count(browser.app) == 1


@pytest.mark.both_profiles
def test_a_repeat_after_a_lost_answer_makes_the_poster_the_scorekeeper(browser):
    form = {**NEW_MATCH, "key": form_key(browser, "/new")}
    location = browser.post("/new", form).headers["Location"]
    forget_roles(browser)
    assert 'id="turn"' not in browser.get(location).text  # without the role: the read-only board
    assert browser.post("/new", form).headers["Location"] == location
    assert 'id="turn"' in browser.get(location).text  # the scorekeeper's table again
    match_id = location.rsplit("/", 1)[1]
    assert (
        browser.post(f"/m/{match_id}/record", {"version": "1", "type": "pass", "player": "Bo"}).status_code
        == 303
    )


def test_a_creation_key_reused_with_other_content_is_refused_and_changes_nothing(browser):
    key = form_key(browser, "/new")
    browser.post("/new", {**NEW_MATCH, "key": key})
    before = fingerprint(browser.app)
    response = browser.post("/new", {**NEW_MATCH, "name": ["Anna", "Bo"], "key": key})
    assert response.status_code == 422  # TRUST.md W3
    assert "already used" in response.text
    assert fingerprint(browser.app) == before


@pytest.mark.parametrize(
    "key",
    ["short", "x" * 21, "no spaces in a key at all", "é" * 30, "k" * 65],
    ids=["short", "21 characters", "spaces", "not ascii", "65 characters"],
)
def test_a_malformed_creation_key_is_refused_and_changes_nothing(browser, key):
    before = fingerprint(browser.app)
    response = browser.post("/new", {**NEW_MATCH, "key": key})
    assert response.status_code == 422
    assert "out of date" in response.text
    assert fingerprint(browser.app) == before


def test_a_form_without_a_key_still_works_but_is_not_protected(browser):
    first, again = browser.post("/new", NEW_MATCH), browser.post("/new", NEW_MATCH)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] != again.headers["Location"]
    assert match_count(browser.app) == 2


def test_each_rendering_of_the_form_has_its_own_key_and_the_database_keeps_only_hashes(browser):
    key = form_key(browser, "/new")
    assert key != form_key(browser, "/new") and len(key) >= 22
    match_id = browser.post("/new", {**NEW_MATCH, "key": key}).headers["Location"].rsplit("/", 1)[1]
    with browser.client.session_transaction() as session:
        device = session["device"]  # the role is kept against this phone (m005)
    stored = db_bytes(browser.app)
    assert key.encode() not in stored and device.encode() not in stored  # TRUST.md S1
    assert roles.digest(key).encode() in stored and roles.digest(device).encode() in stored
    assert match_id.encode() in stored


def finished_match(browser) -> str:
    """A finished match this browser imported (so it is its scorekeeper): each one another match,
    started at another time (the same file again is the match already stored, issue 25)."""
    document = json.loads((MATCHES / "tie-break-to-ten.json").read_text())
    document["created_at"] = f"2025-03-01T18:{match_count(browser.app):02d}:00Z"
    response = browser.post("/import", {"text": json.dumps(document)})
    return response.headers["Location"].split("/")[2]


@pytest.mark.both_profiles
def test_a_rematch_posted_twice_creates_one_match_and_answers_alike(browser):
    match_id = finished_match(browser)
    form = {"key": form_key(browser, f"/m/{match_id}")}
    first, again = browser.post(f"/m/{match_id}/rematch", form), browser.post(f"/m/{match_id}/rematch", form)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert match_count(browser.app) == 2  # the finished match and one rematch


def test_a_rematch_key_used_on_another_match_is_refused_and_changes_nothing(browser):
    one, two = finished_match(browser), finished_match(browser)
    key = form_key(browser, f"/m/{one}/history")
    assert browser.post(f"/m/{one}/rematch", {"key": key}).status_code == 303
    before = fingerprint(browser.app)
    assert browser.post(f"/m/{two}/rematch", {"key": key}).status_code == 422
    assert browser.post(f"/m/{two}/rematch", {"key": "short"}).status_code == 400
    assert fingerprint(browser.app) == before


@pytest.mark.parametrize("upload", [False, True], ids=["pasted", "uploaded"])
def test_an_import_posted_twice_creates_one_match_and_answers_alike(browser, upload):
    text = (MATCHES / "two-players-to-royal-flush.json").read_bytes()
    key = form_key(browser, "/import")

    def post():
        if upload:
            form = {"key": key, "file": (io.BytesIO(text), "match.json")}
            return browser.post("/import", form, content_type="multipart/form-data")
        return browser.post("/import", {"key": key, "text": text.decode()})

    first = post()
    forget_roles(browser)
    again = post()
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert match_count(browser.app) == 1
    match_id = first.headers["Location"].split("/")[2]
    assert 'id="turn"' in browser.get(f"/m/{match_id}").text  # the poster is the scorekeeper again


def test_an_import_key_reused_with_another_file_is_refused_and_changes_nothing(browser):
    key = form_key(browser, "/import")
    browser.post("/import", {"key": key, "text": (MATCHES / "two-players-to-royal-flush.json").read_text()})
    before = fingerprint(browser.app)
    response = browser.post("/import", {"key": key, "text": (MATCHES / "tie-break-to-ten.json").read_text()})
    assert response.status_code == 422 and "already used" in response.text
    assert fingerprint(browser.app) == before


# Issue 24: matches made are counted per address, so that a client looping /new cannot fill
# every list of people; a real club never meets the limit (30 a minute, a setting).


@pytest.mark.both_profiles
def test_more_than_30_matches_a_minute_from_one_address_get_429_saying_so(browser):
    app = browser.app
    assert browser.post("/new", {**NEW_MATCH, "start": None, "move": "1"}).status_code == 200  # seats
    assert browser.post("/new", {**NEW_MATCH, "name": ["Anna"]}).status_code == 422  # one player
    finished = finished_match(browser)  # imported: the import's own allowance
    made = [browser.post("/new", {**NEW_MATCH, "key": form_key(browser, "/new")}) for _ in range(29)]
    assert [r.status_code for r in made] == [303] * 29  # the buttons and the refusal made nothing
    assert (
        browser.post(f"/m/{finished}/rematch", {"key": form_key(browser, f"/m/{finished}")}).status_code
        == 303
    )
    before = fingerprint(app)
    refused = browser.post("/new", {**NEW_MATCH, "key": form_key(browser, "/new")})
    assert refused.status_code == 429
    page = BeautifulSoup(refused.text, "html.parser")
    assert "Too many new matches from this address" in page.find("main").text
    assert "wrong links" not in refused.text
    rematch = browser.post(f"/m/{finished}/rematch", {"key": form_key(browser, f"/m/{finished}")})
    assert rematch.status_code == 429 and "Too many new matches" in rematch.text  # one allowance
    swedish = browser.post("/new", NEW_MATCH, headers={"Accept-Language": "sv"})
    assert swedish.status_code == 429 and "Too many new matches" not in swedish.text
    assert fingerprint(app) == before
    elsewhere = browser.post("/new", NEW_MATCH, environ_overrides={"REMOTE_ADDR": "192.0.2.7"})
    assert elsewhere.status_code == 303  # another address has its own allowance
    assert browser.get("/new").status_code == 200  # the form itself is not limited


def test_the_creation_rate_is_a_setting(app, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_CREATE_RATE_LIMIT", "2 per minute")
    config = {key: value for key, value in app.config.items() if key != "CREATE_RATE_LIMIT"}
    browser = Browser(create_app({**config, "WTF_CSRF_ENABLED": True, "RATELIMIT_ENABLED": True}))
    assert [browser.post("/new", NEW_MATCH).status_code for _ in range(3)] == [303, 303, 429]
