"""A database made by an earlier version of the app still opens, migrates and shows the same.

legacy.sqlite was written through the app's HTTP routes by make_legacy_db.py, at the commit
named in legacy.json: matches in every state a match can be in, imported matches, renamed and
merged people. expected/ holds what that version showed over it: the exports byte for byte, and
the visible text of the pages (legacytools.page_text). Each test here runs the app of this
checkout over a copy of the file, with the same SECRET_KEY (the live-view links are an HMAC of
the match id with it), and compares one route.

When a difference is intended, do not regenerate the fixture with the new code (it would then
prove nothing about old databases): change the expected text of that route by hand, in the same
commit as the change, and say why.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from legacytools import (
    DATABASE,
    EXPECTED,
    META,
    PAGE_KINDS,
    app_config,
    get,
    load_json,
    page_lines,
    page_text,
)

from scorekeeper.web import create_app

LEGACY = load_json(META)
SECRETS = {match["label"]: match["keeper_secret"] for match in LEGACY["matches"]}
EXPORTS = load_json(EXPECTED / "exports.json")
# Since migration m005 each phone shows its own hand-over link (an HMAC of the match id with the
# phone's device secret, so random in every run) where the match's secret was: the expected
# handover pages say "(this phone's own)" in its place, and the link shown must claim the match.
CLAIM_LINK = re.compile(r"(http://localhost/claim\?t=)([\w-]+)")
OWN_LINK = r"\1(this phone's own)"
PAGES = [
    pytest.param(expected, id=f"{kind}:{name}")
    for kind in PAGE_KINDS
    for name, expected in load_json(EXPECTED / f"{kind}.json").items()
]


def start(database: Path) -> Any:
    """The app of this checkout over ``database`` (its migrations run at start)."""
    return create_app(app_config(database, LEGACY["secret_key"]))


def dump(database: Path) -> list[str]:
    """The whole database as SQL: schema and rows."""
    with closing(sqlite3.connect(database)) as conn:
        return list(conn.iterdump())


def differences(expected: list[str], actual: list[str]) -> str:
    return "\n".join(difflib.unified_diff(expected, actual, "expected", "now", lineterm=""))


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("legacy") / "legacy.sqlite"
    shutil.copyfile(DATABASE, copy)
    return copy


@pytest.fixture(scope="module")
def started(database: Path) -> tuple[Any, list[str]]:
    """The app over the copy, and the database just after it started (before any page was shown)."""
    app = start(database)
    return app, dump(database)


@pytest.fixture(scope="module")
def app(started: tuple[Any, list[str]]) -> Any:
    return started[0]


def test_the_fixture_is_one_small_checkpointed_file() -> None:
    assert DATABASE.stat().st_size < 1024 * 1024
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{DATABASE}{suffix}").exists()


def test_the_file_is_sound_before_and_after_the_migrations(tmp_path: Path, database: Path, app: Any) -> None:
    untouched = tmp_path / "untouched.sqlite"
    shutil.copyfile(DATABASE, untouched)
    for path in (untouched, database):
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)], path.name


def test_a_second_start_changes_nothing(tmp_path: Path) -> None:
    """The migrations ran at the first start; a second start over the same file finds nothing to do."""
    copy = tmp_path / "legacy.sqlite"
    shutil.copyfile(DATABASE, copy)
    start(copy)
    first = dump(copy)
    start(copy)
    again = dump(copy)
    assert again == first, differences(first, again)


@pytest.mark.parametrize("expected", EXPORTS.values(), ids=EXPORTS.keys())
def test_an_export_is_the_same_file(app: Any, expected: dict[str, Any]) -> None:
    response = get(app, expected, SECRETS)
    assert response.status_code == expected["status"]
    assert response.headers["Content-Type"] == expected["content_type"]
    assert response.headers["Content-Disposition"] == expected["disposition"]
    want, got = (EXPECTED / expected["file"]).read_bytes(), response.get_data()
    if expected["path"].endswith("/export"):
        # The match file names the version of the app that wrote it ("app_version"): a later version
        # writes its own. Every other byte must stay the same, so only that value is taken from now.
        try:
            version = json.loads(got)["app_version"]
        except (ValueError, KeyError, TypeError):
            version = None
        if version is not None and version != LEGACY["app_version"]:
            then, now = (json.dumps(v, ensure_ascii=False) for v in (LEGACY["app_version"], version))
            want = want.replace(f'"app_version": {then}'.encode(), f'"app_version": {now}'.encode(), 1)
    if got != want:
        was, now = (b.decode("utf-8", "replace").splitlines() for b in (want, got))
        diff = differences(was, now) or "(the same lines: only the line endings or the last newline differ)"
        pytest.fail(f"{expected['path']} exports something else:\n{diff}")


@pytest.mark.parametrize("expected", PAGES)
def test_a_page_shows_the_same(app: Any, expected: dict[str, Any]) -> None:
    response = get(app, expected, SECRETS)
    html = response.get_data(as_text=True)
    assert response.status_code == expected["status"], expected["path"]
    for link, secret in set(CLAIM_LINK.findall(html)):
        claimed = app.test_client().get(f"/claim?t={secret}")
        assert claimed.status_code == 303, f"{link}: {claimed.status_code}"
        assert claimed.headers["Location"] == expected["path"].removesuffix("/handover")
    lines = [CLAIM_LINK.sub(OWN_LINK, line) for line in page_lines(html)]
    if CLAIM_LINK.sub(OWN_LINK, page_text(html)) != " ".join(expected["text"]):
        pytest.fail(f"{expected['path']} shows something else:\n{differences(expected['text'], lines)}")


def test_showing_the_pages_wrote_nothing(started: tuple[Any, list[str]], database: Path) -> None:
    """Last in this file: every page above was a read.

    Claiming the role (the scorekeeper's pages) stores only who holds it: since migration m005,
    roles live in the database against each phone's device, not in its cookie.
    """
    app, before = started
    for expected in PAGES[::10]:  # some reads, also when this test runs alone
        get(app, expected.values[0], SECRETS)
    after = [line for line in dump(database) if not line.startswith('INSERT INTO "roles"')]
    assert after == before, differences(before, after)
