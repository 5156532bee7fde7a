"""Random legal play, for property tests and benchmarks.

``candidates`` lists plausible next events (a superset of the legal ones);
``random_events`` lets the engine refuse the illegal ones and keeps the
rest. The caller supplies the randomness through ``pick``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from scorekeeper.cards import parse_card, parse_hand
from scorekeeper.events import (
    Adjust,
    Chicago,
    Dealer,
    Declare,
    Draw,
    Event,
    Exchange,
    LastTrick,
    Pass,
    Show,
    Tie,
    Trick,
    Undo,
)
from scorekeeper.hands import Category
from scorekeeper.match import apply
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState, Stage

T = TypeVar("T")
Pick = Callable[[Sequence[T]], T]

# One example hand per category, in two sets that share no card.
EXAMPLES = {
    Category.PAIR: ("Qs Qh 9c 5d 2s", "Jd Jc 8h 4h 3d"),
    Category.TWO_PAIR: ("Qs Qh 9c 9d 2s", "Kd Kc 4h 4s 3d"),
    Category.THREE_OF_A_KIND: ("8s 8h 8d 9c 2h", "7s 7h 7d Ac 3h"),
    Category.STRAIGHT: ("5c 6d 7h 8s 9c", "Ah 2c 3d 4s 5h"),
    Category.FLUSH: ("Qh 9h 7h 4h 2h", "Ks Js 8s 6s 3s"),
    Category.FULL_HOUSE: ("Kc Kd Ks 4h 4d", "Qc Qd Qs 3h 3d"),
    Category.FOUR_OF_A_KIND: ("7c 7d 7h 7s Kd", "9c 9d 9h 9s 2d"),
    Category.STRAIGHT_FLUSH: ("9h Th Jh Qh Kh", "4c 5c 6c 7c 8c"),
    Category.ROYAL_FLUSH: ("Ts Js Qs Ks As", "Tc Jc Qc Kc Ac"),
}
DRAW_CARDS = ("2s", "5h", "9d", "Kc")


def candidates(state: MatchState) -> list[Event]:
    """Plausible next events for ``state``; passes weigh double so matches stay realistic."""
    names = state.players
    out: list[Event] = []
    if state.stage is Stage.FINISHED:
        return out
    if state.stage is Stage.FIRST_DEALER:
        drawers = [names[s] for s in state.to_draw]
        for shift in range(len(drawers)):
            cards = DRAW_CARDS[shift:] + DRAW_CARDS[:shift]
            out.append(Draw({n: parse_card(c) for n, c in zip(drawers, cards, strict=False)}))
        out.append(Draw({n: parse_card(c) for n, c in zip(drawers, ("3s", "3h", "Ad", "Ac"), strict=False)}))
        return out + [Dealer(n) for n in names]
    out.append(Adjust(names[state.order[0]], -3, "correction"))
    if state.stage is Stage.TIE:
        assert state.tie is not None
        hands = EXAMPLES[state.tie.hand]
        out += [Tie(winner=names[s]) for s in state.tie.seats] + [Tie(winner=None)]
        out += [Tie(cards={names[s]: parse_hand(h)}) for s, h in zip(state.tie.seats, hands, strict=False)]
        return out
    if state.stage is Stage.EXCHANGE and state.next_exchanger is not None:
        out += [Exchange(names[state.next_exchanger], n) for n in range(6)]
    if state.phase == 2 and state.phase1 is not None and state.stage is Stage.EXCHANGE:
        hand = parse_hand(EXAMPLES[state.phase1.hand][0])
        out += [
            Show(names[state.phase1.seat], hand),
            Show(names[state.phase1.seat], parse_hand("2c 4d 6h 8s Tc")),
        ]
    if state.phase == 3 and state.stage in (Stage.EXCHANGE, Stage.TRICKS):
        out += [Chicago(names[s]) for s in state.order if state.can_call_chicago(s)]
        out += [Trick(names[s]) for s in state.order]
        out += [LastTrick(names[s]) for s in state.order]
        return out
    speaker = state.speaker
    if speaker is not None:
        out += [Pass(names[speaker])] * 4
        for hand in state.legal_hands()[:4]:
            out.append(Declare(names[speaker], hand))
            out.append(Declare(names[speaker], hand, parse_hand(EXAMPLES[hand][speaker % 2])))
    return out


def random_events(
    players: tuple[str, ...], rules: Rules, pick: Pick[Event], steps: int, undo: bool = True
) -> tuple[list[Event], list[MatchState]]:
    """Play up to ``steps`` accepted events (undos included); return them and each state after."""
    state = MatchState.start(players, rules)
    events: list[Event] = []
    states: list[MatchState] = []
    earlier: list[MatchState] = []
    while len(events) < steps:
        options = candidates(state)
        if undo and earlier:
            options.append(Undo())
        if not options:
            break
        event = pick(options)
        if isinstance(event, Undo):
            state = earlier.pop()
        else:
            try:
                after = apply(state, event)
            except RuleBroken:
                continue
            earlier.append(state)
            state = after
        events.append(event)
        states.append(state)
    return events, states
