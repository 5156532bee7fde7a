"""Short full collections in a server's workers (TRUST.md I7): what survives one is frozen.

A worker's cache holds its live matches: with its 128 MB full of long matches, some
600,000 objects the garbage collector tracks. CPython's full collection scans every
one of them each time, holding the GIL: 100-200 ms on this project's 2-core machine,
a pause that every tap and stream of the worker waits out. Nearly all of it is live
and stays so; a full collection over it reclaims next to nothing.

So after each full collection what survived it is frozen (``gc.freeze``: moved to
the permanent generation, which collections skip), and the next full collection
scans only what arrived since. A frozen object that is dropped is still freed at
once by reference counting, as the cache's entries and the engine's immutable values
are. A reference cycle among frozen objects is not freed until it is scanned again.
A cycle a request leaves is what stays frozen this way: a request in flight at a
freeze is frozen with it (Flask breaks its own cycles when a request ends; an error's
traceback still makes some). So every ``FREEZES`` freezes everything is thawed
(``gc.unfreeze``) and the next full collection scans it all and reclaims them: what
waits there is at most what that many freezes caught in flight.
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


def uninstall(freezer: Freezer) -> None:
    """Take ``freezer`` out and thaw everything (the tests' way back to the collector's defaults)."""
    gc.callbacks.remove(freezer)
    gc.unfreeze()
