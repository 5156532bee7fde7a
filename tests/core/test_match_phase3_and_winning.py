"""Phase 3, points and winning (RULES.md, "Phase 3", "Points", "Winning", "House rules")."""

import pytest
from script import QUIET_PHASE, play, refused

from scorekeeper.hands import Category
from scorekeeper.rules import BASE_POINTS, Rules, WinMode
from scorekeeper.scores import Reason
from scorekeeper.state import Stage

# Anna deals; two quiet phases bring the round to phase 3.
TO_PHASE_3 = f"dealer Anna; {QUIET_PHASE}; {QUIET_PHASE}"
ALL_FIVE_BY_BO = "trick Bo; trick Bo; trick Bo; trick Bo; trick Bo"


def with_points(points: int, player: str = "Bo") -> str:
    return f"adjust {player} {points} head start; {TO_PHASE_3}"


# Chicago.


def test_chicago_needs_15_points():
    error = refused(f"{with_points(9, 'Cia')}; chicago Cia", "Cia has 9 points; Chicago needs 15")
    assert error.code == "chicago_min"
    assert error.params == {"player": "Cia", "score": 9, "min": 15}
    assert play(f"{with_points(15)}; chicago Bo").chicago == 1


def test_the_error_of_a_replay_names_the_event_index():
    with pytest.raises(Exception) as caught:
        play(f"{with_points(9, 'Cia')}; chicago Cia")
    assert str(caught.value) == "event 8: Cia has 9 points; Chicago needs 15"


def test_can_call_chicago_says_who_may():
    state = play(with_points(15))
    assert [state.can_call_chicago(s) for s in range(3)] == [False, True, False]
    assert not play(f"{with_points(15)}; trick Bo").can_call_chicago(1)


def test_at_most_one_chicago_a_round():
    refused(f"{with_points(20)}; chicago Bo; chicago Bo", "Bo has already called Chicago this round")


def test_chicago_is_called_before_the_first_trick_of_phase_3():
    refused(
        f"{with_points(20)}; trick Cia; chicago Bo", "Chicago is called in phase 3, before the first trick"
    )
    refused(
        "adjust Bo 20 head start; dealer Anna; chicago Bo",
        "Chicago is called in phase 3, before the first trick",
    )


def test_chicago_won_scores_15_instead_of_the_last_trick():
    state = play(f"{with_points(15)}; chicago Bo; {ALL_FIVE_BY_BO}")
    assert state.totals["Bo"] == 30
    assert state.last_change is not None and state.last_change.reason is Reason.CHICAGO_WON
    assert state.stage is Stage.SHOWDOWN and state.tricks_over


def test_a_reason_is_spelled_as_the_stored_point_sources_spell_it():
    # The web layer's figure columns (p_last_trick, p_chicago_won, ...) are named by these values.
    spelled = ["hand", "last_trick", "chicago_won", "chicago_lost", "adjust"]
    # The variants' point sources come after them (RULES.md, "Variants other scorekeepers and tables play").
    spelled += ["blanco_won", "blanco_lost", "chicago_broken", "four_of_a_kind_reset", "over_target"]
    assert [reason.value for reason in Reason] == spelled
    assert Reason.CHICAGO_LOST == "chicago_lost" and str(Reason.ADJUST) == "adjust"


def test_chicago_lost_ends_the_tricks_at_once_and_costs_15():
    state = play(f"{with_points(20)}; chicago Bo; trick Bo; trick Cia")
    assert state.totals == {"Anna": 0, "Bo": 5, "Cia": 0}  # nobody scores the last trick
    assert state.tricks_over and state.stage is Stage.SHOWDOWN
    refused(
        f"{with_points(20)}; chicago Bo; trick Bo; trick Cia; trick Cia",
        "Trick play is over; now the last showdown",
    )


def test_chicago_lost_at_the_last_trick_scores_nobody_the_trick():
    state = play(f"{with_points(20)}; chicago Bo; trick Bo; trick Bo; trick Bo; trick Bo; trick Anna")
    assert state.totals == {"Anna": 0, "Bo": 5, "Cia": 0}


def test_the_last_showdown_follows_a_failed_chicago():
    state = play(f"{with_points(20)}; chicago Bo; trick Cia; pass Bo; declare Cia pair; pass Anna")
    assert state.totals == {"Anna": 0, "Bo": 5, "Cia": 1}
    assert state.round == 2


