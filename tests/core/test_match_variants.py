"""The variants other tables play (RULES.md, "Variants other scorekeepers and tables play").

Each test also plays its script under the base rules where that shows the variant is what
made the difference.
"""

from script import QUIET_PHASE, events, play, refused

from scorekeeper.feed import change_words
from scorekeeper.hands import Category
from scorekeeper.match import apply
from scorekeeper.quick import call_events, calls_open, chicago_outcome_events
from scorekeeper.rules import Rules, WinMode
from scorekeeper.scores import Reason
from scorekeeper.state import Stage
from scorekeeper.summary import score_sheet

TO_PHASE_3 = f"dealer Anna; {QUIET_PHASE}; {QUIET_PHASE}"
ALL_FIVE_BY_BO = "trick Bo; trick Bo; trick Bo; trick Bo; trick Bo"
LAST_SHOWDOWN = QUIET_PHASE  # Anna deals: Bo, Cia, Anna pass


def with_points(points: int, player: str = "Bo") -> str:
    return f"adjust {player} {points} head start; {TO_PHASE_3}"


# Chicago required to win.

CHICAGO_TO_WIN = Rules(chicago_to_win=True)


def test_a_player_over_the_target_without_a_won_chicago_plays_on_and_the_state_says_so():
    script = f"adjust Bo 50 a; {TO_PHASE_3}; last_trick Bo; {LAST_SHOWDOWN}"
    assert play(script).winner_name == "Bo"  # the base rules
    state = play(script, rules=CHICAGO_TO_WIN)
    assert state.totals["Bo"] == 55 and state.winner is None and state.round == 2
    assert state.needs_chicago == (1,)
    assert [str(w) for w in state.needs_chicago_words()] == [
        "Bo has 55 points but has not won a Chicago, which is needed to win"
    ]


def test_the_highest_candidate_with_a_won_chicago_wins_not_the_highest_total():
    script = f"adjust Anna 60 a; {with_points(40)}; chicago Bo; {ALL_FIVE_BY_BO}; {LAST_SHOWDOWN}"
    assert play(script).winner_name == "Anna"
    state = play(script, rules=CHICAGO_TO_WIN)
    assert state.totals == {"Anna": 60, "Bo": 55, "Cia": 0}
    assert state.winner_name == "Bo" and state.has_won_chicago(1) and not state.has_won_chicago(0)


def test_with_first_to_reach_the_match_ends_when_a_player_with_a_won_chicago_reaches_the_target():
    rules = Rules(chicago_to_win=True, win=WinMode.FIRST_TO_REACH)
    assert play("adjust Bo 55 a", rules=Rules(win=WinMode.FIRST_TO_REACH)).winner_name == "Bo"
    state = play(f"adjust Cia 60 a; {with_points(45)}", rules=rules)
    assert state.winner is None and state.needs_chicago == (2,)
    state = play(f"adjust Cia 60 a; {with_points(45)}; chicago Bo; {ALL_FIVE_BY_BO}", rules=rules)
    assert state.winner_name == "Bo" and state.totals["Bo"] == 60
    assert state.phase == 3 and state.stage is Stage.FINISHED  # at once, before the last showdown


# Round 1 (Anna deals): Bo wins a Chicago (45); round 2 (Bo deals): Bo scores four of a kind and Cia
# wins a Chicago: both have 52, and Anna has more without a Chicago.
ROUND_1 = (
    f"adjust Bo 30 a; adjust Cia 37 b; adjust Anna 70 c; {TO_PHASE_3}; chicago Bo; {ALL_FIVE_BY_BO}; "
    f"{LAST_SHOWDOWN}"
)
TWO_CHICAGOS = (
    f"{ROUND_1}; pass Cia; pass Anna; declare Bo four_of_a_kind; pass Cia; pass Anna; pass Bo; chicago Cia; "
    "trick Cia; trick Cia; trick Cia; trick Cia; trick Cia; pass Cia; pass Anna; pass Bo"
)


