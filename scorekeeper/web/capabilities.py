"""Who may write: the scorekeeper of a match holds a secret; everybody else only reads.

The scorekeeper's secret is random (256 bits) and lives in the HttpOnly
session of the phones that hold the role; the database keeps only its
SHA-256 (TRUST.md S1). The live-view link is derived from the match id with
the instance's secret key, so the page can show it again while the database
keeps only its hash too. Comparisons use ``hmac.compare_digest``.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, current_app, session

from scorekeeper.web.db import connect, get_db

View = TypeVar("View", bound=Callable[..., Any])

SESSION_KEY = "keeper"
# A cookie over 4 KB is dropped by browsers, with every role in it: keep the newest matches only
# (an older one is won back with its hand-over link).
KEPT_ROLES = 20


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def watch_token(match_id: str, key: str | bytes | None = None) -> str:
    """The live-view link's secret for a match: the same every time, unguessable without the key."""
    key = current_app.config["SECRET_KEY"] if key is None else key
    raw = key.encode() if isinstance(key, str) else key
    return hmac.new(raw, b"watch:" + match_id.encode(), hashlib.sha256).hexdigest()


def made_with_key(path: str, key: str | bytes) -> bool:
    """False if the database's matches were made with another secret key (TRUST.md S12).

    A live-view link is derived from the key, and the database keeps its hash:
    the newest match's hash says which key made it, so nothing more is stored.
    An empty database fits every key; one that cannot be read is left to the
    start-up check (``db.init_app``), which already refuses writes.
    """
    try:
        db = connect(path)
        try:
            found = db.execute(
                "SELECT id, watch_hash FROM matches WHERE watch_hash IS NOT NULL ORDER BY rowid DESC LIMIT 1"
            ).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return True
    return found is None or hmac.compare_digest(digest(watch_token(found[0], key)), found[1])


def remember_keeper(match_id: str, token: str) -> None:
    """Make this browser a scorekeeper of the match (its session cookie is HttpOnly)."""
    held = {k: v for k, v in session.get(SESSION_KEY, {}).items() if k != match_id}
    held[match_id] = token
    session[SESSION_KEY] = dict(list(held.items())[-KEPT_ROLES:])
    session.permanent = True


def held_token(match_id: str) -> str | None:
    token = session.get(SESSION_KEY, {}).get(match_id)
    return token if isinstance(token, str) else None


def is_keeper(match_id: str) -> bool:
    """True if this browser holds the scorekeeper's secret for the match (read now, never from a cache)."""
    token = held_token(match_id)
    if token is None:
        return False
    found = get_db().execute("SELECT keeper_hash FROM matches WHERE id = ?", [match_id]).fetchone()
    return found is not None and bool(found[0]) and hmac.compare_digest(digest(token), found[0])


def keeper_required(refuse: Callable[[str], Any] | int = 403) -> Callable[[View], View]:
    """Let only the match's scorekeeper through to the view (its ``match_id`` argument).

    Anybody else gets ``refuse(match_id)``, or that status code.
    """

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def checked(*args: Any, match_id: str, **kwargs: Any) -> Any:
            if is_keeper(match_id):
                return view(*args, match_id=match_id, **kwargs)
            if isinstance(refuse, int):
                abort(refuse)
            return refuse(match_id)

        return checked  # type: ignore[return-value]

    return decorate
