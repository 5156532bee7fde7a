"""TRUST.md P1: every rename and merge is an entry of the people log, each undoable in one tap,
and undo restores every statistic."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from contextlib import closing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trusttools import fingerprint
from webtools import MATCHES, soup

from scorekeeper.web import create_app
from scorekeeper.web.store import db as database
from scorekeeper.web.store import stats

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


def undo(client, entry_id: int, key: str | None = None, **headers):
    return client.post(f"/players/log/{entry_id}/undo", data={"key": key} if key else {}, headers=headers)


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


def test_a_rename_is_logged_and_its_undo_restores_every_statistic(played, app):
    before = everybody(app)
    (bo,) = ids(app, "Bo")
    assert played.post(f"/players/{bo}/rename", data={"name": "Bo B"}).status_code == 303
    (entry,) = log_rows(app)
    assert (entry["kind"], entry["person_id"], entry["person_name"], entry["new_name"]) == (
        "rename",
        bo,
        "Bo",
        "Bo B",
    )
    assert json.loads(entry["aliases"]) == ["Bo B"]
    response = undo(played, entry["id"])
    assert response.status_code == 303 and response.headers["Location"] == "/players"
    assert everybody(app) == before
    assert ids(app, "Bo B") == [None]  # the name the rename added is nobody's again
    assert [(r["kind"], r["undoes"]) for r in log_rows(app)] == [("rename", None), ("undo", entry["id"])]


def test_a_merge_is_logged_and_its_undo_brings_the_person_back_with_every_statistic(played, app):
    before = everybody(app)
    bo, bosse = ids(app, "Bo", "Bosse")
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303
    with app.app_context():
        assert stats.person(bosse) is None and stats.person(bo).aliases == ["Bo", "Bosse"]
    assert played.get(f"/players/{bosse}").status_code == 404
    (entry,) = log_rows(app)
    assert (entry["kind"], entry["person_id"], entry["other_id"], entry["other_name"]) == (
        "merge",
        bo,
        bosse,
        "Bosse",
    )
    assert undo(played, entry["id"]).status_code == 303
    assert everybody(app) == before
    assert ids(app, "Bosse") == [bosse]  # the same person, with the same id and names
    assert played.get(f"/players/{bosse}").status_code == 200


def test_a_person_merged_twice_over_comes_back_step_by_step(played, app):
    """Cia takes Eva's names, then Anna takes Cia's: undone newest first, everyone is back."""
    before = everybody(app)
    anna, cia, eva = ids(app, "Anna", "Cia", "Eva")
    played.post(f"/players/{cia}/merge", data={"other": str(eva)})
    played.post(f"/players/{anna}/merge", data={"other": str(cia)})
    with app.app_context():
        assert stats.person(anna).aliases == ["Anna", "Cia", "Eva"]
    first, second = (row["id"] for row in log_rows(app))
    assert undo(played, first).status_code == 422  # Cia was merged into Anna after it
    assert undo(played, second).status_code == 303
    assert undo(played, first).status_code == 303
    assert everybody(app) == before


def test_an_undo_is_refused_while_a_later_change_needs_it_and_nothing_changes(played, app):
    bo, bosse = ids(app, "Bo", "Bosse")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    played.post(f"/players/{bo}/merge", data={"other": str(bosse)})
    rename, _ = (row["id"] for row in log_rows(app))
    before = fingerprint(app)
    response = undo(played, rename)
    assert response.status_code == 422
    assert soup(response).select_one(".refusal").text == (
        "Only the latest change to Bo B can be undone: undo the later ones first"
    )
    assert fingerprint(app) == before


def test_the_page_offers_undo_only_where_the_rule_allows_and_explains_the_rule(played, app):
    bo, bosse, dan = ids(app, "Bo", "Bosse", "Dan")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    played.post(f"/players/{dan}/rename", data={"name": "Daniel"})
    played.post(f"/players/{bo}/merge", data={"other": str(bosse)})
    page = soup(played.get("/players"))
    entries = page.select("#people-log li")
    assert [li.select_one("form") is not None for li in entries] == [True, True, False]
    assert entries[0].select_one("form")["action"] == "/players/log/3/undo"
    assert "Only a player's latest change can be undone" in page.select_one("#people-log .meta").text
    keys = [li.select_one("input[name=key]")["value"] for li in entries if li.select_one("form")]
    assert len(set(keys)) == 2 and all(len(k) >= 16 for k in keys)
    assert undo(played, 3).status_code == 303
    entries = soup(played.get("/players")).select("#people-log li")
    assert [li.get("class") for li in entries] == [None, ["undone"], None, None]
    assert [li.select_one("form") is not None for li in entries] == [False, False, True, True]


def test_a_double_tapped_undo_undoes_once(played, app):
    bo, bosse = ids(app, "Bo", "Bosse")
    played.post(f"/players/{bo}/merge", data={"other": str(bosse)})
    assert undo(played, 1, key="tap-tap-tap-tap-1").status_code == 303
    before = fingerprint(app)
    assert undo(played, 1, key="tap-tap-tap-tap-1").status_code == 303  # the same button: the same answer
    assert fingerprint(app) == before
    again = undo(played, 1, key="another-button-key")  # a second page's button, or no key at all
    assert again.status_code == 409 and "That change was undone already" in again.text
    assert undo(played, 1).status_code == 409
    assert fingerprint(app) == before
    assert [row["kind"] for row in log_rows(app)] == ["merge", "undo"]


def test_a_key_used_to_undo_one_change_cannot_undo_another(played, app):
    bo, dan = ids(app, "Bo", "Dan")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    played.post(f"/players/{dan}/rename", data={"name": "Daniel"})
    assert undo(played, 2, key="one-button-key-xx").status_code == 303
    before = fingerprint(app)
    assert undo(played, 1, key="one-button-key-xx").status_code == 422
    assert fingerprint(app) == before


def test_an_undo_cannot_be_undone_and_an_unknown_entry_is_not_found(played, app):
    (bo,) = ids(app, "Bo")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    undo(played, 1)
    response = undo(played, 2)
    assert response.status_code == 422
    assert "An undo cannot be undone: make the change again instead" in response.text
    assert undo(played, 3).status_code == 404


def test_changes_that_change_nothing_log_nothing(played, app):
    bo, bosse = ids(app, "Bo", "Bosse")
    assert played.post(f"/players/{bo}/rename", data={"name": "Bo"}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bo)}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303
    assert played.post(f"/players/{bo}/merge", data={"other": str(bosse)}).status_code == 303  # a second tap
    assert [row["kind"] for row in log_rows(app)] == ["merge"]
    assert played.post(f"/players/{bosse}/rename", data={"name": "X"}).status_code == 404  # merged away
    assert played.post(f"/players/{bosse}/merge", data={"other": str(bo)}).status_code == 404


def test_undoing_a_rename_keeps_the_new_name_where_a_match_was_played_under_it(played, app):
    """The log did not make that match: its figures stay with the person who played it."""
    (bo,) = ids(app, "Bo")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    text = (MATCHES / "tie-break-to-ten.json").read_text().replace('"Bo"', '"Bo B"')
    assert played.post("/import", data={"text": text}).status_code == 303
    with app.app_context():
        played_before = stats.person(bo).played
    assert undo(played, 1).status_code == 303
    with app.app_context():
        person = stats.person(bo)
        assert (person.name, person.aliases, person.played) == ("Bo", ["Bo", "Bo B"], played_before)


def test_the_log_says_who_and_when_in_the_readers_language(played, app):
    from datetime import UTC, datetime

    from babel.dates import format_datetime

    bo, bosse = ids(app, "Bo", "Bosse")
    played.post(f"/players/{bo}/rename", data={"name": "Bo B"})
    played.post(f"/players/{bo}/merge", data={"other": str(bosse)})
    undo(played, 2)
    played.set_cookie("lang", "sv")
    entries = soup(played.get("/players")).select("#people-log li")
    assert [li.select_one(".what").text for li in entries] == [
        "Sammanslagningen av Bosse med Bo B ångrades",
        "Bosse slogs ihop med Bo B",
        "Bo bytte namn till Bo B",
    ]
    stored = [row["at"] for row in reversed(log_rows(app))]
    shown = [li.select_one("time") for li in entries]
    assert [t["datetime"] for t in shown] == stored
    swedish = [
        format_datetime(datetime.fromisoformat(at), "medium", tzinfo=UTC, locale="sv") for at in stored
    ]
    assert [t.text for t in shown] == swedish
    assert [li.select_one("button").text for li in entries if li.select_one("button")] == ["Ångra"]


# The property: any renames and merges (and undos on the way), undone newest first, leave every
# person's statistics as they were.

CI = settings(settings.get_profile("ci"), suppress_health_check=list(HealthCheck))  # tests/conftest.py
NAMES = st.one_of(
    st.sampled_from(["Anna", "Bo", "Bosse", "Cia", "Eva", "Bo B", "Daniel", "anna", " Filip ", ""]),
    st.text("abcÅö ", min_size=1, max_size=4),  # mostly new names, now and then a blank one
)
PEOPLE = st.integers(1, 8)  # the seven who played, and one id that is nobody
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("rename"), PEOPLE, NAMES),
        st.tuples(st.just("merge"), PEOPLE, PEOPLE),
        st.tuples(st.just("undo"), st.integers(0, 50), st.booleans()),
    ),
    min_size=3,
    max_size=24,
)


def seats_counted(app) -> tuple[int, int, int]:
    """Seats in every match, matches played summed over everybody, and seats whose name is nobody's
    (or a merged person's): always (n, n, 0), or a statistic was lost or counted twice."""
    with app.app_context():
        db = database.get_db()
        (seats,) = db.execute("SELECT COUNT(*) FROM match_players").fetchone()
        (lost,) = db.execute(
            "SELECT COUNT(*) FROM match_players mp LEFT JOIN aliases a ON a.name = mp.name"
            " LEFT JOIN people p ON p.id = a.person_id WHERE p.id IS NULL OR p.merged_into IS NOT NULL"
        ).fetchone()
        return seats, sum(p["played"] for p in stats.people()), lost


def new_app(path):
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(path),
            "SECRET_KEY": "people-log-property-secret-key-0123456789",
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
        }
    )