def test_a_tie_among_the_candidates_is_broken_by_a_tie_break_round_among_them_only():
    assert play(ROUND_1).winner_name == "Anna"  # the base rules
    state = play(TWO_CHICAGOS, rules=CHICAGO_TO_WIN)
    assert state.totals == {"Anna": 70, "Bo": 52, "Cia": 52}
    assert state.winner is None and state.tiebreak
    assert [state.players[s] for s in state.order] == ["Bo", "Cia"]  # Cia deals; Anna sits out
    state = play(
        f"{TWO_CHICAGOS}; pass Bo; pass Cia; pass Bo; pass Cia; last_trick Bo; pass Bo; pass Cia",
        rules=CHICAGO_TO_WIN,
    )
    assert state.winner_name == "Bo" and state.totals["Bo"] == 57


# Four of a kind resets the others.


def test_four_of_a_kind_resets_a_player_who_won_a_chicago_in_the_same_round():
    script = (
        f"adjust Cia 4 a; {with_points(20)}; chicago Bo; {ALL_FIVE_BY_BO}; "
        "declare Bo pair; pass Cia; declare Anna four_of_a_kind"
    )
    assert play(script).totals == {"Anna": 7, "Bo": 35, "Cia": 4}
    rules = Rules(four_of_a_kind_resets=True)
    before = play(script.rsplit(";", 1)[0], rules=rules)
    assert before.totals == {"Anna": 0, "Bo": 35, "Cia": 4}
    state = play(script, rules=rules)  # one event: the declaration that ends the showdown
    assert state.totals == {"Anna": 7, "Bo": 0, "Cia": 0}
    resets = [(c.seat, c.delta) for c in state.changes() if c.reason is Reason.FOUR_OF_A_KIND_RESET]
    assert resets == [(1, -35), (2, -4)]
    assert state.outcome is not None
    assert state.outcome.text == "Anna +7, four of a kind (everybody else goes back to 0)"
    assert [(line.player, line.delta, line.what) for line in score_sheet(state)[-2].lines][-2:] == [
        ("Bo", -35, "reset by four of a kind"),
        ("Cia", -4, "reset by four of a kind"),
    ]
    assert state.has_won_chicago(1)  # the Chicago stays won, for the variants that ask


# Instant-win hands.


def test_an_instant_win_hand_scored_in_phase_1_wins_the_match_at_once():
    rules = Rules(instant_win=(Category.STRAIGHT_FLUSH,))
    script = "adjust Cia 40 a; dealer Anna; declare Bo straight_flush; pass Cia; pass Anna"
    assert play(script).winner is None
    state = play(script, rules=rules)
    assert state.winner_name == "Bo" and state.won_with is Category.STRAIGHT_FLUSH
    assert state.totals == {"Anna": 0, "Bo": 8, "Cia": 40} and state.phase == 1
    refused(f"{script}; exchange Bo 2", "The match is over: Bo won", rules=rules)


def test_an_instant_win_hand_declared_but_beaten_wins_nothing():
    rules = Rules(instant_win=(Category.FOUR_OF_A_KIND,))
    state = play("dealer Anna; declare Bo four_of_a_kind; declare Cia straight_flush; pass Anna", rules=rules)
    assert state.winner is None and state.totals["Cia"] == 8 and state.phase == 2


# Blanco Chicago.

BLANCO = Rules(blanco_chicago=30)


def test_a_blanco_call_is_refused_below_the_chicago_minimum():
    error = refused(f"{with_points(9)}; blanco Bo", "Bo has 9 points; Chicago needs 15", rules=BLANCO)
    assert error.code == "chicago_min"


def test_a_blanco_call_is_refused_after_another_chicago_call():
    script = f"adjust Cia 20 a; {with_points(20)}"
    refused(f"{script}; chicago Cia; blanco Bo", "Cia has already called Chicago this round", rules=BLANCO)
    refused(
        f"{script}; blanco Cia; blanco Bo", "Cia has already called a blanco Chicago this round", rules=BLANCO
    )


