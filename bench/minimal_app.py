"""The reference of the benches: the least a Flask app can do for a scoring action and a live-view check.

POST /act?m=ID stores one event row and bumps the table's version in one
``BEGIN IMMEDIATE`` transaction (WAL, synchronous=FULL, as the app) and returns
a 2 KB fragment. GET /poll?m=ID reads the table's version, as the app's live
view does: 304 when ``If-None-Match`` holds it, else the fragment with its ETag.

Fair to the app (issue 14): each thread keeps its connection across requests,
as scorekeeper/web/db.py lends one from a kept pool (opening one per request cost
0.78 ms against 0.23-0.32 ms), and it is served by the app's own ``serve()``:
waitress with the app's threads for requests, idle timeout, connection bounds and
every other option. Its best setup differs in one thing only: it has no live view,
so no stream threads (``streams=0``). Run: python bench/minimal_app.py --port 8001
--db /tmp/minimal.sqlite [--threads 16]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import threading

from flask import Flask, Response, request

FRAGMENT = "<section id='table'>" + "<p>Bo +2, two pair</p>" * 90 + "</section>"  # about 2 KB
PAYLOAD = '{"type": "pass", "player": "Bo"}'


def create_app(database: str) -> Flask:
    app = Flask(__name__)
    local = threading.local()

    def db() -> sqlite3.Connection:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = sqlite3.connect(database, timeout=5, isolation_level=None)
            conn.execute("PRAGMA journal_mode=wal")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=5000")
        return conn

    setup = sqlite3.connect(database)
    setup.execute("PRAGMA journal_mode=wal")
    setup.execute("CREATE TABLE IF NOT EXISTS tables (id TEXT PRIMARY KEY, version INTEGER NOT NULL)")
    setup.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, table_id TEXT, payload TEXT)")
    setup.close()

    def fragment(version: int) -> Response:
        response = Response(FRAGMENT, mimetype="text/html")
        response.headers["ETag"] = f'"v{version}"'
        return response

    @app.post("/act")
    def act() -> Response:
        table = request.args.get("m", "")
        conn = db()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO events (table_id, payload) VALUES (?, ?)", (table, PAYLOAD))
        (version,) = conn.execute(
            "INSERT INTO tables (id, version) VALUES (?, 1)"
            " ON CONFLICT(id) DO UPDATE SET version = version + 1 RETURNING version",
            (table,),
        ).fetchone()
        conn.execute("COMMIT")
        return fragment(version)

    @app.get("/poll")
    def poll() -> Response:
        row = db().execute("SELECT version FROM tables WHERE id = ?", (request.args.get("m", ""),)).fetchone()
        version = row[0] if row else 0
        if request.headers.get("If-None-Match") == f'"v{version}"':
            response = Response(status=304)
            response.headers["ETag"] = f'"v{version}"'
            return response
        return fragment(version)

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--threads", type=int, help="threads for requests (default: the app's)")
    args = parser.parse_args()
    from scorekeeper.web.server import THREADS, serve

    app = create_app(os.path.abspath(args.db))
    serve(app, "127.0.0.1", args.port, threads=args.threads or THREADS, streams=0)


if __name__ == "__main__":
    main()
