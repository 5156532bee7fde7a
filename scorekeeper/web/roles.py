"""Who may write: the phones that hold a match's scorekeeper role; everybody else only reads.

A phone is a *device*: a random secret (256 bits) in its HttpOnly session
cookie, made when it first gets a role. The ``roles`` table keeps, for each
match, the SHA-256 of every device that holds its role (TRUST.md S1, S11): a
phone keeps the role of every match it started, claimed or imported, however
many, and its cookie stays the same size. Roles are read per request
(``@keeper_required``), never from a cache.

The hand-over link. Each phone that holds the role shows its own link, an
HMAC of the match id with its device secret: the page can show it again
without the database keeping it, and the roles row keeps only its SHA-256
(``handover_hash``). Opening the link (``/claim``) gives the role to the
phone that opens it, which is then redirected to a URL without the secret
(S3). A link handed out before roles moved to the server (the match's own
secret, whose hash ``matches.keeper_hash`` keeps) still claims the match. A
phone that lost its cookie gets the role back only by a hand-over link.

Claiming is the one GET that writes (a roles row, idempotent): it always
changed state, the cookie. Roles rows are not match changes; they are
written here, beside the check that reads them.

Old cookies carried the roles themselves (match id → the match's secret, at
most 20, and the wrong 20: Flask sorts the session's keys). On a phone's
next request those that still fit their match move to its device, once, and
the old entry goes (``_move_old_roles``).

The live-view link is derived from the match id with the instance's secret
key, so the page can show it again while the database keeps only its hash
too. Comparisons use ``hmac.compare_digest``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from flask import Flask, abort, current_app, has_request_context, request, session

from scorekeeper.web.store.db import now
from scorekeeper.web.store.faults import fault_of
from scorekeeper.web.store.roles import add_roles, device_hashes, keeper_hash, match_by_hash, newest_watched

View = TypeVar("View", bound=Callable[..., Any])

DEVICE = "device"
OLD_ROLES = "keeper"  # the session entry of old cookies: {match id: the match's secret}


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
        found = newest_watched(path)
    except sqlite3.Error:
        return True
    return found is None or hmac.compare_digest(digest(watch_token(found[0], key)), found[1])


def _device() -> str | None:
    """This phone's device secret, from its session (None if it never held a role)."""
    device = session.get(DEVICE)
    return device if isinstance(device, str) else None


def _own_device() -> str:
    """This phone's device secret, made now if it has none (its cookie then lasts 30 days)."""
    device = _device()
    if device is None:
        device = session[DEVICE] = new_secret()
        session.permanent = True
    return device


def _handover_token(device: str, match_id: str) -> str:
    mac = hmac.new(device.encode(), b"handover:" + match_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def handover_token(match_id: str) -> str:
    """This phone's hand-over link's secret for a match it keeps (only a scorekeeper's page asks)."""
    device = _device()
    if device is None:  # @keeper_required lets no such phone through
        abort(404)
    return _handover_token(device, match_id)


def _store_roles(device: str, match_ids: Iterable[str]) -> None:
    rows = [(m, digest(device), now(), digest(_handover_token(device, m))) for m in match_ids]
    add_roles(rows)
    if has_request_context():
        request.environ.pop(KEEPER_OF, None)  # a role asked about again is read again


def grant(match_id: str) -> None:
    """Make this phone a scorekeeper of the match (its cookie, renewed for 30 days, names only the device)."""
    if current_app.config["READ_ONLY"]:
        abort(503)
    _store_roles(_own_device(), [match_id])
    session.modified = True  # the cookie's 30 days start again with every role


def match_by_handover(token: str) -> str | None:
    """The match a hand-over link claims: a phone's own link, or a match's secret of old; or None."""
    return match_by_hash(digest(token))


# A request's answers of is_keeper, by (device, match), kept in its WSGI environ: the request's own
# (flask.g belongs to the app context, which Flask shares between requests made inside one).
KEEPER_OF = "scorekeeper.keeper_of"


def is_keeper(match_id: str) -> bool:
    """True if this phone holds the scorekeeper role of the match (read once a request, never from
    a cache: a tap asks before its view and again for the page it answers with)."""
    device = _device()
    if device is None:
        return False
    known: dict[tuple[str, str], bool] = request.environ.setdefault(KEEPER_OF, {})
    if (device, match_id) not in known:
        mine = digest(device)
        held = device_hashes(match_id)
        known[(device, match_id)] = any(hmac.compare_digest(mine, device_hash) for device_hash in held)
    return known[(device, match_id)]


def _fits_its_match(match_id: Any, token: Any) -> bool:
    if not isinstance(match_id, str) or not isinstance(token, str):
        return False
    found = keeper_hash(match_id)
    return found is not None and hmac.compare_digest(digest(token), found)


def _move_old_roles() -> None:
    """Move the roles an old cookie carries to this phone's device, once; then drop the old entry."""
    held = session.get(OLD_ROLES)
    if held is None or current_app.config["READ_ONLY"]:
        return  # read only: the old entry waits until roles can be written
    if isinstance(held, dict):
        fitting = [match_id for match_id, token in held.items() if _fits_its_match(match_id, token)]
        if fitting:
            try:
                _store_roles(_own_device(), fitting)
            except sqlite3.Error as error:
                if fault_of(error, current_app.config["DATABASE"]) is None:
                    raise
                return  # a full or read-only disk: the old entry waits, and the page is still shown
    session.pop(OLD_ROLES)


def init_app(app: Flask) -> None:
    app.before_request(_move_old_roles)


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
