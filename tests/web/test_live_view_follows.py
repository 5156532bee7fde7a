"""Issue 25, item 6: the live view follows a rematch, and says a Chicago and the winner as boldly as
the scorekeeper's screen does."""

import json
import re

from webtools import recorded, soup

from scorekeeper.web import roles

HX = {"HX-Request": "true"}


def token_of(app, match_id: str) -> str:
    with app.test_request_context():
        return roles.watch_token(match_id)


def imported(client, document: dict) -> str:
    response = client.post("/import", data={"text": json.dumps(document)})
    assert response.status_code == 303, response.text
    return response.headers["Location"].split("/")[2]


def finished_match(client) -> str:
    return imported(client, recorded("tie-break-to-ten"))


def rematch(client, match_id: str) -> str:
    response = client.post(f"/m/{match_id}/rematch", data={"key": "r" * 22})
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def secrets_in(text: str) -> set[str]:
    """Every secret a page could carry in a link: live view, claim (hand-over)."""
    return set(re.findall(r"[?&]t=([\w-]+)", text.replace("&amp;", "&")))


def test_the_finished_matchs_board_sends_its_spectators_on_to_the_rematch(app, client):
    old = finished_match(client)
    board = f"/watch/board?t={token_of(app, old)}"
    before = client.get(board, headers=HX)
    assert before.status_code == 200 and "HX-Redirect" not in before.headers
    assert client.get(board, headers={**HX, "If-None-Match": before.headers["ETag"]}).status_code == 304
    new = rematch(client, old)
    followed = client.get(board, headers={**HX, "If-None-Match": before.headers["ETag"]})
    assert followed.status_code == 200  # not 304: the old match did not change, its rematch began
    assert followed.headers["HX-Redirect"] == f"/watch?t={token_of(app, new)}"
    link = soup(followed).select_one("#board .follow a")
    assert link["href"] == f"/watch?t={token_of(app, new)}"
    assert secrets_in(followed.text) == {token_of(app, old), token_of(app, new)}  # never a keeper's


def test_the_old_live_view_page_links_the_rematch_and_reloads_into_it_without_scripts(app, client):
    old = finished_match(client)
    new = rematch(client, old)
    page = soup(client.get(f"/watch?t={token_of(app, old)}"))
    assert page.select_one("#board .follow a")["href"] == f"/watch?t={token_of(app, new)}"
    refresh = page.select_one("noscript meta[http-equiv=refresh]")["content"]
    assert refresh == f"5; url=/watch?t={token_of(app, new)}"
    handover = client.get(f"/m/{new}/handover").text  # the keeper's share page: its secrets
    keepers = secrets_in(handover) - {token_of(app, new)}
    assert keepers and not keepers & secrets_in(str(page))
    assert client.get(f"/watch?t={token_of(app, new)}").status_code == 200


def test_the_newest_rematch_is_followed(app, client):
    old = finished_match(client)
    rematch(client, old)
    newest = client.post(f"/m/{old}/rematch", data={"key": "s" * 22}).headers["Location"].rsplit("/", 1)[1]
    board = client.get(f"/watch/board?t={token_of(app, old)}", headers=HX)
    assert board.headers["HX-Redirect"] == f"/watch?t={token_of(app, newest)}"


def test_the_winner_is_a_banner_with_the_final_totals(app, client):
    match_id = finished_match(client)  # Anna 11, Bo 15 after a tie-break round
    page = soup(client.get(f"/watch?t={token_of(app, match_id)}"))
    banner = page.select_one("#board .won[role=status]")
    assert banner.h2.text == "Bo wins with 15 points!"
    assert [" ".join(li.stripped_strings) for li in banner.select("ol.standings li")] == ["Bo 15", "Anna 11"]
    assert banner.select_one("ol")["aria-label"] == "Final totals"
    assert page.select_one("#board p.next") is None  # "Bo won." in small type is gone


def test_a_chicago_call_is_said_on_the_live_view(app, client):
    document = recorded("two-players-to-royal-flush")
    called = next(i for i, e in enumerate(document["events"]) if e["type"] == "chicago")
    document["events"] = document["events"][: called + 1]
    match_id = imported(client, document)
    caller = document["events"][called]["player"]
    board = soup(client.get(f"/watch/board?t={token_of(app, match_id)}", headers=HX))
    said = board.select_one("#board p.chicago-on[role=status]")
    assert said.text == f"{caller} called Chicago: all five tricks, or lose 15."


def test_a_tie_break_round_is_said_on_the_live_view(app, client):
    document = recorded("tie-break-to-ten")
    document["events"] = document["events"][:8]  # round 2 has begun: the tie-break round
    match_id = imported(client, document)
    board = soup(client.get(f"/watch/board?t={token_of(app, match_id)}", headers=HX))
    said = board.select_one("#board .tiebreak[role=status]").text
    assert "Tie-break round" in said and "Anna and Bo were tied, so they play one more round." in said
