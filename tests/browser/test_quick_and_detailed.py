"""One recorded match tapped in twice, by one tap per showdown and declaration by declaration (issue 11).

The match is tests/matches/two-players-to-royal-flush.json: a draw for the deal, a
show, a correction, a Chicago won and one lost, and ties of every kind (by the
cards declared, by a verdict, identical, by the cards entered on the tie screen).
``player.quickest`` and ``player.detailed`` say which taps each way takes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browsertools import button, quick, scores, tap
from player import Table, detailed, quickest

from scorekeeper.events import Declare, Draw, Pass, Tie
from scorekeeper.hands import Category
from scorekeeper.match import in_effect
from scorekeeper.matchfile import loads
from scorekeeper.summary import totals_by_round

pytestmark = pytest.mark.browser

FILE = loads(
    (Path(__file__).resolve().parents[1] / "matches" / "two-players-to-royal-flush.json").read_text()
)


def exported(page, url: str):
    return loads(page.request.get(url + "/export").text())


def kept(file) -> list:
    """The events in effect, a tie's cards given in several events taken as one (the form takes one hand at a time),
    a draw by its ranks (the table taps ranks: the app chooses the suits)."""
    out: list = []
    for event in (file.events[i] for i in in_effect(file.events)):
        if isinstance(event, Draw):
            event = {name: card.rank for name, card in event.cards.items()}
        if isinstance(event, Tie) and event.cards and out and isinstance(out[-1], Tie) and out[-1].cards:
            event = Tie(cards={**out.pop().cards, **event.cards})
        out.append(event)
    return out


def test_the_match_by_one_tap_per_showdown(page, server, screens):
    """Every showdown is one tap on the grid; a tie of two is two: the hand's name, then the pair's verdict."""
    plan = quickest(FILE, "two players")
    played = Table(page, server).play(plan)
    screens(page, "finished", full_page=True)

    expected = FILE.replay()
    assert played.totals == expected.totals == {"Anna": 32, "Bo": 60}
    kinds = [swap.kind for swap in played.swaps]
    assert kinds.count("quick") == 12  # the 12 showdowns, 4 of them ties settled on the grid
    assert kinds.count("tie") == 0 and kinds.count("detail") == 0  # no tie screen, no detailed flow

    back = exported(page, played.url).replay()
    assert back.totals == expected.totals
    assert totals_by_round(back) == totals_by_round(expected)


def test_the_match_declaration_by_declaration(page, server):
    """The detailed flow only: every event in effect through its own form; the grid is never used."""
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    played = Table(page, server).play(detailed(FILE, "two players"))

    assert played.totals == FILE.replay().totals
    assert not [url for url in posted if url.endswith("/showdown")]
    back = exported(page, played.url)
    assert back.replay().totals == FILE.replay().totals
    assert kept(back) == kept(FILE)  # the same events, cards and all


def test_one_undo_takes_a_whole_quick_showdown_back(page, server, screens):
    page.goto(server + "/new")
    for i, name in enumerate(("Anna", "Bo", "Cia")):
        page.locator("input[name=name]").nth(i).fill(name)
    page.locator("input[name=dealer][value='0']").check()  # Anna deals: Bo speaks first, Anna last
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url("**/m/*")
    url = page.url

    quick(page, "Cia", "flush")
    assert scores(page) == {"Anna": 0, "Bo": 0, "Cia": 5}
    assert "phase 2" in page.locator(".where").inner_text()
    undo = page.locator("button.undo").inner_text()
    assert "Cia declared a flush" in undo and "passed" not in undo  # what decided it (issue 25: readable)
    screens(page, "after-the-quick-tap")

    tap(page, page.locator("button.undo"))
    screens(page, "after-one-undo")
    assert scores(page) == {"Anna": 0, "Bo": 0, "Cia": 0}
    assert "Round 1 · phase 1 · Anna deals" in page.locator(".where").inner_text()
    assert "Bo: declare or pass" in page.locator("#turn .declare h2").inner_text()
    assert page.locator("#turn .so-far").count() == 0
    assert page.locator("#turn .quick-grid button[value='flush:Cia']").is_enabled()
    assert page.locator("#feed li.undone").count() == 3
    events = exported(page, url).events
    assert [type(events[i]).__name__ for i in in_effect(events)] == ["Dealer"]

    # The showdown again, declaration by declaration this time: the same outcome.
    tap(page, page.locator("#turn form.entry-style button[value=detail]"))
    tap(page, button(page, "Bo passes"))
    tap(page, page.locator("#turn form.hands button[value=flush]"))
    tap(page, button(page, "Anna passes"))
    assert scores(page) == {"Anna": 0, "Bo": 0, "Cia": 5}
    assert [e for e in kept(exported(page, url)) if isinstance(e, Declare | Pass)] == [
        Pass("Bo"),
        Declare("Cia", Category.FLUSH),
        Pass("Anna"),
    ]
