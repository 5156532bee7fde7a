"""Long CPU work kept off gevent's hub (TRUST.md I7): ``offload(fn, *args)``.

Under gunicorn's gevent worker (``serve --worker-class gevent``) every request
of a worker runs in a greenlet on one OS thread, and greenlets take turns only
when one waits for I/O: an import's replay of a 5,000-event file (some 100 ms
of CPU) would hold up every tap and stream of the worker for as long.
``offload`` runs such work in a gevent ``ThreadPool`` of one thread instead (one
per worker); the request's greenlet waits without blocking the hub, and the GIL's switch
interval (server.py) lets the hub in beside it, as it lets gthread's threads
in beside each other. Under gthread, the test client and the command line,
``fn`` runs inline: nothing changes there.

``fn`` runs in a copy of the request's context (contextvars: gevent's pool
does not carry it), so ``current_app``, ``request`` and ``g`` are there; the
greenlet that asked waits meanwhile, so nothing else uses them. ``fn`` must
not touch SQLite nor the request's socket: db.py keeps one connection per OS
thread, and its write lock queues the hub's greenlets, not other threads.
Inside a transaction ``fn`` runs inline: the worker's greenlets share the
hub's connection, and one that waited there would let the others read its
uncommitted rows, or roll them back at the end of their requests.
"""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app

T = TypeVar("T")

EXTENSION = "scorekeeper.offload"
# One thread: the GIL lets one thread compute at a time anyway, and each more thread that
# computes is one more the hub must win the GIL from. Long requests queue for it in order
# (imports go one at a time already, imports.py).
THREADS = 1
# How long a gevent worker sleeps between tries of a lock another process holds (db.write_lock).
POLL = 0.001


def on_gevent() -> bool:
    """True in a gevent worker: gevent has patched ``threading`` (gunicorn's GeventWorker does)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("threading"))


def offload(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``: off the hub in a gevent worker, inline anywhere else; what it raises is raised here.

    Called from the pool's own thread (an offloaded function offloading again) it runs
    inline: gevent's pool does so for a thread other than its hub's.
    """
    if not on_gevent() or _in_transaction():
        return fn(*args)
    context = contextvars.copy_context()
    result: T = _pool().apply(context.run, (fn, *args))
    return result


def _in_transaction() -> bool:
    from scorekeeper.web import db  # here, not above: db.py imports this module for its lock's wait

    path = current_app.config.get("DATABASE")
    found = db.open_connection(path) if path else None
    return found is not None and found.conn.in_transaction


def _pool() -> Any:
    """This worker's pool, made with its first use (a forked worker makes its own)."""
    from gevent.threadpool import ThreadPool  # type: ignore[import-untyped]

    found = current_app.extensions.get(EXTENSION)
    if found is None or found[0] != os.getpid():
        found = current_app.extensions[EXTENSION] = (os.getpid(), ThreadPool(THREADS))
    return found[1]


def pause() -> None:
    """Sleep ``POLL`` seconds, letting the worker's other greenlets run (gevent workers only)."""
    import gevent  # type: ignore[import-untyped]

    gevent.sleep(POLL)
