"""A real server for the load and crash tests: `scorekeeper serve` on 127.0.0.1, and a scorekeeper speaking HTTP."""

from __future__ import annotations

import gzip
import http.client
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import IO

from simulate import random_events
from webtools import form_for

from scorekeeper.rules import Rules

SECRET = "load-and-crash-tests-secret-key-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``scorekeeper serve`` in its own session, so that kill -9 takes every process of it."""

    def __init__(
        self,
        db: Path,
        threads: int | None = None,
        access_log: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.db, self.threads, self.access_log = db, threads, access_log
        self.env = env or {}
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        # The server's stderr, in a file: a pipe nobody reads would block a server that logs
        # more than it holds, and a failing test shows the errors the server logged.
        self.log: IO[bytes] | None = None

    def start(self) -> Server:
        args = [
            sys.executable,
            "-m",
            "scorekeeper.web.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            str(self.db),
        ]
        if self.threads is not None:
            args += ["--threads", str(self.threads)]
        if self.access_log is not None:
            args += ["--access-log", str(self.access_log)]
        env = {**os.environ, "SCOREKEEPER_SECRET_KEY": SECRET, "PYTHONUNBUFFERED": "1", **self.env}
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            args, env=env, stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.logged()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError("the server did not start")

    def rss_mb(self) -> float:
        """The server's resident memory (VmRSS), in MB (10^6 bytes)."""
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)) * 1024 / 1e6

    def kill(self) -> None:
        """kill -9 every process of the server, at once."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def _end(self, how: signal.Signals) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, how)
            self.process.wait(timeout=15)
        logged = self.logged()
        if "Traceback" in logged:  # pytest shows it with the test that failed
            print(f"\nthe server's errors (port {self.port}):\n{logged[-6000:]}")
        if self.log is not None:
            self.log.close()

    def logged(self) -> str:
        """What the server wrote to stderr so far."""
        if self.log is None or self.log.closed:
            return ""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


class Phone:
    """One phone: a session cookie, the CSRF token, and the forms the pages show."""

    def __init__(self, port: int, cookie: str = "", token: str = "") -> None:
        self.port, self.cookie, self.token = port, cookie, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.wire_bytes = 0
        if not token:
            page = self.request("GET", "/new")[1].decode()
            self.token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def post(self, path: str, body: dict, minimal: bool = False):
        """A tap as htmx sends it; ``minimal`` asks for the acknowledgement only (RFC 7240)."""
        headers = {"HX-Request": "true", **({"Prefer": "return=minimal"} if minimal else {})}
        return self.request("POST", path, body, headers)

    def close(self) -> None:
        self.conn.close()

    def clone(self) -> Phone:
        """Another connection of the same phone (same session and token)."""
        return Phone(self.port, self.cookie, self.token)

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        data = urllib.parse.urlencode(body or {}, doseq=True)
        head = {"Accept-Encoding": "gzip", "Cookie": self.cookie, **(headers or {})}
        if body is not None:
            head["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.conn.request(method, path, data if body is not None else None, head)
            response = self.conn.getresponse()
            wire = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            raise
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        self.wire_bytes = len(wire)
        encoding = response.getheader("Content-Encoding")
        if encoding == "gzip":
            return response, gzip.decompress(wire)
        if encoding == "br":
            import brotli

            return response, brotli.decompress(wire)
        return response, wire


class Keeper(Phone):
    """A scorekeeper scoring one long match of real rounds (random legal play), tap by tap."""

    def __init__(self, port: int, seed: int, target: int = 1000, steps: int = 3000, **kwargs) -> None:
        super().__init__(port, **kwargs)
        self.rng = random.Random(seed)
        self.target, self.steps = target, steps
        self.new_match()

    def new_match(self) -> None:
        form = {"name": ["Anna", "Bo", "Cia"], "dealer": "draw", "start": "1", "target": str(self.target)}
        response, _ = self.request("POST", "/new", {**form, "csrf_token": self.token})
        self.match = response.getheader("Location").rsplit("/", 1)[1]
        share = self.request("GET", f"/m/{self.match}/handover")[1].decode()
        self.watch = re.search(r"/watch\?t=([\w-]+)", share).group(1)
        self.events, _ = random_events(
            ("Anna", "Bo", "Cia"), Rules(target=self.target), self.rng.choice, self.steps
        )
        self.version = 0

    def tap_form(self, version: int | None = None) -> tuple[str, dict]:
        """The path and fields of the next tap, with a fresh key."""
        event = self.events[self.version]
        path = f"/m/{self.match}/" + ("undo" if event.type == "undo" else "record")
        fields = {} if event.type == "undo" else form_for(event)
        key = f"{self.match}-{self.version}-{self.rng.random()}"
        body = {**fields, "version": str(self.version if version is None else version), "key": key}
        return path, {**body, "csrf_token": self.token}

    def version_now(self) -> int:
        page = self.request("GET", f"/m/{self.match}")[1].decode()
        return int(re.search(r'name="version" value="(\d+)"', page).group(1))
