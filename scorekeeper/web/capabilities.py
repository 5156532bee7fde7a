"""Who may write: the scorekeeper of a match holds a secret; everybody else only reads.

The scorekeeper's secret is random (256 bits) and lives in the HttpOnly
session of the phones that hold the role; the database keeps only its
SHA-256 (TRUST.md S1). The live-view link is derived from the match id with
the instance's secret key, so the page can show it again while the database
keeps only its hash too. Comparisons use ``hmac.compare_digest``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, current_app, session

from scorekeeper.web.db import get_db

View = TypeVar("View", bound=Callable[..., Any])

SESSION_KEY = "keeper"
# A cookie over 4 KB is dropped by browsers, with every role in it: keep the newest matches only
# (an older one is won back with its hand-over link).
KEPT_ROLES = 20


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def creator_secret(key: str) -> str:
    """The scorekeeper's secret of a match made by a form with this one-time key (TRUST.md W8).

    A repeat of the form (a double tap, a retry after a lost answer) carries the same
    key and so gets the same secret: the poster becomes or stays the scorekeeper
    although the database keeps only the secret's hash. Unguessable without the
    instance's secret key, and 256 bits long like ``new_secret()``.
    """
    mac = hmac.new(current_app.config["SECRET_KEY"].encode(), b"keeper:" + key.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()


def watch_token(match_id: str) -> str:
    """The live-view link's secret for a match: the same every time, unguessable without the key."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, b"watch:" + match_id.encode(), hashlib.sha256).hexdigest()


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