def test_only_the_last_trick_may_be_recorded():
    assert play(f"{TO_PHASE_3}; last_trick Cia").totals == {"Anna": 0, "Bo": 0, "Cia": 5}
    state = play(f"{with_points(15)}; chicago Bo; last_trick Bo")
    assert state.totals["Bo"] == 30
    state = play(f"{with_points(15)}; chicago Bo; last_trick Anna")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}


def test_tricks_are_recorded_one_by_one_or_only_the_last():
    refused(
        f"{TO_PHASE_3}; trick Bo; last_trick Cia",
        "Tricks are recorded in order: record trick 2 next",
    )
    refused(f"{TO_PHASE_3}; last_trick Cia; trick Bo", "Trick play is over; now the last showdown")


def test_only_the_last_trick_scores():
    state = play(f"{TO_PHASE_3}; trick Bo; trick Bo; trick Bo; trick Bo")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}
    state = play(f"{TO_PHASE_3}; trick Bo; trick Bo; trick Bo; trick Bo; trick Cia")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 5}


def test_tricks_and_the_last_showdown_come_in_phase_3_in_that_order():
    refused("dealer Anna; trick Bo", "Tricks are played in phase 3, after the exchange")
    refused(f"{TO_PHASE_3}; pass Bo", "Play the tricks first: the last showdown comes after them")
    refused(f"{TO_PHASE_3}; trick Bo; exchange Cia 1", "The phase 3 exchange is over")


def test_a_card_wins_one_trick_only():
    refused(f"{TO_PHASE_3}; trick Bo Ah; trick Cia Ah", "A♥ was already played in trick 1")


def test_the_lead_passes_to_each_tricks_winner():
    assert play(TO_PHASE_3).leader == 1  # left of the dealer
    assert play(f"{TO_PHASE_3}; trick Cia").leader == 2
    assert play(f"{with_points(15, 'Cia')}; chicago Cia").leader == 1


# No score below zero.


def test_a_correction_never_takes_a_score_below_zero():
    state = play("adjust Bo 3 found; adjust Bo -10 took back")
    assert state.totals["Bo"] == 0
    assert state.last_change is not None and state.last_change.delta == -3


def test_a_lost_chicago_stops_at_zero():
    rules = Rules(chicago=20)
    assert play(f"{with_points(15)}; chicago Bo; trick Cia", rules=rules).totals["Bo"] == 0


def test_a_correction_of_zero_is_refused():
    refused("adjust Bo 0 nothing", "A correction of 0 points changes nothing")


# Winning.


def quiet_round(last_trick: str, order: str) -> str:
    speak = "; ".join(f"pass {p}" for p in order.split())
    return f"{speak}; {speak}; last_trick {last_trick}; {speak}"


def test_the_winner_is_checked_at_the_end_of_the_round():
    script = "adjust Bo 50 start; dealer Anna; declare Bo two_pair; pass Cia; pass Anna"
    state = play(script)
    assert state.totals["Bo"] == 52 and state.winner is None and state.phase == 2
    state = play(f"{script}; pass Bo; pass Cia; pass Anna; last_trick Cia; pass Bo; pass Cia; pass Anna")
    assert state.winner_name == "Bo" and state.stage is Stage.FINISHED


def test_the_highest_total_at_or_above_52_wins():
    state = play(f"adjust Bo 50 a; adjust Cia 51 b; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}")
    assert state.totals == {"Anna": 0, "Bo": 55, "Cia": 51}
    assert state.winner_name == "Bo"


def test_below_the_target_the_match_goes_on():
    state = play(f"adjust Bo 46 a; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}")
    assert state.totals["Bo"] == 51 and state.winner is None and state.round == 2


def test_nothing_is_recorded_after_the_winner():
    done = f"adjust Bo 50 a; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}"
    refused(f"{done}; pass Cia", "The match is over: Bo won")
    refused(f"{done}; adjust Cia 3 late", "The match is over: Bo won")


def test_equal_highest_totals_play_a_tie_break_round_among_only_them():
    start = f"adjust Bo 47 a; adjust Anna 52 b; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}"
    state = play(start)
    assert state.totals == {"Anna": 52, "Bo": 52, "Cia": 0}
    assert state.winner is None and state.tiebreak
    # The deal passes clockwise to the next player taking part: Bo; Anna speaks first.
    assert state.dealer_name == "Bo"
    assert [state.players[s] for s in state.order] == ["Anna", "Bo"]
    refused(f"{start}; pass Cia", "Cia sits out this tie-break round")
    state = play(f"{start}; {quiet_round('Anna', 'Anna Bo')}")
    assert state.winner_name == "Anna"
    assert state.totals == {"Anna": 57, "Bo": 52, "Cia": 0}