def test_nobody_may_call_chicago_after_a_blanco_call():
    script = f"adjust Cia 20 a; {with_points(20)}; blanco Bo"
    refused(
        f"{script}; chicago Cia",
        "Bo called a blanco Chicago: nobody may call Chicago this round",
        rules=BLANCO,
    )
    refused(
        f"{script}; chicago Bo",
        "Bo called a blanco Chicago: nobody may call Chicago this round",
        rules=BLANCO,
    )


def test_a_blanco_call_is_refused_after_the_caller_exchanged():
    message = "Bo has already exchanged: a blanco Chicago is called before exchanging"
    refused(f"{with_points(20)}; exchange Bo 2; blanco Bo", message, rules=BLANCO)
    refused(f"{with_points(20)}; exchange Bo 0; blanco Bo", message, rules=BLANCO)
    # The others' exchanges before the caller's turn do not close it.
    state = play(f"{with_points(20, 'Cia')}; exchange Bo 2; blanco Cia", rules=BLANCO)
    assert state.chicago == 2 and state.blanco


def test_the_blanco_caller_exchanges_no_cards_and_the_others_still_do():
    script = f"{with_points(20)}; blanco Bo"
    refused(f"{script}; exchange Bo 1", "Bo called a blanco Chicago and takes no new cards", rules=BLANCO)
    state = play(f"{script}; exchange Bo 0; exchange Cia 3; exchange Anna 5", rules=BLANCO)
    assert state.exchanged == (1, 2, 0) and state.stage is Stage.EXCHANGE


def test_a_blanco_chicago_won_scores_its_value_instead_of_the_last_trick():
    state = play(f"{with_points(20)}; blanco Bo; exchange Cia 2; {ALL_FIVE_BY_BO}", rules=BLANCO)
    assert state.totals == {"Anna": 0, "Bo": 50, "Cia": 0}
    assert state.last_change is not None and state.last_change.reason is Reason.BLANCO_WON
    assert state.has_won_chicago(1)


def test_a_blanco_chicago_lost_costs_its_value_floored_at_zero():
    state = play(f"{with_points(20)}; blanco Bo; trick Bo; trick Cia", rules=BLANCO)
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0} and state.tricks_over
    assert state.last_change is not None and state.last_change.reason is Reason.BLANCO_LOST
    assert play(f"{with_points(40)}; blanco Bo; last_trick Anna", rules=BLANCO).totals["Bo"] == 10


def test_a_blanco_chicago_is_called_in_the_last_phase_before_its_exchange_and_only_when_played():
    refused(
        "adjust Bo 20 a; dealer Anna; blanco Bo",
        "A blanco Chicago is called in the last phase, before the exchange",
        rules=BLANCO,
    )
    refused(
        f"{with_points(20)}; trick Cia; blanco Bo",
        "A blanco Chicago is called in the last phase, before the exchange",
        rules=BLANCO,
    )
    refused(f"{with_points(20)}; blanco Bo", "Blanco Chicago is not played in this match")


def test_the_state_says_who_may_call_a_blanco_chicago():
    state = play(f"{with_points(20)}", rules=BLANCO)
    assert state.blanco_open and [state.can_call_blanco(s) for s in range(3)] == [False, True, False]
    assert not play(f"{with_points(20)}").blanco_open
    called = play(f"{with_points(20)}; blanco Bo", rules=BLANCO)
    assert not called.blanco_open and not called.chicago_open and called.chicago_value == 30


# Breaking a Chicago scores.

BREAK_BONUS = Rules(chicago_break_bonus=10)


def test_the_first_to_take_a_trick_from_a_chicago_scores_the_bonus_trick_by_trick():
    script = f"{with_points(20)}; chicago Bo; trick Bo; trick Cia"
    assert play(script).totals == {"Anna": 0, "Bo": 5, "Cia": 0}
    state = play(script, rules=BREAK_BONUS)
    assert state.totals == {"Anna": 0, "Bo": 5, "Cia": 10}
    assert state.last_change is not None and state.last_change.reason is Reason.CHICAGO_BROKEN


