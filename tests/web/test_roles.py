"""TRUST.md S11: a phone keeps the scorekeeper role of every match it started, claimed or imported.

Roles live in the database against the phone's device (a random secret in its cookie, stored
only as a SHA-256), so the cookie stays the same size however many matches the phone keeps.
"""

from __future__ import annotations

import json
import re
from http.cookies import SimpleCookie

import pytest
from webtools import old_secret

from scorekeeper.events import Dealer
from scorekeeper.rules import Rules
from scorekeeper.web import roles
from scorekeeper.web.store import creations
from scorekeeper.web.store import db as database

PASS = {"version": "1", "type": "pass", "player": "Bo"}  # legal once Anna has been made the dealer
NEW = {"name": ["Anna", "Bo"], "dealer": "0", "start": "1"}
# Bytes of the session cookie's name=value: a 256-bit device secret and the CSRF token, signed
# (217 measured under lan, 224 under tls with its "__Host-" prefix; the whole Set-Cookie ~300).
COOKIE_BOUND = 240


def new_match(client) -> str:
    response = client.post("/new", data=NEW)
    assert response.status_code == 303, response.text
    return response.headers["Location"].rsplit("/", 1)[1]


def handover_secret(client, match_id: str) -> str:
    page = client.get(f"/m/{match_id}/handover")
    assert page.status_code == 200, page.status_code
    return re.search(r"/claim\?t=([\w-]+)", page.text).group(1)


def session_cookie(app, response) -> str | None:
    """The session cookie's ``name=value`` that a response sets, if it sets one."""
    for header in response.headers.getlist("Set-Cookie"):
        cookie = SimpleCookie(header)
        if app.config["SESSION_COOKIE_NAME"] in cookie:
            morsel = cookie[app.config["SESSION_COOKIE_NAME"]]
            return f"{morsel.key}={morsel.coded_value}"
    return None


@pytest.mark.both_profiles
def test_a_phone_keeps_the_role_of_200_matches_it_started_imported_or_claimed(app):
    phone, other = app.test_client(), app.test_client()
    phone.get("/new")  # a page puts the CSRF token in the session, as on a real phone
    exported = other.get(f"/m/{new_match(other)}/export").text
    started, cookies = [], []
    for n in range(200):
        # an old file, imported; each started at another time (a stored one is not stored again)
        if n % 20 == 7:
            document = json.loads(exported) | {"created_at": f"2025-03-01T18:{n // 20:02d}:00Z"}
            response = phone.post("/import", data={"text": json.dumps(document)})
        elif n % 20 == 13:  # another phone's match, handed over
            response = phone.get(f"/claim?t={handover_secret(other, new_match(other))}")
        else:
            response = phone.post("/new", data=NEW)
        assert response.status_code == 303, response.text
        started.append(response.headers["Location"].split("/")[2])
        cookies.append(session_cookie(app, response))
    assert len(set(started)) == 200
    recorded = [phone.post(f"/m/{match_id}/record", data=PASS).status_code for match_id in started]
    assert recorded == [303] * 200
    assert None not in cookies  # every new role renews the cookie's 30 days ...
    assert len({len(cookie) for cookie in cookies}) == 1  # ... at one fixed size
    assert len(cookies[-1]) <= COOKIE_BOUND, cookies[-1]
    print(f"session cookie: {len(cookies[-1])} bytes after 1 and after 200 matches")


class DescendingIds:
    """``secrets`` for writes.py, with match ids that sort in the order given (the rest stays random)."""

    def __init__(self, ids):
        import secrets

        self.ids, self.random = iter(ids), secrets.token_urlsafe

    def token_urlsafe(self, n=None):
        return next(self.ids) if n == 16 else self.random(n)


def test_a_live_match_keeps_its_role_when_the_phone_starts_20_more_whose_ids_sort_after_it(
    app, client, monkeypatch
):
    """The old cookie kept "the newest 20" but Flask sorts the session's keys: it kept the 20 ids
    that sort last, and the match being scored (its id sorting first) lost its role."""
    ids = [f"{letter}{'0' * 21}" for letter in "abcdefghijklmnopqrstu"]
    monkeypatch.setattr(creations, "secrets", DescendingIds(ids))
    live = new_match(client)
    later = [new_match(client) for _ in range(20)]
    assert live == ids[0] and live < min(later)
    assert client.post(f"/m/{live}/record", data=PASS).status_code == 303
    assert client.get(f"/m/{live}/handover").status_code == 200


