"""Issue 25, item 3: the matches and the key live in the user data folder, and an old instance folder
inside the venv is moved there whole, or kept and said, never split from its key (TRUST.md S12)."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest
from webtools import MATCHES

from scorekeeper.web import cli, create_app, datadir, server

KEY = "the-old-instance-folders-key-0123456789abcdef"


@pytest.fixture
def places(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """The old instance folder (inside a venv) and the user data folder, both under tmp_path."""
    old, home = tmp_path / "venv" / "var" / "scorekeeper.web-instance", tmp_path / "data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))  # what platformdirs reads on Linux
    monkeypatch.setattr(datadir, "old_folder", lambda app: old)
    monkeypatch.setattr(datadir, "in_environment", lambda folder: folder == old)  # as inside .venv
    for name in ("SCOREKEEPER_DATABASE", "SCOREKEEPER_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    return old, home / "chicago-scorekeeper"


def import_one(db: Path) -> None:
    """``scorekeeper import`` of one recorded match into ``db``, made with the old key."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCOREKEEPER_SECRET_KEY", KEY)
        assert cli.main(["import", str(MATCHES / "two-players-to-royal-flush.json"), "--db", str(db)]) == 0


def an_old_folder(old: Path) -> str:
    """An instance folder as the app left it: a database with one imported match, and its key."""
    old.mkdir(parents=True)
    (old / "secret_key").write_text(KEY)
    import_one(old / "scorekeeper.sqlite")
    return match_ids(old / "scorekeeper.sqlite")[0]


def match_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM matches")]


def test_the_user_data_folder_follows_xdg_data_home(places):
    assert datadir.user_folder() == places[1]


def test_a_first_start_keeps_the_database_and_the_key_in_the_user_data_folder(places):
    old, new = places
    app = create_app()
    assert app.config["DATABASE"] == str(new / "scorekeeper.sqlite")
    assert (new / "secret_key").read_text() == app.config["SECRET_KEY"]
    assert app.config["DATA_NOTE"] is None
    assert not old.exists()


def test_an_old_instance_folder_moves_whole_with_its_key(places, capsys):
    old, new = places
    match = an_old_folder(old)
    app = create_app()
    assert not old.exists()
    assert app.config["DATABASE"] == str(new / "scorekeeper.sqlite")
    assert app.config["SECRET_KEY"] == KEY and match_ids(new / "scorekeeper.sqlite") == [match]
    assert app.config["DATA_NOTE"] == f"Moved the matches and the secret key from {old} to {new}."
    with app.test_client() as phone:
        assert phone.get(f"/m/{match}/history").status_code == 200  # the match is served from its new place
    again = create_app()  # the next start finds everything where it is now, and says nothing more
    assert again.config["DATA_NOTE"] is None and again.config["SECRET_KEY"] == KEY


def test_an_old_key_alone_moves_so_that_a_database_named_by_db_keeps_its_key(places, tmp_path):
    old, new = places
    elsewhere = tmp_path / "club.sqlite"
    old.mkdir(parents=True)
    (old / "secret_key").write_text(KEY)
    import_one(elsewhere)
    app = create_app(database=str(elsewhere))  # as `scorekeeper serve --db club.sqlite` starts it
    assert app.config["SECRET_KEY"] == KEY and (new / "secret_key").read_text() == KEY and not old.exists()


def test_the_real_old_folder_of_an_installed_app_is_inside_its_environment(tmp_path):
    import sys

    assert datadir.in_environment(Path(sys.prefix) / "var" / "scorekeeper.web-instance")
    assert not datadir.in_environment(tmp_path / "checkout" / "instance")


def test_an_old_folder_outside_the_environment_is_used_where_it_is(places, monkeypatch):
    """A source checkout's instance/ (an editable install, flask run): deleting the venv leaves it."""
    old, new = places
    match = an_old_folder(old)
    monkeypatch.setattr(datadir, "in_environment", lambda folder: False)
    app = create_app()
    assert app.config["DATABASE"] == str(old / "scorekeeper.sqlite") and app.config["SECRET_KEY"] == KEY
    assert match_ids(old / "scorekeeper.sqlite") == [match] and not new.exists()
    assert (
        app.config["DATA_NOTE"]
        == f"The matches and their secret key stay in {old}, where an older version kept them."
    )


