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
from scorekeeper.state import MUST_WIN_CHICAGO, MatchState
from scorekeeper.words import Said, english, said_n


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


@dataclass(frozen=True)
class ProtocolRow:
    """A row of the score sheet as players keep it on paper: what a round gave each player, or a
    correction on a line of its own, and everybody's totals after it."""

    number: int  # the round (a correction: the round it was made in; 0 before the first deal)
    gained: tuple[int, ...]  # each seat's points on this row (after the zero floor)
    totals: tuple[int, ...]
    finished: bool  # the round was played to its end
    tiebreak: bool = False  # a tie-break round (RULES.md, Winning: the leaders play one more)
    correction: ScoreChange | None = None  # a correction's row: whose, how much and why
    more: bool = False  # a round's row split by a correction: another part of it follows

    @property
    def now(self) -> bool:
        """The row of the round being played (its last part): its totals are "so far"."""
        return not self.finished and not self.more and self.correction is None

    @property
    def what(self) -> Said | Category | None:
        """What a correction's row was for (``correction (reason)``); None for a round's row."""
        return None if self.correction is None else self.correction.what


def protocol(state: MatchState) -> list[ProtocolRow]:
    """The score sheet a row per round, each correction on its own row where it was made: before its
    round's row if nothing had scored in that round yet, after it if everything had, between two
    parts of it otherwise.

    >>> from scorekeeper.events import Adjust, Dealer, Pass, Declare
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.rules import Rules
    >>> events = [Dealer("Anna"), Adjust("Anna", 3, "forgot"), Declare("Bo", Category.PAIR), Pass("Anna")]
    >>> rows = protocol(replay(("Anna", "Bo"), Rules(), events))
    >>> [(r.number, r.gained, r.totals, r.what and str(r.what)) for r in rows]
    [(1, (3, 0), (3, 0), 'correction (forgot)'), (1, (0, 1), (3, 1), None)]
    """
    seats = len(state.players)
    # Rows in the order things happened: a correction made in the middle of a round splits its row
    # (the round's points before it, the correction, the rest), so every row's totals are the totals
    # there were at that moment, never below 0 (each change was floored at 0 when it was made).
    happened: dict[int, list[ScoreChange]] = {}
    for change in state.changes():
        happened.setdefault(change.round, []).append(change)
    rows: list[ProtocolRow] = []
    running = (0,) * seats

    def add(
        number: int,
        gained: tuple[int, ...],
        finished: bool,
        correction: ScoreChange | None = None,
        more: bool = False,
    ) -> None:
        nonlocal running
        running = tuple(a + b for a, b in zip(running, gained, strict=True))
        tiebreak = correction is None and number in state.tiebreaks
        rows.append(ProtocolRow(number, gained, running, finished, tiebreak, correction, more))

    for number in range(0 if 0 in happened else 1, state.round + 1):
        finished = number < state.round or state.is_finished
        points, scored, shown = [0] * seats, False, number == 0  # round 0: corrections before the deal
        for change in happened.get(number, ()):
            if change.reason is not Reason.ADJUST:
                points[change.seat] += change.delta
                scored = True
                continue
            if scored:
                add(number, tuple(points), finished, more=True)
                points, scored, shown = [0] * seats, False, True
            add(
                number,
                tuple(change.delta if seat == change.seat else 0 for seat in range(seats)),
                finished,
                change,
            )
        if scored or not shown:
            add(number, tuple(points), finished)
    return rows


def played_on(state: MatchState) -> dict[int, tuple[Said, ...]]:
    """House rule ``chicago_to_win``: after each round played to the end, who was at or above the
    target without a won Chicago, and so played on (RULES.md, Variants), in words by round.

    >>> from scorekeeper.events import Adjust, Dealer, LastTrick, Pass
    >>> from scorekeeper.match import replay
    >>> from scorekeeper.rules import Rules
    >>> quiet = [Pass("Bo"), Pass("Anna")]
    >>> round_ = [*quiet, *quiet, LastTrick("Anna"), *quiet]
    >>> rules = Rules(chicago_to_win=True)
    >>> state = replay(("Anna", "Bo"), rules, [Dealer("Anna"), Adjust("Bo", 60, ""), *round_])
    >>> {number: [str(words) for words in said] for number, said in played_on(state).items()}
    {1: ['Bo has 60 points but has not won a Chicago, which is needed to win']}
    """
    if not state.rules.chicago_to_win:
        return {}
    first_won: dict[int, int] = {}  # seat: the round of its first Chicago won (either kind)
    for change in state.changes():
        if change.reason in (Reason.CHICAGO_WON, Reason.BLANCO_WON):
            first_won.setdefault(change.seat, change.round)
    out: dict[int, tuple[Said, ...]] = {}
    for number, totals, _gained, finished in _round_totals(state):
        if not finished or (state.is_finished and number == state.round):
            continue
        words = tuple(
            said_n(MUST_WIN_CHICAGO, "score", player=state.players[seat], score=total)
            for seat, total in enumerate(totals)
            if total >= state.rules.target and first_won.get(seat, number + 1) > number
        )
        if words:
            out[number] = words
    return out