def test_with_only_the_last_trick_recorded_its_winner_is_who_broke_the_chicago():
    """MATCH_FORMAT.md: a trick taken from the Chicago player ends the play, so it is the last trick."""
    state = play(f"{with_points(20)}; chicago Bo; last_trick Anna", rules=BREAK_BONUS)
    assert state.totals == {"Anna": 10, "Bo": 5, "Cia": 0}
    state = play(f"{with_points(20)}; chicago Bo; last_trick Bo", rules=BREAK_BONUS)
    assert state.totals == {"Anna": 0, "Bo": 35, "Cia": 0}


def test_breaking_a_blanco_chicago_scores_the_bonus_and_no_chicago_no_bonus():
    rules = Rules(blanco_chicago=30, chicago_break_bonus=10)
    assert play(f"{with_points(20)}; blanco Bo; trick Anna", rules=rules).totals == {
        "Anna": 10,
        "Bo": 0,
        "Cia": 0,
    }
    assert play(f"{TO_PHASE_3}; trick Cia; trick Anna", rules=rules).totals == {"Anna": 0, "Bo": 0, "Cia": 0}
    assert play(f"{TO_PHASE_3}; last_trick Cia", rules=rules).totals == {"Anna": 0, "Bo": 0, "Cia": 5}


# Over the target without a Chicago falls to zero.

OVER_TARGET = Rules(over_target_resets=True)


def test_a_correction_taking_a_player_over_the_target_without_a_chicago_resets_them():
    script = "adjust Bo 50 a; adjust Bo 5 a forgotten last trick"
    assert play(script).totals["Bo"] == 55
    state = play(script, rules=OVER_TARGET)
    assert state.totals["Bo"] == 0
    last_two = [(c.delta, c.reason) for c in state.changes()[-2:]]
    assert last_two == [(5, Reason.ADJUST), (-55, Reason.OVER_TARGET)]  # one event, the reason said
    assert len(events(script)) == 2
    assert play("adjust Bo 50 a; adjust Bo 2 b", rules=OVER_TARGET).totals["Bo"] == 52  # strictly above


def test_going_over_the_target_in_play_resets_unless_the_player_has_won_a_chicago():
    state = play(f"adjust Bo 50 a; {TO_PHASE_3}; last_trick Bo", rules=OVER_TARGET)
    assert state.totals["Bo"] == 0 and state.winner is None
    state = play(f"{with_points(40)}; chicago Bo; {ALL_FIVE_BY_BO}; {LAST_SHOWDOWN}", rules=OVER_TARGET)
    assert state.totals["Bo"] == 55 and state.winner_name == "Bo"


# Two phases instead of three.

TWO_PHASES = Rules(phases=2)
PHASE_1_BY_BO = "dealer Anna; declare Bo pair; pass Cia; pass Anna"


def test_two_phases_the_second_is_the_last_with_chicago_and_tricks():
    state = play(PHASE_1_BY_BO, rules=TWO_PHASES)
    assert state.phase == 2 and state.in_last_phase and state.open_stages == (Stage.EXCHANGE, Stage.TRICKS)
    assert str(state.next_action().text) == "the last exchange, then the tricks"
    refused(
        f"{PHASE_1_BY_BO}; pass Bo",
        "Play the tricks first: the last showdown comes after them",
        rules=TWO_PHASES,
    )
    refused(
        "adjust Bo 20 a; dealer Anna; chicago Bo",
        "Chicago is called in the last phase, before the first trick",
        rules=TWO_PHASES,
    )
    refused(
        "dealer Anna; trick Bo", "Tricks are played in the last phase, after the exchange", rules=TWO_PHASES
    )
    script = f"adjust Bo 20 a; {PHASE_1_BY_BO}; chicago Bo; {ALL_FIVE_BY_BO}; {LAST_SHOWDOWN}"
    state = play(script, rules=TWO_PHASES)
    assert state.totals["Bo"] == 36 and state.round == 2 and state.phase == 1
    refused(f"{PHASE_1_BY_BO}; trick Bo", "Tricks are played in phase 3, after the exchange")  # base rules


