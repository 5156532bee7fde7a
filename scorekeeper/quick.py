"""A showdown in one tap: the ordinary events of a whole showdown, from who scored and with what.

At a table where only the best hand is said aloud, the scorekeeper taps
"Cia · Flush": everybody before Cia in speaking order passed, Cia declared a
flush, and everybody after passed. The result is the same ``pass`` and
``declare`` events the detailed flow records (MATCH_FORMAT.md), so the file,
the history and ``scorekeeper check`` cannot tell the two apart; the engine
still checks each one.

The last phase's calls and a Chicago's outcome take one tap each too (``calls_open``,
``call_events``, ``chicago_outcome_events``), and only in a round that has them.
"""

from __future__ import annotations

from collections.abc import Mapping

from scorekeeper.cards import Card, Rank, Suit
from scorekeeper.events import Blanco, Chicago, Declare, Draw, Event, LastTrick, Pass
from scorekeeper.hands import Category
from scorekeeper.state import MatchState


def speakers_left(state: MatchState) -> tuple[str, ...]:
    """Who has yet to declare or pass in the showdown that is open now (none when no showdown is)."""
    seat = state.speaker
    if seat is None:
        return ()
    return tuple(state.players[s] for s in state.order[len(state.declarations) :])


def showdown_events(
    state: MatchState, player: str | None, hand: Category | None, tied: tuple[str, ...] = ()
) -> tuple[Event, ...]:
    """The rest of the showdown as events: ``player`` declares ``hand``, everybody else left passes.

    With no player, everybody left passes ("nobody scores"). The ``tied`` players
    declare the same hand too, and the engine opens the tie comparison. The events
    are not checked here: the engine refuses whichever breaks a rule.

    >>> from scorekeeper.rules import Rules
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.events import Dealer
    >>> state = replay(("Anna", "Bo", "Cia"), Rules(), [Dealer("Anna")])
    >>> [f"{e.type} {e.player}" for e in showdown_events(state, "Cia", Category.FLUSH)]
    ['pass Bo', 'declare Cia', 'pass Anna']
    >>> [e.type for e in showdown_events(state, None, None)]
    ['pass', 'pass', 'pass']
    >>> [e.type for e in showdown_events(state, "Cia", Category.PAIR, tied=("Anna",))]
    ['pass', 'declare', 'declare']
    """
    left = speakers_left(state)
    if player is None or hand is None:
        return tuple(Pass(name) for name in left)
    declarers = (player, *tied)
    if not set(declarers) <= set(left):  # already spoke, or sits out: the engine says why it is refused
        return tuple(Declare(name, hand) for name in declarers)
    return tuple(Declare(name, hand) if name in declarers else Pass(name) for name in left)


def calls_open(state: MatchState) -> dict[str, tuple[str, ...]]:
    """Who may call what now, by event type (``chicago``, ``blanco``): the buttons a page offers.

    A round where nobody may call either gets an empty answer, so no tap is added to it; the call
    itself is one ordinary ``chicago`` or ``blanco`` event (``call_events``).

    >>> from scorekeeper.rules import Rules
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.events import Adjust, Dealer
    >>> quiet = [Pass("Bo"), Pass("Anna")] * 2
    >>> start = [Adjust("Bo", 20, ""), Dealer("Anna"), *quiet]
    >>> calls_open(replay(("Anna", "Bo"), Rules(blanco_chicago=30), start))
    {'chicago': ('Bo',), 'blanco': ('Bo',)}
    >>> calls_open(replay(("Anna", "Bo"), Rules(), [Dealer("Anna"), *quiet]))
    {}
    """
    order = state.order if state.phase else ()
    chicago = tuple(state.players[s] for s in order if state.can_call_chicago(s))
    blanco = tuple(state.players[s] for s in order if state.can_call_blanco(s))
    return {kind: names for kind, names in (("chicago", chicago), ("blanco", blanco)) if names}


def call_events(kind: str, player: str) -> tuple[Event, ...]:
    """A Chicago or blanco Chicago call as its event (the engine checks it)."""
    return (Blanco(player) if kind == "blanco" else Chicago(player),)


def chicago_outcome_events(state: MatchState, breaker: str | None) -> tuple[Event, ...]:
    """A called Chicago's trick play in one tap: made (``breaker`` None), or broken by ``breaker``.

    MATCH_FORMAT.md's ``last_trick``: the trick that breaks a Chicago ends the trick play, so its
    taker is the last trick's winner; that is whom house rule ``chicago_break_bonus`` pays. Without
    a Chicago called, ``breaker`` simply took the last trick.

    >>> from scorekeeper.rules import Rules
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.events import Adjust, Dealer
    >>> quiet = [Pass("Bo"), Pass("Anna")] * 2
    >>> state = replay(("Anna", "Bo"), Rules(), [Adjust("Bo", 20, ""), Dealer("Anna"), *quiet, Chicago("Bo")])
    >>> chicago_outcome_events(state, None), chicago_outcome_events(state, "Anna")
    ((LastTrick(winner='Bo', card=None),), (LastTrick(winner='Anna', card=None),))
    """
    if breaker is None and state.chicago is not None:
        return (LastTrick(state.players[state.chicago]),)
    if breaker is None:
        return ()
    return (LastTrick(breaker),)


def drawn_by_rank(drawn: Mapping[str, Rank | Card]) -> Draw:
    """The draw for the first deal from the rank each player drew (a card, if one was given whole).

    Only ranks decide who deals (RULES.md, Table and cards), so the table taps ranks; the match
    file holds cards, so each rank gets a suit no other player's card of that rank has, in the
    order ♠ ♥ ♦ ♣ (one deck: four players at most draw one rank).

    >>> draw = drawn_by_rank({"Anna": Rank.SEVEN, "Bo": Rank.SEVEN, "Cia": Rank.KING})
    >>> {name: repr(card) for name, card in draw.cards.items()}
    {'Anna': '7s', 'Bo': '7h', 'Cia': 'Ks'}
    """
    taken = {card for card in drawn.values() if isinstance(card, Card)}
    cards: dict[str, Card] = {}
    for name, rank in drawn.items():
        if isinstance(rank, Card):
            cards[name] = rank
            continue
        free = [Card(rank, suit) for suit in Suit if Card(rank, suit) not in taken]
        cards[name] = free[0] if free else Card(rank, Suit.SPADES)  # a fifth of a rank: the engine refuses it
        taken.add(cards[name])
    return Draw(cards)
