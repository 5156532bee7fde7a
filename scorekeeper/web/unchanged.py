"""The live view's unchanged check, answered before Flask: one hash, one indexed read, a 304.

Most of the server's traffic is spectators asking "has the match changed since
version N?" (``GET /watch/board`` with ``If-None-Match: "vN"``), and nearly
every answer is no. Through Flask that answer ran the session, the rate
limiter, CSRF, Babel and Flask-Compress around a single row read (0.9 ms of
CPU against 0.5 ms for the least a Flask app can do, docs/scaling.md). This
WSGI layer in front of the app answers it itself when the secret is right and
the version unchanged, with exactly the headers Flask would add
(``headers.security_headers``; tests/web/test_unchanged.py compares them).

Everything else goes to Flask untouched: another path or method, no
``If-None-Match``, a secret that finds no match (so the rate limiter still
counts wrong secrets, TRUST.md S8), a changed version (Flask renders the new
board), and any storage fault (Flask shows why). Right secrets never count
against the limit, so skipping the limiter for them changes nothing it
decides. A phone whose cookie still carries roles of old has them moved on
its next page, not on an unchanged check.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from scorekeeper.web import capabilities, db
from scorekeeper.web.headers import security_headers

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
ENDPOINT = "matches.watch_board"
# What Flask's 304 varies on: Flask-Compress adds Accept-Encoding, the session Cookie.
VARY = "Accept-Encoding, Cookie"


class UnchangedCheck:
    """WSGI middleware: 304 for an unchanged live-view check, Flask for everything else.

    ``answered`` and ``passed_on`` count the checks it answered and those it
    sent on to Flask (read by tests and benches; a lost increment between
    threads costs nothing).
    """

    def __init__(self, app: Flask, wrapped: WSGIApp) -> None:
        self.wrapped = wrapped
        self.database = app.config["DATABASE"]
        self.path = next(rule.rule for rule in app.url_map.iter_rules(ENDPOINT))
        page = security_headers(app.config["PROFILE"]) | {"Cache-Control": "no-store", "Vary": VARY}
        self.headers = list(page.items())
        self.answered = self.passed_on = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == self.path:
            etag = self._unchanged(environ)
            if etag is not None:
                self.answered += 1
                start_response("304 Not Modified", [("ETag", etag), *self.headers])
                return []
            self.passed_on += 1
        return self.wrapped(environ, start_response)

    def _unchanged(self, environ: dict[str, Any]) -> str | None:
        """The ETag to answer 304 with, or None when Flask must answer."""
        sent = environ.get("HTTP_IF_NONE_MATCH")
        token = _first(environ.get("QUERY_STRING", ""), "t")
        if sent is None or not token or environ.get("REQUEST_METHOD") != "GET":
            return None
        try:
            found = (
                db.connection(self.database)
                .execute("SELECT version FROM matches WHERE watch_hash = ?", [capabilities.digest(token)])
                .fetchone()
            )
        except sqlite3.Error:
            return None  # Flask meets the same fault and says why (TRUST.md R6)
        if found is None:
            return None  # a wrong secret: Flask refuses it, and the limiter counts it
        etag = f'"v{found[0]}"'
        return etag if sent == etag else None


def _first(query: str, name: str) -> str:
    """The first value of ``name`` in a query string, as Flask's ``request.args.get`` reads it."""
    try:
        for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True, errors="strict"):
            if key == name:
                return value
    except (UnicodeDecodeError, ValueError):
        return ""
    return ""


def init_app(app: Flask) -> None:
    """Put the unchanged check in front of the app (after ProxyFix, which it does not need)."""
    check = app.extensions["unchanged_check"] = UnchangedCheck(app, app.wsgi_app)
    app.wsgi_app = check  # type: ignore[method-assign]
