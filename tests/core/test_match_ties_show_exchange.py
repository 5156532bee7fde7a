"""Tie comparisons, the phase-2 show and exchanges (RULES.md, "Phase 1", "Phase 2", "Phase 3" step 1)."""

import pytest
from script import QUIET_PHASE, play, refused

from scorekeeper.hands import Category
from scorekeeper.rules import Rules
from scorekeeper.scores import Scored
from scorekeeper.state import Stage

TIED = "dealer Anna; declare Bo two_pair; declare Cia two_pair; pass Anna"


# Ties for the best category.


def test_tied_hands_given_with_their_cards_are_compared_card_by_card():
    state = play(
        "dealer Anna; declare Bo two_pair Ks Kh 4c 4d 2s; declare Cia two_pair Kd Kc 4h 4s 9s; pass Anna"
    )
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 2}
    assert state.outcome is not None
    assert state.outcome.text == "Cia +2, two pair (higher kicker, 9 against 2)"


def test_identical_best_hands_mean_nobody_scores():
    state = play("dealer Anna; declare Bo flush 9h 7h 5h 4h 2h; declare Cia flush 9s 7s 5s 4s 2s; pass Anna")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}
    assert state.outcome is not None and state.outcome.text == "the hands were equal, so nobody scored"
    assert state.phase == 2


def test_two_identical_best_hands_beat_a_lower_third_and_nobody_scores():
    state = play(
        "dealer Anna; declare Bo pair Qs Qh 5c 4d 2s; declare Cia pair Qd Qc 5h 4s 2h; "
        "declare Anna pair Js Jh Ac Kd 9s"
    )
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}


def test_the_best_of_three_tied_hands_scores():
    state = play(
        "dealer Anna; declare Bo pair Qs Qh 5c 4d 2s; declare Cia pair Ks Kh 5h 4s 2h; "
        "declare Anna pair Js Jh Ac Kd 9s"
    )
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 1}


def test_a_tie_without_all_cards_waits_for_a_tie_event():
    state = play(TIED)
    assert state.stage is Stage.TIE
    action = state.next_action()
    assert (action.kind, action.players) == ("tie", ("Bo", "Cia"))
    refused(f"{TIED}; exchange Bo 2", "First settle the tie between Bo and Cia")


def test_the_scorekeepers_verdict_settles_a_tie():
    assert play(f"{TIED}; tie Cia").totals == {"Anna": 0, "Bo": 0, "Cia": 2}


def test_a_verdict_of_identical_hands_scores_nobody():
    state = play(f"{TIED}; tie identical")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}
    assert state.phase == 2


def test_tie_cards_may_come_one_player_at_a_time():
    state = play(f"{TIED}; tie Bo=Ks,Kh,4c,4d,2s")
    assert state.stage is Stage.TIE
    state = play(f"{TIED}; tie Bo=Ks,Kh,4c,4d,2s; tie Cia=Kd,Kc,4h,4s,9s")
    assert state.totals["Cia"] == 2


def test_cards_given_with_a_declaration_count_in_the_tie():
    state = play("dealer Anna; declare Bo two_pair Ks Kh 4c 4d 2s; declare Cia two_pair; pass Anna")
    assert state.stage is Stage.TIE
    assert play(
        "dealer Anna; declare Bo two_pair Ks Kh 4c 4d 2s; declare Cia two_pair; pass Anna; "
        "tie Cia=Qs,Qh,Jc,Jd,As"
    ).totals == {"Anna": 0, "Bo": 2, "Cia": 0}


@pytest.mark.parametrize(
    ("tie", "message"),
    [
        ("tie Anna", "Anna is not in the tie between Bo and Cia"),
        ("tie Anna=Ks,Kh,4c,4d,2s", "Anna is not in the tie between Bo and Cia"),
        ("tie Bo=Ks,Kh,4c,3d,2s", "K♠ K♥ 4♣ 3♦ 2♠ make Pair, not Two pair"),
    ],
)
def test_a_tie_event_must_fit_the_tie(tie, message):
    refused(f"{TIED}; {tie}", message)


def test_tie_cards_are_given_once_and_from_one_deck():
    refused(f"{TIED}; tie Bo=Ks,Kh,4c,4d,2s; tie Bo=Ks,Kh,4c,4d,3s", "Bo's cards are already known")
    refused(
        f"{TIED}; tie Bo=Ks,Kh,4c,4d,2s; tie Cia=Ks,Kd,4h,4s,9s",
        "Bo already holds K♠: there is only one deck",
    )


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("dealer Anna; declare Bo pair Qs Qs 9c 5d 2s", "Bo cannot hold Q♠ twice: there is only one deck"),
        (f"{TIED}; tie Cia=Ks,Kh,4c,Ks,2s", "Cia cannot hold K♠ twice: there is only one deck"),
        (
            "dealer Anna; declare Bo two_pair; pass Cia; pass Anna; show Bo Qs Qh 9c 9d 9d",
            "Bo cannot hold 9♦ twice: there is only one deck",
        ),
    ],
    ids=["declare", "tie", "show"],
)
def test_a_card_twice_in_one_hand_breaks_the_one_deck_rule(script, message):
    """RULES.md: one deck, so no duplicate within a hand either (issue 12, item 9)."""
    error = refused(script, message)
    assert (error.code, error.section) == ("card_twice_in_hand", "deck")


def test_there_is_no_tie_to_settle_without_a_tie():
    refused("dealer Anna; tie Bo", "There is no tie to settle")


