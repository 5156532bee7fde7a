"""Rate limits (Flask-Limiter): wrong secrets are counted per address, right ones never (TRUST.md S8)."""

from __future__ import annotations

from flask import Response, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address, storage_uri="memory://", default_limits=[])

# The routes that take a secret from the link; the limiter skips every other request at once.
SECRET_ROUTES = frozenset({"matches.claim", "matches.watch", "matches.watch_board"})


@limiter.request_filter
def takes_no_secret() -> bool:
    return request.endpoint not in SECRET_ROUTES


def wrong_secret(response: Response) -> bool:
    """Only a 404 (an unknown or wrong secret) uses up the allowance."""
    return response.status_code == 404
