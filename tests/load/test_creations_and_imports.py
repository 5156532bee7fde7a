"""TRUST.md W8 (4 identical concurrent creating posts make 1 match) against gunicorn on 127.0.0.1."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest
from servertools import Phone, Server

pytestmark = pytest.mark.slow

MATCHES = Path(__file__).parents[1] / "matches"
GENEROUS = {"SCOREKEEPER_IMPORT_RATE_LIMIT": "100000 per minute"}
KEY = re.compile(
    r'<form method="post" action="([^"]+)"[^>]*>\s*<input[^>]*csrf_token[^>]*>\s*<input type="hidden" name="key" value="([^"]+)"'
)


def _key(phone: Phone, page: str, action: str) -> dict[str, str]:
    """The one-time key of the page's form that posts to ``action`` (none on a page without one)."""
    html = phone.request("GET", page)[1].decode()
    keys = [key for to, key in KEY.findall(html) if to.endswith(action)]
    return {"key": keys[0]} if keys else {}


def _at_once(phones: list[Phone], path: str, body: dict) -> list[tuple[int, str | None]]:
    """The same form posted by every phone at the same moment; each reply's status and Location."""
    barrier = threading.Barrier(len(phones))
    replies: list[tuple[int, str | None]] = [(0, None)] * len(phones)

    def send(i: int) -> None:
        barrier.wait()
        response, _ = phones[i].request("POST", path, body)
        replies[i] = (response.status, response.getheader("Location"))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(phones))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return replies


def _matches(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    finally:
        conn.close()


def test_four_identical_concurrent_creating_posts_make_one_match(tmp_path):
    db = tmp_path / "w8.sqlite"
    server = Server(db, workers=2, threads=4, env=GENEROUS).start()  # 41 imports from one address
    tie_break = (MATCHES / "tie-break-to-ten.json").read_text()
    try:
        phone = Phone(server.port)
        finished = phone.request("POST", "/import", {"text": tie_break, "csrf_token": phone.token})
        rematch = finished[0].getheader("Location").split("/")[2] + "/rematch"
        phones = [phone.clone() for _ in range(4)]  # the same phone's taps, on 4 connections
        forms = {
            "new": ("/new", "/new", {"name": ["Anna", "Bo", "Cia"], "dealer": "draw", "start": "1"}),
            "rematch": (f"/m/{rematch.split('/')[0]}", f"/m/{rematch}", {}),
            "import": ("/import", "/import", {"text": tie_break}),
        }
        made = {}
        for name, (page, path, fields) in forms.items():
            made[name] = []
            for _ in range(10):
                before = _matches(db)
                body = {**fields, **_key(phone, page, path), "csrf_token": phone.token}
                replies = _at_once(phones, path, body)
                assert {status for status, _ in replies} == {303}, (name, replies)
                assert len({location for _, location in replies}) == 1, (name, replies)
                made[name].append(_matches(db) - before)
        for p in [phone, *phones]:
            p.close()
    finally:
        server.stop()
    print(f"\nW8: 4 identical concurrent posts, 10 trials each: matches made {made}")
    assert made == {name: [1] * 10 for name in forms}
