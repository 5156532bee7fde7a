"""What a match adds up to: its round-by-round score sheet and each player's figures.

Both are derived from the replayed state and the events in effect; the web
shell keeps the per-player figures in a table so that statistics over many
matches never replay them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from scorekeeper.hands import Category
from scorekeeper.scores import Reason, ScoreChange
from scorekeeper.state import MatchState
from scorekeeper.words import Said, english


@dataclass(frozen=True)
class SheetLine:
    """One change of a total on the score sheet: ``Bo +2 two pair`` in round 3, phase 1."""

    phase: int
    player: str
    delta: int
    what: str
    words: Said | Category  # ``what``, kept apart for translation


@dataclass(frozen=True)
class SheetRound:
    """A round of the score sheet: its lines and everybody's totals when it ended (or now)."""

    number: int
    lines: tuple[SheetLine, ...]
    totals: tuple[int, ...]
    finished: bool
    gained: tuple[int, ...] = ()  # each seat's points in this round (after the zero floor): a protocol's cell


def score_sheet(state: MatchState) -> list[SheetRound]:
    """The score sheet, round by round (round 0 holds corrections made before the first deal).

    >>> from scorekeeper.events import Dealer, Pass, Declare
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.rules import Rules
    >>> state = replay(("Anna", "Bo"), Rules(), [Dealer("Anna"), Declare("Bo", Category.PAIR), Pass("Anna")])
    >>> [(r.number, [(l.player, l.delta, l.what) for l in r.lines], r.totals) for r in score_sheet(state)]
    [(1, [('Bo', 1, 'pair')], (0, 1))]
    >>> score_sheet(state)[0].gained
    (0, 1)
    """
    rounds: dict[int, list[SheetLine]] = {}
    for change in state.changes():
        what = change.what
        line = SheetLine(change.phase, state.players[change.seat], change.delta, english(what), what)
        rounds.setdefault(change.round, []).append(line)
    return [
        SheetRound(number, tuple(rounds.get(number, ())), after, finished, gained)
        for number, after, gained, finished in _round_totals(state)
    ]


def totals_by_round(state: MatchState) -> list[tuple[int, ...]]:
    """Everybody's total at the start (all 0) and after each round played to the end: the chart's points."""
    start = [(0,) * len(state.players)]
    return start + [after for number, after, _, finished in _round_totals(state) if number > 0 and finished]


def _round_totals(state: MatchState) -> Iterator[tuple[int, tuple[int, ...], tuple[int, ...], bool]]:
    """Each round's number, everybody's totals at its end (or now), the points it gave each seat
    (after the zero floor), and whether it was played to the end; round 0 only if corrections
    came before the first deal. Only the totals: the write path works the chart out on every tap."""
    ends: dict[int, tuple[int, ...]] = {}
    for number, totals in tally(state).round_ends():
        ends.setdefault(number, totals)  # newest first: the first seen of a round is its end
    running: tuple[int, ...] = (0,) * len(state.players)
    for number in range(0 if 0 in ends else 1, state.round + 1):
        before, running = running, ends.get(number, running)
        gained = tuple(after - was for after, was in zip(running, before, strict=True))
        yield number, running, gained, number < state.round or state.is_finished


@dataclass(frozen=True, slots=True)
class _RoundEnd:
    """Everybody's totals after the last change so far of one round, and the rounds before (newest first)."""

    number: int
    totals: tuple[int, ...]
    before: _RoundEnd | None


@dataclass(frozen=True, slots=True)
class Tally:
    """What a match's score changes add up to so far: each seat's points by source
    (``PlayerFigures.points``), Chicagos won and lost, and everybody's totals at each round's end.

    Kept on the newest change it was worked out for (``_History.kept``): the next tap's tally
    goes on from there, so a tap costs what it added, not what the match holds.
    """

    points: tuple[dict[str, int], ...]  # by seat; never changed once made (a change copies one seat's)
    chicago_won: tuple[int, ...]
    chicago_lost: tuple[int, ...]
    totals: tuple[int, ...]
    ends: _RoundEnd | None

    @classmethod
    def empty(cls, seats: int) -> Tally:
        return cls(tuple({} for _ in range(seats)), (0,) * seats, (0,) * seats, (0,) * seats, None)

    def add(self, change: ScoreChange) -> Tally:
        """This tally with one more change."""
        seat = change.seat
        key = change.hand.value if change.hand is not None else change.reason.value
        points = list(self.points)
        mine = points[seat] = dict(points[seat])
        mine[key] = mine.get(key, 0) + change.delta
        won, lost = self.chicago_won, self.chicago_lost
        if change.reason is Reason.CHICAGO_WON:
            won = _bumped(won, seat, 1)
        elif change.reason is Reason.CHICAGO_LOST:
            lost = _bumped(lost, seat, 1)
        totals = _bumped(self.totals, seat, change.delta)
        ends = self.ends
        if ends is not None and ends.number == change.round:
            ends = ends.before
        return Tally(tuple(points), won, lost, totals, _RoundEnd(change.round, totals, ends))

    def round_ends(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Each round's number and the totals after its last change, newest first (each round once,
        unless a round's changes came apart, which the engine never does: then its newest comes first)."""
        end = self.ends
        while end is not None:
            yield end.number, end.totals
            end = end.before


def _bumped(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return (*values[:seat], values[seat] + by, *values[seat + 1 :])


def tally(state: MatchState) -> Tally:
    """What the state's score changes add up to, from the nearest change with a tally kept (or the start)."""
    node, since = state.history, []
    while node is not None and node.kept is None:
        since.append(node.change)
        node = node.before
    found = Tally.empty(len(state.players)) if node is None else node.kept
    for change in reversed(since):
        found = found.add(change)
    if state.history is not None and since:
        # The tally moves on to the newest change (a derived, hidden field of a frozen node): the
        # older one would live as long as the match, one every few taps. A state left behind asked
        # again (an undo's) walks a little further back.
        object.__setattr__(state.history, "kept", found)
        if node is not None:
            object.__setattr__(node, "kept", None)
    return found


@dataclass
class PlayerFigures:
    """One player's figures in one match, the unit that statistics add up."""

    name: str
    seat: int
    score: int
    won: bool
    finished: bool
    rounds: int
    points: dict[str, int] = field(default_factory=dict)  # by hand name, last_trick, chicago_won/lost, adjust
    chicago_won: int = 0
    chicago_lost: int = 0
    best_hand: str | None = None


def figures(state: MatchState) -> list[PlayerFigures]:
    """Each player's figures in this match (events undone do not count: the state never saw them)."""
    bests = [
        None if best is None else best.value for best in state.best_declared or (None,) * len(state.players)
    ]
    out = [
        PlayerFigures(
            name=name,
            seat=seat,
            score=state.scores[seat],
            won=state.winner == seat,
            finished=state.is_finished,
            rounds=state.round if state.is_finished else max(state.round - 1, 0),  # played to the end
            best_hand=bests[seat],
        )
        for seat, name in enumerate(state.players)
    ]
    counted = tally(state)
    for player in out:
        player.points = dict(counted.points[player.seat])
        player.chicago_won = counted.chicago_won[player.seat]
        player.chicago_lost = counted.chicago_lost[player.seat]
    return out
