"""TRUST.md R6: a full disk, a read-only or missing database, and a locked one at start-up."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from disktools import fill, read_only, small_disk
from servertools import free_port
from simulate import random_events
from webtools import Keeper, form_for, old_secret, soup

from scorekeeper.events import Dealer
from scorekeeper.rules import Rules
from scorekeeper.web import create_app
from scorekeeper.web.settings import ConfigError, _secret_key
from scorekeeper.web.store import creations, faults, migrations
from scorekeeper.web.store import db as database
from scorekeeper.web.store.faults import Fault, fault_of

SECRET = "storage-faults-secret-key-0123456789abcdef"
RACES = 20


def _start_at_once(paths: list[str], ready, answers) -> None:
    """Create the app over each fresh database at the same moment as the other process."""
    for path in paths:
        ready.wait()
        app = create_app({"TESTING": True, "DATABASE": path, "SECRET_KEY": SECRET})
        answers.put((path, app.config["READ_ONLY"]))


@pytest.mark.slow  # two interpreters start: about 10 s
def test_two_processes_starting_over_a_fresh_database_at_once_both_may_write(tmp_path):
    """A database locked by the other process at start is waited for, not a failed check (R5 is not R6)."""
    paths = [str(tmp_path / f"race-{i}.sqlite") for i in range(RACES)]
    context = multiprocessing.get_context("spawn")  # each process imports and starts as a server would
    ready, answers = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_start_at_once, args=(paths, ready, answers)) for _ in range(2)]
    for process in processes:
        process.start()
    found = [answers.get(timeout=120) for _ in range(2 * RACES)]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert [(path, read_only) for path, read_only in found if read_only] == []
    assert len({path for path, _ in found}) == RACES


def test_every_migration_can_run_inside_the_start_up_transaction():
    """Start-up migrates inside one BEGIN IMMEDIATE (the lock is what makes two starts safe)."""
    assert all(m.transactional for m in migrations.migrations._migrations)


def _make_keys_at_once(folders: list[str], ready, answers) -> None:
    """Start over each fresh instance folder (no SCOREKEEPER_SECRET_KEY) at the same moment as the other."""
    os.environ.pop("SCOREKEEPER_SECRET_KEY", None)
    for folder in folders:
        ready.wait()
        answers.put((folder, _secret_key(Path(folder))))


@pytest.mark.slow  # two interpreters start: about 5 s
def test_two_processes_starting_over_a_fresh_instance_folder_at_once_keep_the_same_whole_key(tmp_path):
    """Before, one of them could read the other's key file half written (empty): refused, or another key."""
    folders = [tmp_path / f"instance-{i}" for i in range(200)]
    for folder in folders:
        folder.mkdir()
    context = multiprocessing.get_context("spawn")
    ready, answers = context.Barrier(2), context.Queue()
    args = ([str(f) for f in folders], ready, answers)
    processes = [context.Process(target=_make_keys_at_once, args=args) for _ in range(2)]
    for process in processes:
        process.start()
    keys: dict[str, list[str]] = {}
    for _ in range(2 * len(folders)):
        folder, key = answers.get(timeout=120)
        keys.setdefault(folder, []).append(key)
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    for folder in folders:
        first, second = keys[str(folder)]
        assert first == second == (folder / "secret_key").read_text() and len(first) == 64
        assert [p.name for p in folder.iterdir()] == ["secret_key"]  # no draft left behind


# Faults while the app runs: a tap gets the read-only page with the reason, nothing recorded is lost,
# and the next tap after the cause is gone is recorded, without a restart.


def make_app(path: Path):
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(path),
            "SECRET_KEY": SECRET,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
        }
    )


