"""The first dealer, turn order and the showdown (RULES.md, "Table and cards", "Phase 1")."""

import pytest
from script import QUIET_PHASE, events, play, refused

from scorekeeper.events import Declare
from scorekeeper.hands import Category
from scorekeeper.match import replay
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import Stage

PLAYERS = ("Anna", "Bo", "Cia")


# First dealer.


def test_lowest_draw_deals_first():
    state = play("draw Anna=5h Bo=3s Cia=Kd")
    assert state.dealer_name == "Bo"
    assert state.round == 1 and state.phase == 1
    assert [state.players[s] for s in state.order] == ["Cia", "Anna", "Bo"]


def test_an_ace_is_high_in_the_draw():
    assert play("draw Anna=Ah Bo=2s Cia=Kd").dealer_name == "Bo"


def test_a_tie_for_lowest_draws_again_among_only_the_tied():
    state = play("draw Anna=3h Bo=3s Cia=Kd")
    assert state.stage is Stage.FIRST_DEALER
    assert state.next_action().players == ("Anna", "Bo")
    assert play("draw Anna=3h Bo=3s Cia=Kd; draw Anna=5h Bo=2s").dealer_name == "Bo"
    refused("draw Anna=3h Bo=3s Cia=Kd; draw Anna=5h Bo=2s Cia=4d", "This draw is for Anna and Bo")


def test_the_first_draw_is_for_every_player():
    refused("draw Anna=5h Bo=3s", "This draw is for Anna, Bo, and Cia")


def test_one_deck_means_no_card_drawn_twice():
    refused("draw Anna=5h Bo=5h Cia=Kd", "5♥ was drawn twice: there is only one deck")


def test_the_dealer_can_be_set_directly():
    assert play("dealer Cia").dealer_name == "Cia"


@pytest.mark.parametrize("again", ["dealer Bo", "draw Anna=5h Bo=3s Cia=Kd"])
def test_the_first_dealer_is_chosen_once(again):
    refused(f"dealer Anna; {again}", "The first dealer has already been chosen")


@pytest.mark.parametrize("first", ["pass Bo", "exchange Bo 2", "chicago Bo", "trick Bo", "tie Bo"])
def test_nothing_is_played_before_the_first_dealer(first):
    refused(first, "Choose who deals first: draw for it, or pick the dealer")


def test_unknown_players_are_refused_by_name():
    refused("dealer Dan", "Dan is not playing in this match")
    refused("dealer Anna; pass Dan", "Dan is not playing in this match")


def test_the_deal_passes_one_seat_clockwise_after_every_round():
    round_ = f"{QUIET_PHASE}; {QUIET_PHASE}; last_trick Bo; {{speak}}"
    state = play("dealer Anna; " + round_.format(speak="pass Bo; pass Cia; pass Anna"))
    assert state.round == 2 and state.dealer_name == "Bo"
    assert [state.players[s] for s in state.order] == ["Cia", "Anna", "Bo"]


# Showdown.


def test_speaking_starts_left_of_the_dealer_and_the_dealer_speaks_last():
    refused("dealer Anna; pass Cia", "It is Bo's turn to declare or pass, not Cia's")
    refused("dealer Anna; pass Bo; pass Anna", "It is Cia's turn to declare or pass, not Anna's")
    assert play("dealer Anna; pass Bo; pass Cia").speaker == 0


def test_a_declaration_lower_than_the_best_is_refused():
    error = refused(
        "dealer Anna; declare Bo two_pair; declare Cia pair", "Cia must declare at least Two pair, or pass"
    )
    assert error.code == "declare_too_low"
    assert error.params == {"player": "Cia", "best": Category.TWO_PAIR}


def test_a_declaration_as_high_as_the_best_is_allowed():
    state = play("dealer Anna; declare Bo two_pair; declare Cia two_pair")
    assert state.legal_hands()[0] is Category.TWO_PAIR


def test_only_legal_declarations_are_offered():
    state = play("dealer Anna; declare Bo flush")
    assert state.next_action().hands == (
        Category.FLUSH,
        Category.FULL_HOUSE,
        Category.FOUR_OF_A_KIND,
        Category.STRAIGHT_FLUSH,
        Category.ROYAL_FLUSH,
    )
    assert Category.HIGH_CARD not in play("dealer Anna").legal_hands()


def test_high_card_can_only_pass():
    with pytest.raises(RuleBroken, match="Bo has no poker hand and can only pass"):
        replay(PLAYERS, Rules(), [*events("dealer Anna"), Declare("Bo", Category.HIGH_CARD)])


POINTS = [
    (Category.PAIR, 1),
    (Category.TWO_PAIR, 2),
    (Category.THREE_OF_A_KIND, 3),
    (Category.STRAIGHT, 4),
    (Category.FLUSH, 5),
    (Category.FULL_HOUSE, 6),
    (Category.FOUR_OF_A_KIND, 7),
    (Category.STRAIGHT_FLUSH, 8),
    (Category.ROYAL_FLUSH, 52),
]


@pytest.mark.parametrize(("hand", "points"), POINTS, ids=[h.value for h, _ in POINTS])
def test_the_best_declared_hand_scores_its_points(hand, points):
    # RULES.md, Points: the table.
    state = play(f"dealer Anna; pass Bo; declare Cia {hand.value}; pass Anna")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": points}
    assert state.outcome is not None and state.outcome.text == f"Cia +{points}, {hand.label.lower()}"
    assert state.last_change is not None and state.last_change.hand is hand


def test_points_are_written_down_as_soon_as_the_showdown_ends():
    state = play("dealer Anna; declare Bo pair; declare Cia three_of_a_kind")
    assert state.totals["Cia"] == 0  # Anna has not spoken yet
    state = play("dealer Anna; declare Bo pair; declare Cia three_of_a_kind; pass Anna")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 3}
    assert (state.phase, state.stage) == (2, Stage.EXCHANGE)


def test_if_everybody_passes_nobody_scores():
    state = play(f"dealer Anna; {QUIET_PHASE}")
    assert state.totals == {"Anna": 0, "Bo": 0, "Cia": 0}
    assert state.phase == 2
    assert state.outcome is not None and state.outcome.text == "everybody passed, so nobody scored"


def test_declared_cards_must_make_exactly_the_hand():
    refused(
        "dealer Anna; declare Bo two_pair Qs Qh 9c 5d 2s",
        "Q♠ Q♥ 9♣ 5♦ 2♠ make Pair, not Two pair",
    )
    refused(
        "dealer Anna; declare Bo pair Qs Qh 9c 9d 2s",
        "Q♠ Q♥ 9♣ 9♦ 2♠ make Two pair, not Pair",
    )
    error = refused(  # cards that make no poker hand at all: said so, not "make no pair, not …"
        "dealer Anna; declare Bo straight 2c 4d 6h 8s Tc",
        "2♣ 4♦ 6♥ 8♠ 10♣ do not make Straight, or any poker hand",
    )
    assert error.code == "cards_make_nothing"


def test_no_card_can_be_in_two_hands_of_one_showdown():
    refused(
        "dealer Anna; declare Bo pair Qs Qh 9c 5d 2s; declare Cia pair Ks Kh 9c 4d 3s",
        "Bo already holds 9♣: there is only one deck",
    )


def test_the_next_action_names_the_speaker_and_the_legal_hands():
    action = play("dealer Anna; declare Bo straight").next_action()
    assert (action.kind, action.player) == ("declare", "Cia")
    assert action.hands[0] is Category.STRAIGHT