TIE_BREAK = f"adjust Bo 47 a; adjust Anna 52 b; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}"


def test_after_a_tie_break_the_highest_total_wins_even_below_the_target():
    # Bo deals the tie-break, so Anna speaks first; Anna's Chicago fails.
    state = play(
        f"{TIE_BREAK}; pass Anna; pass Bo; pass Anna; pass Bo; chicago Anna; trick Bo; pass Anna; pass Bo"
    )
    assert state.totals == {"Anna": 37, "Bo": 52, "Cia": 0}
    assert state.winner_name == "Bo"


def test_a_tie_break_still_equal_plays_another():
    script = (
        f"{TIE_BREAK}; declare Anna two_pair; pass Bo; pass Anna; pass Bo; last_trick Bo; "
        "declare Anna three_of_a_kind; pass Bo"
    )
    state = play(script)
    assert state.totals == {"Anna": 57, "Bo": 57, "Cia": 0}
    assert state.winner is None and state.tiebreak and state.round == 3
    assert state.dealer_name == "Anna"
    assert [state.players[s] for s in state.order] == ["Bo", "Anna"]


def test_first_to_reach_ends_the_match_at_once():
    rules = Rules(win=WinMode.FIRST_TO_REACH)
    state = play("adjust Bo 50 a; dealer Anna; declare Bo two_pair; pass Cia; pass Anna", rules=rules)
    assert state.winner_name == "Bo" and state.phase == 1
    refused(
        "adjust Bo 50 a; dealer Anna; declare Bo two_pair; pass Cia; pass Anna; exchange Cia 2",
        "The match is over: Bo won",
        rules=rules,
    )
    assert play("adjust Bo 60 found", rules=rules).winner_name == "Bo"


# House rules.


def test_house_rule_target():
    rules = Rules(target=30)
    state = play(f"adjust Bo 25 a; dealer Anna; {quiet_round('Bo', 'Bo Cia Anna')}", rules=rules)
    assert state.winner_name == "Bo"


def test_house_rule_points_table():
    rules = Rules(points={**BASE_POINTS, Category.FOUR_OF_A_KIND: 8})
    assert play("dealer Anna; declare Bo four_of_a_kind; pass Cia; pass Anna", rules=rules).totals["Bo"] == 8


def test_house_rule_chicago_value_and_minimum():
    rules = Rules(chicago=13, chicago_min=13)
    assert play(f"{with_points(13)}; chicago Bo; {ALL_FIVE_BY_BO}", rules=rules).totals["Bo"] == 26
    assert play(f"{with_points(13)}; chicago Bo; trick Cia", rules=rules).totals["Bo"] == 0
    refused(f"{with_points(12)}; chicago Bo", "Bo has 12 points; Chicago needs 13", rules=rules)


def test_house_rule_chicago_player_leads():
    rules = Rules(chicago_leads=True)
    assert play(f"{with_points(15, 'Cia')}; chicago Cia", rules=rules).leader == 2


def test_house_rule_last_trick_won_with_a_two_scores_double():
    rules = Rules(deuce_last_trick_double=True)
    assert play(f"{TO_PHASE_3}; last_trick Cia 2h", rules=rules).totals["Cia"] == 10
    assert play(f"{TO_PHASE_3}; last_trick Cia 3h", rules=rules).totals["Cia"] == 5
    assert (
        play(f"{TO_PHASE_3}; trick Bo; trick Bo; trick Bo; trick Bo; trick Cia 2c", rules=rules).totals["Cia"]
        == 10
    )
    assert play(f"{TO_PHASE_3}; last_trick Cia 2h").totals["Cia"] == 5  # off by default
    refused(
        f"{TO_PHASE_3}; last_trick Cia",
        "Say which card won the last trick: with this house rule a 2 scores double",
        rules=rules,
    )
    # Chicago is not doubled.
    state = play(
        f"{with_points(15)}; chicago Bo; trick Bo; trick Bo; trick Bo; trick Bo; trick Bo 2s", rules=rules
    )
    assert state.totals["Bo"] == 30


def test_house_rule_last_trick_value():
    assert play(f"{TO_PHASE_3}; last_trick Cia", rules=Rules(last_trick=3)).totals["Cia"] == 3
