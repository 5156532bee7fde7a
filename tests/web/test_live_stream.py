"""The live view pushed: a stream of versions per spectator (scorekeeper/web/live.py, issue 14)."""

import pytest
from bs4 import BeautifulSoup
from test_watch_and_csrf import watch_url
from webtools import MATCHES, Keeper, soup


def stream_url(keeper) -> str:
    return watch_url(keeper).replace("/watch?", "/watch/stream?")


def events(response):
    """The stream's events as they come: (name, data) pairs, the data of a board event being
    (its id, its HTML); the retry line is skipped."""
    buffer = b""
    for chunk in response.response:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.decode().splitlines():
                name, _, value = line.partition(": ")
                fields[name] = fields[name] + "\n" + value if name in fields else value
            if fields.get("event") == "board":
                yield "board", (fields["id"], fields["data"])
            elif "event" in fields:
                yield fields["event"], fields["data"]


@pytest.fixture
def spectator(app):
    return app.test_client()


def test_the_stream_sends_the_board_at_each_tap_and_the_version_to_a_page_that_has_it(keeper, spectator):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    response = spectator.get(stream_url(keeper) + "&v=1", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    said = events(response)
    assert next(said) == ("version", "1")  # the page shows version 1 already
    assert keeper.declare("Bo", "flush").status_code == 200
    name, (version, html) = next(said)  # the watcher noticed the commit and woke this stream
    board = BeautifulSoup(html, "html.parser").select_one("#board")
    assert (name, version, board["data-version"]) == ("board", "2", "2")
    assert "Bo declared a flush" in board.text
    assert keeper.declare("Cia", "full_house").status_code == 200
    assert next(said)[1][0] == "3"
    response.close()


def test_a_page_that_is_behind_gets_the_board_at_once(keeper, spectator):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "flush")
    for asked in ({"query": "&v=1"}, {"query": ""}, {"query": "&v=9", "headers": {"Last-Event-ID": "1"}}):
        response = spectator.get(
            stream_url(keeper) + asked["query"], headers=asked.get("headers"), buffered=False
        )
        name, (version, html) = next(events(response))
        assert (name, version) == ("board", "2") and 'data-version="2"' in html
        response.close()
    for shown in ("2", "x", "-1" * 20):  # up to date, or nonsense: taken as unknown
        response = spectator.get(stream_url(keeper) + f"&v={shown}", buffered=False)
        assert next(events(response))[0] == ("version" if shown == "2" else "board")
        response.close()


def test_the_board_in_the_stream_speaks_the_spectators_language(keeper, spectator):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "flush")
    spectator.set_cookie("lang", "sv")
    response = spectator.get(stream_url(keeper), buffered=False)
    _, (_, html) = next(events(response))
    assert "Bo sa färg" in BeautifulSoup(html, "html.parser").select_one("#board").text
    response.close()


def test_each_stream_wakes_for_its_own_match_only(app, keeper, spectator):
    """The watcher finds the matches written since its last look by the events' rowids."""
    other = Keeper(app, app.test_client()).new("Dan", "Eva", dealer="Dan")
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    ours = events(spectator.get(stream_url(keeper) + "&v=1", buffered=False))
    theirs = events(app.test_client().get(stream_url(other) + "&v=1", buffered=False))
    assert next(ours) == ("version", "1") and next(theirs) == ("version", "1")
    for _ in range(2):
        other.declare("Eva", "pair")
    assert next(theirs)[0] == "board"  # one board or two, as the watcher's looks fell
    keeper.declare("Bo", "flush")
    name, (version, _) = next(ours)  # woken by its own match's tap, not by the other's
    assert (name, version) == ("board", "2")


def test_the_stream_carries_the_security_headers_and_is_never_compressed_or_cached(keeper, spectator):
    keeper.new("Anna", "Bo", dealer="Anna")
    response = spectator.get(stream_url(keeper), buffered=False, headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
    response.close()


def test_a_wrong_secret_gets_no_stream(client):
    assert client.get("/watch/stream?t=wrong").status_code == 404
    assert client.get("/watch/stream").status_code == 404


def test_beyond_the_processes_limit_a_stream_is_declined_with_204_and_the_page_polls(keeper, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    versions = app.extensions["live"]
    versions.limit = 1
    first = app.test_client().get(stream_url(keeper), buffered=False)
    assert next(events(first))[0] == "board"
    declined = app.test_client().get(
        stream_url(keeper), buffered=False, headers={"Accept-Encoding": "gzip, br"}
    )
    assert declined.status_code == 204 and "Content-Encoding" not in declined.headers
    assert versions.refused == 1
    first.close()  # the phone went: its place is free again
    assert versions.streams == 0
    again = app.test_client().get(stream_url(keeper), buffered=False)
    assert next(events(again))[0] == "board"
    again.close()
    unread = app.test_client().get(stream_url(keeper), buffered=False)
    unread.close()  # closed before its first event: its place is free all the same
    assert versions.streams == 0


def test_beyond_a_matchs_own_limit_its_next_stream_is_declined_while_other_matches_still_stream(
    keeper, app, monkeypatch
):
    """A tap is written to every stream of its match: whoever has the link may not open a thousand."""
    from scorekeeper.web import live

    monkeypatch.setattr(live, "PER_MATCH", 2)
    keeper.new("Anna", "Bo", dealer="Anna")
    watched = stream_url(keeper)
    held = [app.test_client().get(watched, buffered=False) for _ in range(2)]
    assert all(next(events(response))[0] == "board" for response in held)
    assert app.test_client().get(watched, buffered=False).status_code == 204
    keeper.new("Cia", "Dan", dealer="Cia")
    other = app.test_client().get(stream_url(keeper), buffered=False)
    assert next(events(other))[0] == "board"  # another match's stream is not refused
    for response in [*held, other]:
        response.close()
    assert app.extensions["live"].streams == 0


def test_the_live_page_names_its_stream_and_a_finished_match_has_none(keeper, client, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    board = soup(client.get(watch_url(keeper))).select_one("#board")
    assert board["data-stream"] == stream_url(keeper) + "&v=1"
    imported = client.post("/import", data={"text": (MATCHES / "tie-break-to-ten.json").read_text()})
    keeper.match_id = imported.headers["Location"].split("/")[2]  # /m/<id>/...
    board = soup(client.get(watch_url(keeper))).select_one("#board")
    assert "wins" in board.select_one(".won").text  # the winner's banner (issue 25)
    assert not board.has_attr("data-stream") and not board.has_attr("data-live")
