"""The score sheet's protocol (a correction on its own row, tie-break rounds marked) and the times a
match file carries (issue 25, item 7)."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import PLAYERS, RULES, play_randomly

from scorekeeper.events import Adjust, Dealer, Declare, Pass
from scorekeeper.hands import Category
from scorekeeper.match import replay
from scorekeeper.matchfile import FormatError, MatchFile, dumps, load, loads
from scorekeeper.rules import Rules
from scorekeeper.summary import protocol, score_sheet

MATCHES = Path(__file__).parents[1] / "matches"


@settings(max_examples=40, deadline=None)
@given(st.data(), PLAYERS, RULES)
def test_each_protocol_row_adds_its_points_and_each_round_ends_on_the_score_sheets_totals(
    data, players, rules
):
    """Corrections on rows of their own move no point: each round ends on the same totals."""
    _, states = play_randomly(data, players, rules)
    for state in states[::5]:
        ends, running = {}, (0,) * len(players)
        for row in protocol(state):
            assert row.totals == tuple(a + b for a, b in zip(running, row.gained, strict=True))
            assert min(row.totals) >= 0  # RULES.md: no score is ever below 0, on any row either
            ends[row.number], running = row.totals, row.totals
        assert ends == {r.number: r.totals for r in score_sheet(state)}


def test_a_correction_made_before_anything_scored_in_its_round_comes_before_the_rounds_row():
    """Bo is given 15 points to call a Chicago, then loses it: the sheet never shows −15 (a total below
    0, which the game never has), but 15 after the correction and 0 after the round."""
    from script import QUIET_PHASE, play

    state = play(
        f"dealer Anna; adjust Bo 15 head start; {QUIET_PHASE}; {QUIET_PHASE}; chicago Bo; trick Bo; trick Cia"
    )
    rows = [(row.number, row.what is not None, row.totals) for row in protocol(state)]
    assert rows == [(1, True, (0, 15, 0)), (1, False, (0, 0, 0))]


def test_a_correction_made_between_two_scores_of_a_round_splits_its_row():
    """Bo scores a pair, is given 14 more to call a Chicago, then loses it: the round's row is split
    at the correction (1, then 15, then 0), never −14 before the correction's +14."""
    from script import QUIET_PHASE, play

    state = play(
        f"dealer Anna; declare Bo pair; pass Cia; pass Anna; adjust Bo 14 head start; {QUIET_PHASE};"
        " chicago Bo; trick Bo; trick Cia"
    )
    rows = [(row.number, row.what is not None, row.totals) for row in protocol(state)]
    assert rows == [(1, False, (0, 1, 0)), (1, True, (0, 15, 0)), (1, False, (0, 0, 0))]
    assert [row.now for row in protocol(state)] == [False, False, True]  # "so far" on the last part only


def test_a_correction_made_after_a_score_in_its_round_is_a_row_of_its_own_after_the_rounds_row():
    events = [
        Dealer("Anna"),
        Declare("Bo", Category.PAIR),
        Pass("Anna"),
        Adjust("Anna", 28, "the last trick"),
    ]
    rows = protocol(replay(("Anna", "Bo"), Rules(), events))
    assert [(r.number, r.gained, r.totals, r.correction is not None) for r in rows] == [
        (1, (0, 1), (0, 1), False),
        (1, (28, 0), (28, 1), True),
    ]
    assert str(rows[-1].what) == "correction (the last trick)"


def test_a_correction_before_the_first_deal_has_a_row_and_no_round_row():
    rows = protocol(replay(("Anna", "Bo"), Rules(), [Adjust("Bo", 4, "handicap"), Dealer("Anna")]))
    assert [(r.number, r.gained, r.correction is not None) for r in rows] == [
        (0, (0, 4), True),
        (1, (0, 0), False),
    ]


def test_the_tie_break_round_is_marked():
    file = loads((MATCHES / "tie-break-to-ten.json").read_text())
    rows = protocol(file.replay())
    assert [(r.number, r.tiebreak) for r in rows if r.correction is None] == [(1, False), (2, True)]


def test_a_files_times_are_read_as_utc_and_written_back():
    document = {
        "format": "chicago-match/1",
        "players": ["Anna", "Bo"],
        "created_at": "2025-03-01T19:00:00+01:00",
        "events": [
            {"type": "dealer", "player": "Anna", "at": "2025-03-01T19:01:02Z"},
            {"type": "declare", "player": "Bo", "hand": "pair"},
            {"type": "pass", "player": "Anna", "at": "2025-03-01T18:03:04"},  # no offset: UTC
        ],
    }
    file = load(document)
    assert file.created_at == "2025-03-01T18:00:00.000+00:00"
    assert file.at == ("2025-03-01T19:01:02.000+00:00", None, "2025-03-01T18:03:04.000+00:00")
    assert file == MatchFile(("Anna", "Bo"), Rules(), file.events)  # times are no part of the match
    again = json.loads(dumps(file, file.at, created_at=file.created_at))
    assert [event.get("at") for event in again["events"]] == list(file.at)
    assert load(again).at == file.at


@pytest.mark.parametrize(
    ("where", "value"),
    [("at", "yesterday"), ("at", 1740855600), ("at", "2025-13-01T00:00:00"), ("created_at", "soon")],
)
def test_a_time_that_is_not_iso_8601_is_refused_naming_the_field(where, value):
    document = {
        "format": "chicago-match/1",
        "players": ["Anna", "Bo"],
        "events": [{"type": "dealer", "player": "Anna"}],
    }
    if where == "at":
        document["events"][0]["at"] = value
    else:
        document["created_at"] = value
    with pytest.raises(FormatError) as refused:
        load(document)
    assert f"“{where}” must be a time" in str(refused.value)
    assert (refused.value.index == 0) == (where == "at")
