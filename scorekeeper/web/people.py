"""People behind names: a name used at a table belongs to one person; renames and merges change aliases only.

So a match keeps the names it was played under, and every statistic follows
the person (stats.py sums over all of a person's names). Every rename and
merge is an entry of the people log, written in the same transaction, with
what it takes to reverse it exactly (TRUST.md P1). A club has no accounts,
so anyone may change people.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from scorekeeper.matchfile import read_name
from scorekeeper.web.db import get_db, immediate, now
from scorekeeper.words import N_, said


class Kind(StrEnum):
    """What a people-log entry did."""

    RENAME = "rename"
    MERGE = "merge"


class NameTaken(Exception):
    """A rename to a name that is already someone else's."""

    def __init__(self, name: str, owner: str) -> None:
        self.words = said(
            N_("{name} is already {owner}'s name: merge the two instead"), name=name, owner=owner
        )
        super().__init__(str(self.words))
        self.message = str(self)


class NotFound(Exception):
    """No such person, or one merged into someone else (404)."""


@dataclass(frozen=True)
class Change:
    """A rename or a merge as the log keeps it: enough to apply it, say it and take it back exactly.

    A rename: ``person`` was called ``person_name`` and is now ``new_name``; ``aliases`` holds the
    new name if it was not theirs before. A merge: ``other`` (called ``other_name``) became part of
    ``person`` (called ``person_name``); ``aliases`` holds every name it moved.
    """

    kind: Kind
    person: int
    person_name: str
    aliases: tuple[str, ...]
    new_name: str | None = None
    other: int | None = None
    other_name: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Change:
        return cls(
            Kind(row["kind"]),
            row["person_id"],
            row["person_name"],
            tuple(json.loads(row["aliases"])),
            row["new_name"],
            row["other_id"],
            row["other_name"],
        )


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


def _name_of(db: Database, person_id: int) -> str:
    """A person's name, if they are there and not merged into someone else."""
    found = db.execute("SELECT name FROM people WHERE id = ? AND merged_into IS NULL", [person_id]).fetchone()
    if found is None:
        raise NotFound(person_id)
    return str(found[0])


def rename_person(person_id: int, new_name: str) -> None:
    """Give a person a new name; their earlier names stay theirs, so no history is lost."""
    name = read_name(new_name)
    db = get_db()
    with immediate(db):
        old = _name_of(db, person_id)
        owner = person_of(db, name)
        if owner is not None and owner != person_id:
            raise NameTaken(name, _name_of(db, owner))
        if name != old:  # the same name again changes nothing, and logs nothing
            added = (name,) if owner is None else ()
            _write(db, Change(Kind.RENAME, person_id, old, added, new_name=name))


def merge_people(keep_id: int, other_id: int) -> None:
    """Make two people one: every name of ``other_id`` becomes a name of ``keep_id``.

    A second tap finds ``other_id`` merged into ``keep_id`` already and changes nothing.
    """
    if keep_id == other_id:
        return
    db = get_db()
    with immediate(db):
        merged = db.execute("SELECT merged_into FROM people WHERE id = ?", [other_id]).fetchone()
        if merged is not None and merged[0] == keep_id:
            return
        keep, other = _name_of(db, keep_id), _name_of(db, other_id)
        moved = db.execute("SELECT name FROM aliases WHERE person_id = ? ORDER BY name", [other_id])
        names = tuple(n for (n,) in moved)
        _write(db, Change(Kind.MERGE, keep_id, keep, names, other=other_id, other_name=other))


def _write(db: Database, change: Change) -> None:
    """Apply ``change`` and log it: the one way people change.

    Inside the caller's transaction, after every check: a refusal has written nothing.
    """
    _apply(db, change)
    db.execute(
        "INSERT INTO people_log (at, kind, person_id, person_name, new_name, other_id, other_name,"
        " aliases) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            now(),
            change.kind,
            change.person,
            change.person_name,
            change.new_name,
            change.other,
            change.other_name,
            json.dumps(change.aliases, ensure_ascii=False),
        ],
    )


def _apply(db: Database, change: Change) -> None:
    if change.kind is Kind.RENAME:
        for name in change.aliases:
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, change.person])
        db.execute("UPDATE people SET name = ? WHERE id = ?", [change.new_name, change.person])
    else:
        db.execute("UPDATE aliases SET person_id = ? WHERE person_id = ?", [change.person, change.other])
        db.execute("UPDATE people SET merged_into = ? WHERE id = ?", [change.person, change.other])
