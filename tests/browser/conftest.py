"""Real-browser fixtures: the app under `scorekeeper serve` on 127.0.0.1, and Debian's Chromium through Playwright.

Playwright cannot download its own browser here, so Chromium is the system
one: Debian's headless shell (``apt-get install chromium-headless-shell``, done
by .ci/run), the Chromium build without a window that Playwright itself runs
headless. These tests never skip: without it they fail and say why.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browsertools import launch

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output" / "screens"
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Iterator[str]:
    """Start ``scorekeeper serve`` on a free loopback port; fail with its output if it dies."""
    port = _free_port()
    db = tmp_path_factory.mktemp("browser") / "scorekeeper.sqlite"
    log = tmp_path_factory.mktemp("browser-log") / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scorekeeper.web.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--db",
                str(db),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # Every browser test shares this server and one address: the tests import dozens of
            # recorded matches and start hundreds, far past a phone's 10 imports and 30 new matches a
            # minute (tests/web/test_imports.py and test_creations.py check those limits).
            env={
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "SCOREKEEPER_IMPORT_RATE_LIMIT": "10000 per minute",
                "SCOREKEEPER_CREATE_RATE_LIMIT": "10000 per minute",
                # A key of its own: the server keeps nothing in this machine's user data folder.
                "SCOREKEEPER_SECRET_KEY": "browser-tests-secret-key-0123456789abcdef",
            },
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            pytest.fail(f"the server exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url + "/", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                pytest.fail(f"the server did not answer:\n{log.read_text()}")
            time.sleep(0.1)
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright.chromium)
        yield browser
        browser.close()


class Screens:
    """Numbered screenshots of every screen a test passes through, under test-output/screens/<test>/,
    taken under ``pytest --screens`` (to look at them; some 360 of them cost the suite about a minute)."""

    def __init__(self, name: str, taken: bool) -> None:
        self.folder = OUTPUT / re.sub(r"[^\w-]+", "-", name)
        self.count, self.taken = 0, taken
        if taken:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder.mkdir(parents=True)

    def __call__(self, page, what: str, full_page: bool = False) -> None:
        self.count += 1
        if self.taken:
            page.screenshot(path=str(self.folder / f"{self.count:02d}-{what}.png"), full_page=full_page)


@pytest.fixture
def screens(request) -> Screens:
    return Screens(request.node.name, request.config.getoption("--screens"))


def new_phone(browser):
    """A browser context the size of a phone: one person's phone at the table."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    # A phone's Chrome grants a shown page the screen wake lock; the headless shell, which has no
    # screen, refuses it unless told to.
    context.grant_permissions(["screen-wake-lock"])
    return context


@pytest.fixture
def context(browser):
    context = new_phone(browser)
    yield context
    context.close()


@pytest.fixture
def other_phone(browser):
    context = new_phone(browser)
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # hx-confirm on undo
    return page
