"""``scorekeeper export``, ``import`` and ``backup``: the database from the command line.

Exit codes follow ``scorekeeper check``: 0 done, 1 an event breaks a rule,
2 not a ``chicago-match/1`` document (or no such match or file).
"""

from __future__ import annotations

import os
import sqlite3
import sys

from flask import Flask

from scorekeeper.matchfile import FormatError, dumps, loads
from scorekeeper.refusals import RuleBroken
from scorekeeper.web import create_app, storage


def _app(db: str | None) -> Flask:
    if db:
        os.environ["SCOREKEEPER_DATABASE"] = os.path.abspath(db)
    return create_app()


def export_match(match_id: str, db: str | None) -> int:
    """Print a stored match as a ``chicago-match/1`` file."""
    with _app(db).app_context():
        match = storage.load_match(match_id)
        if match is None:
            print(f"no match {match_id!r} in this database", file=sys.stderr)
            return 2
        sys.stdout.write(dumps(match.file, id=match.id, created_at=match.created_at))
    return 0


def import_match(path: str, db: str | None) -> int:
    """Store a match file as a new match, after replaying it; a refused file stores nothing."""
    try:
        with open(path, "rb") as file:
            match = loads(file.read())
    except OSError as error:
        print(f"{path}: {error.strerror}", file=sys.stderr)
        return 2
    except FormatError as error:
        print(f"not a chicago-match/1 document: {error}", file=sys.stderr)
        return 2
    with _app(db).app_context():
        try:
            match_id, _ = storage.import_match(match)
        except RuleBroken as error:
            print(error, file=sys.stderr)
            return 1
    print(match_id)
    return 0


def backup(target: str, db: str | None) -> int:
    """Copy the whole database with SQLite's online backup (safe while the app is serving)."""
    app = _app(db)
    source = sqlite3.connect(app.config["DATABASE"])
    destination = sqlite3.connect(target)
    try:
        with destination:
            source.backup(destination)
    finally:
        destination.close()
        source.close()
    print(f"backed up {app.config['DATABASE']} to {target}")
    return 0
