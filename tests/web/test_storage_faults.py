"""TRUST.md R6: a full disk, a read-only or missing database, and a locked one at start-up."""

from __future__ import annotations

import multiprocessing

import pytest

from scorekeeper.web import create_app

SECRET = "storage-faults-secret-key-0123456789abcdef"
RACES = 20


def _start_at_once(paths: list[str], ready, answers) -> None:
    """Create the app over each fresh database at the same moment as the other process."""
    for path in paths:
        ready.wait()
        app = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": SECRET})
        answers.put((path, app.config["READ_ONLY"]))


@pytest.mark.slow  # two interpreters start: about 10 s
def test_two_processes_starting_over_a_fresh_database_at_once_both_may_write(tmp_path):
    """A database locked by the other process at start is waited for, not a failed check (R5 is not R6)."""
    paths = [str(tmp_path / f"race-{i}.sqlite") for i in range(RACES)]
    context = multiprocessing.get_context("spawn")  # each process imports and starts as a server would
    ready, answers = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_start_at_once, args=(paths, ready, answers)) for _ in range(2)]
    for process in processes:
        process.start()
    found = [answers.get(timeout=120) for _ in range(2 * RACES)]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert [(path, read_only) for path, read_only in found if read_only] == []
    assert len({path for path, _ in found}) == RACES
