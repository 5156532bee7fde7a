"""People behind names: a name used at a table belongs to one person; renames and merges change aliases only.

So a match keeps the names it was played under, and every statistic follows
the person (stats.py sums over all of a person's names).
"""

from __future__ import annotations

from sqlite_utils import Database

from scorekeeper.matchfile import read_name
from scorekeeper.web.db import get_db, immediate
from scorekeeper.words import N_, said


class NameTaken(Exception):
    """A rename to a name that is already someone else's."""

    def __init__(self, name: str, owner: str) -> None:
        self.words = said(
            N_("{name} is already {owner}'s name: merge the two instead"), name=name, owner=owner
        )
        super().__init__(str(self.words))
        self.message = str(self)


def person_of(db: Database, name: str) -> int | None:
    """The person a name belongs to."""
    found = db.execute("SELECT person_id FROM aliases WHERE name = ?", [name]).fetchone()
    return None if found is None else int(found[0])


def note_players(db: Database, players: tuple[str, ...], stamp: str) -> None:
    """Remember the names of a new match; a new name is a new person (inside the caller's transaction)."""
    for name in players:
        db.execute(
            "INSERT INTO players (name, last_played) VALUES (?, ?)"
            " ON CONFLICT (name) DO UPDATE SET last_played = excluded.last_played",
            [name, stamp],
        )
        if person_of(db, name) is None:
            person = db.execute("INSERT INTO people (name) VALUES (?)", [name]).lastrowid
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, person])


def known_players() -> list[str]:
    """Names used before, most recent first, to suggest when starting a match."""
    rows = get_db().table("players").rows_where(order_by="last_played desc", limit=50)
    return [row["name"] for row in rows]


def rename_person(person_id: int, new_name: str) -> None:
    """Give a person a new name; their earlier names stay theirs, so no history is lost."""
    name = read_name(new_name)
    db = get_db()
    with immediate(db):
        owner = person_of(db, name)
        if owner is not None and owner != person_id:
            (owner_name,) = db.execute("SELECT name FROM people WHERE id = ?", [owner]).fetchone()
            raise NameTaken(name, owner_name)
        if owner is None:
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, person_id])
        db.execute("UPDATE people SET name = ? WHERE id = ?", [name, person_id])


def merge_people(keep_id: int, other_id: int) -> None:
    """Make two people one: every name of ``other_id`` becomes a name of ``keep_id``."""
    if keep_id == other_id:
        return
    db = get_db()
    with immediate(db):
        db.execute("UPDATE aliases SET person_id = ? WHERE person_id = ?", [keep_id, other_id])
        db.execute("DELETE FROM people WHERE id = ?", [other_id])
