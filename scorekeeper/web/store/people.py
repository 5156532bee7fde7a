"""People behind names: a name used at a table belongs to one person; renames and merges change aliases only.

So a match keeps the names it was played under, and every statistic follows
the person (stats.py sums over all of a person's names). Every rename and
merge is an entry of the people log, written in the same transaction, with
what it takes to reverse it exactly; an undo is an entry too (TRUST.md P1).
A club has no accounts, so anyone may change people and anyone may undo.

The rule for undo: only the latest change still in effect for each person
it touches can be undone (later changes to them are undone first, newest
first), and an undo is never undone itself. Undone in reverse order, any
sequence of changes leaves every person as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from scorekeeper.matchfile import read_name
from scorekeeper.web.store.db import get_db, immediate, now, row_dict
from scorekeeper.web.store.peoplelog import Kind, later_change
from scorekeeper.words import N_, Said, said


class NameTaken(Exception):
    """A rename to a name that is already someone else's."""

    def __init__(self, name: str, owner: str) -> None:
        self.words = said(
            N_("{owner} already has the name {name}: merge the two instead"), name=name, owner=owner
        )
        super().__init__(str(self.words))
        self.message = str(self)


class NotFound(Exception):
    """No such person (or one merged into someone else), or no such entry of the people log (404)."""


class Refused(Exception):
    """An undo that cannot be done, in words; ``status`` is 422, or 409 when it was done already."""

    def __init__(self, words: Said, status: int = 422) -> None:
        self.words, self.status = words, status
        super().__init__(str(words))


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


def undo_change(entry_id: int, key: str | None = None) -> None:
    """Take back one entry of the people log exactly, and log that; refuse if a later change needs it.

    A ``key`` is the undo button's one-time key: the same key again (a double tap, a retry) is
    answered as the first time, and changes nothing more.
    """
    db = get_db()
    with immediate(db):
        entry = row_dict(db.execute("SELECT * FROM people_log WHERE id = ?", [entry_id]))
        if entry is None:
            raise NotFound(entry_id)
        used = db.execute("SELECT undoes FROM people_log WHERE key = ?", [key]).fetchone() if key else None
        if used is not None:
            if used[0] == entry_id:
                return
            raise Refused(said(N_("This undo button was used for another change: reload the page")))
        if entry["kind"] == Kind.UNDO:
            raise Refused(said(N_("An undo cannot be undone: make the change again instead")))
        if db.execute("SELECT 1 FROM people_log WHERE undoes = ?", [entry_id]).fetchone():
            raise Refused(said(N_("That change was undone already")), 409)
        later = later_change(db, entry)
        if later is not None:
            raise Refused(
                said(
                    N_("Only the latest change to {name} can be undone: undo the later ones first"),
                    name=later,
                )
            )
        _write(db, Change.from_row(entry), undoes=entry_id, key=key)


def _write(db: Database, change: Change, undoes: int | None = None, key: str | None = None) -> None:
    """Apply ``change`` (or take it back, when it ``undoes`` an entry) and log it: the one way people change.

    Inside the caller's transaction, after every check: a refusal has written nothing.
    """
    (_take_back if undoes is not None else _apply)(db, change)
    db.execute(
        "INSERT INTO people_log (at, kind, person_id, person_name, new_name, other_id, other_name,"
        " aliases, undoes, key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            now(),
            Kind.UNDO if undoes is not None else change.kind,
            change.person,
            change.person_name,
            change.new_name,
            change.other,
            change.other_name,
            json.dumps(change.aliases, ensure_ascii=False),
            undoes,
            key,
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


def _take_back(db: Database, change: Change) -> None:
    if change.kind is Kind.RENAME:
        db.execute("UPDATE people SET name = ? WHERE id = ?", [change.person_name, change.person])
        for name in change.aliases:
            # A match played under the new name since keeps it: its figures stay this person's.
            db.execute(
                "DELETE FROM aliases WHERE name = ? AND person_id = ?"
                " AND NOT EXISTS (SELECT 1 FROM players WHERE name = ?)"
                " AND NOT EXISTS (SELECT 1 FROM match_players WHERE name = ?)",
                [name, change.person, name, name],
            )
    else:
        for name in change.aliases:
            db.execute(
                "UPDATE aliases SET person_id = ? WHERE name = ? AND person_id = ?",
                [change.other, name, change.person],
            )
        db.execute("UPDATE people SET merged_into = NULL WHERE id = ?", [change.other])
