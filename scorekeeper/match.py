"""The match engine: fold events into a ``MatchState``, refusing any that breaks a rule.

``apply(state, event)`` returns the next state or raises ``RuleBroken``;
``replay`` folds a whole event list (undos included) and adds the index of
an event that breaks a rule. Section names in comments are RULES.md's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from scorekeeper.cards import Card, CardError, Rank, label_hand
from scorekeeper.events import (
    Adjust,
    Blanco,
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
from scorekeeper.hands import Category, Hand, evaluate, explain_words
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.rules import Rules, WinMode
from scorekeeper.scores import Outcome, Reason, Scored
from scorekeeper.scoring import candidates, reset_others, score, win_at_once, won_chicago
from scorekeeper.state import (
    DECK_SIZE,
    HAND_SIZE,
    TRICKS_PER_ROUND,
    Declaration,
    MatchState,
    PendingTie,
    Stage,
)
from scorekeeper.words import N_, Said, said, sentences

# Who is who.


def _seat(state: MatchState, name: str) -> int:
    try:
        return state.players.index(name)
    except ValueError:
        raise RuleBroken(Refusal.UNKNOWN_PLAYER, player=name) from None


def _taking_part(state: MatchState, name: str) -> int:
    seat = _seat(state, name)
    _refuse(state.seat_refusal(seat))
    return seat


def _check_in_round(state: MatchState, *, tie_ok: bool = False) -> None:
    _refuse(state.round_refusal(tie_ok=tie_ok))


def _refuse(refusal: RuleBroken | None) -> None:
    """Raise the state's answer to "may this be recorded now?" when it is a refusal."""
    if refusal is not None:
        raise refusal


def _hand_of(cards: Sequence[Card]) -> Hand:
    try:
        return evaluate(tuple(cards))
    except CardError as error:
        raise RuleBroken(Refusal.BAD_CARDS, error=str(error)) from None


# Rounds and phases.


def _start_round(state: MatchState, dealer: int, seats: tuple[int, ...], tiebreak: bool) -> MatchState:
    """Deal a new round: speaking order starts left of the dealer, who speaks last."""
    n = len(state.players)
    order = tuple(s for s in ((dealer + 1 + i) % n for i in range(n)) if s in seats)
    return state.evolve(
        stage=Stage.EXCHANGE,
        round=state.round + 1,
        phase=1,
        dealer=dealer,
        order=order,
        tiebreak=tiebreak,
        tiebreaks=(*state.tiebreaks, state.round + 1) if tiebreak else state.tiebreaks,
        to_draw=(),
        exchanged=(),
        draw_pile=DECK_SIZE - HAND_SIZE * len(order),
        discards=0,
        reshuffled=False,
        declarations=(),
        best=None,
        tie=None,
        phase1=None,
        shown=False,
        unsupported=None,
        held=None,
        chicago=None,
        blanco=False,
        tricks=(),
        tricks_over=False,
    )


def _next_phase(state: MatchState) -> MatchState:
    return state.evolve(
        stage=Stage.EXCHANGE,
        phase=state.phase + 1,
        exchanged=(),
        reshuffled=False,
        declarations=(),
        best=None,
        tie=None,
        held=None,
    )


def _end_round(state: MatchState) -> MatchState:
    """RULES.md, Winning: the highest total at or above the target wins; equal totals play on.

    House rule ``chicago_to_win``: only players with a won Chicago are candidates; the others play on.
    """
    seats = state.order
    tiebreak_next = False
    can_win = candidates(state)
    if state.rules.win is WinMode.END_OF_ROUND and can_win:
        top = max(state.scores[s] for s in can_win)
        leaders = tuple(s for s in can_win if state.scores[s] == top)
        if len(leaders) == 1:
            return state.evolve(winner=leaders[0], stage=Stage.FINISHED)
        seats, tiebreak_next = leaders, True
    elif not state.tiebreak:
        seats = tuple(range(len(state.players)))
    n = len(state.players)
    assert state.dealer is not None
    dealer = next(s for s in ((state.dealer + 1 + i) % n for i in range(n)) if s in seats)
    return _start_round(state, dealer, seats, tiebreak_next)


def _after_showdown(state: MatchState) -> MatchState:
    if state.stage is Stage.FINISHED:
        return state
    if state.phase < state.last_phase:  # RULES.md, Variants: two phases instead of three
        return _next_phase(state)
    return _end_round(state)


