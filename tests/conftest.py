"""The whole suite's settings: Hypothesis profiles, the nightly runs, and which tests run one at a time.

``pytest`` (the README's command) runs every test but the deep ones, in parallel (pytest-xdist,
``-n`` in pyproject.toml). ``pytest --nightly`` runs those as well: TRUST.md I1's 10,000 malformed
posts, I4's 200 sequences, I5's 1,000 names, P1's 400 sequences, and every web test under both
settings profiles (tests/web/conftest.py); the default run covers the same routes and rules at the
counts its test ids state.
"""

from __future__ import annotations

from pathlib import Path

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
# Tests that start `scorekeeper serve`, kill processes, fill disks or time what they see run one
# after the other on one xdist worker (never beside each other), while the rest of the suite runs
# beside them. A new test of that kind goes in one of these folders or files.
SERIAL = (
    TESTS / "crash",
    TESTS / "load",
    TESTS / "web" / "test_import_logs.py",  # serve with an access log
    TESTS / "browser" / "test_not_saved_banner.py",  # serve on a small disk that fills
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--nightly",
        action="store_true",
        help="also run the deep runs (marked nightly) and every web test under both profiles",
    )


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("nightly" if config.getoption("--nightly") else "ci")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """No conftest.py is a module of doctests: --doctest-modules would import each one by the name
    "conftest" they all share, and this one after another had taken it (an import file mismatch)."""
    return True if collection_path.name == "conftest.py" else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--nightly"):
        return
    deep = [item for item in items if item.get_closest_marker("nightly")]
    if deep:
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("nightly")]


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # a hook of pytest-xdist's, before its own
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Every test a unit of its own, as --dist load, but the SERIAL ones one unit (the first sent).

    As --dist loadgroup with an xdist_group("serial") would, but by path: loadgroup renames the
    tests' node ids to carry the group, which pytest 9.2 no longer takes (pytest-xdist issue 1386),
    and every test then ran on any worker.
    """
    if config.getoption("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    serial = tuple(path.relative_to(config.rootpath).as_posix() for path in SERIAL)

    class SerialGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "serial" if any(path == s or path.startswith(s + "/") for s in serial) else nodeid

    return SerialGroup(config, log)