@pytest.mark.both_profiles
def test_a_phone_that_lost_its_cookie_gets_the_role_back_only_by_a_hand_over_link(app):
    phone = app.test_client()
    match_id = new_match(phone)
    link = handover_secret(phone, match_id)
    phone.delete_cookie(app.config["SESSION_COOKIE_NAME"])
    assert phone.post(f"/m/{match_id}/record", data=PASS).status_code == 403
    assert phone.get(f"/m/{match_id}/handover").status_code == 404
    claimed = phone.get(f"/claim?t={link}")
    assert claimed.status_code == 303 and claimed.headers["Location"] == f"/m/{match_id}"
    assert phone.post(f"/m/{match_id}/record", data=PASS).status_code == 303
    third = app.test_client()  # the claiming phone's own link hands the role on too
    assert third.get(f"/claim?t={handover_secret(phone, match_id)}").status_code == 303
    assert third.get(f"/m/{match_id}/handover").status_code == 200


def test_a_hand_over_link_from_before_roles_moved_to_the_server_still_claims_its_match(app, client):
    with app.test_request_context():
        match_id = creations.create_match(("Anna", "Bo"), Rules(), (Dealer("Anna"),))
    secret = old_secret(app, match_id)
    assert client.get(f"/claim?t={secret}").status_code == 303
    assert client.post(f"/m/{match_id}/record", data=PASS).status_code == 303


def roles_of(app, match_id: str) -> list[str]:
    with app.app_context():
        rows = database.get_db().execute("SELECT device_hash FROM roles WHERE match_id = ?", [match_id])
        return [device_hash for (device_hash,) in rows]


@pytest.mark.both_profiles
def test_an_old_cookies_roles_move_to_the_device_once_and_the_old_entry_goes(app, client):
    with app.test_request_context():
        one, two, three = (
            creations.create_match(("Anna", "Bo"), Rules(), (Dealer("Anna"),)) for _ in range(3)
        )
    first, second = old_secret(app, one), old_secret(app, two)
    with client.session_transaction() as session:  # as the old code left it: match id -> secret
        session["keeper"] = {one: first, two: second, three: "not-its-secret", "x": 1}
        session.permanent = True
    moved = client.get("/")
    assert session_cookie(app, moved) is not None
    with client.session_transaction() as session:
        assert "keeper" not in session
        device = session["device"]
    assert roles_of(app, one) == roles_of(app, two) == [roles.digest(device)]
    assert roles_of(app, three) == []
    assert session_cookie(app, client.get("/")) is None  # once: nothing more to move
    for match_id in (one, two):
        assert client.post(f"/m/{match_id}/record", data=PASS).status_code == 303
    assert client.post(f"/m/{three}/record", data=PASS).status_code == 403


@pytest.mark.parametrize("held", ["not a dict", {}], ids=["malformed", "empty"])
def test_an_old_entry_with_nothing_to_move_just_goes(app, client, held):
    with client.session_transaction() as session:
        session["keeper"] = held
    assert client.get("/").status_code == 200
    with client.session_transaction() as session:
        assert "keeper" not in session and "device" not in session


def test_a_requests_answer_to_who_keeps_a_match_is_its_own_even_inside_a_shared_app_context(app, keeper):
    """The role is read once a request and kept for that request alone: Flask shares one app context
    (and its ``g``) between requests made inside it, and a stranger's tap must still be refused."""
    keeper.new("Anna", "Bo", dealer="Anna")
    stranger = app.test_client()
    with app.app_context():
        undo = f'action="/m/{keeper.match_id}/undo"'
        assert undo in keeper.client.get(f"/m/{keeper.match_id}").text
        assert undo not in stranger.get(f"/m/{keeper.match_id}").text
        refused = stranger.post(
            f"/m/{keeper.match_id}/record", data={"version": "1", "type": "pass", "player": "Bo"}
        )
        assert refused.status_code == 403 and keeper.rows() == 1
        assert keeper.post(type="pass", player="Bo").status_code == 200