# The first dealer (RULES.md, Table and cards).


def _draw(state: MatchState, event: Draw) -> MatchState:
    if state.stage is not Stage.FIRST_DEALER:
        raise RuleBroken(Refusal.DEALER_KNOWN)
    seats = {_seat(state, name): card for name, card in event.cards.items()}
    if set(seats) != set(state.to_draw):
        raise RuleBroken(Refusal.DRAW_PLAYERS, players=state.names(state.to_draw))
    seen: set[Card] = set()
    for card in seats.values():
        if card in seen:
            raise RuleBroken(Refusal.DRAW_CARD_TWICE, card=card.label)
        seen.add(card)
    low = min(card.rank for card in seats.values())
    lowest = tuple(sorted(s for s, card in seats.items() if card.rank == low))
    if len(lowest) > 1:
        return state.evolve(to_draw=lowest)  # only the tied players draw again
    return _start_round(state, lowest[0], tuple(range(len(state.players))), False)


def _dealer(state: MatchState, event: Dealer) -> MatchState:
    if state.stage is not Stage.FIRST_DEALER:
        raise RuleBroken(Refusal.DEALER_KNOWN)
    seat = _seat(state, event.player)
    return _start_round(state, seat, tuple(range(len(state.players))), False)


# Exchanges and the phase-2 show.


def _exchange(state: MatchState, event: Exchange) -> MatchState:
    _check_in_round(state)
    seat = _seat(state, event.player)
    _refuse(state.exchange_refusal(seat, event.count))
    pile, discards, reshuffled = state.draw_pile, state.discards, False
    if event.count <= pile:
        pile, discards = pile - event.count, discards + event.count
    else:  # RULES.md, Phase 3: the discards are shuffled and used as the draw pile
        pile, discards, reshuffled = discards - (event.count - pile), event.count, True
    return state.evolve(
        exchanged=state.exchanged + (seat,),
        draw_pile=pile,
        discards=discards,
        reshuffled=reshuffled or pile == 0,
    )


def _show(state: MatchState, event: Show) -> MatchState:
    _check_in_round(state)
    seat = _seat(state, event.player)
    _refuse(state.show_refusal(seat))
    assert state.phase1 is not None
    _check_one_deck(event.player, event.cards)
    supported = _hand_of(event.cards).category.order >= state.phase1.hand.order
    if supported:
        return state.evolve(shown=True, unsupported=None, held=state.phase1)
    return state.evolve(shown=True, unsupported=state.phase1, held=None)


# Showdowns and ties (RULES.md, Phase 1, steps 2 and 3).


def _check_turn(state: MatchState, player: str) -> int:
    """Return the speaker's seat, or refuse: the order is clockwise from the dealer's left."""
    stage = state.stage
    if stage is Stage.SHOWDOWN or (stage is Stage.EXCHANGE and not state.in_last_phase):
        expected = state.order[len(state.declarations)]
        if state.players[expected] == player:
            return expected
    _check_in_round(state)
    if state.in_last_phase and stage in (Stage.EXCHANGE, Stage.TRICKS):
        raise RuleBroken(Refusal.TRICKS_FIRST)
    _taking_part(state, player)
    raise RuleBroken(Refusal.DECLARE_TURN, expected=state.players[expected], player=player)


def _shown_cards(state: MatchState) -> Iterable[tuple[int, tuple[Card, ...]]]:
    """Every hand whose cards are known in the current showdown."""
    for d in state.declarations:
        if d.cards is not None:
            yield d.seat, d.cards
    if state.tie is not None:
        yield from state.tie.cards


