"""The reference for bench/table.py: the least a Flask app can do per request.

POST inserts one row into SQLite (WAL, synchronous=FULL, as the real app)
and returns a 2 KB fragment; GET returns the same fragment.
"""

from __future__ import annotations

import os
import sqlite3
import threading

from flask import Flask, g

FRAGMENT = "<section id='table'>" + "<p>Bo +2, two pair</p>" * 90 + "</section>"  # about 2 KB
app = Flask(__name__)
app.config["DATABASE"] = os.environ.get("MINIMAL_DATABASE", "/tmp/minimal.sqlite")
_lock = threading.Lock()


def db() -> sqlite3.Connection:
    if "db" not in g:
        conn = sqlite3.connect(app.config["DATABASE"], timeout=5, isolation_level=None)
        conn.execute("PRAGMA journal_mode=wal")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA busy_timeout=5000")
        g.db = conn
    return g.db


@app.teardown_appcontext
def close(_: BaseException | None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


with _lock:
    setup = sqlite3.connect(app.config["DATABASE"])
    setup.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, payload TEXT)")
    setup.close()


@app.post("/act")
def act() -> str:
    conn = db()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO events (payload) VALUES (?)", ('{"type": "pass", "player": "Bo"}',))
    conn.execute("COMMIT")
    return FRAGMENT


@app.get("/poll")
def poll() -> str:
    return FRAGMENT
