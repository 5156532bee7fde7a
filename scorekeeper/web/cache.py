"""The app's one cache: matches, states and rendered fragments, bounded by memory, under a lock.

A match at a given version never changes, so what is worked out from it
(the parsed file, the replayed state, the board HTML, the card picker) can be
kept and shared by every thread of the worker. Everything lives in one
``Cache`` on ``app.extensions`` (as Flask-Caching keeps its own), with one
least-recently-used order across all kinds, a budget in bytes and counters a
test can read. The shell keeps no other module-level mutable state but the two objects its
libraries force on it (security.limiter, security.csrf), each said where it is made.

What a match is at one version is kept as a version of a group (``put_version``):
only a group's newest versions stay. A newer version shares most of its memory
with the older ones (the same events, the same states), but each is charged in
full, so a budget that kept every version would hold a few seconds of taps at
1,000 tables instead of every table's match until its next tap.
"""

from __future__ import annotations

import threading
from bisect import insort
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

from flask import Flask, current_app

from scorekeeper.web.settings import DEFAULT_BUDGET

T = TypeVar("T")

EXTENSION = "scorekeeper.cache"


class Cache:
    """Values by (kind, key), each with its size in bytes; the least recently used go first."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.bytes = 0
        self.hits: Counter[str] = Counter()
        self.misses: Counter[str] = Counter()
        # (kind, key): (value, size, whether it is a version of a group: key is (group, version),
        # what the group's versions below its newest are charged or None)
        self._entries: OrderedDict[tuple[str, Hashable], tuple[Any, int, bool, int | None]] = OrderedDict()
        # (kind, group): the versions of it kept, ascending
        self._versions: dict[tuple[str, Hashable], list[int]] = {}
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
            self._store((kind, key), value, size)

    def put_version(
        self,
        kind: str,
        group: Hashable,
        version: int,
        value: Any,
        size: int,
        keep: int,
        older: int | None = None,
    ) -> None:
        """Keep ``value`` as ``group``'s at ``version`` (read back with ``get(kind, (group, version))``);
        of a group's versions only the ``keep`` newest stay, the older are dropped now.

        ``older``, if given, is what each version below the newest is charged: what it holds that
        the newest does not, when versions share most of their memory (a match's states). The
        newest is charged ``size``; when it goes, the older go with it (charged as parts of it).
        """
        assert keep >= 1
        if size > self.budget:
            return
        with self._lock:
            versions = self._versions.setdefault((kind, group), [])
            if version not in versions:
                insort(versions, version)
            for old in versions[:-keep]:
                if not self._drop((kind, (group, old))):
                    versions.remove(old)  # listed, never stored: the version put now, older than those kept
            if version in versions:
                newest = version == versions[-1]
                charged = size if older is None or newest else min(size, older)
                self._store((kind, (group, version)), value, charged, grouped=True, older=older)
                if newest and older is not None:
                    for below in versions[:-1]:
                        self._charge((kind, (group, below)), older)
            elif not versions:
                self._versions.pop((kind, group), None)

    def newest(self, kind: str, group: Hashable, below: int) -> tuple[int, Any] | None:
        """The newest version of ``group`` kept below ``below``, and its value; or None."""
        with self._lock:
            for version in reversed(self._versions.get((kind, group), ())):
                entry = self._entries.get((kind, (group, version))) if version < below else None
                if entry is not None:
                    self._entries.move_to_end((kind, (group, version)))
                    return version, entry[0]
            return None

    def _store(
        self,
        key: tuple[str, Hashable],
        value: Any,
        size: int,
        grouped: bool = False,
        older: int | None = None,
    ) -> None:
        """Keep one entry (replacing the same key's: a version stored again stays its group's)."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        self._entries[key] = (value, size, grouped, older)
        self.bytes += size
        while self.bytes > self.budget:
            self._drop(next(iter(self._entries)))

    def _charge(self, key: tuple[str, Hashable], size: int) -> None:
        """Charge a kept entry ``size`` bytes at most (it shares the rest with a newer version)."""
        entry = self._entries.get(key)
        if entry is not None and entry[1] > size:
            self._entries[key] = (entry[0], size, entry[2], entry[3])
            self.bytes -= entry[1] - size

    def _drop(self, key: tuple[str, Hashable]) -> bool:
        """Forget one entry (and, if it is a group's version, that version of the group; if that was
        the newest of versions charged as its parts, the others too); False if there was none."""
        old = self._entries.pop(key, None)
        if old is None:
            return False
        self.bytes -= old[1]
        if old[2]:
            kind, inner = key
            group, version = cast(tuple[Hashable, int], inner)
            versions = self._versions[(kind, group)]
            newest = version == versions[-1]
            versions.remove(version)
            if newest and old[3] is not None:
                for below in versions:
                    part = self._entries.pop((kind, (group, below)), None)
                    if part is not None:
                        self.bytes -= part[1]
                versions.clear()
            if not versions:
                del self._versions[(kind, group)]
        return True

    def kept(self, kind: str, key: Hashable, make: Callable[[], T], size: Callable[[T], int]) -> T:
        """The kept value, or ``make()`` kept now (two threads may both make it: it is the same value)."""
        value = self.get(kind, key)
        if value is None:
            value = make()
            self.put(kind, key, value, size(value))
        return value

    def kept_version(
        self,
        kind: str,
        group: Hashable,
        version: int,
        make: Callable[[], T],
        size: Callable[[T], int],
        keep: int,
    ) -> T:
        """As ``kept``, for a version of a group (``put_version``)."""
        value = self.get(kind, (group, version))
        if value is None:
            value = make()
            self.put_version(kind, group, version, value, size(value), keep)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._versions.clear()
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
