"""The live view pushed: each process tells its spectators' streams when their match changes.

A spectator's page opens one server-sent-events stream (``matches.watch_stream``)
and gets the board itself whenever the match changes, and at once if the page
is behind when the stream opens (a reconnect catches up); otherwise, and every
``HEARTBEAT`` seconds, the match's version (so that a stream whose phone has
gone is noticed, and the page knows the stream is alive). The board is the one a poll gets, rendered
once per version and language for all the match's spectators
(``watching.watch_stream``): a change costs a stream a look in the cache and a
write to its socket, not a request through Flask.

Streams never write. The first stream of a process to need a version's board reads and
renders it in a request context made from its request's environ; the others take the event
from the cache. One watcher thread per process (started with the first stream, ended with the
last) asks SQLite every ``EVERY`` seconds whether anybody committed
(``PRAGMA data_version``, which changes when another connection commits, in
this process or any other: no signal has to cross from the worker that
wrote); only then does it read which matches had events written since its
last look (by the events' rowids), and the versions of those it watches, and
wake their streams (one ``threading.Event`` per match, replaced once set). It
keeps its own connection.

A stream holds a server thread for as long as it is open (server.py gives the
streams threads of their own): ``limit`` caps the streams of the process, and
``PER_MATCH`` those of one match; a stream beyond either is answered 204, which
tells the browser not to reconnect, and that page keeps polling.
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator

from flask import Flask, current_app

from scorekeeper.web.settings import HEARTBEAT, JITTER, PER_MATCH, RETRY_MS
from scorekeeper.web.store import db
from scorekeeper.web.store.changes import data_version, newest_event, versions_of, written

EVERY = 0.1  # seconds between the watcher's looks at data_version


class Versions:
    """Which matches this process's streams watch, their versions, and one Event per match to wait on.

    ``streams`` and ``refused`` are counters a test can read.
    """

    def __init__(self, database: str, limit: int, logger: logging.Logger) -> None:
        self.database, self.limit, self.logger = database, limit, logger
        self.streams = self.refused = 0
        self._pid = -1  # the lock and thread belong to one process: a forked worker makes its own

    def _own(self) -> None:
        if self._pid != os.getpid():
            self._pid, self._lock = os.getpid(), threading.Lock()
            self._thread: threading.Thread | None = None
            self._recheck = False
            self._watched: dict[str, int] = {}  # match id -> streams watching it
            self._versions: dict[str, int] = {}
            self._changed: dict[str, threading.Event] = {}

    def join(self, match_id: str, version: int) -> bool:
        """Count a new stream of ``match_id`` (at ``version``); False if the process holds its limit."""
        self._own()
        with self._lock:
            if self.streams >= self.limit or self._watched.get(match_id, 0) >= PER_MATCH:
                self.refused += 1
                return False
            self.streams += 1
            self._watched[match_id] = self._watched.get(match_id, 0) + 1
            self._versions.setdefault(match_id, version)
            self._changed.setdefault(match_id, threading.Event())
            self._recheck = True  # its version was read before it was watched: read it again
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="live-versions", daemon=True)
                self._thread.start()
        return True

    def leave(self, match_id: str) -> None:
        with self._lock:
            self.streams -= 1
            self._watched[match_id] -= 1
            if not self._watched[match_id]:
                del self._watched[match_id], self._versions[match_id], self._changed[match_id]

    def now(self, match_id: str) -> tuple[int, threading.Event]:
        """The match's version, and the Event that is set when it changes after that."""
        with self._lock:
            return self._versions[match_id], self._changed[match_id]

    def _watch(self) -> None:
        """Look at data_version every EVERY seconds while any stream is open; wake the changed matches."""
        conn = None
        last = mark = None
        try:
            while True:
                with self._lock:
                    if not self._watched:
                        self._thread = None
                        return
                    recheck, self._recheck = self._recheck, False
                try:
                    conn = conn or db.connect(self.database).conn
                    seen = data_version(conn)
                    if seen != last or recheck:
                        last = seen
                        with self._lock:
                            watched = set(self._watched)
                        top = newest_event(conn)  # read first: what commits after it is seen next time
                        if recheck or mark is None:
                            self._wake(versions_of(conn, list(watched)))
                        else:
                            self._wake(
                                versions_of(conn, [m for m in written(conn, mark, top) if m in watched])
                            )
                        mark = top
                except sqlite3.Error as error:  # a storage fault: streams wait, the pages still poll
                    if conn is not None:
                        conn.close()
                    conn, last, mark = None, None, None
                    self.logger.warning("the live view cannot read versions: %s", error)
                time.sleep(EVERY)
        finally:
            if conn is not None:
                conn.close()

    def _wake(self, found: dict[str, int]) -> None:
        with self._lock:
            for match_id, version in found.items():
                if match_id in self._versions and version != self._versions[match_id]:
                    self._versions[match_id] = version
                    self._changed.pop(match_id).set()
                    self._changed[match_id] = threading.Event()


class Stream:
    """One spectator's stream: the board at each change, the version now and every HEARTBEAT s.

    ``board(version)`` gives the match's board at ``version`` or later, as (its version, the
    ``board_event``), made once per version and language for all the match's spectators
    of the process; ``known`` is the version the page
    holds (-1 if unknown): a page that is behind when the stream opens gets the board
    at once, one that is not gets only the version. The server closes the stream when
    the phone has gone (a write fails) or the server stops, and then it leaves
    ``versions``, once, even if it never started.
    """

    def __init__(self, versions: Versions, match_id: str, known: int, board: Board) -> None:
        self.versions, self.match_id, self.left = versions, match_id, False
        self.known, self.board = known, board

    def __iter__(self) -> Iterator[str]:
        yield f"retry: {RETRY_MS}\n\n"
        while not self.left:
            version, changed = self.versions.now(self.match_id)
            if version > self.known:
                self.known, event = self.board(version)
                yield event
            else:
                yield f"event: version\ndata: {version}\n\n"
            changed.wait(HEARTBEAT * random.uniform(1 - JITTER, 1 + JITTER))

    def close(self) -> None:
        if not self.left:
            self.left = True
            self.versions.leave(self.match_id)


Board = Callable[[int], tuple[int, str]]


def board_event(version: int, html: str) -> str:
    """The board as one event: its version as the event's id (the browser sends it back as
    Last-Event-ID when it reconnects), its HTML a ``data:`` line per line."""
    lines = "".join(f"data: {line}\n" for line in html.splitlines())
    return f"id: {version}\nevent: board\n{lines}\n"


def versions() -> Versions:
    return current_app.extensions["live"]  # type: ignore[no-any-return]


def init_app(app: Flask) -> None:
    app.config.setdefault("LIVE_STREAMS", 4)
    app.extensions["live"] = Versions(app.config["DATABASE"], int(app.config["LIVE_STREAMS"]), app.logger)
