"""The state answers what may be recorded now, so that no template decides a rule (STYLE.md, section 8)."""

from hypothesis import given, settings
from hypothesis import strategies as st
from script import QUIET_PHASE, play
from simulate import EXAMPLES, random_events

from scorekeeper.cards import parse_hand
from scorekeeper.events import Chicago, Exchange, Show
from scorekeeper.match import apply
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import HAND_SIZE, MatchState, Stage

TO_PHASE_3 = f"dealer Anna; {QUIET_PHASE}; {QUIET_PHASE}"
BO_SCORES_A_PAIR = "dealer Anna; declare Bo pair; pass Cia; pass Anna"  # phase 2 comes next


# Which stages are open, and the small questions the table's partials ask.


def test_during_the_exchange_the_step_after_it_is_open_too():
    assert play("dealer Anna").open_stages == (Stage.EXCHANGE, Stage.SHOWDOWN)
    assert play(TO_PHASE_3).open_stages == (Stage.EXCHANGE, Stage.TRICKS)
    assert play("dealer Anna; pass Bo").open_stages == (Stage.SHOWDOWN,)
    assert play(f"{TO_PHASE_3}; trick Bo").open_stages == (Stage.TRICKS,)
    assert play("").open_stages == (Stage.FIRST_DEALER,)


def test_only_the_players_tied_for_the_lowest_card_draw_again():
    assert not play("").drawing_again
    assert play("draw Anna=3h Bo=3s Cia=Kd").drawing_again
    assert not play("draw Anna=3h Bo=3s Cia=Kd; draw Anna=5h Bo=2s").drawing_again  # Bo deals


def test_the_last_showdown_is_the_one_after_the_tricks():
    assert not play("dealer Anna; pass Bo").last_showdown
    assert play(f"{TO_PHASE_3}; last_trick Bo").last_showdown


def test_the_last_trick_may_be_recorded_alone_only_before_any_trick():
    assert play(TO_PHASE_3).last_trick_alone
    assert not play(f"{TO_PHASE_3}; trick Bo").last_trick_alone
    assert not play("dealer Anna").last_trick_alone


# The phase-2 show.


def test_the_phase_1_scorer_shows_before_exchanging_in_phase_2():
    assert play(BO_SCORES_A_PAIR).show_due
    assert not play(f"{BO_SCORES_A_PAIR}; exchange Bo 2").show_due  # too late: Bo exchanged
    assert not play(f"{BO_SCORES_A_PAIR}; show Bo {EXAMPLES['pair'][0]}").show_due  # shown
    assert not play(f"dealer Anna; {QUIET_PHASE}").show_due  # nobody scored in phase 1
    assert not play("dealer Anna").show_due


def test_the_show_refusal_says_who_shows():
    refusal = play(BO_SCORES_A_PAIR).show_refusal(2)
    assert refusal is not None and refusal.message == "Only Bo, who scored in phase 1, shows their hand"


# Exchanges.


def test_an_exchange_of_up_to_five_cards_is_open_to_the_players_after_the_last_one():
    state = play("dealer Anna; exchange Cia 1")  # Bo, left of the dealer, let his turn go
    assert [state.exchange_max(seat) for seat in range(3)] == [HAND_SIZE, None, None]
    assert state.exchange_refusal(1, 2).code == "exchange_order"
    assert state.exchange_refusal(2, 2).code == "exchange_twice"
    assert play("dealer Anna; pass Bo").exchange_max(1) is None  # the showdown has begun


def test_from_the_no_exchange_threshold_a_player_exchanges_nothing():
    rules = Rules(no_exchange_at=10)
    state = play("adjust Bo 10 head start; dealer Anna", rules=rules)
    assert state.exchange_max(1) == 0 and state.exchange_max(2) == HAND_SIZE
    refusal = state.exchange_refusal(1, 1)
    assert refusal is not None and refusal.message == "Bo has 10 points and cannot exchange: the limit is 10"
    assert state.exchange_refusal(1, 0) is None


# Chicago.


def test_chicago_is_open_in_phase_3_until_a_trick_or_a_call():
    assert play(TO_PHASE_3).chicago_open
    assert not play(f"{TO_PHASE_3}; trick Bo").chicago_open
    assert not play(f"adjust Bo 15 head start; {TO_PHASE_3}; chicago Bo").chicago_open
    assert not play("dealer Anna").chicago_open


def test_the_chicago_refusal_says_why_with_its_parameters():
    state = play(f"adjust Bo 15 head start; adjust Cia 9 head start; {TO_PHASE_3}")
    assert state.chicago_refusal(1) is None and state.can_call_chicago(1)
    refusal = state.chicago_refusal(2)
    assert refusal is not None and refusal.refusal is Refusal.CHICAGO_MIN
    assert refusal.params == {"player": "Cia", "score": 9, "min": 15}


def test_the_chicago_minimum_is_the_rules_one():
    state = play(f"adjust Cia 9 head start; {TO_PHASE_3}", rules=Rules(chicago_min=9))
    assert state.chicago_refusal(2) is None


# Each answer is the engine's own verdict on that event.


def verdict(state: MatchState, event) -> tuple[str, dict] | None:
    try:
        apply(state, event)
    except RuleBroken as error:
        return error.code, error.params
    return None


def answer(refusal: RuleBroken | None) -> tuple[str, dict] | None:
    return None if refusal is None else (refusal.code, refusal.params)


RULES = st.sampled_from([Rules(), Rules(no_exchange_at=6, chicago_min=4), Rules(target=12)])


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([("Anna", "Bo"), ("Anna", "Bo", "Cia", "Dan")]), RULES)
def test_what_the_state_says_is_what_the_engine_does(data, players, rules):
    pick = lambda options: data.draw(st.sampled_from(options))  # noqa: E731
    _, states = random_events(players, rules, pick, 80, undo=False)
    for state in states:
        for seat, name in enumerate(players):
            assert answer(state.chicago_refusal(seat)) == verdict(state, Chicago(name))
            for count in (0, 1, HAND_SIZE):
                assert answer(state.exchange_refusal(seat, count)) == verdict(state, Exchange(name, count))
            hand = (
                parse_hand(EXAMPLES[state.phase1.hand][0]) if state.phase1 else parse_hand("2c 4d 6h 8s Tc")
            )
            assert answer(state.show_refusal(seat)) == verdict(state, Show(name, hand))
