"""Events and score changes said in words, for the event feed and the undo button."""

from __future__ import annotations

from collections.abc import Sequence

from scorekeeper.cards import Card, label_hand
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
from scorekeeper.scores import ScoreChange
from scorekeeper.state import TRICKS_PER_ROUND, MatchState
from scorekeeper.words import N_, NP_, Said, listed, said, said_n, sentences, signed


def describe(event: Event) -> str:
    """Say what an event recorded.

    >>> from scorekeeper.hands import Category
    >>> describe(Declare("Bo", Category.TWO_PAIR))
    'Bo declared two pair'
    """
    return str(describe_words(event))


def describe_words(event: Event) -> Said:
    """``describe``, kept apart for translation."""
    match event:
        case Draw(cards=cards):
            # The ranks alone: they decide who deals, and the form asks for no suit.
            drawn = listed(f"{n} {c.rank.label}" for n, c in cards.items())
            return said(N_("Draw for the first deal: {cards}"), cards=drawn)
        case Dealer(player=player):
            return said(N_("{player} deals first"), player=player)
        case Exchange(player=player, count=0):
            return said(N_("{player} kept all five cards"), player=player)
        case Exchange(player=player, count=count):
            exchanged = NP_("{player} exchanged {number} card", "{player} exchanged {number} cards")
            return said_n(exchanged, "number", player=player, number=count)
        case Show(player=player, cards=cards):
            return said(N_("{player} showed {cards}"), player=player, cards=label_hand(cards))
        case Declare(player=player, hand=hand, cards=None):
            return said(N_("{player} declared {hand}"), player=player, hand=hand)
        case Declare(player=player, hand=hand, cards=cards):
            shown = label_hand(cards or ())
            return said(N_("{player} declared {hand} ({cards})"), player=player, hand=hand, cards=shown)
        case Pass(player=player):
            return said(N_("{player} passed"), player=player)
        case Tie(cards=None, winner=None):
            return said(N_("Tie: equal hands"))
        case Tie(cards=None, winner=winner):
            return said(N_("Tie: {player} has the higher hand"), player=winner)
        case Tie(cards=cards):
            each = [
                said(N_("{player} showed {cards}"), player=n, cards=label_hand(h))
                for n, h in (cards or {}).items()
            ]
            return said(N_("Tie: {shown}"), shown=sentences(each))
        case Chicago(player=player):
            return said(N_("{player} called Chicago"), player=player)
        case Blanco(player=player):
            return said(N_("{player} called a blanco Chicago"), player=player)
        case Trick(winner=winner, card=None):
            return said(N_("{player} took a trick"), player=winner)
        case Trick(winner=winner, card=Card() as card):
            return said(N_("{player} took a trick with {card}"), player=winner, card=card.label)
        case LastTrick(winner=winner, card=None):
            return said(N_("{player} took the last trick"), player=winner)
        case LastTrick(winner=winner, card=Card() as card):
            return said(N_("{player} took the last trick with {card}"), player=winner, card=card.label)
        case Adjust(player=player, points=points, reason=""):
            return said(N_("Correction: {player} {points}"), player=player, points=signed(points))
        case Adjust(player=player, points=points, reason=reason):
            return said(
                N_("Correction: {player} {points} ({reason})"),
                player=player,
                points=signed(points),
                reason=reason,
            )
        case Undo():
            return said(N_("Undo"))
    raise TypeError(event)  # pragma: no cover - every event type is listed above


def undo_words(cancelled: Event, words: Said | None = None) -> Said:
    """The feed's line for an undo: what it took back (``words``: said in its match, ``said_at``)."""
    return said(N_("Undone: {event}"), event=words or describe_words(cancelled))


def step_words(events: Sequence[Event], indexes: Sequence[int]) -> Said:
    """One tap's events said short enough for the undo and redo buttons of a small phone.

    A tap of one event says it (``said_at``). A whole showdown from one tap says what decided it:
    a tie's verdict, else the declarations, else who passed.

    >>> from scorekeeper.hands import Category
    >>> showdown = [Pass("Bo"), Declare("Cia", Category.FLUSH), Pass("Anna")]
    >>> str(step_words(showdown, [0, 1, 2])), str(step_words(showdown, [2]))
    ('Cia declared a flush', 'Anna passed')
    >>> str(step_words([Pass("Bo"), Pass("Cia"), Pass("Anna")], [0, 1, 2]))
    'Bo, Cia, and Anna passed'
    """
    if len(indexes) == 1:
        return said_at(events, indexes[0])
    chosen = [i for i in indexes if isinstance(events[i], Tie)]
    chosen = chosen or [i for i in indexes if not isinstance(events[i], Pass)]
    if not chosen:
        passed = [e.player for e in (events[i] for i in indexes) if isinstance(e, Pass)]
        return said(N_("{players} passed"), players=listed(passed))
    said_each = [said_at(events, i) for i in chosen]
    return (
        said_each[0]
        if len(said_each) == 1
        else said(N_("{first}; {rest}"), first=said_each[0], rest=sentences(said_each[1:]))
    )


def said_at(events: Sequence[Event], index: int) -> Said:
    """The event at ``index`` said in its match: a trick after a Chicago call says what happened to
    the Chicago, as the table says it, where the event alone says only who took it.

    >>> from scorekeeper.events import Chicago, LastTrick
    >>> str(said_at([Chicago("Cia"), LastTrick("Anna")], 1))
    "Anna broke Cia's Chicago"
    >>> str(said_at([Chicago("Cia"), LastTrick("Cia")], 1))
    'Cia made the Chicago'
    """
    event = events[index]
    if isinstance(event, Trick | LastTrick):
        call, number = _chicago_before(events, index)
        caller = None if call is None else call.player
        blanco = isinstance(call, Blanco)
        if caller is not None and event.winner != caller:
            broke = N_("{player} broke {caller}'s Chicago")
            if blanco:
                broke = N_("{player} broke {caller}'s blanco Chicago")
            return said(broke, caller=caller, player=event.winner)
        if caller is not None and (isinstance(event, LastTrick) or number == TRICKS_PER_ROUND):
            made = N_("{player} made the blanco Chicago") if blanco else N_("{player} made the Chicago")
            return said(made, player=caller)
    return describe_words(event)


def _chicago_before(events: Sequence[Event], index: int) -> tuple[Chicago | Blanco | None, int]:
    """The call of the Chicago the trick at ``index`` was played for (None: none), and the trick's number.

    The log is read back from the trick over the events in effect (an undo cancels the latest
    event in effect before it): only tricks and corrections lie between a Chicago call and its tricks
    (and the exchange and the phase-2 show, after a blanco call).

    >>> from scorekeeper.events import Blanco, Exchange, LastTrick
    >>> str(said_at([Blanco("Cia"), Exchange("Anna", 2), LastTrick("Anna")], 2))
    "Anna broke Cia's blanco Chicago"
    """
    number, waiting = 1, 0
    for event in reversed(events[:index]):
        if isinstance(event, Undo):
            waiting += 1
        elif waiting:
            waiting -= 1
        elif isinstance(event, Chicago | Blanco):
            return event, number
        elif isinstance(event, Trick):
            number += 1
        elif not isinstance(event, Adjust | Exchange | Show):
            break
    return None, number


def change_words(state: MatchState, change: ScoreChange) -> Said:
    """A change of a total, kept apart for translation: ``Bo +2, two pair``."""
    return said(
        N_("{player} {delta}, {what}; a total never goes below 0")
        if change.floored
        else N_("{player} {delta}, {what}"),
        player=state.players[change.seat],
        delta=signed(change.delta),
        what=change.what,
    )
