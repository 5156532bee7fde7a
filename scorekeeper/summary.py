"""What a match adds up to: its round-by-round score sheet and each player's figures.

Both are derived from the replayed state and the events in effect; the web
shell keeps the per-player figures in a table so that statistics over many
matches never replay them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from scorekeeper.hands import Category
from scorekeeper.scores import Reason
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
    totals = [0] * len(state.players)
    ends: dict[int, tuple[int, ...]] = {}
    for change in state.changes():
        totals[change.seat] += change.delta
        ends[change.round] = tuple(totals)
    running: tuple[int, ...] = (0,) * len(state.players)
    for number in range(0 if 0 in ends else 1, state.round + 1):
        before, running = running, ends.get(number, running)
        gained = tuple(after - was for after, was in zip(running, before, strict=True))
        yield number, running, gained, number < state.round or state.is_finished


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
    for change in state.changes():
        player = out[change.seat]
        key = change.hand.value if change.hand is not None else change.reason.value
        player.points[key] = player.points.get(key, 0) + change.delta
        if change.reason is Reason.CHICAGO_WON:
            player.chicago_won += 1
        elif change.reason is Reason.CHICAGO_LOST:
            player.chicago_lost += 1
    return out
