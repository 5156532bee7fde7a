"""collector.py: a worker freezes what survives each full collection, and thaws it every FREEZES freezes."""

from __future__ import annotations

import gc
import weakref

import pytest

from scorekeeper.web import collector, server


class Node:
    """A tracked object that can be in a reference cycle and has a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


def _scanned_by_a_full_collection(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(generation=collector.OLDEST))


@pytest.fixture
def freezer():
    gc.collect()
    found = collector.install()
    yield found
    collector.uninstall(found)
    gc.collect()


def test_what_survives_a_full_collection_is_frozen_and_skipped_by_the_next(freezer):
    live, _ = _cycle()
    gc.collect()
    assert gc.get_freeze_count() > 0 and freezer.since == 1
    assert not _scanned_by_a_full_collection(live)
    young = Node()
    gc.collect()  # a full collection moves what survives it to the oldest generation, then freezes it
    assert not _scanned_by_a_full_collection(young) and freezer.since == 2


def test_a_frozen_object_nothing_else_refers_to_is_freed_at_once(freezer):
    kept = Node()  # as a cache entry: a value with no cycle
    gone = weakref.ref(kept)
    gc.collect()
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


def test_without_the_freezer_the_same_cycle_goes_with_the_next_full_collection():
    pair, gone = _cycle()
    gc.collect()
    del pair
    gc.collect()
    assert gone() is None


def test_every_worker_the_server_forks_installs_a_freezer(app, monkeypatch, capsys):
    options: dict = {}

    def fake(app, found):
        options.update(found)
        return type("S", (), {"run": lambda self: None})()

    monkeypatch.setattr(server, "_Server", fake)
    server.serve(app, "127.0.0.1", 5000)
    assert not any(isinstance(c, collector.Freezer) for c in gc.callbacks)  # not in the master
    options["post_fork"](None, None)  # gunicorn calls it in each worker, after the fork
    [installed] = [c for c in gc.callbacks if isinstance(c, collector.Freezer)]
    collector.uninstall(installed)