# Phase 2: the phase-1 scorer shows their hand before exchanging.

SCORED_TWO_PAIR = "dealer Anna; declare Bo two_pair; pass Cia; pass Anna"


def test_the_phase_1_scorer_is_known_for_the_show_reminder():
    assert play(SCORED_TWO_PAIR).phase1 == Scored(1, Category.TWO_PAIR, 2)


def test_a_show_that_makes_the_claimed_hand_is_supported():
    state = play(f"{SCORED_TWO_PAIR}; show Bo Qs Qh 9c 9d 2s")
    assert state.shown and state.unsupported is None
    assert play(f"{SCORED_TWO_PAIR}; show Bo Qs Qh Qc 9d 2s").unsupported is None  # higher is fine


def test_a_show_below_the_claim_is_flagged_and_the_points_can_be_taken_back():
    state = play(f"{SCORED_TWO_PAIR}; show Bo Qs Qh 9c 5d 2s")
    assert state.unsupported == Scored(1, Category.TWO_PAIR, 2)
    state = play(f"{SCORED_TWO_PAIR}; show Bo Qs Qh 9c 5d 2s; adjust Bo -2 show did not support two pair")
    assert state.unsupported is None
    assert state.totals["Bo"] == 0
    assert state.last_change is not None and state.last_change.note == "show did not support two pair"


def test_the_show_is_optional_so_an_exchange_is_never_blocked():
    assert play(f"{SCORED_TWO_PAIR}; exchange Cia 3; exchange Anna 1").exchanged == (2, 0)


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (f"{SCORED_TWO_PAIR}; show Cia Qs Qh 9c 9d 2s", "Only Bo, who scored in phase 1, shows their hand"),
        (
            f"dealer Anna; {QUIET_PHASE}; show Bo Qs Qh 9c 9d 2s",
            "Nobody scored in phase 1, so nobody shows their hand",
        ),
        ("dealer Anna; show Bo Qs Qh 9c 9d 2s", "A hand is shown in phase 2, before exchanging"),
        (
            f"{SCORED_TWO_PAIR}; exchange Bo 1; show Bo Qs Qh 9c 9d 2s",
            "Bo must show their hand before exchanging",
        ),
        (
            f"{SCORED_TWO_PAIR}; show Bo Qs Qh 9c 9d 2s; show Bo Qs Qh 9c 9d 2s",
            "Bo has already shown their hand",
        ),
    ],
    ids=["not the scorer", "nobody scored", "phase 1", "after exchanging", "twice"],
)
def test_a_show_out_of_place_is_refused(script, message):
    refused(script, message)


# Exchanges.


def test_exchanges_go_clockwise_from_the_dealers_left():
    refused(
        "dealer Anna; exchange Cia 1; exchange Bo 2",
        "Exchanges go clockwise from the dealer's left: Bo comes before Cia",
    )
    assert play("dealer Anna; exchange Bo 1; exchange Anna 2").exchanged == (1, 0)


def test_each_player_exchanges_once_a_phase():
    refused("dealer Anna; exchange Bo 1; exchange Bo 2", "Bo has already exchanged in phase 1")


def test_the_exchange_ends_when_the_showdown_starts():
    refused("dealer Anna; pass Bo; exchange Cia 2", "The phase 1 exchange is over")


def test_the_draw_pile_counts_down_with_exchanges():
    state = play("dealer Anna; exchange Bo 3; exchange Cia 0; exchange Anna 5")
    assert state.draw_pile == 52 - 15 - 8
    assert state.discards == 8
    assert state.next_exchanger is None


def test_an_empty_draw_pile_is_made_again_from_the_discards():
    # Four players: 32 cards in the pile. 20 go in phase 1, 10 more in phase 2, then 5.
    four = "Anna Bo Cia Dan"
    phase1 = "exchange Bo 5; exchange Cia 5; exchange Dan 5; exchange Anna 5; pass Bo; pass Cia; pass Dan; pass Anna"
    state = play(f"dealer Anna; {phase1}; exchange Bo 5; exchange Cia 5", four)
    assert (state.draw_pile, state.discards, state.reshuffled) == (2, 30, False)
    state = play(f"dealer Anna; {phase1}; exchange Bo 5; exchange Cia 5; exchange Dan 5", four)
    assert state.reshuffled
    assert (state.draw_pile, state.discards) == (30 - 3, 5)
    state = play(f"dealer Anna; {phase1}; exchange Bo 5; exchange Cia 5; exchange Dan 2", four)
    assert state.draw_pile == 0 and state.reshuffle_now


def test_house_rule_no_exchanges_from_a_threshold():
    rules = Rules(no_exchange_at=46)
    refused(
        "adjust Bo 46 head start; dealer Anna; exchange Bo 1",
        "Bo has 46 points and cannot exchange: the limit is 46",
        rules=rules,
    )
    assert play("adjust Bo 46 head start; dealer Anna; exchange Bo 0", rules=rules).exchanged == (1,)
    assert play("adjust Bo 45 head start; dealer Anna; exchange Bo 3", rules=rules).exchanged == (1,)
    assert play("adjust Bo 46 head start; dealer Anna; exchange Bo 3").exchanged == (1,)


def test_a_refusal_keeps_the_tied_players_as_a_list_for_any_language():
    error = refused(f"{TIED}; exchange Bo 2", "First settle the tie between Bo and Cia")
    assert error.params["players"].items == ("Bo", "Cia")
