"""Issue 24: a refused import is an answer (a 422), not an error: the server's log keeps one access
line for it, and no traceback.

Under gunicorn's gevent worker, the file was read and replayed in gevent's thread pool, whose hub
printed the traceback of every refusal raised there (a FormatError, TooManyEvents or RuleBroken)
before the request answered 422: a looping importer filled the log. The test runs the command a
club runs, ``scorekeeper serve`` with its defaults, as a subprocess.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time

from servertools import SECRET, Phone, free_port
from webtools import MATCHES

from scorekeeper.web.settings import MAX_EVENTS


def refused_files() -> dict[str, str]:
    """One file of each refusal: not JSON, longer than any match, an event that breaks a rule."""
    real = json.loads((MATCHES / "two-players-to-royal-flush.json").read_text())
    too_long = {**real, "events": [{"type": "pass", "player": "Bo"}] * (MAX_EVENTS + 1)}
    after_the_end = {**real, "events": [*real["events"], {"type": "pass", "player": "Bo"}]}
    return {
        "not json": "not json",
        "too many events": json.dumps(too_long),
        "rule broken": json.dumps(after_the_end),
    }


def serve_and_post(tmp_path, posts: list[tuple[dict[str, str], int]]) -> tuple[str, str]:
    """Start ``scorekeeper serve`` with an access log, post each form to /import (the statuses
    checked), stop it; return its stderr and its access log."""
    port, access, errors = free_port(), tmp_path / "access.log", tmp_path / "stderr.log"
    args = [sys.executable, "-m", "scorekeeper.web.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    args += ["--db", str(tmp_path / "logs.sqlite"), "--access-log", str(access)]
    env = {**os.environ, "SCOREKEEPER_SECRET_KEY": SECRET, "PYTHONUNBUFFERED": "1"}
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            args, env=env, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True
        )
        try:
            phone = _phone(port, process)
            for form, status in posts:
                response, body = phone.request("POST", "/import", {"csrf_token": phone.token, **form})
                assert response.status == status, body[-300:]
            phone.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
    return errors.read_text(errors="replace"), access.read_text()


def _phone(port: int, process: subprocess.Popen[bytes]) -> Phone:
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
        try:
            return Phone(port)
        except OSError:
            time.sleep(0.05)


def test_a_refused_import_leaves_one_access_line_and_no_traceback(tmp_path):
    posts = [({"text": text}, 422) for text in refused_files().values()]
    posts.append(({"text": "not json", "csrf_token": "wrong"}, 400))  # a form from elsewhere
    stderr, access = serve_and_post(tmp_path, posts)
    for word in ("Traceback", "FormatError", "TooManyEvents", "RuleBroken", "CSRF"):
        assert word not in stderr, stderr[-3000:]
    lines = [line for line in access.splitlines() if '"POST /import"' in line]
    assert [line.split('"')[2].split()[0] for line in lines] == ["422", "422", "422", "400"]


def test_the_app_logs_nothing_for_a_refused_import(client, caplog):
    caplog.set_level(logging.DEBUG)
    for name, text in refused_files().items():
        assert client.post("/import", data={"text": text}).status_code == 422, name
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING] == []
