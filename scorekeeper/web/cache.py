"""The app's one cache: matches, states and rendered fragments, bounded by memory, under a lock.

A match at a given version never changes, so what is worked out from it
(the parsed file, the replayed state, the board HTML, the card picker) can be
kept and shared by every thread of the worker. Everything lives in one
``Cache`` on ``app.extensions`` (as Flask-Caching keeps its own), with one
least-recently-used order across all kinds, a budget in bytes and counters a
test can read. Nothing else in the shell keeps module-level mutable state.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from flask import Flask, current_app

T = TypeVar("T")

EXTENSION = "scorekeeper.cache"
DEFAULT_BUDGET = 32 * 1024 * 1024


class Cache:
    """Values by (kind, key), each with its size in bytes; the least recently used go first."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.bytes = 0
        self.hits: Counter[str] = Counter()
        self.misses: Counter[str] = Counter()
        self._entries: OrderedDict[tuple[str, Hashable], tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, kind: str, key: Hashable) -> Any | None:
        """The kept value, or None (counted as a hit or a miss of ``kind``)."""
        with self._lock:
            entry = self._entries.get((kind, key))
            if entry is None:
                self.misses[kind] += 1
                return None
            self._entries.move_to_end((kind, key))
            self.hits[kind] += 1
            return entry[0]

    def put(self, kind: str, key: Hashable, value: Any, size: int) -> None:
        """Keep ``value`` (``size`` bytes); drop the least recently used until within the budget."""
        if size > self.budget:
            return
        with self._lock:
            old = self._entries.pop((kind, key), None)
            if old is not None:
                self.bytes -= old[1]
            self._entries[(kind, key)] = (value, size)
            self.bytes += size
            while self.bytes > self.budget:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped

    def kept(self, kind: str, key: Hashable, make: Callable[[], T], size: Callable[[T], int]) -> T:
        """The kept value, or ``make()`` kept now (two threads may both make it: it is the same value)."""
        value = self.get(kind, key)
        if value is None:
            value = make()
            self.put(kind, key, value, size(value))
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = Cache(app.config.get("CACHE_BYTES", DEFAULT_BUDGET))


def cache() -> Cache:
    """The current app's cache."""
    found: Cache = current_app.extensions[EXTENSION]
    return found


def text_size(text: str) -> int:
    """Bytes a kept string costs: its characters plus the object's own overhead."""
    return 64 + len(text) * (1 if text.isascii() else 4)
