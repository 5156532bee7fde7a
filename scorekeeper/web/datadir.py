"""Where the matches and the secret key live by default: the platform's user data folder.

They used to live in Flask's instance folder, which for an installed app is inside the virtual
environment (``.venv/var/scorekeeper.web-instance/``): deleting the environment deleted every
match and the key. The default is now ``platformdirs``' user data folder
(``~/.local/share/chicago-scorekeeper`` on Linux, or under ``$XDG_DATA_HOME``; the user's
Application Support or AppData folder elsewhere).

A database or key found at the old place is kept, never split from its key and never left beside a
new empty database (TRUST.md S12): an old folder inside the Python environment is moved to the new
place whole, in one ``rename`` (the database, its journal files and its key together), when the
new place holds neither; where it cannot be moved (another disk, a new place already holding a
key), and where it is not inside the environment (a source checkout's ``instance/``, which
deleting the venv leaves alone), the app keeps using the old folder and ``serve`` says so.
``--db`` and ``SCOREKEEPER_DATABASE`` name the database outright; the key then still comes from
this folder, as it came from the instance folder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from flask import Flask

APP_NAME = "chicago-scorekeeper"
DATABASE = "scorekeeper.sqlite"
KEY = "secret_key"


def user_folder() -> Path:
    """The platform's user data folder for the app (it may not exist yet)."""
    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def old_folder(app: Flask) -> Path:
    """Where the data used to live: Flask's own instance folder (inside the venv for an install)."""
    return Path(app.auto_find_instance_path())


@dataclass(frozen=True)
class DataFolder:
    """The folder in use, and the line ``serve`` prints about it when it moved or stayed behind."""

    path: Path
    said: str | None = None


def _holds(folder: Path, name: str) -> bool:
    return (folder / name).exists()


def in_environment(folder: Path) -> bool:
    """Whether ``folder`` is inside this Python environment (a venv), which deleting it deletes."""
    return Path(sys.prefix).resolve() in folder.resolve().parents


def _choose(old: Path, new: Path, movable: bool) -> tuple[Path, bool]:
    """Where the data is to live, and whether the old folder must move there first (no side effects)."""
    if old == new or _holds(new, DATABASE) or not (_holds(old, DATABASE) or _holds(old, KEY)):
        return new, False
    if not movable:
        return old, False
    if not _holds(new, KEY):
        return new, True  # the old folder moves whole
    # The new place holds a key of its own but no database: the old database stays with its key.
    return (old, False) if _holds(old, DATABASE) else (new, False)


def settle(old: Path, new: Path, movable: bool) -> DataFolder:
    """Decide the data folder, moving the old one to the new place when it can.

    Only an old folder inside the Python environment (``movable``) is moved: one elsewhere (a
    source checkout's ``instance/``) is safe where it is, and is used there. Two processes may
    start at once over an old folder: one moves it, and the other finds it moved when it looks
    again.
    """
    for _ in range(2):
        where, move = _choose(old, new, movable)
        if not move:
            break
        try:
            new.parent.mkdir(parents=True, exist_ok=True)
            os.rename(old, new)  # one step: the database, its journal files and its key together
        except OSError as error:
            if not old.exists():
                continue  # another process moved it: look again
            return DataFolder(
                old,
                f"The matches stay in {old} (inside the Python environment: deleting it deletes them):"
                f" they could not be moved to {new} ({error.strerror}). Stop the server and move the"
                f" folder there yourself.",
            )
        return DataFolder(new, f"Moved the matches and the secret key from {old} to {new}.")
    if where == old and not movable:
        return DataFolder(
            old, f"The matches and their secret key stay in {old}, where an older version kept them."
        )
    if where == old:
        return DataFolder(
            old,
            f"The matches stay in {old} with their secret key (inside the Python environment: deleting it"
            f" deletes them), because {new} already holds another key. To keep them safe, stop the server"
            f" and move {old / DATABASE} and {old / KEY} into {new} in place of its key.",
        )
    if old != new and _holds(old, DATABASE):
        return DataFolder(
            new, f"{old / DATABASE} is an older database this server does not use (--db opens it)."
        )
    return DataFolder(new)
