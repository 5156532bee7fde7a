"""``scorekeeper export ID`` takes every id a match can have (issue 24), and prints nothing but the file.

A match id is ``secrets.token_urlsafe(16)``: about one in 64 starts with '-', which argparse
would take for an option.
"""

from __future__ import annotations

import json
import secrets

import pytest
from webtools import MATCHES, recorded

from scorekeeper.matchfile import load
from scorekeeper.web import cli

DASHED = "-abc_DEF123ghiJKL456mno"  # 22 characters, as token_urlsafe(16) makes them


@pytest.fixture
def dashed(tmp_path, monkeypatch, capfd) -> str:
    """A database holding one imported match whose id starts with '-'."""
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "export-secret-key-0123456789abcdef")
    real = secrets.token_urlsafe
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n=None: DASHED if n == 16 else real(n))
    db = str(tmp_path / "export.sqlite")
    assert cli.main(["import", str(MATCHES / "two-players-to-royal-flush.json"), "--db", db]) == 0
    assert capfd.readouterr().out.strip() == DASHED
    return db


@pytest.mark.parametrize(
    "args",
    [
        ["export", "--db", "DB", "--", DASHED],
        ["export", DASHED, "--db", "DB"],
        ["export", "--db", "DB", DASHED],
        ["export", "--db=DB", DASHED],
    ],
    ids=["after --", "plain, then --db", "plain, after --db", "plain, after --db="],
)
def test_export_takes_an_id_that_starts_with_a_dash(dashed, capfd, args):
    argv = [arg.replace("DB", dashed) for arg in args]
    assert cli.main(argv) == 0
    out = capfd.readouterr()
    assert out.err == ""
    assert load(json.loads(out.out)) == load(recorded("two-players-to-royal-flush"))
    assert json.loads(out.out)["id"] == DASHED


def test_exporting_a_missing_match_says_so_in_one_line_and_prints_nothing(dashed, capfd):
    assert cli.main(["export", "-nothing_like_it_here00", "--db", dashed]) == 2
    out = capfd.readouterr()
    assert out.out == ""
    assert out.err == "no match '-nothing_like_it_here00' in this database\n"


def test_the_options_of_export_are_still_options(dashed, capfd):
    with pytest.raises(SystemExit) as help_asked:
        cli.main(["export", "-h"])
    assert help_asked.value.code == 0 and "match_id" in capfd.readouterr().out
    with pytest.raises(SystemExit) as nothing_named:
        cli.main(["export", "--db", dashed])
    assert nothing_named.value.code == 2  # the id is still required


def test_importing_a_stored_match_again_prints_its_id_and_stores_nothing(dashed, capfd):
    """Issue 25: the same file again is the match already stored; the command says so on stderr."""
    assert cli.main(["import", str(MATCHES / "two-players-to-royal-flush.json"), "--db", dashed]) == 0
    out, err = capfd.readouterr()
    assert out.strip() == DASHED and "already stored" in err
    assert cli.main(["export", "--db", dashed, "--", DASHED]) == 0
    exported = json.loads(capfd.readouterr().out)
    assert "created_at" not in exported and all("at" not in e for e in exported["events"])  # none given