def _check_one_deck(player: str, cards: Sequence[Card]) -> None:
    """No card twice in one hand: one deck is in play (RULES.md, Poker hands and tie comparisons)."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise RuleBroken(Refusal.CARD_TWICE_IN_HAND, card=card.label, player=player)
        seen.add(card)


def _check_cards(state: MatchState, seat: int, cards: tuple[Card, ...], hand: Category) -> None:
    """The cards must make exactly ``hand``, and no card may be in two hands (one deck)."""
    _check_one_deck(state.players[seat], cards)
    actual = _hand_of(cards).category
    if actual is not hand:
        if actual is Category.HIGH_CARD:  # not "make no pair, not a straight"
            raise RuleBroken(Refusal.CARDS_MAKE_NOTHING, cards=label_hand(cards), hand=hand)
        raise RuleBroken(Refusal.CARDS_MAKE, cards=label_hand(cards), actual=actual, hand=hand)
    mine = {card.index for card in cards}
    for other, known in _shown_cards(state):
        for card in known:
            if other != seat and card.index in mine:
                raise RuleBroken(Refusal.CARD_IN_TWO_HANDS, card=card.label, other=state.players[other])


def _declare(state: MatchState, event: Declare) -> MatchState:
    seat = _check_turn(state, event.player)
    if not event.hand.is_declarable:
        raise RuleBroken(Refusal.HIGH_CARD, player=event.player)
    best = state.best
    if best is not None and event.hand.order < best.order:
        raise RuleBroken(Refusal.DECLARE_TOO_LOW, player=event.player, best=best)
    if event.cards is not None:
        _check_cards(state, seat, event.cards, event.hand)
    return _spoken(state, Declaration(seat, event.hand, event.cards))


def _best_declared(state: MatchState, seat: int, hand: Category) -> MatchState:
    """Keep ``hand`` as the seat's best declaration of the match if it is higher than any before."""
    bests = state.best_declared or (None,) * len(state.players)
    mine = bests[seat]
    if mine is not None and mine.order >= hand.order:
        return state
    return state.evolve(best_declared=(*bests[:seat], hand, *bests[seat + 1 :]))


def _pass(state: MatchState, event: Pass) -> MatchState:
    seat = _check_turn(state, event.player)
    return _spoken(state, Declaration(seat, None))


def _spoken(state: MatchState, declaration: Declaration) -> MatchState:
    best, hand = state.best, declaration.hand
    if hand is not None and (best is None or hand.order > best.order):
        best = hand
    state = state.evolve(stage=Stage.SHOWDOWN, declarations=state.declarations + (declaration,), best=best)
    if hand is not None:
        state = _best_declared(state, declaration.seat, hand)
    if len(state.declarations) < len(state.order):
        return state
    if best is None:
        return _nobody_scores(state, None, said(N_("everybody passed, so nobody scored")))
    tied = [d for d in state.declarations if d.hand is best]
    if len(tied) == 1:
        return _score_hand(state, tied[0].seat, best, "")
    known = tuple((d.seat, d.cards) for d in tied if d.cards is not None)
    tie = PendingTie(best, tuple(d.seat for d in tied), known)
    if len(known) == len(tied):
        return _settle_by_cards(state, tie)
    return state.evolve(stage=Stage.TIE, tie=tie)


def _nobody_scores(state: MatchState, hand: Category | None, reason: Said) -> MatchState:
    outcome = Outcome(state.round, state.phase, None, hand, 0, reason)
    return _after_showdown(state.evolve(outcome=outcome, tie=None))


def _score_hand(state: MatchState, seat: int, hand: Category, reason: Said | str) -> MatchState:
    """The best hand scores; house rules: four of a kind resets the others, an instant-win hand wins."""
    rules = state.rules
    points = rules.points[hand]
    resets = rules.four_of_a_kind_resets and hand is Category.FOUR_OF_A_KIND
    told = reason
    if resets:
        back = said(N_("everybody else goes back to 0"))
        told = sentences([reason, back]) if isinstance(reason, Said) else back
    state = state.evolve(
        outcome=Outcome(state.round, state.phase, state.players[seat], hand, points, told),
        tie=None,
        phase1=Scored(seat, hand, points) if state.phase == 1 else state.phase1,
    )
    state = score(state, seat, points, Reason.HAND, hand=hand, note=reason)
    if resets:
        state = reset_others(state, seat)
    if hand in rules.instant_win:
        return win_at_once(state, seat, hand)  # RULES.md, Variants: the round ends there
    return _after_showdown(state)


def _settle_by_cards(state: MatchState, tie: PendingTie) -> MatchState:
    """Compare the tied hands card by card; identical best hands mean nobody scores."""
    values = sorted(((evaluate(cards), seat) for seat, cards in tie.cards), reverse=True)
    (top, seat), (second, _) = values[0], values[1]
    reason = explain_words(top, second)
    if top == second:
        return _nobody_scores(state, tie.hand, reason)  # "the hands were equal, so nobody scored"
    return _score_hand(state, seat, tie.hand, reason)


