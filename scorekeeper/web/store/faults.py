"""Why the database cannot take a write now, in words a person can act on (TRUST.md R6).

A full disk, a read-only file or folder, a database that cannot be opened or
a failing disk is a fault of the storage, not of the request: the write is
refused with the read-only page (503) and its reason, nothing that was
recorded is touched, and the next write simply tries again, so writes come
back by themselves once the cause is gone. SQLite's result code says which
class of failure it was; the file system, asked at that moment, says more
(a write that fails on a full or read-only disk may only report "disk I/O
error").
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from enum import StrEnum

from scorekeeper.words import N_

# Less room than this on the database's disk, and a failed write is taken for a full disk.
NEARLY_FULL = 1024 * 1024
STORAGE_CODES = {
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_PERM,
}


class Fault(StrEnum):
    """A storage fault: its code (the value), the page's message, and the reason for the log and the CLI."""

    message: str
    reason: str

    def __new__(cls, code: str, message: str, reason: str) -> Fault:
        member = str.__new__(cls, code)
        member._value_ = code
        member.message = message
        member.reason = reason
        return member

    FULL = (
        "full",
        N_(
            "Scores cannot be saved because the disk is full. Free space on the server, then tap again."
            " Everything recorded before is kept."
        ),
        "the disk is full: free space on the server",
    )
    READ_ONLY = (
        "read_only",
        N_(
            "Scores cannot be saved because the database file or its folder is read-only. Let the server"
            " write to them, then tap again. Everything recorded before is kept."
        ),
        "the database file or its folder is read-only: let the server write to them",
    )
    CANNOT_OPEN = (
        "cannot_open",
        N_(
            "Scores cannot be saved because the database cannot be opened. Check that its disk is attached"
            " and its folder is there, then try again. Everything recorded before is kept."
        ),
        "the database cannot be opened: check that its disk is attached and its folder is there",
    )
    DISK_ERROR = (
        "disk_error",
        N_(
            "Scores cannot be saved because the disk reported an error. Check the server's disk, then tap"
            " again. Everything recorded before is kept."
        ),
        "the disk reported an error: check the server's disk",
    )


def fault_of(error: BaseException, path: str) -> Fault | None:
    """The storage fault behind a database error on ``path``, or None if the error is not one."""
    if not isinstance(error, sqlite3.Error):
        return None
    extended = getattr(error, "sqlite_errorcode", 0)
    code = extended & 0xFF
    if code not in STORAGE_CODES:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) or extended == sqlite3.SQLITE_READONLY_DBMOVED:  # moved or deleted
        return Fault.CANNOT_OPEN
    if code == sqlite3.SQLITE_FULL or shutil.disk_usage(folder).free < NEARLY_FULL:
        return Fault.FULL
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM) or _read_only(folder, path):
        return Fault.READ_ONLY
    if code == sqlite3.SQLITE_CANTOPEN:
        return Fault.CANNOT_OPEN
    return Fault.DISK_ERROR


def _read_only(folder: str, path: str) -> bool:
    """True if the folder, or the file in it, may not be written (a read-only mount, mode or attribute)."""
    return not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK))
