"""collector.py: a worker freezes what survives each full collection, and thaws it every FREEZES freezes."""

from __future__ import annotations

import gc
import weakref

import pytest
from gunicorn.config import Config

from scorekeeper.web import collector, server


class Node:
    """A tracked object that can be in a reference cycle and has a weak reference."""

    def __init__(self) -> None:
        self.other: object | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


def _scanned_by_a_full_collection(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(generation=collector.OLDEST))


@pytest.fixture
def frozen_before():
    """Whatever the test does to the collector, undone: no freezer left, and what was frozen frozen again."""
    before = gc.get_freeze_count() > 0  # an in-process serve() froze the heap in an earlier test
    try:
        yield
    finally:
        for found in [c for c in gc.callbacks if isinstance(c, collector.Freezer)]:
            gc.callbacks.remove(found)
        gc.unfreeze()
        gc.collect()
        if before:
            gc.freeze()


@pytest.fixture
def freezer(frozen_before):
    gc.unfreeze()  # so that what the test counts starts from nothing frozen
    gc.collect()
    return collector.install()


def test_what_survives_a_full_collection_is_frozen_and_skipped_by_the_next(freezer):
    live, _ = _cycle()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gc.get_freeze_count() > 0 and freezer.since == 1
    assert not _scanned_by_a_full_collection(live)
    young = Node()
    gc.collect()  # a full collection moves what survives it to the oldest generation, then freezes it
    assert not _scanned_by_a_full_collection(young) and freezer.since == 2


def test_a_frozen_value_nothing_else_refers_to_is_freed_at_once(freezer):
    kept = Node()  # as a cache entry: a value with no cycle
    gone = weakref.ref(kept)
    gc.collect()
    assert gc.is_tracked(kept) and not _scanned_by_a_full_collection(kept)  # frozen
    del kept
    assert gone() is None  # reference counting freed it, frozen or not


def test_a_frozen_cycle_is_reclaimed_by_the_full_collection_after_freezes_freezes(freezer):
    pair, gone = _cycle()  # as a request in flight at a freeze
    gc.collect()
    del pair  # the request ends: its cycle is garbage, frozen
    for _ in range(collector.FREEZES - 1):
        gc.collect()
        assert gone() is not None  # frozen: no collection scans it
    assert freezer.since == collector.FREEZES
    gc.collect()  # the last freeze's full collection: everything is thawed after it
    assert gone() is not None and freezer.since == 0 and freezer.thaws == 1
    gc.collect()  # scans everything
    assert gone() is None
    assert freezer.since == 1  # and frozen again


def test_a_new_cycle_through_a_frozen_object_also_waits_for_the_thaw(freezer):
    """What the docstring says freezing keeps besides frozen cycles (a reviewer's finding)."""
    holder = Node()  # long-lived: a connection, a stream
    gc.collect()  # frozen
    new = Node()
    new.other, holder.other = holder, new
    gone = weakref.ref(new)
    del new, holder
    gc.collect()
    assert gone() is not None  # the frozen holder counts as a reference from outside
    while freezer.thaws == 0:
        gc.collect()
    gc.collect()
    assert gone() is None


def test_without_a_freezer_a_cycle_goes_with_the_next_full_collection(frozen_before):
    gc.unfreeze()
    pair, gone = _cycle()
    gc.collect()
    del pair
    gc.collect()
    assert gone() is None


def test_every_worker_the_server_forks_installs_a_freezer(app, monkeypatch, capsys, frozen_before):
    config = Config()

    def fake(app, options):
        for key, value in options.items():
            config.set(key, value)  # gunicorn checks each setting: a hook must take two arguments
        return type("S", (), {"run": lambda self: None})()

    monkeypatch.setattr(server, "_Server", fake)
    server.serve(app, "127.0.0.1", 5000)
    assert not any(isinstance(c, collector.Freezer) for c in gc.callbacks)  # not in the master
    config.post_fork(None, None)  # what gunicorn's arbiter calls in each worker it forks
    assert len([c for c in gc.callbacks if isinstance(c, collector.Freezer)]) == 1
