"""The room board: every match under way, read-only, polled with an ETag, with no secret in it."""

from __future__ import annotations

import json

from test_imported_matches import import_text, imported_id, timed
from webtools import soup

from scorekeeper.web import roles


def test_the_room_board_shows_matches_under_way_and_answers_304_while_nothing_changed(client, keeper, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    imported_id(import_text(client, json.dumps(timed("tie-break-to-ten", 0))))  # finished in 2025
    board = client.get("/room/board")
    tables = soup(board).select("#room .room-table")
    assert [t.h2.text for t in tables] == ["Anna and Bo"]
    assert "Anna deals" in tables[0].text
    etag = board.headers["ETag"]
    assert client.get("/room/board", headers={"If-None-Match": etag}).status_code == 304
    keeper.post(type="pass", player="Bo")
    changed = client.get("/room/board", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_the_room_board_carries_no_secret_and_no_link_to_a_table(client, keeper, app):
    keeper.new("Anna", "Bo", dealer="Anna")
    page = client.get("/room")
    with app.test_request_context():
        secret = roles.watch_token(keeper.match_id)
    assert page.status_code == 200
    assert secret not in page.text and "/watch" not in page.text and "/claim" not in page.text
    assert f"/m/{keeper.match_id}" not in page.text
    assert soup(page).select_one("details.room-share svg.qr") is not None