class Table:
    """A scorekeeper scoring one match of random legal play, tap by tap, each tap with its own key."""

    def __init__(self, app) -> None:
        self.app, self.client = app, app.test_client()
        self.keeper = Keeper(app, self.client).new("Anna", "Bo", "Cia")  # the first dealer is drawn
        self.events, _ = random_events(
            ("Anna", "Bo", "Cia"), Rules(), random.Random(6).choice, 200, undo=False
        )
        self.acknowledged = 0
        # Another server thread's connection: with it open, closing the app's one checkpoints nothing.
        self.other = sqlite3.connect(app.config["DATABASE"])
        self.other.execute("SELECT COUNT(*) FROM events").fetchone()

    def tap(self):
        """Post the next event; on a 2xx it counts as acknowledged."""
        event = self.events[self.acknowledged]
        key = f"tap-{self.acknowledged}"
        answer = self.keeper.post(version=self.acknowledged, key=key, **form_for(event))
        if answer.status_code < 300:
            self.acknowledged += 1
        return answer

    def stored(self) -> int:
        """The events in the file, read by a connection of its own (not the app's)."""
        conn = sqlite3.connect(self.app.config["DATABASE"])
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            conn.close()

    def close(self) -> None:
        database.close_idle(self.app)
        self.other.close()