def _tie(state: MatchState, event: Tie) -> MatchState:
    _check_in_round(state, tie_ok=True)
    if state.stage is not Stage.TIE or state.tie is None:
        raise RuleBroken(Refusal.NO_TIE)
    tie = state.tie
    tied = state.names(tie.seats)
    if event.cards is None:
        if event.winner is None:
            return _nobody_scores(state, tie.hand, said(N_("the hands were equal, so nobody scored")))
        seat = _seat(state, event.winner)
        if seat not in tie.seats:
            raise RuleBroken(Refusal.NOT_IN_TIE, player=event.winner, players=tied)
        return _score_hand(state, seat, tie.hand, said(N_("the scorekeeper's call")))
    for name, cards in event.cards.items():
        seat = _seat(state, name)
        if seat not in tie.seats:
            raise RuleBroken(Refusal.NOT_IN_TIE, player=name, players=tied)
        if tie.cards_of(seat) is not None:
            raise RuleBroken(Refusal.TIE_CARDS_KNOWN, player=name)
        _check_cards(state, seat, cards, tie.hand)
        tie = replace(tie, cards=tie.cards + ((seat, cards),))
        state = state.evolve(tie=tie)
    if len(tie.cards) == len(tie.seats):
        return _settle_by_cards(state, tie)
    return state


# The last phase (phase 3): Chicago and the tricks.


def _chicago(state: MatchState, event: Chicago) -> MatchState:
    _check_in_round(state)
    seat = _seat(state, event.player)
    _refuse(state.chicago_refusal(seat))
    return state.evolve(chicago=seat, stage=Stage.TRICKS)


def _blanco(state: MatchState, event: Blanco) -> MatchState:
    """House rule ``blanco_chicago``: called before the exchange, which goes on without the caller."""
    _check_in_round(state)
    seat = _seat(state, event.player)
    _refuse(state.blanco_refusal(seat))
    return state.evolve(chicago=seat, blanco=True)


def _check_trick_time(state: MatchState) -> None:
    _refuse(state.trick_refusal())


def _trick(state: MatchState, event: Trick) -> MatchState:
    _check_trick_time(state)
    seat = _taking_part(state, event.winner)
    for number, (_, played) in enumerate(state.tricks, start=1):
        if event.card is not None and played == event.card:
            raise RuleBroken(Refusal.TRICK_CARD_PLAYED, card=event.card.label, number=number)
    last = len(state.tricks) + 1 == TRICKS_PER_ROUND
    if last and state.chicago is None:
        _check_deuce_card(state, event.card)
    state = state.evolve(stage=Stage.TRICKS, tricks=state.tricks + ((seat, event.card),))
    if state.chicago is not None and seat != state.chicago:
        return _chicago_lost(state, seat)
    if not last:
        return state
    return _last_trick_won(state, seat, event.card)


def _last_trick(state: MatchState, event: LastTrick) -> MatchState:
    _check_trick_time(state)
    if state.tricks:
        raise RuleBroken(Refusal.TRICKS_ONE_BY_ONE, number=len(state.tricks) + 1)
    seat = _taking_part(state, event.winner)
    if state.chicago is not None and seat != state.chicago:
        return _chicago_lost(state, seat)  # the trick that broke the Chicago ended the play: its taker
    if state.chicago is None:
        _check_deuce_card(state, event.card)
    return _last_trick_won(state, seat, event.card)


def _check_deuce_card(state: MatchState, card: Card | None) -> None:
    if state.rules.deuce_last_trick_double and card is None:
        raise RuleBroken(Refusal.DEUCE_CARD)


def _trick_play_over(state: MatchState) -> MatchState:
    return state.evolve(tricks_over=True, stage=Stage.SHOWDOWN, declarations=(), best=None)


def _chicago_lost(state: MatchState, breaker: int) -> MatchState:
    """RULES.md, Phase 3 step 4: the Chicago player loses the Chicago value; nobody scores the last trick.

    Variants: a blanco Chicago loses the blanco value; with ``chicago_break_bonus`` the player who
    took the trick (``breaker``) scores the bonus.
    """
    seat = state.chicago
    assert seat is not None
    lost = Reason.BLANCO_LOST if state.blanco else Reason.CHICAGO_LOST
    state = score(_trick_play_over(state), seat, -state.chicago_value, lost)
    bonus = state.rules.chicago_break_bonus
    if bonus:
        state = score(state, breaker, bonus, Reason.CHICAGO_BROKEN)
    return state


