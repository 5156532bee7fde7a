"""Flask test-client fixtures, as in flaskr's conftest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import flask
import pytest
from webtools import Keeper

from scorekeeper.web import create_app
from scorekeeper.web.store import db as database

# The settings profile (TRUST.md S7) changes the cookies (the session's name, Secure on every cookie),
# HSTS, the scheme of the links the app builds (and of the test client: https under tls), how many
# proxies are trusted (so the address a rate limit counts), and Flask-WTF's CSRF check (the Referer is
# checked under https only). The tests of those are marked ``both_profiles`` and run under lan and
# tls; the others, whose subject no profile changes, under lan. `pytest --nightly` runs every web test
# under both (TRUST.md S7: both pass the suite).


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "app_profile" not in metafunc.fixturenames:
        return
    if metafunc.config.getoption("--nightly") or metafunc.definition.get_closest_marker("both_profiles"):
        metafunc.parametrize("app_profile", ["lan", "tls"], indirect=True)


@pytest.fixture
def app_profile(request) -> str:
    """The settings profile: lan, or each of lan and tls for the tests marked both_profiles."""
    return getattr(request, "param", "lan")


SECRET_KEY = "test-secret-key-of-the-web-suite-0123456789"


@pytest.fixture(scope="session")
def migrated(tmp_path_factory) -> Path:
    """An empty database as the app's start leaves it (migrated, figures filled in), made once per
    test process: each test's app starts on a copy of it, half the time of migrating a new file
    (tests/web/test_storage_faults.py and test_write_path.py start on new files)."""
    path = tmp_path_factory.mktemp("migrated") / "scorekeeper.sqlite"
    create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": SECRET_KEY})
    return path


@pytest.fixture
def app(tmp_path: Path, app_profile: str, migrated: Path):
    """The app on a temporary database under a settings profile (see both_profiles)."""
    database_file = tmp_path / "scorekeeper.sqlite"
    with sqlite3.connect(migrated) as source, sqlite3.connect(database_file) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    app = create_app(
        {
            "TESTING": True,
            "PROFILE": app_profile,
            "DATABASE": str(database_file),
            "SECRET_KEY": SECRET_KEY,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
        }
    )
    left_open: list[str] = []

    @app.teardown_request
    def no_request_leaves_a_transaction_open(_: BaseException | None) -> None:  # TRUST.md R4
        db = database.open_connection()
        if db is not None and db.conn.in_transaction:
            left_open.append(flask.request.path)

    yield app
    assert left_open == []
    db = database.connect(app.config["DATABASE"])
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # TRUST.md R5
    db.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def keeper(app, client) -> Keeper:
    return Keeper(app, client)