def in_another_thread(call):
    """Run ``call`` in a thread of its own, as a server thread that has not yet opened the database."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def assert_read_only_page(answer, *words: str, hidden: str) -> None:
    """The 503 read-only page with the reason, and TRUST.md I2: short HTML, no traceback, SQL or path."""
    assert answer.status_code == 503
    assert answer.content_type == "text/html; charset=utf-8"
    text = soup(answer).select_one("main [role=alert]").get_text(" ", strip=True)
    assert text.startswith("Scores cannot be saved because ")
    for word in words:
        assert word in text
    body = answer.get_data(as_text=True)
    assert len(body) < 8000
    for leak in ("Traceback", "sqlite", "SELECT", "INSERT", "COMMIT", hidden, "errno"):
        assert leak not in body


def test_a_full_disk_refuses_the_tap_with_the_reason_keeps_every_event_and_recovers_when_space_returns(
    tmp_path,
):
    with small_disk(tmp_path / "disk") as disk:
        table = Table(make_app(disk / "scores.sqlite"))
        try:
            for _ in range(20):
                assert table.tap().status_code == 200
            before = table.acknowledged
            filler = fill(disk)
            refused = [table.tap() for _ in range(3)]
            for answer in refused:
                assert_read_only_page(answer, "the disk is full. Free space on the server", hidden=str(disk))
            assert table.acknowledged == before
            assert table.stored() == before  # every acknowledged event, and no other
            assert table.client.get(f"/m/{table.keeper.match_id}").status_code == 200  # reads still work
            filler.unlink()
            for _ in range(5):  # the same app, no restart: the refused tap and the next ones
                assert table.tap().status_code == 200
            assert table.stored() == table.acknowledged == before + 5
        finally:
            table.close()


def test_a_read_only_database_file_refuses_writes_with_the_reason_and_still_shows_the_match(tmp_path):
    table = Table(make_app(tmp_path / "scores.sqlite"))
    for _ in range(5):
        assert table.tap().status_code == 200
    page = f"/m/{table.keeper.match_id}"
    try:
        database.close_idle(table.app)
        table.other.close()  # with none open, a connection opened now cannot write through the WAL
        with read_only(tmp_path / "scores.sqlite"):
            # A connection opened now (as after a restart, or when the kept ones are busy) finds it
            # read-only. One opened before would still write: the mount cannot take that back.
            answer = in_another_thread(table.tap)
            assert_read_only_page(
                answer, "the database file or its folder is read-only", hidden=str(tmp_path)
            )
            shown = in_another_thread(lambda: table.client.get(page))
            assert shown.status_code == 200 and "Anna" in shown.text
            assert table.stored() == table.acknowledged == 5
        # Writable again: a connection opened read-only is not lent again, and the tap writes at once.
        database.close_idle(table.app)
        with ThreadPoolExecutor(1) as thread:
            with read_only(tmp_path / "scores.sqlite"):
                assert thread.submit(table.client.get, page).result().status_code == 200
            assert thread.submit(table.tap).result().status_code == 200
            thread.submit(database.close_idle, table.app).result()
        assert table.stored() == table.acknowledged == 6
    finally:
        table.close()


def test_a_read_only_folder_refuses_writes_with_the_reason(tmp_path):
    folder = tmp_path / "scores"
    folder.mkdir()
    table = Table(make_app(folder / "scores.sqlite"))
    assert table.tap().status_code == 200
    try:
        database.close_idle(table.app)  # a connection opened before would still write its WAL
        table.other.close()
        with read_only(folder):
            answer = in_another_thread(table.tap)
            assert_read_only_page(
                answer, "the database file or its folder is read-only", hidden=str(tmp_path)
            )
        assert in_another_thread(table.tap).status_code == 200
        assert table.stored() == table.acknowledged == 2
    finally:
        table.close()


def test_a_database_that_cannot_be_opened_refuses_the_tap_with_the_reason_and_recovers(tmp_path):
    """The folder is gone (a disk unplugged, a folder moved): the app says so, and never makes an empty one."""
    folder = tmp_path / "scores"
    folder.mkdir()
    table = Table(make_app(folder / "scores.sqlite"))
    assert table.tap().status_code == 200
    table.close()  # the next request opens the file again, as a new server thread does
    try:
        folder.rename(tmp_path / "elsewhere")
        answer = table.tap()
        assert_read_only_page(answer, "the database cannot be opened", hidden=str(tmp_path))
        assert not folder.exists()
        (tmp_path / "elsewhere").rename(folder)
        assert table.tap().status_code == 200
        assert table.stored() == table.acknowledged == 2
    finally:
        table.close()


def test_an_old_cookies_roles_wait_while_the_file_is_read_only_and_the_page_is_still_shown(tmp_path):
    app = make_app(tmp_path / "scores.sqlite")
    client = app.test_client()
    with app.test_request_context():
        match_id = creations.create_match(("Anna", "Bo"), Rules(), (Dealer("Anna"),))
    secret = old_secret(app, match_id)
    with client.session_transaction() as session:  # as the old code left it: match id -> secret
        session["keeper"] = {match_id: secret}
    database.close_idle(app)  # a connection opened before would still write its WAL
    try:
        with read_only(tmp_path / "scores.sqlite"):
            assert in_another_thread(lambda: client.get(f"/m/{match_id}")).status_code == 200
            with client.session_transaction() as session:
                assert session["keeper"] == {match_id: secret}  # kept for when roles can be written
        assert in_another_thread(lambda: client.get(f"/m/{match_id}")).status_code == 200
        with client.session_transaction() as session:
            assert "keeper" not in session
    finally:
        database.close_idle(app)


# Start-up: a database that cannot be written or opened stops the start with one line, no traceback.

ROOT = Path(__file__).resolve().parents[2]


def serve(db: Path) -> subprocess.CompletedProcess[str]:
    """``scorekeeper serve`` over ``db``, as a person starts it; it must stop by itself."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "scorekeeper.web.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--db",
            str(db),
            "--port",
            str(free_port()),
        ],
        env={**os.environ, "SCOREKEEPER_SECRET_KEY": SECRET},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_one_line(started: subprocess.CompletedProcess[str], *words: str) -> None:
    assert started.returncode == 2, started.stderr
    assert started.stdout == ""  # it never said it was listening
    lines = started.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("scorekeeper: cannot start: "), started.stderr
    assert "Traceback" not in started.stderr
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("existing", [False, True], ids=["fresh", "existing"])
def test_starting_on_a_read_only_folder_prints_one_line_and_exits_non_zero(tmp_path, existing):
    folder = tmp_path / "scores"
    folder.mkdir()
    if existing:
        Table(make_app(folder / "scores.sqlite")).close()
    with read_only(folder):
        started = serve(folder / "scores.sqlite")
    assert_one_line(started, "the database file or its folder is read-only", str(folder / "scores.sqlite"))
    assert sorted(p.name for p in folder.iterdir()) == (["scores.sqlite"] if existing else [])


