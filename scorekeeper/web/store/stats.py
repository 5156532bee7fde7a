"""Reading the history: the match list, people, and a person's statistics.

Everything here is SQL over the figures kept per match and player
(``match_players``), so a page costs the same with 10 or 10,000 matches
stored. A person is every name aliased to them: renames and merges change
aliases only, never a match's own record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from scorekeeper.hands import Category
from scorekeeper.web.store.db import get_db
from scorekeeper.web.store.figures import POINT_SOURCES

PAGE = 25
# The players page, and the choice of a player on the match list: however many people there are,
# a page lists this many (issue 24: a client looping new matches made 15,295 people, and pages
# of 1 to 2 MB).
PEOPLE_PAGE = 100
CHOICES = 50


def _dicts(cursor: Any) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def list_matches(person: int | None = None, page: int = 1) -> tuple[list[dict[str, Any]], bool]:
    """A page of matches, newest first (optionally one person's); and whether more follow."""
    where, params = "", []
    if person is not None:
        where = (
            "WHERE id IN (SELECT mp.match_id FROM match_players mp"
            " JOIN aliases a ON a.name = mp.name WHERE a.person_id = ?)"
        )
        params.append(person)
    sql = (
        "SELECT id, players, rules, status, winner, round, updated_at, created_at, chart FROM matches"
        f" {where} ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?"  # ties (the same ms) in one order
    )
    rows = _dicts(get_db().execute(sql, [*params, PAGE + 1, (page - 1) * PAGE]))
    for row in rows:
        row["players"] = json.loads(row["players"])
        row["chart"] = json.loads(row["chart"] or "[]")
        row["target"] = json.loads(row["rules"]).get("target", 52)
    return rows[:PAGE], len(rows) > PAGE


def names() -> list[dict[str, Any]]:
    """Everybody's id and current name, for choosing one (no figures added up)."""
    return _dicts(
        get_db().execute("SELECT id, name FROM people WHERE merged_into IS NULL ORDER BY name COLLATE NOCASE")
    )


def recent_people(chosen: int | None = None) -> list[dict[str, Any]]:
    """The people of the latest names played (``CHOICES`` names at most), and the chosen one, by name:
    whom the match list offers to choose (everybody else is on the players page)."""
    sql = """
        SELECT id, name FROM people WHERE merged_into IS NULL AND (id = ? OR id IN (
            SELECT a.person_id FROM players pl JOIN aliases a ON a.name = pl.name
            ORDER BY pl.last_played DESC, pl.rowid DESC LIMIT ?))
        ORDER BY name COLLATE NOCASE, id
    """
    return _dicts(get_db().execute(sql, [chosen, CHOICES]))


def people(first: int = 0, count: int = -1) -> list[dict[str, Any]]:
    """Everybody who has played, by name (``count`` of them from the ``first``; -1: all), with
    matches played and won."""
    sql = """
        SELECT p.id, p.name, COUNT(mp.match_id) AS played, COALESCE(SUM(mp.won), 0) AS won
        FROM (
            SELECT id, name FROM people WHERE merged_into IS NULL
            ORDER BY name COLLATE NOCASE, id LIMIT ? OFFSET ?
        ) p
        LEFT JOIN aliases a ON a.person_id = p.id
        LEFT JOIN match_players mp ON mp.name = a.name
        GROUP BY p.id ORDER BY p.name COLLATE NOCASE, p.id
    """
    return _dicts(get_db().execute(sql, [count, first]))


@dataclass
class PersonStats:
    """A person's statistics over every match played under any of their names."""

    id: int
    name: str
    aliases: list[str]
    played: int = 0
    finished: int = 0
    won: int = 0
    points: int = 0
    rounds: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    chicago_won: int = 0
    chicago_lost: int = 0
    best_hand: Category | None = None
    head_to_head: list[dict[str, Any]] = field(default_factory=list)

    @property
    def win_rate(self) -> float | None:
        return self.won / self.finished if self.finished else None

    @property
    def points_per_round(self) -> float | None:
        return self.points / self.rounds if self.rounds else None

    @property
    def chicago_rate(self) -> float | None:
        calls = self.chicago_won + self.chicago_lost
        return self.chicago_won / calls if calls else None


def person(person_id: int) -> PersonStats | None:
    """One person's statistics (None if there is no such person, or they were merged into another)."""
    db = get_db()
    found = db.execute(
        "SELECT id, name FROM people WHERE id = ? AND merged_into IS NULL", [person_id]
    ).fetchone()
    if found is None:
        return None
    aliases = [
        n for (n,) in db.execute("SELECT name FROM aliases WHERE person_id = ? ORDER BY name", [person_id])
    ]
    stats = PersonStats(found[0], found[1], aliases)
    sums = ", ".join(f"COALESCE(SUM(p_{s}), 0)" for s in POINT_SOURCES)
    row = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(finished), 0), COALESCE(SUM(won), 0), COALESCE(SUM(score), 0),"
        " COALESCE(SUM(rounds), 0), COALESCE(SUM(chicago_won), 0), COALESCE(SUM(chicago_lost), 0),"
        f" COALESCE(MAX(best_hand), -1), {sums}"
        " FROM match_players WHERE name IN (SELECT name FROM aliases WHERE person_id = ?)",
        [person_id],
    ).fetchone()
    stats.played, stats.finished, stats.won, stats.points, stats.rounds = row[:5]
    stats.chicago_won, stats.chicago_lost = row[5], row[6]
    stats.best_hand = None if row[7] < 0 else list(Category)[row[7]]
    stats.by_source = {s: v for s, v in zip(POINT_SOURCES, row[8:], strict=True) if v}
    stats.head_to_head = _head_to_head(db, person_id)
    return stats


def _head_to_head(db: Database, person_id: int) -> list[dict[str, Any]]:
    """Finished matches against each opponent: how many, won, and lost to them."""
    sql = """
        SELECT op.id AS id, op.name AS name, COUNT(*) AS together,
               SUM(me.won) AS won, SUM(them.won) AS lost
        FROM match_players me
        JOIN aliases mine ON mine.name = me.name AND mine.person_id = ?
        JOIN match_players them ON them.match_id = me.match_id AND them.seat != me.seat
        JOIN aliases theirs ON theirs.name = them.name
        JOIN people op ON op.id = theirs.person_id
        WHERE me.finished = 1 AND op.id != ?
        GROUP BY op.id ORDER BY together DESC, op.name
    """
    return _dicts(db.execute(sql, [person_id, person_id]))


def person_id_of(name: str) -> int | None:
    """The person a name belongs to."""
    found = get_db().execute("SELECT person_id FROM aliases WHERE name = ?", [name]).fetchone()
    return None if found is None else int(found[0])
