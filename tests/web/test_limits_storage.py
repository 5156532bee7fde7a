"""The rate limiter's counts under threads: limits' memory storage raced on its expiry timer."""

from __future__ import annotations

import sys
import threading
import time

import pytest
from limits.storage import MemoryStorage

from scorekeeper.web import create_app
from scorekeeper.web.security import LockedMemoryStorage, limiter

THREADS, COUNTS = 8, 40


def _slowed(storage_class: type[MemoryStorage]) -> type[MemoryStorage]:
    """``storage_class`` with a pause after each new timer is stored: the pause opens, for every
    thread, the gap that a thread switch opens by chance between storing a timer and starting it."""

    class Slowed(storage_class):  # type: ignore[misc, valid-type]
        @property
        def timer(self) -> threading.Timer:
            return self.__dict__["timer"]

        @timer.setter
        def timer(self, value: threading.Timer) -> None:
            self.__dict__["timer"] = value
            time.sleep(0.002)

    return Slowed


def _errors_counting_at_once(storage: MemoryStorage) -> list[BaseException]:
    """What 8 threads counting at once raise, in their own calls or in the timers' threads."""
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def count() -> None:
        start.wait()
        for _ in range(COUNTS):
            try:
                storage.incr("import/127.0.0.1", 60)
                storage.acquire_entry("watch/127.0.0.1", 10_000, 60)
            except RuntimeError as error:
                errors.append(error)
            time.sleep(0.012)  # the timer (10 ms) has ended: the next count restarts it

    threads = [threading.Thread(target=count) for _ in range(THREADS)]
    hook, threading.excepthook = threading.excepthook, lambda raised: errors.append(raised.exc_value)
    unraisable, sys.unraisablehook = sys.unraisablehook, lambda raised: errors.append(raised.exc_value)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(0.05)  # the last timers end
    finally:
        threading.excepthook, sys.unraisablehook = hook, unraisable
    return errors


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_library_storage_races_on_its_timer():
    """What the app's storage guards against is real: the library's own storage, slowed the same
    way, raises "threads can only be started once" (a few tries, since threads may not meet)."""
    for _ in range(5):
        if _errors_counting_at_once(_slowed(MemoryStorage)()):
            return
    raise AssertionError("limits' memory storage no longer races: LockedMemoryStorage may go")


def test_the_apps_storage_counts_every_hit_from_many_threads_at_once():
    storage = _slowed(LockedMemoryStorage)()
    assert _errors_counting_at_once(storage) == []
    assert storage.get("import/127.0.0.1") == THREADS * COUNTS
    assert storage.get_moving_window("watch/127.0.0.1", 10_000, 60)[1] == THREADS * COUNTS


def test_the_app_counts_in_the_locked_storage(tmp_path):
    create_app({"DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": "a-test-key-0123456789-abcdefghij"})
    assert isinstance(limiter.storage, LockedMemoryStorage)
