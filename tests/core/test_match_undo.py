"""Undo and corrections (MATCH_FORMAT.md, events ``undo`` and ``adjust``)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from script import QUIET_PHASE, events, play, refused

from scorekeeper.events import Pass, Undo
from scorekeeper.match import in_effect, replay, undo_walk, walk_back
from scorekeeper.rules import Rules

TO_PHASE_3 = f"dealer Anna; {QUIET_PHASE}; {QUIET_PHASE}"
SCORED = "dealer Anna; declare Bo two_pair; pass Cia; pass Anna"
TIED = "dealer Anna; declare Bo two_pair; declare Cia two_pair; pass Anna"

# One script per event type; its last event is the one undone.
LAST_EVENT_OF_EACH_TYPE = {
    "draw": "draw Anna=3h Bo=3s Cia=Kd",
    "draw again": "draw Anna=3h Bo=3s Cia=Kd; draw Anna=5h Bo=2s",
    "dealer": "dealer Anna",
    "exchange": "dealer Anna; exchange Bo 3",
    "show": f"{SCORED}; show Bo Qs Qh 9c 5d 2s",
    "declare": "dealer Anna; declare Bo pair",
    "declare that ends a showdown": "dealer Anna; declare Bo pair; pass Cia; declare Anna flush",
    "pass": "dealer Anna; pass Bo",
    "tie by verdict": f"{TIED}; tie Bo",
    "tie identical": f"{TIED}; tie identical",
    "tie by cards": f"{TIED}; tie Bo=Ks,Kh,4c,4d,2s; tie Cia=Kd,Kc,4h,4s,9s",
    "chicago": f"adjust Bo 15 a; {TO_PHASE_3}; chicago Bo",
    "trick": f"{TO_PHASE_3}; trick Bo",
    "fifth trick": f"{TO_PHASE_3}; trick Bo; trick Bo; trick Bo; trick Bo; trick Cia",
    "trick that breaks a chicago": f"adjust Bo 15 a; {TO_PHASE_3}; chicago Bo; trick Cia",
    "last_trick": f"{TO_PHASE_3}; last_trick Cia",
    "adjust": "adjust Bo 7 found",
    "round end": f"{TO_PHASE_3}; last_trick Cia; pass Bo; pass Cia; declare Anna pair",
    "winning event": f"adjust Bo 50 a; {TO_PHASE_3}; last_trick Cia; pass Bo; pass Cia; declare Anna pair",
}


@pytest.mark.parametrize("script", LAST_EVENT_OF_EACH_TYPE.values(), ids=LAST_EVENT_OF_EACH_TYPE.keys())
def test_undo_equals_never_having_recorded_the_event(script):
    before = play(script.rsplit(";", 1)[0] if ";" in script else "")
    assert play(f"{script}; undo") == before
    assert play(f"{script}; undo") != play(script)


def test_undo_cancels_the_latest_event_still_in_effect_and_never_an_undo():
    state = play("dealer Anna; pass Bo; pass Cia; undo; undo")
    assert state == play("dealer Anna")
    state = play("dealer Anna; pass Bo; pass Cia; undo; undo; pass Bo")
    assert state == play("dealer Anna; pass Bo")


def test_undo_walks_back_to_the_start_and_no_further():
    assert play("dealer Anna; undo") == play("")
    refused("dealer Anna; undo; undo", "There is nothing to undo")
    refused("undo", "There is nothing to undo")


def test_undo_reopens_a_finished_match():
    won = f"adjust Bo 50 a; {TO_PHASE_3}; last_trick Bo; pass Bo; pass Cia; pass Anna"
    assert play(won).winner_name == "Bo"
    reopened = play(f"{won}; undo")
    assert reopened.winner is None and reopened.speaker == 0
    assert play(f"{won}; undo; declare Anna pair").totals == {"Anna": 1, "Bo": 55, "Cia": 0}


def test_in_effect_lists_the_events_that_count():
    script = events("dealer Anna; pass Bo; pass Cia; undo; pass Cia; undo; undo; pass Bo")
    assert in_effect(script) == [0, 7]
    players = ("Anna", "Bo", "Cia")
    assert replay(players, Rules(), script) == replay(
        players, Rules(), [script[i] for i in in_effect(script)]
    )


def test_adjust_changes_the_total_and_keeps_the_reason_in_the_history():
    state = play("dealer Anna; adjust Cia 4 forgot her flush; adjust Cia -1 miscounted")
    assert state.totals["Cia"] == 3
    assert [(c.delta, c.reason, c.note) for c in state.changes()] == [
        (4, "adjust", "forgot her flush"),
        (-1, "adjust", "miscounted"),
    ]


def test_the_history_keeps_every_change_in_order():
    state = play(
        f"dealer Anna; declare Bo pair; pass Cia; pass Anna; {QUIET_PHASE}; last_trick Cia; "
        "pass Bo; declare Cia flush; pass Anna"
    )
    assert [(c.round, c.phase, state.players[c.seat], c.delta, c.reason) for c in state.changes()] == [
        (1, 1, "Bo", 1, "hand"),
        (1, 3, "Cia", 5, "last_trick"),
        (1, 3, "Cia", 5, "hand"),
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), max_size=40), st.integers(min_value=0, max_value=45))
def test_the_walk_from_the_end_finds_what_the_walk_from_the_start_finds(undos, since):
    """walk_back reads a tap's page from the end of the log: for every undo from ``since`` on, the same
    event cancelled; every event in effect from there, and the last one in effect, wherever it is
    (undos on an empty log too: the engine refuses them, an imported file may not)."""
    log = [Undo() if undo else Pass("Bo") for undo in undos]
    kept, cancelled = undo_walk(log)
    found_kept, found_cancelled = walk_back(log, since)
    assert found_kept == kept[len(kept) - len(found_kept) :]  # the end of what is in effect
    assert {i for i in kept if i >= since} <= set(found_kept)
    assert bool(found_kept) == bool(kept)
    for undo, event in cancelled.items():
        if undo >= since:
            assert found_cancelled[undo] == event
    assert found_cancelled.items() <= cancelled.items()
