"""The state of a match: frozen values the engine folds events into, and the questions they answer.

Templates and the CLI read these answers (totals, whose turn it is, what is
legal now) instead of working them out again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from scorekeeper.cards import Card
from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.rules import Rules
from scorekeeper.scores import Outcome, ScoreChange, Scored, _History
from scorekeeper.words import N_, Said, joined, said


class Stage(StrEnum):
    """Where a match stands; which events it can take next."""

    FIRST_DEALER = "first_dealer"  # draw or dealer
    EXCHANGE = "exchange"  # exchanges, or the phase goes on (declare/pass; in phase 3 Chicago/tricks)
    SHOWDOWN = "showdown"  # declare or pass, in speaking order
    TIE = "tie"  # the best category was declared more than once; cards or a verdict settle it
    TRICKS = "tricks"  # phase 3: the trick play
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Declaration:
    """One speaker's turn in a showdown; ``hand`` is None for a pass."""

    seat: int
    hand: Category | None
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class PendingTie:
    """Tied declarers of the best category, and the cards known so far (seat, cards)."""

    hand: Category
    seats: tuple[int, ...]
    cards: tuple[tuple[int, tuple[Card, ...]], ...]

    def cards_of(self, seat: int) -> tuple[Card, ...] | None:
        """The cards known for ``seat`` in this tie, or None."""
        return next((c for s, c in self.cards if s == seat), None)


@dataclass(frozen=True, slots=True)
class NextAction:
    """What the scorekeeper records next, for people and for templates."""

    kind: str  # draw, dealer, exchange, declare, tie, trick, finished
    player: str | None = None
    players: tuple[str, ...] = ()
    hands: tuple[Category, ...] = ()
    text: Said = said(N_("nothing"))