def totals_by_round(state: MatchState, counted: Tally | None = None) -> list[tuple[int, ...]]:
    """Everybody's total at the start (all 0) and after each round played to the end: the chart's points.
    ``counted``: the state's tally, if the caller has it."""
    ends = _ends(state, counted)
    running = ends.get(0, (0,) * len(state.players))  # corrections before the first deal
    chart = [(0,) * len(state.players)]
    for number in range(1, state.round + 1 if state.is_finished else state.round):
        running = ends.get(number, running)
        chart.append(running)
    return chart


def _round_totals(state: MatchState) -> Iterator[tuple[int, tuple[int, ...], tuple[int, ...], bool]]:
    """Each round's number, everybody's totals at its end (or now), the points it gave each seat
    (after the zero floor), and whether it was played to the end; round 0 only if corrections
    came before the first deal (the score sheet's)."""
    ends = _ends(state, None)
    running: tuple[int, ...] = (0,) * len(state.players)
    for number in range(0 if 0 in ends else 1, state.round + 1):
        before, running = running, ends.get(number, running)
        gained = tuple(after - was for after, was in zip(running, before, strict=True))
        yield number, running, gained, number < state.round or state.is_finished


def _ends(state: MatchState, counted: Tally | None) -> dict[int, tuple[int, ...]]:
    """Everybody's totals after each round's last change, by round (rounds with no change left out)."""
    ends: dict[int, tuple[int, ...]] = {}
    for number, totals in (counted or tally(state)).round_ends():
        ends.setdefault(number, totals)  # newest first: the first seen of a round is its end
    return ends


@dataclass(frozen=True, slots=True)
class _RoundEnd:
    """Everybody's totals after the last change so far of one round, and the rounds before (newest first)."""

    number: int
    totals: tuple[int, ...]
    before: _RoundEnd | None


@dataclass(frozen=True, slots=True)
class Tally:
    """What a match's score changes add up to, up to one of them (``last``): each seat's points by
    source (``PlayerFigures.points``), Chicagos won and lost, and everybody's totals at each
    round's end (a persistent list, newest first).

    The write path keeps each match's newest tally and works the next one out from it
    (``tally(state, since)``): a tap adds what it changed, instead of walking the whole match.
    """

    # The newest change counted (None: none), known by identity: each change is made once, for
    # one place in one match's history (scoring.set_total), so a state that holds it holds every
    # change counted before it too.
    last: ScoreChange | None
    points: tuple[tuple[tuple[str, int], ...], ...]  # by seat: (source, points), in order of first score
    chicago_won: tuple[int, ...]
    chicago_lost: tuple[int, ...]
    ends: _RoundEnd | None

    def round_ends(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Each round's number and everybody's totals after its last change, newest first."""
        end = self.ends
        while end is not None:
            yield end.number, end.totals
            end = end.before


def tally(state: MatchState, since: Tally | None = None) -> Tally:
    """What the state's score changes add up to. ``since``: a tally of an earlier state of the
    match; if it counted up to a change the state holds, only the changes after it are added
    (an undo's state, or another branch's, is counted from the start).

    >>> from scorekeeper.events import Dealer, Pass, Declare
    >>> from scorekeeper.match import apply, replay
    >>> from scorekeeper.rules import Rules
    >>> state = replay(("Anna", "Bo"), Rules(), [Dealer("Anna"), Declare("Bo", Category.PAIR), Pass("Anna")])
    >>> state = apply(apply(state, Declare("Bo", Category.TWO_PAIR)), Pass("Anna"))
    >>> tally(state).points, tally(state, tally(state)) == tally(state)
    (((), (('pair', 1), ('two_pair', 2))), True)
    """
    seats = len(state.players)
    added: list[ScoreChange] = []
    node, known = state.history, None if since is None else since.last
    while node is not None and node.change is not known:
        added.append(node.change)
        node = node.before
    start = since if since is not None and (node is not None or known is None) else None
    if start is not None and not added:
        return start
    points = [dict(p) for p in start.points] if start else [{} for _ in range(seats)]
    won = list(start.chicago_won) if start else [0] * seats
    lost = list(start.chicago_lost) if start else [0] * seats
    ends = start.ends if start else None
    totals = list(ends.totals) if ends else [0] * seats
    for change in reversed(added):
        seat, key = change.seat, change.hand.value if change.hand is not None else change.reason.value
        points[seat][key] = points[seat].get(key, 0) + change.delta
        won[seat] += change.reason in (Reason.CHICAGO_WON, Reason.BLANCO_WON)  # a Chicago of either kind
        lost[seat] += change.reason in (Reason.CHICAGO_LOST, Reason.BLANCO_LOST)
        totals[seat] += change.delta
        if ends is not None and ends.number == change.round:
            ends = ends.before
        ends = _RoundEnd(change.round, tuple(totals), ends)
    counted = tuple(tuple(p.items()) for p in points)
    return Tally(state.last_change, counted, tuple(won), tuple(lost), ends)


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


def figures(state: MatchState, counted: Tally | None = None) -> list[PlayerFigures]:
    """Each player's figures in this match (events undone do not count: the state never saw them);
    ``counted``: the state's tally, if the caller has it."""
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
    counted = counted or tally(state)
    for player in out:
        player.points = dict(counted.points[player.seat])
        player.chicago_won = counted.chicago_won[player.seat]
        player.chicago_lost = counted.chicago_lost[player.seat]
    return out