@pytest.mark.parametrize(
    "examples",
    # 400 sequences (about 40 s) under `pytest --nightly` only: they repeat the 20 and draw more.
    [pytest.param(20, id="20 sequences"), pytest.param(400, id="400 sequences", marks=pytest.mark.nightly)],
)
def test_any_changes_undone_newest_first_restore_every_statistic(tmp_path_factory, examples):
    folder = tmp_path_factory.mktemp("people-log")
    template = new_app(folder / "template.sqlite")
    play_matches(template.test_client())
    start, seats = everybody(template), seats_counted(template)
    assert seats == (seats[0], seats[0], 0) and len(start[0]) == 7
    seen = Counter()

    @settings(CI, max_examples=examples)
    @given(STEPS)
    def changes_then_undo_all(steps):
        path = folder / f"run-{seen['sequences']}.sqlite"
        with closing(sqlite3.connect(template.config["DATABASE"])) as source:
            with closing(sqlite3.connect(path)) as copy:
                source.backup(copy)
        app = new_app(path)
        client = app.test_client()
        seen["sequences"] += 1
        for kind, a, b in steps:
            before = fingerprint(app)
            if kind == "rename":
                response = client.post(f"/players/{a}/rename", data={"name": b})
            elif kind == "merge":
                response = client.post(f"/players/{a}/merge", data={"other": str(b)})
            else:
                entries = log_rows(app)
                if not entries:
                    continue
                response = undo(client, entries[a % len(entries)]["id"], key=f"k{a}" if b else None)
            seen[(kind, response.status_code)] += 1
            assert response.status_code in (303, 404, 409, 422), (kind, response.status_code)
            if response.status_code != 303:
                assert fingerprint(app) == before
            assert seats_counted(app) == seats  # on the way too
        rows = log_rows(app)
        undone = {row["undoes"] for row in rows}
        seen["changes logged"] += sum(row["kind"] != "undo" for row in rows)
        for row in reversed(rows):
            if row["kind"] != "undo" and row["id"] not in undone:
                assert undo(client, row["id"]).status_code == 303, row
                seen["undone at the end"] += 1
        assert everybody(app) == start
        database.close_idle(app)  # the connections the app keeps
        path.unlink()

    changes_then_undo_all()
    counts = ", ".join(f"{k if isinstance(k, str) else ' '.join(map(str, k))}: {n}" for k, n in seen.items())
    print(f"\nP1: {seen['sequences']} random sequences, undone newest first ({counts})")
