"""Flask test-client fixtures, as in flaskr's conftest."""

from __future__ import annotations

from pathlib import Path

import pytest
from webtools import Keeper

from scorekeeper.web import create_app, storage


@pytest.fixture
def app(tmp_path: Path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "scorekeeper.sqlite"),
            "SECRET_KEY": "test-secret-key-" * 4,
            "WTF_CSRF_ENABLED": False,
        }
    )
    yield app
    db = storage.connect(app.config["DATABASE"])
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def keeper(app, client) -> Keeper:
    return Keeper(app, client)
