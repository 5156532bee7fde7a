"""The read-only live view, and CSRF on every form."""

import pytest
from webtools import soup


def watch_url(keeper, board: bool = False) -> str:
    from scorekeeper.web import roles

    with keeper.app.test_request_context():
        token = roles.watch_token(keeper.match_id)
    return f"/watch{'/board' if board else ''}?t={token}"


@pytest.mark.both_profiles
def test_the_live_view_shows_the_scoreboard_and_feed_and_cannot_write(keeper, client):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "pair")
    page = soup(client.get(watch_url(keeper)))
    assert page.select_one("#scoreboard") is not None
    assert "Bo declared a pair" in page.select_one("#feed").text
    assert [form["action"] for form in page.select("form")] == ["/language"]  # only this phone's language
    assert page.select("[hx-post]") == []


@pytest.mark.both_profiles
def test_the_scorekeepers_share_page_links_the_live_view(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    share = keeper.page().select_one("footer.links a[href$='/handover']")["href"]
    assert watch_url(keeper) in client.get(share).text.replace("&amp;", "&")


def test_an_unchanged_board_is_answered_304_and_a_changed_one_200(keeper, client):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    url = watch_url(keeper, board=True)
    first = client.get(url, headers={"HX-Request": "true"})
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert soup(first).find()["id"] == "board"
    unchanged = client.get(url, headers={"HX-Request": "true", "If-None-Match": etag})
    assert unchanged.status_code == 304
    assert unchanged.data == b""
    keeper.declare("Bo", "flush")
    changed = client.get(url, headers={"HX-Request": "true", "If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    assert "Bo declared a flush" in changed.text


def test_the_board_polls_with_the_version_it_shows(keeper, client):
    keeper.new("Anna", "Bo", dealer="Anna")
    board = soup(client.get(watch_url(keeper))).select_one("#board")
    assert board["hx-trigger"] == "every 2s, pushed"  # pushed: the stream says the version changed
    assert board["data-version"] == "1"
    assert board["hx-headers"] == '{"If-None-Match": "\\"v1\\""}'


def test_an_unknown_live_view_is_404(client):
    assert client.get("/watch?t=nope").status_code == 404
    assert client.get("/watch/board?t=nope").status_code == 404
    assert client.get("/watch").status_code == 404


@pytest.mark.both_profiles
def test_csrf_tokens_do_not_expire_during_a_match(app):
    assert app.config["WTF_CSRF_TIME_LIMIT"] is None


def test_a_board_kept_for_one_mount_point_is_not_served_at_another(keeper, client):
    """The board is kept per version and language, and per mount point (SCRIPT_NAME): its links carry it."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    url = watch_url(keeper, board=True)
    mounted = client.get(url, headers={"HX-Request": "true"}, base_url="http://localhost/club/")
    plain = client.get(url, headers={"HX-Request": "true"})
    assert 'data-stream="/club/watch/stream' in mounted.text
    assert "/club/" not in plain.text
