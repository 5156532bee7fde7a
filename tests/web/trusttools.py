"""Helpers for the TRUST.md tests: a browser-like client, the routes from url_map, a database fingerprint."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

from scorekeeper.web import create_app

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def fingerprint(app) -> str:
    """A hash of every row of every table: equal before and after means nothing changed."""
    conn = sqlite3.connect(app.config["DATABASE"])
    digest = hashlib.sha256()
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY 1, 2'):
            digest.update(repr(row).encode())
    conn.close()
    return digest.hexdigest()


def strict_app(app):
    """The same app with CSRF and rate limits on, as in production."""
    return create_app({**app.config, "WTF_CSRF_ENABLED": True, "RATELIMIT_ENABLED": True})


class Browser:
    """A test client that behaves like a browser: it keeps the CSRF token and sends a same-origin Referer."""

    def __init__(self, app) -> None:
        self.app = app
        self.client = app.test_client()
        self.base = f"{app.config['PREFERRED_URL_SCHEME']}://localhost"
        self.token = TOKEN.search(self.client.get("/new").text).group(1)

    def get(self, path: str, **kwargs):
        return self.client.get(path, **kwargs)

    def post(self, path: str, data: dict | None = None, token: str | None = "mine", **kwargs):
        data = dict(data or {})
        if token == "mine":
            data["csrf_token"] = self.token
        elif token is not None:
            data["csrf_token"] = token
        headers = {"Referer": self.base + "/", **kwargs.pop("headers", {})}
        return self.client.post(path, data=data, headers=headers, **kwargs)

    def handover(self, match_id: str) -> str:
        """The secret of this phone's hand-over link for the match, read from its share page."""
        page = self.get(f"/m/{match_id}/handover")
        assert page.status_code == 200, page.status_code
        return re.search(r"/claim\?t=([\w-]+)", page.text).group(1)

    def new_match(self, *players: str, dealer: str | None = "0") -> str:
        response = self.post("/new", {"name": list(players), "dealer": dealer or "draw", "start": "1"})
        assert response.status_code == 303, response.text
        return response.headers["Location"].rsplit("/", 1)[1]


def mutating_rules(app) -> dict[str, str]:
    """Every route that is not GET/HEAD/OPTIONS: endpoint -> rule."""
    return {
        rule.endpoint: rule.rule
        for rule in app.url_map.iter_rules()
        if rule.methods and rule.methods - {"GET", "HEAD", "OPTIONS"}
    }


def get_rules(app) -> dict[str, str]:
    return {
        rule.endpoint: rule.rule
        for rule in app.url_map.iter_rules()
        if rule.methods and "GET" in rule.methods and rule.endpoint != "static"
    }


def url(rule: str, match_id: str, person_id: int = 1, step: int = 0, entry_id: int = 1) -> str:
    path = rule.replace("<match_id>", match_id)
    for name, value in (("step", step), ("person_id", person_id), ("entry_id", entry_id)):
        path = re.sub(rf"<int[^>]*:{name}>", str(value), path)
    return path


def db_bytes(app) -> bytes:
    """The database file and its WAL, as bytes (to look for secrets stored in clear)."""
    path = Path(app.config["DATABASE"])
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