@dataclass(frozen=True)
class MatchState:
    """Everything the rules need to know about a match after some events.

    Not slotted: ``evolve`` copies the instance dictionary, which is what keeps
    a replay of 1,000 events within a few milliseconds.
    """

    players: tuple[str, ...]
    rules: Rules
    scores: tuple[int, ...]
    stage: Stage = Stage.FIRST_DEALER
    round: int = 0
    phase: int = 0
    dealer: int | None = None
    order: tuple[int, ...] = ()  # seats in this round, in speaking order, the dealer last
    tiebreak: bool = False
    to_draw: tuple[int, ...] = ()
    exchanged: tuple[int, ...] = ()
    draw_pile: int = 0
    discards: int = 0
    reshuffled: bool = False
    declarations: tuple[Declaration, ...] = ()
    best: Category | None = None  # the best category declared so far in this showdown
    tie: PendingTie | None = None
    phase1: Scored | None = None
    shown: bool = False
    unsupported: Scored | None = None
    chicago: int | None = None
    tricks: tuple[tuple[int, Card | None], ...] = ()
    tricks_over: bool = False
    winner: int | None = None
    outcome: Outcome | None = None
    history: _History | None = field(default=None, repr=False)

    def evolve(self, **changes: Any) -> MatchState:
        """A copy with some fields changed (``dataclasses.replace``, without its cost)."""
        if not changes.keys() <= _STATE_FIELDS:
            raise TypeError(f"MatchState has no field {sorted(changes.keys() - _STATE_FIELDS)}")
        new = object.__new__(MatchState)
        object.__setattr__(new, "__dict__", self.__dict__ | changes)
        return new

    @classmethod
    def start(cls, players: tuple[str, ...], rules: Rules) -> MatchState:
        """The state before any event: everybody draws for the first deal."""
        seats = tuple(range(len(players)))
        return cls(players=players, rules=rules, scores=(0,) * len(players), to_draw=seats)

    # Questions templates and the CLI ask.

    @property
    def totals(self) -> dict[str, int]:
        """Each player's total, in seat order."""
        return dict(zip(self.players, self.scores, strict=True))

    @property
    def is_finished(self) -> bool:
        """True once a player has won."""
        return self.winner is not None

    @property
    def winner_name(self) -> str | None:
        """The winner's name, or None while the match goes on."""
        return None if self.winner is None else self.players[self.winner]

    @property
    def dealer_name(self) -> str | None:
        """The dealer's name once the first dealer is known."""
        return None if self.dealer is None else self.players[self.dealer]

    @property
    def speaker(self) -> int | None:
        """The seat to declare or pass next, in a showdown (or as it opens)."""
        if self.stage not in (Stage.EXCHANGE, Stage.SHOWDOWN) or self.phase == 0:
            return None
        if self.stage is Stage.EXCHANGE and self.phase == 3:
            return None
        return self.order[len(self.declarations)]

    def legal_hands(self) -> tuple[Category, ...]:
        """The declarations allowed now: at least as high as the best so far."""
        best = self.best
        return tuple(c for c in DECLARABLE if best is None or c.order >= best.order)

    @property
    def next_exchanger(self) -> int | None:
        """The seat whose exchange comes next in this phase, if exchanges are open."""
        if self.stage is not Stage.EXCHANGE:
            return None
        done = [self.order.index(s) for s in self.exchanged]
        at = max(done) + 1 if done else 0
        return self.order[at] if at < len(self.order) else None

    @property
    def leader(self) -> int | None:
        """Who leads the next trick: left of the dealer, or the last trick's winner.

        House rule ``chicago_leads``: the Chicago player leads the first trick.
        """
        if self.phase != 3 or self.tricks_over:
            return None
        if self.tricks:
            return self.tricks[-1][0]
        if self.rules.chicago_leads and self.chicago is not None:
            return self.chicago
        return self.order[0]

    @property
    def reshuffle_now(self) -> bool:
        """The draw pile is empty: the dealer shuffles the discards into a new one."""
        return self.stage is Stage.EXCHANGE and self.draw_pile == 0

    @property
    def last_change(self) -> ScoreChange | None:
        """The most recent change of any total."""
        return None if self.history is None else self.history.change

    def changes(self) -> list[ScoreChange]:
        """Every change of a total since the start, oldest first."""
        return list(self.iter_changes())[::-1]

    def can_call_chicago(self, seat: int) -> bool:
        """True if ``seat`` may call Chicago now (phase 3, before a trick, enough points)."""
        return (
            self.phase == 3
            and self.stage in (Stage.EXCHANGE, Stage.TRICKS)
            and not self.tricks
            and self.chicago is None
            and seat in self.order
            and self.scores[seat] >= self.rules.chicago_min
        )

    def next_action(self) -> NextAction:
        """Say what is to be recorded next."""
        names = self.players
        match self.stage:
            case Stage.FINISHED:
                return NextAction(
                    "finished", self.winner_name, text=said(N_("{player} won"), player=self.winner_name)
                )
            case Stage.FIRST_DEALER:
                drawers = tuple(names[s] for s in self.to_draw)
                text = said(N_("Draw for the first deal: {players}"), players=", ".join(drawers))
                return NextAction("draw", players=drawers, text=text)
            case Stage.TIE:
                assert self.tie is not None
                tied = tuple(names[s] for s in self.tie.seats)
                text = said(N_("Tie: {players}"), players=joined(tied))
                return NextAction("tie", players=tied, hands=(self.tie.hand,), text=text)
            case Stage.TRICKS:
                number = len(self.tricks) + 1
                leader = self.leader
                return NextAction(
                    "trick",
                    None if leader is None else names[leader],
                    text=said(N_("Trick {number}"), number=number),
                )
        if self.stage is Stage.EXCHANGE and self.phase == 3:
            seat = self.next_exchanger
            who = None if seat is None else names[seat]
            return NextAction("exchange", who, text=said(N_("Phase 3: exchange, then tricks")))
        seat = self.speaker
        assert seat is not None
        text = said(N_("{player} to declare or pass"), player=names[seat])
        if self.stage is Stage.EXCHANGE:
            text = said(N_("exchanges, then {action}"), action=text)
        return NextAction("declare", names[seat], hands=self.legal_hands(), text=text)

    def iter_changes(self) -> Iterator[ScoreChange]:
        """The score changes, newest first."""
        node = self.history
        while node is not None:
            yield node.change
            node = node.before


_STATE_FIELDS = frozenset(f.name for f in fields(MatchState))
