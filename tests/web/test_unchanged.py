"""The live view's unchanged check answered before Flask (scorekeeper/web/unchanged.py, issue 14)."""

from test_watch_and_csrf import watch_url
from webtools import soup
from werkzeug.test import Client

HTMX = {"HX-Request": "true", "Accept-Encoding": "gzip, br"}


def unchanged(version: int) -> dict[str, str]:
    return {**HTMX, "If-None-Match": f'"v{version}"'}


def flask_only(app) -> Client:
    """A client of the app without the layer in front: what Flask alone answers."""
    return Client(app.extensions["unchanged_check"].wrapped)


def test_an_unchanged_check_is_answered_before_flask_with_the_headers_flask_would_add(keeper, app):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    url = watch_url(keeper, board=True)
    check = app.extensions["unchanged_check"]
    before = check.answered
    fast = app.test_client().get(url, headers=unchanged(1))
    assert check.answered == before + 1
    slow = flask_only(app).get(url, headers=unchanged(1))
    assert (fast.status_code, slow.status_code) == (304, 304)
    assert fast.data == slow.data == b""
    assert sorted(fast.headers.items()) == sorted(slow.headers.items())
    assert fast.headers["ETag"] == '"v1"'


def test_a_wrong_secret_goes_through_flask_and_is_refused_as_before(keeper, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    check = app.extensions["unchanged_check"]
    before = (check.answered, check.passed_on)
    refused = app.test_client().get("/watch/board?t=wrong", headers=unchanged(1))
    assert refused.status_code == 404
    assert "There is nothing here" in refused.text  # Flask's error page
    assert (check.answered, check.passed_on) == (before[0], before[1] + 1)


def test_a_changed_version_goes_through_flask_and_returns_the_new_board(keeper, app):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    url = watch_url(keeper, board=True)
    keeper.declare("Bo", "flush")
    check = app.extensions["unchanged_check"]
    before = check.answered
    changed = app.test_client().get(url, headers={"HX-Request": "true", "If-None-Match": '"v1"'})
    assert check.answered == before
    assert changed.status_code == 200
    assert changed.headers["ETag"].startswith('"v2')
    assert "Bo declared flush" in soup(changed).select_one("#feed").text


def test_only_the_unchanged_check_is_answered_before_flask(keeper, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    url = watch_url(keeper, board=True)
    check = app.extensions["unchanged_check"]
    client = app.test_client()
    before = check.answered
    assert client.get(url, headers=HTMX).status_code == 200  # no If-None-Match: the board
    assert client.head(url, headers=unchanged(1)).status_code == 304  # Flask answers HEAD
    assert client.get(watch_url(keeper), headers=unchanged(1)).status_code == 200  # the page
    assert client.get(url + "&t=other", headers=unchanged(1)).status_code == 304  # the first t
    assert client.get(url.replace("t=", "x="), headers=unchanged(1)).status_code == 404
    assert check.answered == before + 1


def test_a_storage_fault_goes_through_flask(keeper, app, monkeypatch):
    import sqlite3

    from scorekeeper.web import db

    keeper.new("Anna", "Bo", dealer="Anna")
    url = watch_url(keeper, board=True)

    def broken(path):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(db, "connection", broken)
    answered = app.test_client().get(url, headers=unchanged(1))
    assert answered.status_code in (500, 503)
    assert "Traceback" not in answered.text
