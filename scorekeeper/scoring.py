"""Changing totals: the floor at 0, winning at once, and the house rules that move totals by themselves.

RULES.md, Points: no score is ever below zero. Winning: "first to reach" ends the match the
moment a total reaches the target. Variants: "over the target without a Chicago falls to zero",
"four of a kind resets the others", "Chicago required to win" and "instant-win hands".
"""

from __future__ import annotations

from typing import Any

from scorekeeper.hands import Category
from scorekeeper.rules import WinMode
from scorekeeper.scores import Reason, ScoreChange, _History
from scorekeeper.state import MatchState, Stage


def set_total(state: MatchState, seat: int, new: int, reason: Reason, **info: Any) -> MatchState:
    """Set a total (already floored at 0) and keep the change in the history."""
    old = state.scores[seat]
    scores = state.scores[:seat] + (new,) + state.scores[seat + 1 :]
    change = ScoreChange(state.round, state.phase, seat, new - old, reason, **info)
    return state.evolve(scores=scores, history=_History(change, state.history))


def score(state: MatchState, seat: int, delta: int, reason: Reason, **info: Any) -> MatchState:
    """Change a total, never below 0 (RULES.md, Points), and check "first to reach".

    House rule ``over_target_resets``: a total that goes above the target without a won Chicago
    goes back to 0 in the same event, a change of its own that says why.
    """
    new = max(0, state.scores[seat] + delta)
    if new - state.scores[seat] != delta:
        info = {**info, "floored": True}
    state = set_total(state, seat, new, reason, **info)
    rules = state.rules
    if rules.over_target_resets and new > rules.target and not state.has_won_chicago(seat):
        return set_total(state, seat, 0, Reason.OVER_TARGET)
    if rules.win is WinMode.FIRST_TO_REACH and delta > 0 and new >= rules.target and state.may_win(seat):
        return state.evolve(winner=seat, stage=Stage.FINISHED)
    return state


def reset_others(state: MatchState, seat: int) -> MatchState:
    """House rule ``four_of_a_kind_resets``: every other player in the round goes back to 0.

    A tie-break round's players who sit out keep their frozen totals (RULES.md, Winning).
    """
    for other in state.order:
        if other != seat and state.scores[other] > 0:
            state = set_total(state, other, 0, Reason.FOUR_OF_A_KIND_RESET)
    return state


def win_at_once(state: MatchState, seat: int, hand: Category) -> MatchState:
    """House rule ``instant_win``: scoring ``hand`` wins the match whatever the totals."""
    return state.evolve(winner=seat, stage=Stage.FINISHED, won_with=hand)


def won_chicago(state: MatchState, seat: int) -> MatchState:
    """Remember that the seat has won a Chicago (either kind) in the match, before its points count."""
    if state.has_won_chicago(seat):
        return state
    return state.evolve(chicago_winners=tuple(sorted((*state.chicago_winners, seat))))


def candidates(state: MatchState) -> tuple[int, ...]:
    """The seats that can win at the end of this round (RULES.md, Winning).

    At or above the target (with ``chicago_to_win``: and with a won Chicago); in a tie-break
    round, everybody taking part.
    """
    if state.tiebreak:
        return state.order
    target = state.rules.target
    return tuple(s for s in state.order if state.scores[s] >= target and state.may_win(s))
