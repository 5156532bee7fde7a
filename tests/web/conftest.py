"""Flask test-client fixtures, as in flaskr's conftest."""

from __future__ import annotations

from pathlib import Path

import flask
import pytest
from webtools import Keeper

from scorekeeper.web import create_app
from scorekeeper.web import db as database


@pytest.fixture(params=["lan", "tls"])
def app(tmp_path: Path, request):
    """The app on a temporary database, once per settings profile (TRUST.md S7: both pass)."""
    app = create_app(
        {
            "TESTING": True,
            "PROFILE": request.param,
            "DATABASE": str(tmp_path / "scorekeeper.sqlite"),
            "SECRET_KEY": "test-secret-key-of-the-web-suite-0123456789",
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
