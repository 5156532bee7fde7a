"""One tap per showdown and the last trick in one tap (issue 11): ordinary events, one step, one undo."""

from __future__ import annotations

import pytest
from webtools import HX, soup

from scorekeeper.events import Declare, Pass, Tie
from scorekeeper.hands import Category
from scorekeeper.matchfile import write_event


def quick(keeper, tap: str, htmx: bool = True):
    return keeper.post("showdown", htmx=htmx, tap=tap)


def events_after_dealer(keeper) -> list:
    return list(keeper.match.events[1:])


def test_one_tap_records_the_whole_showdown_as_the_ordinary_events(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")  # Bo speaks first, Anna (the dealer) last
    response = quick(keeper, "flush:Cia")
    assert response.status_code == 200 and response.headers["X-Event-Seq"] == "1"
    assert events_after_dealer(keeper) == [Pass("Bo"), Declare("Cia", Category.FLUSH), Pass("Anna")]
    seats = {s.select_one(".name").text: s.select_one(".score").text for s in soup(response).select(".seat")}
    assert seats == {"Anna": "0", "Bo": "0", "Cia": "5"}


def test_the_file_of_a_quick_showdown_equals_the_file_of_the_same_showdown_declared_one_by_one(client, app):
    from webtools import Keeper

    quick_keeper, detail_keeper = Keeper(app, client), Keeper(app, client)
    quick_keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    detail_keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    quick(quick_keeper, "two_pair:Anna")
    detail_keeper.post(type="pass", player="Bo")
    detail_keeper.post(type="pass", player="Cia")
    detail_keeper.declare("Anna", "two_pair")
    files = [[write_event(e) for e in k.match.events] for k in (quick_keeper, detail_keeper)]
    assert files[0] == files[1]


def test_nobody_scores_is_one_tap(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    assert quick(keeper, "").status_code == 200
    assert events_after_dealer(keeper) == [Pass("Bo"), Pass("Cia"), Pass("Anna")]
    assert keeper.match.version == 4


def test_one_undo_takes_back_the_whole_quick_showdown(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    quick(keeper, "pair:Bo")
    page = keeper.page()
    assert "Bo" in page.select_one("button.undo").text
    assert keeper.post("undo").status_code == 200
    match = keeper.match
    assert [e.type for e in match.events[4:]] == ["undo"] * 3
    assert keeper.page().select_one("#scoreboard .seat .score").text == "0"


def test_a_quick_tap_after_a_detailed_declaration_finishes_the_showdown_from_the_speaker_on(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    assert quick(keeper, "flush:Anna").status_code == 200
    assert events_after_dealer(keeper)[1:] == [Pass("Cia"), Declare("Anna", Category.FLUSH)]


@pytest.mark.parametrize(
    ("tap", "words"),
    [("pair:Cia", "must declare at least"), ("flush:Bo", "turn"), ("flush:Eva", "not playing")],
    ids=["lower-than-the-best", "already-spoke", "not-at-the-table"],
)
def test_an_illegal_cell_is_refused_in_the_engines_words_and_stores_nothing(keeper, tap, words):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    response = quick(keeper, tap)
    assert response.status_code == 422 and words in response.text
    assert keeper.rows() == 2


def test_a_made_up_hand_is_a_clear_refusal(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    response = quick(keeper, "five_aces:Cia")
    assert response.status_code == 422 and keeper.rows() == 1


def test_the_grid_enables_only_legal_cells(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.declare("Bo", "two_pair")
    grid = keeper.page().select_one(".quick-grid")
    enabled = {b["value"] for b in grid.select("button") if not b.has_attr("disabled")}
    assert "two_pair:Cia" in enabled and "royal_flush:Anna" in enabled
    assert not any(v.startswith("pair:") for v in enabled)  # lower than Bo's two pair
    assert not any(v.endswith(":Bo") for v in enabled)  # Bo has spoken


def test_a_plain_form_post_of_a_quick_tap_redirects_to_the_table(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    response = quick(keeper, "pair:Anna", htmx=False)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/m/{keeper.match_id}")


def test_the_phone_remembers_the_entry_style(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    assert keeper.page().select_one(".quick-grid") is not None  # one tap is the default
    response = keeper.post("entry", style="detail")
    assert response.status_code == 200 and "entry=detail" in response.headers["Set-Cookie"]
    page = keeper.page()
    assert page.select_one(".quick-grid") is None and page.find("button", class_="pass") is not None
    keeper.post("entry", htmx=False, style="quick")
    assert keeper.page().select_one(".quick-grid") is not None
    assert keeper.post("entry", style="sideways").status_code == 400
    assert keeper.rows() == 1  # a preference is not an event


def test_the_quick_grid_adds_at_most_6_kb_to_a_swap(keeper):
    keeper.new("Anna", "Bo", "Cia", "Dan", dealer="Anna")
    quick_size = len(keeper.client.get(f"/m/{keeper.match_id}", headers=HX).data)
    keeper.post("entry", style="detail")
    detail_size = len(keeper.client.get(f"/m/{keeper.match_id}", headers=HX).data)
    assert quick_size - detail_size <= 6 * 1024, (quick_size, detail_size)


def test_phase_3_asks_who_took_the_last_trick_first_and_keeps_trick_by_trick_behind_a_toggle(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    for _ in range(2):  # phases 1 and 2: nobody scores
        quick(keeper, "")
    tricks = keeper.page().select_one(".tricks")
    first = tricks.select_one("form")
    assert "last-trick" in first["class"] and first.select_one("input[name=type]")["value"] == "last_trick"
    assert tricks.select_one("details.trick-by-trick:not([open]) form input[value=trick]") is not None
    keeper.post(type="last_trick", winner="Bo")
    assert keeper.page().select_one(".quick-grid") is not None  # the last showdown, by one tap too


def test_a_tie_is_two_taps_on_the_grid_the_hand_and_the_verdict(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    table = f"/m/{keeper.match_id}"
    grid = soup(keeper.client.get(table, headers=HX))
    assert grid.select_one(".quick-grid a.quick-hand")["href"].endswith("?tie=pair")
    tie = soup(keeper.client.get(f"{table}?tie=two_pair", headers=HX))
    pairs = [
        (f.select_one("input[name=tap]")["value"], f.select_one("input[name=with]")["value"])
        for f in tie.select("form.tie-pair")
    ]
    assert pairs == [("two_pair:Bo", "Cia"), ("two_pair:Bo", "Anna"), ("two_pair:Cia", "Anna")]
    response = keeper.post("showdown", tap="two_pair:Cia", winner="Anna", **{"with": "Anna"})
    assert response.status_code == 200
    assert events_after_dealer(keeper) == [
        Pass("Bo"),
        Declare("Cia", Category.TWO_PAIR),
        Declare("Anna", Category.TWO_PAIR),
        Tie(winner="Anna"),
    ]
    seats = {s.select_one(".name").text: s.select_one(".score").text for s in soup(response).select(".seat")}
    assert seats == {"Anna": "2", "Bo": "0", "Cia": "0"}
    assert keeper.post("undo").status_code == 200 and keeper.match.version == 9  # one undo, four events


def test_a_tie_judged_identical_scores_nobody(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post("showdown", tap="flush:Bo", winner="", **{"with": "Anna"})
    assert [s.select_one(".score").text for s in keeper.page().select(".seat")] == ["0", "0"]
    assert keeper.match.events[-1] == Tie(winner=None)


@pytest.mark.parametrize("tie", ["nonsense", "royal", "x" * 500], ids=["words", "no-hand", "long"])
def test_a_made_up_tie_link_shows_the_grid(keeper, tie):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    page = soup(keeper.client.get(f"/m/{keeper.match_id}?tie={tie}"))
    assert page.select(".quick-grid button[name=tap]") and not page.select("form.tie-pair")


def test_no_tie_link_once_one_speaker_is_left(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post(type="pass", player="Bo")
    page = soup(keeper.client.get(f"/m/{keeper.match_id}?tie=pair"))
    assert not page.select(".quick-grid a.quick-hand") and not page.select("form.tie-pair")


def test_a_tie_of_three_is_two_taps_too_the_hand_and_the_verdict(keeper):
    """Three players declared the same hand: the tie view offers the three together, and one verdict
    records the whole showdown (ties of three took the detailed flow before)."""
    keeper.new("Anna", "Bo", "Cia", "Dan", dealer="Anna")
    table = f"/m/{keeper.match_id}"
    tie = soup(keeper.client.get(f"{table}?tie=pair", headers=HX))
    groups = [
        (f.select_one("input[name=tap]")["value"], [i["value"] for i in f.select("input[name=with]")])
        for f in tie.select("details.tie-more form.tie-group")
    ]
    assert groups == [
        ("pair:Bo", ["Cia", "Dan"]),
        ("pair:Bo", ["Cia", "Anna"]),
        ("pair:Bo", ["Dan", "Anna"]),
        ("pair:Cia", ["Dan", "Anna"]),
        ("pair:Bo", ["Cia", "Dan", "Anna"]),
    ]
    question = tie.select_one("h2.tie-question")  # a heading above the pairs, not a note below them
    assert question.text == "Tied on a pair: whose hand was higher?"
    assert "of-3" in tie.select("form.tie-group")[2]["class"]
    assert "Bo, Dan, and Anna all declared it" in tie.select("form.tie-group")[2].text
    response = keeper.post("showdown", tap="pair:Bo", winner="Dan", **{"with": ["Dan", "Anna"]})
    assert response.status_code == 200
    assert events_after_dealer(keeper) == [
        Declare("Bo", Category.PAIR),
        Pass("Cia"),
        Declare("Dan", Category.PAIR),
        Declare("Anna", Category.PAIR),
        Tie(winner="Dan"),
    ]
    assert [s.select_one(".score").text for s in soup(response).select(".seat")] == ["0", "0", "0", "1"]
    assert keeper.post("undo").status_code == 200 and keeper.match.version == 11  # one undo, five events


def test_at_three_players_the_one_group_of_three_is_open_at_once(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    tie = soup(keeper.client.get(f"/m/{keeper.match_id}?tie=flush", headers=HX))
    assert tie.select_one("details.tie-more").has_attr("open")
    assert len(tie.select("form.tie-group")) == 1 and len(tie.select("form.tie-pair")) == 3