def test_a_folder_that_cannot_be_moved_is_used_where_it_is_and_said(places, monkeypatch):
    old, new = places
    match = an_old_folder(old)

    def other_disk(source, target):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(datadir.os, "rename", other_disk)
    app = create_app()
    assert app.config["DATABASE"] == str(old / "scorekeeper.sqlite") and app.config["SECRET_KEY"] == KEY
    assert match_ids(old / "scorekeeper.sqlite") == [match]
    assert not (new / "scorekeeper.sqlite").exists()  # no new empty database beside the old full one
    assert app.config["DATA_NOTE"].startswith(f"The matches stay in {old} (inside the Python environment")
    assert "Invalid cross-device link" in app.config["DATA_NOTE"]


def test_a_new_folder_with_a_key_of_its_own_leaves_the_old_database_with_its_key(places):
    old, new = places
    match = an_old_folder(old)
    new.mkdir(parents=True)
    (new / "secret_key").write_text("another-key-made-by-a-newer-start-0123456789")
    app = create_app()
    assert app.config["DATABASE"] == str(old / "scorekeeper.sqlite") and app.config["SECRET_KEY"] == KEY
    assert app.config["KEY_FILE"] == str(old / "secret_key")
    assert match_ids(old / "scorekeeper.sqlite") == [match] and not (new / "scorekeeper.sqlite").exists()
    assert "because" in app.config["DATA_NOTE"] and "already holds another key" in app.config["DATA_NOTE"]


def test_with_a_database_in_both_places_the_new_one_is_used_and_the_old_one_named(places):
    old, new = places
    an_old_folder(old)
    new.mkdir(parents=True)
    (new / "secret_key").write_text("another-key-made-by-a-newer-start-0123456789")
    sqlite3.connect(new / "scorekeeper.sqlite").close()  # a database of its own (empty here)
    app = create_app()
    assert app.config["DATABASE"] == str(new / "scorekeeper.sqlite")
    assert app.config["DATA_NOTE"] == (
        f"{old / 'scorekeeper.sqlite'} is an older database this server does not use (--db opens it)."
    )
    assert match_ids(old / "scorekeeper.sqlite")  # left as it was


def test_a_second_process_finds_the_folder_moved_by_the_first(places, monkeypatch):
    old, new = places
    match = an_old_folder(old)
    real_rename = os.rename

    def beaten(source, target):  # another process renames it first, then this one's rename fails
        real_rename(source, target)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))

    monkeypatch.setattr(datadir.os, "rename", beaten)
    app = create_app()
    assert app.config["DATABASE"] == str(new / "scorekeeper.sqlite") and app.config["SECRET_KEY"] == KEY
    assert match_ids(new / "scorekeeper.sqlite") == [match]


def test_db_and_the_key_from_the_environment_leave_both_folders_alone(places, tmp_path, monkeypatch):
    old, new = places
    an_old_folder(old)
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "a-key-given-by-the-environment-0123456789")
    app = create_app(database=str(tmp_path / "given.sqlite"))
    assert app.config["DATABASE"] == str(tmp_path / "given.sqlite") and app.config["DATA_NOTE"] is None
    assert (old / "scorekeeper.sqlite").exists() and not new.exists()


def test_a_data_folder_that_cannot_be_made_stops_the_start_in_one_line(places, capsys):
    old, new = places
    new.parent.write_text("a file where the data folder's parent should be")
    assert cli.main(["export", "nothing"]) == 2
    said = capsys.readouterr().err
    assert said == f"scorekeeper: cannot make the data folder {new} (Not a directory)\n"


class Stopped:
    def __init__(self, _: object = None) -> None:
        self.channel_class = object

    def run(self) -> None:
        pass


def test_serve_says_first_where_the_matches_and_their_key_are(places, monkeypatch, capsys):
    old, new = places
    an_old_folder(old)
    capsys.readouterr()
    monkeypatch.setattr(server.waitress, "create_server", lambda app, **options: Stopped())
    monkeypatch.setattr(cli, "_can_listen", lambda host, port: None)  # no real socket
    monkeypatch.setattr(server, "lan_address", lambda: None)
    assert cli.main(["serve", "--port", "5000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        f"The matches are kept in {new / 'scorekeeper.sqlite'}, their secret key in {new / 'secret_key'}:"
        " back them up together.",
        f"Moved the matches and the secret key from {old} to {new}.",
    ]
