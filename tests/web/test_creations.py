"""TRUST.md W8 through the test client: forms that create a match are exactly-once, like the taps.

The concurrent case (4 identical posts at once against gunicorn) is in tests/load/test_imports.py.
"""

import re

import pytest
from trusttools import Browser, db_bytes, fingerprint, strict_app

from scorekeeper.web import capabilities
from scorekeeper.web import db as database

KEY = re.compile(r'name="key" value="([^"]+)"')
NEW_MATCH = {"name": ["Anna", "Bo", "Cia"], "dealer": "0", "start": "1"}


@pytest.fixture
def browser(app):
    return Browser(strict_app(app))


def form_key(browser, path: str) -> str:
    """The one-time key the page's creating form carries."""
    (key,) = KEY.findall(browser.get(path).text)
    return key


def match_count(app) -> int:
    with app.app_context():
        return database.get_db().table("matches").count


def forget_roles(browser) -> None:
    """As if the first answer (and the cookie it set) never arrived."""
    with browser.client.session_transaction() as session:
        session.pop("keeper", None)


def test_a_new_match_form_posted_twice_creates_one_match_and_answers_alike(browser):
    form = {**NEW_MATCH, "key": form_key(browser, "/new")}
    first, again = browser.post("/new", form), browser.post("/new", form)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert match_count(browser.app) == 1


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
        keeper = session["keeper"][match_id]
    stored = db_bytes(browser.app)
    assert key.encode() not in stored and keeper.encode() not in stored  # TRUST.md S1
    assert capabilities.digest(key).encode() in stored and capabilities.digest(keeper).encode() in stored
