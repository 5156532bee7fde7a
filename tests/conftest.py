"""The whole suite's settings: Hypothesis profiles, the nightly runs, and which tests run last, alone.

``pytest`` (the README's command) runs every test but the deep ones, in parallel (pytest-xdist,
``-n`` in pyproject.toml). ``pytest --nightly`` runs those as well: TRUST.md I1's 10,000 malformed
posts, I4's 200 sequences, I5's 1,000 names, P1's 400 sequences, and every web test under both
settings profiles (tests/web/conftest.py); the default run covers the same routes and rules at the
counts its test ids state.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

import flask
import jinja2
import pytest
from hypothesis import HealthCheck, settings

# TRUST.md I1: derandomized (the same examples every run, so that a failure is seen again) and no
# deadline (a loaded machine must not fail a good change). No example database: parallel workers
# would share its folder, and a derandomized run has nothing to replay. These are the settings of
# Hypothesis's own "ci" profile, which a process without this file (I1's workers) gets by that name.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# The nightly run draws fresh examples each night (a failure prints the blob that replays it).
settings.register_profile("nightly", settings.get_profile("ci"), derandomize=False)

TESTS = Path(__file__).parent
# Tests that assert how long a tap waits (TRUST.md I7, I8) run last, beside nothing but the BESIDE
# tests: every other test has finished before the first of them starts, so that only the attack they
# make loads the machine. The tests that start `scorekeeper serve`, kill processes or fill disks
# assert no time and run beside the rest. A new test that times what it sees goes in this list.
ALONE = (
    "tests/load/test_no_phone_slows_another.py",
    "tests/load/test_creations_and_imports.py::test_taps_stay_fast_while_two_clients_import_as_fast_as_allowed",
)
# Tests that compute and read, one process at a time (no server; written only copies of the legacy
# database, migrated): one worker runs them while the ALONE ones run, on the core those leave idle (they
# use under one of the two). A core kept busy meanwhile changed none of I7's and I8's figures.
BESIDE = ("tests/core/", "scorekeeper/", "tests/legacy/")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--nightly",
        action="store_true",
        help="also run the deep runs (marked nightly) and every web test under both profiles",
    )
    parser.addoption(
        "--screens",
        action="store_true",
        help="keep a screenshot of every screen the browser tests pass through (test-output/screens/)",
    )


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("nightly" if config.getoption("--nightly") else "ci")
    # The servers, command lines and workers the tests start (some 60 servers) cache their bytecode
    # in __pycache__ (git ignores it), Python's default: where the machine sets PYTHONDONTWRITEBYTECODE
    # each compiled the app again, 0.08 s of a server's 0.6 s start.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    # Most tests make an app of their own, and each app compiled every template it rendered again:
    # half of a short web test's time. Jinja's own bytecode cache, one per test process (a template
    # is compiled once, and again only if its source changed), is given to every app the process makes.
    folder = tempfile.mkdtemp(prefix="scorekeeper-templates-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    flask.Flask.jinja_options = {
        **flask.Flask.jinja_options,
        "bytecode_cache": jinja2.FileSystemBytecodeCache(folder),
    }


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """A test module (test_*.py) holds no doctests: looking for them cost every worker a second. The
    package's modules and the tests' helpers (legacytools.py) have theirs."""
    collectors = yield
    if not file_path.name.startswith("test_"):
        return collectors
    return [c for c in collectors if type(c).__name__ != "DoctestModule"]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """No conftest.py is a module of doctests: --doctest-modules would import each one by the name
    "conftest" they all share, and this one after another had taken it (an import file mismatch)."""
    return True if collection_path.name == "conftest.py" else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--nightly"):
        deep = [item for item in items if item.get_closest_marker("nightly")]
        if deep:
            config.hook.pytest_deselected(items=deep)
            items[:] = [item for item in items if not item.get_closest_marker("nightly")]
    # The long tests first (a kill -9 run, a soak, a browser's walk: up to a minute and a half each),
    # the short ones after them: the workers hand out tests in this order, and short ones fill the
    # end evenly where a long one started last would keep the run going on one worker alone.
    items.sort(
        key=lambda item: (
            0 if item.get_closest_marker("slow") else 1 if item.get_closest_marker("browser") else 2
        )
    )


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # a hook of pytest-xdist's, before its own
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Every test a unit of its own, as --dist load, but the ALONE ones held back: they run one
    after the other on the last worker still busy, once every other test but the BESIDE ones has
    finished, and one other worker runs the BESIDE ones meanwhile."""
    if config.getoption("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class AloneLast(LoadScopeScheduling):
        # Every test a unit of its own but two, held back at the end of the queue: "alone" (the ALONE
        # tests) and "beside" (the BESIDE ones, in a run that has ALONE ones). A worker runs the last
        # test it was sent only once it is sent another or told to stop: so when only those two are
        # left, the first worker to ask is kept for "alone" (the keeper), the next is sent "beside",
        # the others are told to stop, and the keeper is sent "alone" once no other worker has a test
        # to run but the BESIDE ones. (While "alone" waits the queue is not empty, so xdist does not
        # stop every worker after the first round of sends: a run of a few tests.)
        keeper = None

        @functools.cached_property
        def timed(self) -> bool:
            return any(nodeid.startswith(ALONE) for nodeid in self.collection)

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(ALONE):
                return "alone"
            return "beside" if self.timed and nodeid.startswith(BESIDE) else nodeid

        def _assign_work_unit(self, node) -> None:
            for held in ("beside", "alone"):
                if held in self.workqueue:
                    self.workqueue.move_to_end(held)
            if "alone" in self.workqueue and set(self.workqueue) <= {"beside", "alone"}:
                self._keep_send_or_stop(node)
            else:
                super()._assign_work_unit(node)

        def _keep_send_or_stop(self, node) -> None:
            if self.keeper is None or self.keeper not in self.assigned_work:
                self.keeper = node
            if node is not self.keeper:
                if "beside" in self.workqueue:
                    self._send(node, "beside")
                else:
                    node.shutdown()  # it runs what it was sent, then stops
            self._send_alone_when_quiet()

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            super().mark_test_complete(node, item_index, duration)
            self._send_alone_when_quiet()

        def remove_node(self, node):
            crashed = super().remove_node(node)
            self._send_alone_when_quiet()
            return crashed

        def _send_alone_when_quiet(self) -> None:
            if "alone" not in self.workqueue or self.keeper not in self.assigned_work:
                return
            for node, work in self.assigned_work.items():
                not_beside = {scope: unit for scope, unit in work.items() if scope != "beside"}
                if node is not self.keeper and self._pending_of(not_beside):
                    return
            self._send(self.keeper, "alone")

        def _send(self, node, scope: str) -> None:
            self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return AloneLast(config, log)
