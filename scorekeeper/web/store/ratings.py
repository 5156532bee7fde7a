"""Ratings: openskill's Plackett–Luce model over the finished matches, in the order they finished.

A rating is never stored: it is worked out from the finished matches each
time it is read (the figures kept per match and player, ``match_players``,
and the people behind their names, ``aliases``), so an undo, a re-open, a
rename or a merge of people can never leave it out of step. The work is kept
in the app's cache under a digest of exactly the rows it read: the same rows
give the same ratings, and any change to them is a new key.

A match's order is its final totals: the highest total ranks first, and
equal totals share a rank. A rating is shown as openskill's ordinal
(mu − 3 sigma: 0 for a newcomer, rising as their skill is known better).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from openskill.models import PlackettLuce

from scorekeeper.web.cache import cache
from scorekeeper.web.store.db import get_db

# Everybody's result in each finished match between two times, the match's seats best first.
RESULTS = """
    SELECT m.id, m.updated_at, a.person_id, p.name, mp.score, mp.won, mp.rounds,
           mp.chicago_won, mp.chicago_lost
    FROM matches m
    JOIN match_players mp ON mp.match_id = m.id
    JOIN aliases a ON a.name = mp.name
    JOIN people p ON p.id = a.person_id
    WHERE m.status = 'finished' AND m.updated_at >= ? AND m.updated_at < ?
    ORDER BY m.updated_at, m.rowid, mp.score DESC, mp.seat
"""
ROW_BYTES = 200  # what a result row costs kept, roughly, with its share of the ratings


@dataclass(frozen=True)
class Seat:
    """One person's result in a finished match."""

    person: int
    name: str
    score: int
    won: int
    rounds: int
    chicago_won: int
    chicago_lost: int


@dataclass(frozen=True)
class Finished:
    """A finished match: when it finished and its seats, best total first."""

    match_id: str
    at: str
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Change:
    """What one finished match did to one person's rating."""

    person: int
    name: str
    rank: int
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def shown_delta(self) -> Decimal:
        """The change as a page shows it: the difference of the two ratings rounded as shown (one
        decimal, half to even on the float's shortest spelling, as babel rounds), so that the three
        figures on the page add up ("3.4 → 6.2 (+2.8)", not "+2.7")."""
        return _tenths(self.after) - _tenths(self.before)


def _tenths(value: float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.1"), ROUND_HALF_EVEN)


@dataclass
class Standing:
    """A person's rating and figures over the matches rated, with the rating after each of them."""

    person: int
    name: str
    rating: float = 0.0
    change: Decimal = Decimal(0)  # the last match's, as its history shows it (Change.shown_delta)
    played: int = 0
    won: int = 0
    points: int = 0
    rounds: int = 0
    chicago_won: int = 0
    chicago_lost: int = 0
    path: list[float] = field(default_factory=list)  # the rating after each match rated (0: before any)

    @property
    def points_per_round(self) -> float | None:
        return self.points / self.rounds if self.rounds else None


@dataclass(frozen=True)
class Ratings:
    """Everybody's standing after the matches rated, and what each match did."""

    matches: int
    standings: dict[int, Standing]
    changes: dict[str, tuple[Change, ...]]


def ranks(scores: Sequence[int]) -> list[int]:
    """Each total's rank: 1 for the highest; equal totals share a rank (openskill: lower is better).

    >>> ranks([60, 62, 60, 8])
    [2, 1, 2, 4]
    """
    return [1 + sum(other > score for other in scores) for score in scores]


def rate(matches: Sequence[Finished]) -> Ratings:
    """Rate the matches in the order given, everybody starting afresh before the first."""
    model = PlackettLuce()
    skill: dict[int, Any] = {}
    standings: dict[int, Standing] = {}
    changes: dict[str, tuple[Change, ...]] = {}
    for number, match in enumerate(matches, start=1):
        seats = match.seats
        order = ranks([s.score for s in seats])
        before = [skill.get(s.person) or model.rating() for s in seats]
        after = model.rate([[r] for r in before], ranks=[float(rank) for rank in order])
        made = []
        for seat, old, (new,), rank in zip(seats, before, after, order, strict=True):
            skill[seat.person] = new
            made.append(Change(seat.person, seat.name, rank, old.ordinal(), new.ordinal()))
            _count(
                standings.setdefault(seat.person, Standing(seat.person, seat.name)), seat, made[-1], number
            )
        changes[match.match_id] = tuple(made)
    for standing in standings.values():
        standing.path.extend([standing.rating] * (len(matches) + 1 - len(standing.path)))
    return Ratings(len(matches), standings, changes)


def _count(standing: Standing, seat: Seat, change: Change, number: int) -> None:
    """Add one match (the ``number``-th rated) to a person's standing."""
    standing.path.extend([standing.rating] * (number - len(standing.path)))
    standing.rating, standing.change = change.after, change.shown_delta
    standing.path.append(change.after)
    standing.played += 1
    standing.won += seat.won
    standing.points += seat.score
    standing.rounds += seat.rounds
    standing.chicago_won += seat.chicago_won
    standing.chicago_lost += seat.chicago_lost


def finished_between(since: str = "", until: str = "\uffff") -> list[Finished]:
    """The matches that finished at ``since`` or later and before ``until`` (ISO times), in that order.

    A person seated twice in one match (two of their names, merged since) counts once, at the
    better of the two places.
    """
    rows = get_db().execute(RESULTS, [since, until]).fetchall()
    matches: list[Finished] = []
    for match_id, at, person, name, *figures in rows:
        if not matches or matches[-1].match_id != match_id:
            matches.append(Finished(match_id, at, ()))
        if all(s.person != person for s in matches[-1].seats):
            seats = (*matches[-1].seats, Seat(person, name, *figures))
            matches[-1] = Finished(match_id, at, seats)
    return [m for m in matches if len(m.seats) > 1]


def ratings_between(since: str = "", until: str = "\uffff") -> Ratings:
    """The ratings of the matches that finished between two times (all time by default), kept in the
    cache under a digest of the results read."""
    matches = finished_between(since, until)
    digest = hashlib.sha256(repr(matches).encode()).hexdigest()
    return cache().kept(
        "ratings", digest, lambda: rate(matches), lambda _: ROW_BYTES * 4 * (len(matches) + 1)
    )


def changes_of(match_id: str) -> tuple[Change, ...]:
    """What a finished match did to its players' ratings, all time (nothing while it is not finished)."""
    return ratings_between().changes.get(match_id, ())


def people_named(ids: Sequence[int]) -> dict[int, str]:
    """The current name of each of these people who is there and not merged into someone else."""
    marks = ", ".join("?" * len(ids))
    sql = f"SELECT id, name FROM people WHERE merged_into IS NULL AND id IN ({marks})"
    return dict(get_db().execute(sql, list(ids)).fetchall()) if ids else {}
