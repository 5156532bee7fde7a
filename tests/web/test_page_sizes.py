"""Issue 24: the match list and the players page keep their size however many people and matches
there are, and their pages (plain links, no script) reach every match and every person."""

from __future__ import annotations

import pytest
from webtools import soup

from scorekeeper.rules import Rules
from scorekeeper.web.store import creations, stats

PEOPLE, MATCHES = 2_000, 500
SMALL = 64 * 1024  # bytes: a phone on the table's wifi loads it at once (before: 105 KB and 185 KB)


@pytest.fixture
def crowded(app):
    """2,000 people in 500 matches of four, the first made first; their ids, oldest first."""
    made = []
    with app.app_context():
        for n in range(MATCHES):
            players = tuple(f"Player {n * 4 + seat:04d}" for seat in range(4))
            made.append(creations.create_match(players, Rules()))
    return made


def pages(client, path: str, link: str):
    """Every page from ``path`` on, following the link whose text is ``link``."""
    while path:
        response = client.get(path)
        assert response.status_code == 200
        yield response
        found = [a for a in soup(response).select("p.pages a") if a.text == link]
        path = found[0]["href"] if found else None


def test_the_match_list_stays_small_and_its_pages_reach_the_oldest_match(client, crowded):
    listed = []
    for response in pages(client, "/", "Older"):
        assert len(response.data) < SMALL, len(response.data)
        listed += [a["href"].rsplit("/", 1)[1] for a in soup(response).select("ul.matches li a.title")]
    assert listed == crowded[::-1]  # newest first, each match once, down to the oldest


def test_the_players_page_stays_small_and_its_pages_reach_everybody(client, crowded):
    listed = []
    for response in pages(client, "/players", "Next"):
        assert len(response.data) < SMALL, len(response.data)
        listed += [a.text for a in soup(response).select("ul.people li a")]
    assert listed == [f"Player {n:04d}" for n in range(PEOPLE)]  # by name, each once


def test_the_match_list_offers_the_latest_players_and_the_one_chosen(client, app, crowded):
    offered = [o.text for o in soup(client.get("/")).select("select[name=player] option")][1:]
    latest = [f"Player {n:04d}" for n in range(PEOPLE - stats.CHOICES, PEOPLE)]
    assert offered == latest  # everybody else is on the players page
    with app.app_context():
        first = stats.person_id_of("Player 0000")
    page = soup(client.get(f"/?player={first}"))
    chosen = page.select_one("select[name=player] option[selected]")
    assert (chosen.text, chosen["value"]) == ("Player 0000", str(first))
    assert [a["href"].rsplit("/", 1)[1] for a in page.select("ul.matches li a.title")] == crowded[:1]


@pytest.mark.parametrize("page", ["0", "abc", "١", "1000000000"])
def test_a_players_page_number_out_of_range_is_a_400_naming_it(client, page):
    response = client.get(f"/players?page={page}")  # TRUST.md I6, as the match list's
    assert response.status_code == 400 and "page number" in response.text