def _last_trick_won(state: MatchState, seat: int, card: Card | None) -> MatchState:
    state = _trick_play_over(state)
    if state.chicago == seat:
        won = Reason.BLANCO_WON if state.blanco else Reason.CHICAGO_WON
        return score(won_chicago(state, seat), seat, state.chicago_value, won)
    points = state.rules.last_trick
    if state.rules.deuce_last_trick_double and card is not None and card.rank is Rank.TWO:
        points *= 2
    return score(state, seat, points, Reason.LAST_TRICK)


# Corrections.


def _adjust(state: MatchState, event: Adjust) -> MatchState:
    if state.stage is Stage.FINISHED:
        raise RuleBroken(Refusal.FINISHED, winner=state.winner_name)
    seat = _seat(state, event.player)
    if event.points == 0:
        raise RuleBroken(Refusal.ADJUST_ZERO)
    state = score(state, seat, event.points, Reason.ADJUST, note=event.reason)
    if state.unsupported is not None and state.unsupported.seat == seat:
        state = state.evolve(unsupported=None)
    return state


_HANDLERS: dict[type, Callable[[MatchState, Any], MatchState]] = {
    Draw: _draw,
    Dealer: _dealer,
    Exchange: _exchange,
    Show: _show,
    Declare: _declare,
    Pass: _pass,
    Tie: _tie,
    Chicago: _chicago,
    Blanco: _blanco,
    Trick: _trick,
    LastTrick: _last_trick,
    Adjust: _adjust,
}


def apply(state: MatchState, event: Event) -> MatchState:
    """Apply one event (not an undo) to a state, or raise ``RuleBroken``."""
    if isinstance(event, Undo):
        raise TypeError("an undo is applied by replay(), which keeps the earlier states")
    return _HANDLERS[type(event)](state, event)


def replay(players: Sequence[str], rules: Rules, events: Sequence[Event]) -> MatchState:
    """Fold the events into the state of the match; undos step back (never over an undo).

    A ``RuleBroken`` raised here has ``index`` (the event's position) and ``state``
    (the match just before that event).
    """
    state = MatchState.start(tuple(players), rules)
    earlier: list[MatchState] = []
    for index, event in enumerate(events):
        try:
            if isinstance(event, Undo):
                if not earlier:
                    raise RuleBroken(Refusal.NOTHING_TO_UNDO)
                state = earlier.pop()
            else:
                after = _HANDLERS[type(event)](state, event)
                earlier.append(state)
                state = after
        except RuleBroken as error:
            error.index, error.state = index, state
            raise
    return state


def in_effect(events: Sequence[Event]) -> list[int]:
    """The indexes of the events still in effect: undone events and undos left out."""
    return undo_walk(events)[0]


def walk_back(events: Sequence[Event], since: int) -> tuple[list[int], dict[int, int]]:
    """``undo_walk`` for the end of the log, read from its end: the events in effect it found, and
    for each undo it found the index of the event it cancelled.

    It finds every event in effect and every undo from index ``since`` on, and at least the last
    event in effect; it reads on below ``since`` only until each undo found has found its event. An
    undo cancels the latest event still in effect before it, so, read backwards, an event is
    cancelled by the nearest undo after it that has not found its event yet (brackets matched from
    the right). A tap's page needs the end of a long log only: this reads a dozen events, not all.
    """
    kept: list[int] = []
    cancelled: dict[int, int] = {}
    waiting: list[int] = []  # undos after this index still to find their event, the nearest last
    for index in range(len(events) - 1, -1, -1):
        if index < since and kept and not waiting:
            break
        if isinstance(events[index], Undo):
            waiting.append(index)
        elif waiting:
            cancelled[waiting.pop()] = index
        else:
            kept.append(index)
    kept.reverse()
    return kept, cancelled


def undo_walk(events: Sequence[Event]) -> tuple[list[int], dict[int, int]]:
    """The events in effect, and for each undo the index of the event it cancelled."""
    kept: list[int] = []
    cancelled: dict[int, int] = {}
    for index, event in enumerate(events):
        if isinstance(event, Undo):
            if kept:
                cancelled[index] = kept.pop()
        else:
            kept.append(index)
    return kept, cancelled
