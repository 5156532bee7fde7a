"""TRUST.md P1: every rename and merge is an entry of the people log."""

from __future__ import annotations

import json

import pytest
from webtools import MATCHES

from scorekeeper.web import db as database
from scorekeeper.web import stats

# Seven people with played matches: the recorded files under other names.
PLAYED = [
    ("two-players-to-royal-flush", {}),
    ("tie-break-to-ten", {"Bo": "Bosse"}),
    ("four-players-in-progress", {}),
    ("tie-break-to-ten", {"Anna": "Cia", "Bo": "Eva"}),
    ("two-players-to-royal-flush", {"Anna": "Dan", "Bo": "Filip"}),
]


def play_matches(client) -> None:
    for name, renamed in PLAYED:
        text = (MATCHES / f"{name}.json").read_text()
        for old, new in renamed.items():
            text = text.replace(f'"{old}"', f'"{new}"')
        assert client.post("/import", data={"text": text}).status_code == 303


def everybody(app) -> tuple[list, list]:
    """Every person's statistics, merged or not, and the players list: what an undo must restore."""
    with app.app_context():
        ids = [i for (i,) in database.get_db().execute("SELECT id FROM people ORDER BY id")]
        return [stats.person(i) for i in ids], stats.people()


def ids(app, *names: str) -> list[int]:
    with app.app_context():
        return [stats.person_id_of(n) for n in names]


def log_rows(app) -> list[dict]:
    with app.app_context():
        cursor = database.get_db().execute("SELECT * FROM people_log ORDER BY id")
        columns = [d[0] for d in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


@pytest.fixture
def played(client):
    play_matches(client)
    return client


def test_every_rename_and_merge_is_logged_and_a_merged_person_is_kept(played, app):
    bo, bosse = ids(app, "Bo", "Bosse")
    assert played.post(f"/players/{bo}/rename", data={"name": "Bo B"}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303
    logged = [
        (r["kind"], r["person_id"], r["person_name"], r["new_name"], r["other_id"], r["other_name"])
        for r in log_rows(app)
    ]
    assert logged == [("rename", bo, "Bo", "Bo B", None, None), ("merge", bo, "Bo B", None, bosse, "Bosse")]
    assert [json.loads(r["aliases"]) for r in log_rows(app)] == [["Bo B"], ["Bosse"]]  # added; moved
    with app.app_context():
        db = database.get_db()
        assert db.execute("SELECT name, merged_into FROM people WHERE id = ?", [bosse]).fetchone() == (
            "Bosse",
            bo,
        )
        assert stats.person(bosse) is None
        assert bosse not in [p["id"] for p in stats.people()] + [p["id"] for p in stats.names()]


def test_changes_that_change_nothing_log_nothing(played, app):
    bo, bosse = ids(app, "Bo", "Bosse")
    assert played.post(f"/players/{bo}/rename", data={"name": "Bo"}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bo)}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303  # a second tap
    assert [row["kind"] for row in log_rows(app)] == ["merge"]
    assert played.post(f"/players/{bosse}/rename", data={"name": "X"}).status_code == 404  # merged away
    assert played.post(f"/players/{bosse}/merge", data={"other": str(bo)}).status_code == 404