def test_starting_where_the_database_cannot_be_opened_prints_one_line_and_exits_non_zero(tmp_path):
    started = serve(tmp_path / "unplugged" / "scores.sqlite")
    assert_one_line(started, "the database cannot be opened")


def test_a_read_only_instance_folder_without_a_secret_key_is_one_line(tmp_path):
    with read_only(tmp_path):
        with pytest.raises(
            ConfigError, match="cannot keep a new secret key in .*: set SCOREKEEPER_SECRET_KEY"
        ):
            _secret_key(tmp_path)


def test_a_data_folder_that_cannot_be_made_is_one_line(tmp_path, monkeypatch):
    from scorekeeper.web import datadir

    def refused(path, mode=0o777, parents=False, exist_ok=False):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(datadir, "old_folder", lambda app: tmp_path / "old-instance")
    monkeypatch.delenv("SCOREKEEPER_SECRET_KEY", raising=False)
    monkeypatch.setattr(Path, "mkdir", refused)
    with pytest.raises(ConfigError, match="cannot make the data folder .* \\(Read-only file system\\)"):
        create_app({"TESTING": True, "DATABASE": str(tmp_path / "scores.sqlite")})  # the key is kept there


def sqlite_error(code: int, kind=sqlite3.OperationalError) -> sqlite3.Error:
    error = kind("as SQLite says it")
    error.sqlite_errorcode = code
    return error


@pytest.mark.parametrize(
    ("code", "where", "fault"),
    [
        (sqlite3.SQLITE_FULL, "here", Fault.FULL),
        (sqlite3.SQLITE_IOERR_WRITE, "here", Fault.DISK_ERROR),
        (sqlite3.SQLITE_IOERR_WRITE, "full", Fault.FULL),  # a failed write on a full disk
        (sqlite3.SQLITE_READONLY, "here", Fault.READ_ONLY),
        (sqlite3.SQLITE_PERM, "here", Fault.READ_ONLY),
        (sqlite3.SQLITE_READONLY_DBMOVED, "here", Fault.CANNOT_OPEN),  # moved or deleted under the app
        (sqlite3.SQLITE_CANTOPEN, "here", Fault.CANNOT_OPEN),
        (sqlite3.SQLITE_CANTOPEN, "gone", Fault.CANNOT_OPEN),
        (sqlite3.SQLITE_BUSY, "here", None),  # waited for; never a storage fault
        (sqlite3.SQLITE_CONSTRAINT, "here", None),  # a bug: 500
    ],
    ids=[
        "full",
        "io-error",
        "io-error-full",
        "readonly",
        "perm",
        "moved",
        "cantopen",
        "no-folder",
        "busy",
        "bug",
    ],
)
def test_each_sqlite_failure_names_the_fault_a_person_can_act_on(tmp_path, monkeypatch, code, where, fault):
    folder = tmp_path / "gone" if where == "gone" else tmp_path
    if where == "full":
        nearly_full = shutil.disk_usage(tmp_path)._replace(free=4096)
        monkeypatch.setattr(faults.shutil, "disk_usage", lambda _: nearly_full)
    assert fault_of(sqlite_error(code), str(folder / "scores.sqlite")) is fault


def test_a_corrupt_database_or_another_error_is_no_storage_fault(tmp_path):
    path = str(tmp_path / "scores.sqlite")
    assert fault_of(sqlite_error(sqlite3.SQLITE_CORRUPT, sqlite3.DatabaseError), path) is None
    assert fault_of(OSError("not from SQLite"), path) is None


@pytest.mark.slow  # one busy timeout: 5 s
def test_a_database_held_locked_past_the_patience_of_start_up_stops_it_with_one_line(tmp_path, monkeypatch):
    path = tmp_path / "scores.sqlite"
    make_app(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(database, "START_PATIENCE", 0)
    try:
        with pytest.raises(database.CannotStart, match="another program has held the database locked"):
            make_app(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert make_app(path).config["READ_ONLY"] is False
