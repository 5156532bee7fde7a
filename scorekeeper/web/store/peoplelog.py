"""The people log, read: every rename and merge, each undone or undoable, in words (TRUST.md P1)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlite_utils import Database

from scorekeeper.web.store.db import get_db
from scorekeeper.words import N_, said


class Kind(StrEnum):
    """What a people-log entry did."""

    RENAME = "rename"
    MERGE = "merge"
    UNDO = "undo"


def later_change(db: Database, entry: dict[str, Any]) -> str | None:
    """The name of a person whom a later change still in effect touches too, or None."""
    touched = [p for p in (entry["person_id"], entry["other_id"]) if p is not None]
    marks = ", ".join("?" * len(touched))
    found = db.execute(
        "SELECT p.name FROM people_log l JOIN people p"
        f" ON p.id IN (l.person_id, l.other_id) AND p.id IN ({marks})"
        " WHERE l.id > ? AND l.kind != 'undo'"
        " AND NOT EXISTS (SELECT 1 FROM people_log u WHERE u.undoes = l.id)"
        " ORDER BY l.id LIMIT 1",
        [*touched, entry["id"]],
    ).fetchone()
    return None if found is None else str(found[0])


SAID = {
    (Kind.RENAME, None): N_("{old} was renamed {new}"),
    (Kind.MERGE, None): N_("{other} was merged into {person}"),
    (Kind.UNDO, Kind.RENAME): N_("The rename of {old} to {new} was undone"),
    (Kind.UNDO, Kind.MERGE): N_("The merge of {other} into {person} was undone"),
}


def log(limit: int = 50) -> list[dict[str, Any]]:
    """The latest entries of the people log, newest first: when, what (in words), undone, undoable."""
    db = get_db()
    cursor = db.execute(
        "SELECT l.id, l.at, l.kind, l.person_id, l.person_name, l.new_name, l.other_id, l.other_name,"
        " u.kind AS undid, EXISTS (SELECT 1 FROM people_log x WHERE x.undoes = l.id) AS undone"
        " FROM people_log l LEFT JOIN people_log u ON u.id = l.undoes ORDER BY l.id DESC LIMIT ?",
        [limit],
    )
    columns = [d[0] for d in cursor.description]
    entries = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    for entry in entries:
        undid = None if entry["undid"] is None else Kind(entry["undid"])
        entry["words"] = said(
            SAID[Kind(entry["kind"]), undid],
            old=entry["person_name"],
            new=entry["new_name"],
            person=entry["person_name"],
            other=entry["other_name"],
        )
        entry["undoable"] = (
            entry["kind"] != Kind.UNDO and not entry["undone"] and later_change(db, entry) is None
        )
    return entries
