"""Rate limits (Flask-Limiter): wrong secrets are counted per address, right ones never (TRUST.md S8);
imports are counted per address, so that a few clients cannot keep the worker replaying files (I7);
so are the matches made (a new match, a rematch): each new name in one is a new person on every list.

The counters live in the server's memory.
"""

from __future__ import annotations

import threading

from flask import Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage


class LockedMemoryStorage(MemoryStorage):
    """limits' memory storage, its counts taken one at a time (``locked-memory://``).

    The memory storage of limits 5.8 (the newest on the index here) restarts its expiry timer
    without a lock: two threads that count at once can both find the timer stopped, and the
    second starts the timer the first made, which raises RuntimeError ("threads can only be
    started once"): a 500 for a spectator or an import (seen in tests/load, four imports at
    once). Upstream locks it since alisaifee/limits#352. Each counting method here holds one
    lock around the library's own; they are cheap, and only the limited routes count.
    """

    STORAGE_SCHEME = ["locked-memory"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: str) -> None:
        self._counting = threading.RLock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        with self._counting:
            return super().incr(key, expiry, amount)

    def decr(self, key: str, amount: int = 1) -> int:
        with self._counting:
            return super().decr(key, amount)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        with self._counting:
            return super().acquire_entry(key, limit, expiry, amount)

    def acquire_sliding_window_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        with self._counting:
            return super().acquire_sliding_window_entry(key, limit, expiry, amount)


# Module-level because Flask-Limiter's decorators (``@limiter.limit``) need the object when the
# routes are defined: the one piece of module state the library forces on the shell. Its counters
# live in the storage it makes at ``init_app``, and so belong to the last app made in the process.
limiter = Limiter(key_func=get_remote_address, storage_uri="locked-memory://", default_limits=[])

# The routes that take a secret from the link, those that make a match, and the import; the
# limiter skips every other request at once.
SECRET_ROUTES = frozenset({"matches.claim", "matches.watch", "matches.watch_board", "matches.watch_stream"})
CREATE_ROUTES = frozenset({"matches.new", "history.rematch"})
LIMITED_ROUTES = SECRET_ROUTES | CREATE_ROUTES | {"history.import_file"}
# A club imports a handful of matches at a time; ten a minute lets that through and costs a
# worker at most ten replays of a capped file a minute per address.
IMPORT_RATE = "10 per minute"
# A table starts a new match every few minutes at most; thirty a minute per address lets a room
# of tables behind one router start together. Two clients looping new matches for a minute made
# 15,295 people without it (issue 24); with it they make 60 matches at most.
CREATE_RATE = "30 per minute"


@limiter.request_filter
def is_never_limited() -> bool:
    return request.endpoint not in LIMITED_ROUTES


def wrong_secret(response: Response) -> bool:
    """Only a 404 (an unknown or wrong secret) uses up the allowance."""
    return response.status_code == 404


def created(response: Response) -> bool:
    """Only a match made (a 303 to it) uses up the allowance: a seat-order button or a refused form
    makes nothing."""
    return response.status_code == 303


def create_rate() -> str:
    """Matches made per address (``CREATE_RATE_LIMIT``, or SCOREKEEPER_CREATE_RATE_LIMIT)."""
    return str(current_app.config["CREATE_RATE_LIMIT"])


def import_rate() -> str:
    """Imports allowed per address (``IMPORT_RATE_LIMIT``, or SCOREKEEPER_IMPORT_RATE_LIMIT)."""
    return str(current_app.config["IMPORT_RATE_LIMIT"])


# One allowance per address for every route that makes a match (the import has its own).
creations = limiter.shared_limit(create_rate, scope="creations", methods=["POST"], deduct_when=created)
