"""Short full collections in a server's workers (TRUST.md I7): what survives one is frozen.

A worker's cache holds its live matches: with its 128 MB full of long matches, some
600,000 objects the garbage collector tracks. CPython's full collection scans every
one of them each time, holding the GIL: 100-200 ms on this project's 2-core machine,
a pause that every tap and stream of the worker waits out. Nearly all of it is live
and stays so; a full collection over it reclaims next to nothing.

So after each full collection what survived it is frozen (``gc.freeze``: moved to
the permanent generation, which collections skip), and the next full collection
scans only what arrived since: 4-10 ms against 100-250. A frozen object that is
dropped is still freed at once by reference counting, as the cache's entries and
the engine's immutable values are (they hold no cycles).

What freezing keeps is cyclic garbage that holds on to a frozen object: a cycle
among objects that were alive at a freeze, or new objects whose cycle runs through
one, and everything only that cycle refers to. A request in flight at a freeze is
where such a cycle comes from here: werkzeug's routing makes one of 8 objects for
each request, a 404 or 405 one of some 80 (a running function's frames are not
tracked, so a view that fails makes none). So after every ``FREEZES`` freezes
everything is thawed (``gc.unfreeze``), and the next full collection scans it all
and reclaims such garbage: it waits until the 34th full collection after the freeze
that caught it at most (under load a few seconds; counted in collections, not time).
With gthread's 8 threads that is at most 32 x 8 requests' cycles, under 5 MB; under
gevent as many as were in flight at those freezes (kept connections and streams make
none: their greenlets and sockets hold no cycle).

The thaw also thaws what the server froze before forking (server.py), and that full
scan writes to each of those objects: their pages stop being shared between the
workers after a worker's first thaw, some 9 MB a worker once.
"""

from __future__ import annotations

import gc
from typing import Any

# Freezes between full collections that scan everything: one such long pause in every
# FREEZES + 1 full collections.
FREEZES = 32
OLDEST = 2  # CPython's generations: 0, 1 and 2, the one a full collection scans


class Freezer:
    """The collector callback: freezes after a full collection, thaws now and then."""

    def __init__(self) -> None:
        self.since = 0  # freezes since the last full collection that scanned everything
        self.thaws = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info["generation"] != OLDEST:
            return
        if self.since == FREEZES:
            gc.unfreeze()  # the next full collection scans everything
            self.since = 0
            self.thaws += 1
        else:
            gc.freeze()
            self.since += 1


def install() -> Freezer:
    """Freeze what survives each full collection from now on, in this process and its forks."""
    freezer = Freezer()
    gc.callbacks.append(freezer)
    return freezer