def test_two_phases_the_phase_1_scorer_shows_before_the_last_phases_exchange():
    state = play(PHASE_1_BY_BO, rules=TWO_PHASES)
    assert state.show_due
    refused(
        f"{PHASE_1_BY_BO}; exchange Bo 2; show Bo Qs Qh 9c 5d 2s",
        "Bo must show their hand before exchanging",
        rules=TWO_PHASES,
    )
    state = play(f"{PHASE_1_BY_BO}; show Bo Qs Jh 9c 5d 2s", rules=TWO_PHASES)
    assert state.unsupported is not None and state.unsupported.seat == 1  # high card: the pair unsupported
    state = play(f"{PHASE_1_BY_BO}; show Bo Qs Qh 9c 5d 2s; exchange Bo 2; last_trick Cia", rules=TWO_PHASES)
    assert state.held is not None and state.totals == {"Anna": 0, "Bo": 1, "Cia": 5}


# Five or six players.

SIX = "Anna Bo Cia Dan Eva Fay"


def test_six_players_leave_22_cards_and_the_draw_pile_is_reshuffled():
    rules = Rules(more_players=True)
    assert play("dealer Anna", SIX, rules).draw_pile == 22
    assert play("dealer Anna", "Anna Bo Cia Dan Eva", rules).draw_pile == 27
    # Anna deals: Bo speaks first, Anna last.
    exchanges = "exchange Bo 5; exchange Cia 5; exchange Dan 5; exchange Eva 5; exchange Fay 2"
    state = play(f"dealer Anna; {exchanges}", SIX, rules)
    assert state.draw_pile == 0 and state.reshuffle_now  # the dealer shuffles the discards
    state = play(f"dealer Anna; {exchanges}; exchange Anna 5", SIX, rules)
    assert state.reshuffled and (state.draw_pile, state.discards) == (17, 5)
    quiet = "pass Bo; pass Cia; pass Dan; pass Eva; pass Fay; pass Anna"
    state = play(
        f"dealer Anna; {exchanges}; exchange Anna 5; {quiet}; {quiet}; last_trick Eva; {quiet}", SIX, rules
    )
    assert state.round == 2 and state.dealer_name == "Bo" and state.totals["Eva"] == 5


# The quick entry: a blanco call and who broke a Chicago, one tap each, only where they happen.


def test_the_quick_entry_offers_a_blanco_call_only_where_the_house_rule_and_the_moment_allow():
    assert calls_open(play(with_points(20))) == {"chicago": ("Bo",)}  # the base rules: no blanco
    assert calls_open(play(TO_PHASE_3, rules=BLANCO)) == {}  # nobody has 15: nothing to offer
    state = play(with_points(20), rules=BLANCO)
    assert calls_open(state) == {"chicago": ("Bo",), "blanco": ("Bo",)}
    for event in call_events("blanco", "Bo"):
        state = apply(state, event)
    assert state.blanco and calls_open(state) == {}


def test_the_quick_entry_records_who_broke_the_chicago_as_the_last_trick():
    called = play(f"{with_points(20)}; chicago Bo", rules=BREAK_BONUS)
    broken, made = called, called
    for event in chicago_outcome_events(called, "Cia"):
        broken = apply(broken, event)
    for event in chicago_outcome_events(called, None):
        made = apply(made, event)
    assert broken.totals == {"Anna": 0, "Bo": 5, "Cia": 10}
    assert made.totals == {"Anna": 0, "Bo": 35, "Cia": 0}


def test_a_loss_the_floor_cuts_short_says_so():
    """Issue 27: "Bo +0, blanco Chicago lost" read as a loss that cost nothing; the line says why."""
    state = play(f"{with_points(20)}; blanco Bo; trick Bo; trick Cia", rules=BLANCO)
    assert state.last_change is not None and state.last_change.floored
    assert str(change_words(state, state.last_change)).endswith("; a total never goes below 0")
    gained = play(f"{with_points(40)}; blanco Bo; last_trick Anna", rules=BLANCO)
    assert gained.last_change is not None and not gained.last_change.floored
