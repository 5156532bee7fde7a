"""The state of a match: frozen values the engine folds events into, and the questions they answer.

Templates and the CLI read these answers (totals, whose turn it is, what is
legal now) instead of working them out again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from scorekeeper.cards import Card
from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.scores import Outcome, ScoreChange, Scored, _History
from scorekeeper.words import N_, NP_, Listed, Said, listed, said, said_n

# House rule chicago_to_win: a player at or above the target who plays on (RULES.md, Variants).
MUST_WIN_CHICAGO = NP_(
    "{player} has {score} point but has not won a Chicago, which is needed to win",
    "{player} has {score} points but has not won a Chicago, which is needed to win",
)
DECK_SIZE = 52
HAND_SIZE = 5
TRICKS_PER_ROUND = 5


class Stage(StrEnum):
    """Where a match stands; which events it can take next."""

    FIRST_DEALER = "first_dealer"  # draw or dealer
    EXCHANGE = "exchange"  # exchanges, or the phase goes on (declare/pass; in the last phase Chicago/tricks)
    SHOWDOWN = "showdown"  # declare or pass, in speaking order
    TIE = "tie"  # the best category was declared more than once; cards or a verdict settle it
    TRICKS = "tricks"  # the last phase (phase 3, or 2 with two phases): the trick play
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
    tiebreaks: tuple[int, ...] = ()  # the numbers of the tie-break rounds dealt so far (the score sheet's)
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
    held: Scored | None = None  # phase 2: the cards shown make at least the hand scored in phase 1
    chicago: int | None = None  # who called Chicago this round (a blanco Chicago too)
    blanco: bool = False  # house rule blanco_chicago: the Chicago called this round is a blanco Chicago
    tricks: tuple[tuple[int, Card | None], ...] = ()
    tricks_over: bool = False
    winner: int | None = None
    won_with: Category | None = None  # house rule instant_win: the hand that won the match at once
    chicago_winners: tuple[int, ...] = ()  # the seats that have won a Chicago (of either kind) in the match
    outcome: Outcome | None = None
    history: _History | None = field(default=None, repr=False)
    # Each seat's best declaration in the match (events undone do not count: a state never saw
    # them); () until the first. A player's figures read it (``summary.figures``).
    best_declared: tuple[Category | None, ...] = ()

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
        if self.stage is Stage.EXCHANGE and self.in_last_phase:
            return None
        return self.order[len(self.declarations)]

    @property
    def last_phase(self) -> int:
        """The number of the round's last phase (Chicago, tricks, last showdown): 3, or 2 with two phases."""
        return self.rules.phases

    @property
    def in_last_phase(self) -> bool:
        """The round is in its last phase."""
        return self.phase == self.rules.phases

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
        if not self.in_last_phase or self.tricks_over:
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
                text = said(N_("{players} draw for the first deal"), players=listed(drawers))
                return NextAction("draw", players=drawers, text=text)
            case Stage.TIE:
                assert self.tie is not None
                tied = tuple(names[s] for s in self.tie.seats)
                text = said(N_("{players} settle a tie"), players=listed(tied))
                return NextAction("tie", players=tied, hands=(self.tie.hand,), text=text)
            case Stage.TRICKS:
                number = len(self.tricks) + 1
                leader = self.leader
                return NextAction(
                    "trick",
                    None if leader is None else names[leader],
                    text=said(N_("trick {number} of 5"), number=number),
                )
        if self.stage is Stage.EXCHANGE and self.in_last_phase:
            seat = self.next_exchanger
            who = None if seat is None else names[seat]
            text = said(N_("the phase 3 exchange, then the tricks"))
            if self.last_phase != 3:
                text = said(N_("the last exchange, then the tricks"))
            return NextAction("exchange", who, text=text)
        seat = self.speaker
        assert seat is not None
        text = said(N_("{player} to declare or pass"), player=names[seat])
        if self.stage is Stage.EXCHANGE:  # one sentence, not one nested in another (issue 13)
            text = said(N_("exchanges, then {player} to declare or pass"), player=names[seat])
        return NextAction("declare", names[seat], hands=self.legal_hands(), text=text)

    @property
    def open_stages(self) -> tuple[Stage, ...]:
        """The stages whose events can be recorded now, in the order they come.

        Recording exchanges is optional, so while they are open the step after
        them is open too: the showdown in phases 1 and 2, the tricks in phase 3.
        """
        if self.stage is Stage.EXCHANGE:
            return (Stage.EXCHANGE, Stage.TRICKS if self.in_last_phase else Stage.SHOWDOWN)
        return (self.stage,)

    @property
    def drawing_again(self) -> bool:
        """Only the players who tied for the lowest card draw (RULES.md, Table and cards)."""
        return self.stage is Stage.FIRST_DEALER and len(self.to_draw) < len(self.players)

    @property
    def last_showdown(self) -> bool:
        """The showdown after the tricks, which ends the round."""
        return self.stage is Stage.SHOWDOWN and self.in_last_phase

    @property
    def show_due(self) -> bool:
        """RULES.md, Phase 2: the phase-1 scorer shows the hand now, before exchanging (in the last
        phase, with two phases)."""
        return self.phase1 is not None and self.show_refusal(self.phase1.seat) is None

    @property
    def chicago_open(self) -> bool:
        """Chicago can still be called this round: the last phase, before the first trick, by nobody yet."""
        return self._chicago_closed() is None and self.chicago is None

    @property
    def blanco_open(self) -> bool:
        """House rule blanco_chicago: a blanco Chicago can still be called (by a player yet to exchange)."""
        return (
            self.rules.blanco_chicago is not None and self._blanco_closed() is None and self.chicago is None
        )

    @property
    def chicago_value(self) -> int:
        """What this round's Chicago wins or loses: the Chicago value, or the blanco value."""
        if self.blanco and self.rules.blanco_chicago is not None:
            return self.rules.blanco_chicago
        return self.rules.chicago

    def has_won_chicago(self, seat: int) -> bool:
        """The seat has won a Chicago (or a blanco Chicago) in this match."""
        return seat in self.chicago_winners

    def may_win(self, seat: int) -> bool:
        """House rule chicago_to_win: only a player who has won a Chicago can win the match."""
        return not self.rules.chicago_to_win or self.has_won_chicago(seat)

    @property
    def needs_chicago(self) -> tuple[int, ...]:
        """House rule chicago_to_win: the seats at or above the target playing on without a won Chicago."""
        if self.is_finished:
            return ()
        target = self.rules.target
        return tuple(s for s, score in enumerate(self.scores) if score >= target and not self.may_win(s))

    def needs_chicago_words(self) -> tuple[Said, ...]:
        """Say ``needs_chicago`` in words: "Bo has 55 points but has not won a Chicago, …"."""
        return tuple(
            said_n(MUST_WIN_CHICAGO, "score", player=self.players[s], score=self.scores[s])
            for s in self.needs_chicago
        )

    @property
    def last_trick_alone(self) -> bool:
        """The last trick may be recorded alone, instead of trick by trick: no trick is recorded yet."""
        return self._trick_closed() is None and not self.tricks

    # Why an event may not be recorded now. Each answer is the refusal the engine
    # raises for that event (None: it may be recorded), so each rule is decided here once.

    def round_refusal(self, *, tie_ok: bool = False) -> RuleBroken | None:
        """Refuse play before the first dealer is known, after the winner, or over an open tie."""
        if self.stage is Stage.FINISHED:
            return RuleBroken(Refusal.FINISHED, winner=self.winner_name)
        if self.stage is Stage.FIRST_DEALER:
            return RuleBroken(Refusal.NO_DEALER)
        if self.stage is Stage.TIE and not tie_ok:
            assert self.tie is not None
            return RuleBroken(Refusal.TIE_PENDING, players=self.names(self.tie.seats))
        return None

    def seat_refusal(self, seat: int) -> RuleBroken | None:
        """Refuse a player who sits out this tie-break round."""
        if seat not in self.order:
            return RuleBroken(Refusal.SITTING_OUT, player=self.players[seat])
        return None

    def exchange_refusal(self, seat: int, count: int) -> RuleBroken | None:
        """Why ``seat`` may not exchange ``count`` cards now, or None."""
        refusal = self.round_refusal() or self.seat_refusal(seat)
        if refusal is not None:
            return refusal
        player = self.players[seat]
        if self.stage is not Stage.EXCHANGE:
            return RuleBroken(Refusal.EXCHANGE_CLOSED, phase=self.phase)
        if seat in self.exchanged:
            return RuleBroken(Refusal.EXCHANGE_TWICE, player=player, phase=self.phase)
        if self.exchanged:
            last = max(self.exchanged, key=self.order.index)
            if self.order.index(seat) < self.order.index(last):
                return RuleBroken(Refusal.EXCHANGE_ORDER, player=player, last=self.players[last])
        if count > 0 and self.blanco and seat == self.chicago:
            return RuleBroken(Refusal.BLANCO_NO_EXCHANGE, player=player)
        threshold = self.rules.no_exchange_at
        if count > 0 and threshold is not None and self.scores[seat] >= threshold:
            score = self.scores[seat]
            return RuleBroken(Refusal.EXCHANGE_THRESHOLD, player=player, score=score, threshold=threshold)
        return None

    def exchange_max(self, seat: int) -> int | None:
        """How many cards ``seat`` may exchange now at most (None: no exchange by ``seat`` now)."""
        if self.exchange_refusal(seat, 0) is not None:
            return None
        return HAND_SIZE if self.exchange_refusal(seat, HAND_SIZE) is None else 0

    def show_refusal(self, seat: int) -> RuleBroken | None:
        """Why ``seat`` may not show a hand now (RULES.md, Phase 2), or None."""
        refusal = self.round_refusal() or self.seat_refusal(seat)
        if refusal is not None:
            return refusal
        if self.phase != 2 or self.stage is not Stage.EXCHANGE:
            return RuleBroken(Refusal.SHOW_PHASE)
        if self.phase1 is None:
            return RuleBroken(Refusal.SHOW_NOBODY)
        if seat != self.phase1.seat:
            return RuleBroken(Refusal.SHOW_PLAYER, scorer=self.players[self.phase1.seat])
        if self.shown:
            return RuleBroken(Refusal.SHOW_TWICE, player=self.players[seat])
        if seat in self.exchanged:
            return RuleBroken(Refusal.SHOW_LATE, player=self.players[seat])
        return None

    def chicago_refusal(self, seat: int) -> RuleBroken | None:
        """Why ``seat`` may not call Chicago now (RULES.md, Phase 3), or None."""
        refusal = self.round_refusal() or self.seat_refusal(seat)
        if refusal is not None:
            return refusal
        if self.in_last_phase and self.chicago is not None and not self.tricks:
            if self.blanco:
                return RuleBroken(Refusal.BLANCO_NO_CHICAGO, caller=self.players[self.chicago])
            return RuleBroken(Refusal.CHICAGO_TWICE, caller=self.players[self.chicago])
        refusal = self._chicago_closed()
        if refusal is not None:
            return refusal
        minimum = self.rules.chicago_min
        if self.scores[seat] < minimum:
            return RuleBroken(
                Refusal.CHICAGO_MIN, player=self.players[seat], score=self.scores[seat], min=minimum
            )
        return None

    def can_call_chicago(self, seat: int) -> bool:
        """True if ``seat`` may call Chicago now."""
        return self.chicago_refusal(seat) is None

    def blanco_refusal(self, seat: int) -> RuleBroken | None:
        """Why ``seat`` may not call a blanco Chicago now (RULES.md, Variants), or None."""
        refusal = self.round_refusal() or self.seat_refusal(seat)
        if refusal is not None:
            return refusal
        if self.rules.blanco_chicago is None:
            return RuleBroken(Refusal.BLANCO_OFF)
        if self.in_last_phase and self.chicago is not None and not self.tricks_over:
            if self.blanco:
                return RuleBroken(Refusal.BLANCO_TWICE, caller=self.players[self.chicago])
            return RuleBroken(Refusal.CHICAGO_TWICE, caller=self.players[self.chicago])
        refusal = self._blanco_closed()
        if refusal is not None:
            return refusal
        player = self.players[seat]
        if seat in self.exchanged:
            return RuleBroken(Refusal.BLANCO_EXCHANGED, player=player)
        minimum = self.rules.chicago_min
        if self.scores[seat] < minimum:
            return RuleBroken(Refusal.CHICAGO_MIN, player=player, score=self.scores[seat], min=minimum)
        return None

    def can_call_blanco(self, seat: int) -> bool:
        """True if ``seat`` may call a blanco Chicago now."""
        return self.blanco_refusal(seat) is None

    def trick_refusal(self) -> RuleBroken | None:
        """Why no trick may be recorded now, or None."""
        return self.round_refusal() or self._trick_closed()

    def _chicago_closed(self) -> RuleBroken | None:
        if not self.in_last_phase or self.stage not in (Stage.EXCHANGE, Stage.TRICKS) or self.tricks:
            if self.last_phase != 3:
                return RuleBroken(Refusal.CHICAGO_LAST_PHASE)
            return RuleBroken(Refusal.CHICAGO_PHASE)
        return None

    def _blanco_closed(self) -> RuleBroken | None:
        if not self.in_last_phase or self.stage is not Stage.EXCHANGE:
            return RuleBroken(Refusal.BLANCO_PHASE)
        return None

    def _trick_closed(self) -> RuleBroken | None:
        if self.in_last_phase and self.tricks_over:
            return RuleBroken(Refusal.TRICKS_OVER)
        if not self.in_last_phase or self.stage not in (Stage.EXCHANGE, Stage.TRICKS):
            if self.last_phase != 3:
                return RuleBroken(Refusal.TRICKS_LAST_PHASE)
            return RuleBroken(Refusal.TRICKS_PHASE)
        return None

    def names(self, seats: Iterable[int]) -> Listed:
        """The players in ``seats``, as a list for a sentence."""
        return listed(self.players[s] for s in seats)

    def iter_changes(self) -> Iterator[ScoreChange]:
        """The score changes, newest first."""
        node = self.history
        while node is not None:
            yield node.change
            node = node.before


_STATE_FIELDS = frozenset(f.name for f in fields(MatchState))
