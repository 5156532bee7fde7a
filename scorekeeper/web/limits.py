"""Rate limits (Flask-Limiter): wrong secrets are counted per address, right ones never (TRUST.md S8);
imports are counted per address, so that a few clients cannot keep the worker replaying files (I7).

The counters live in the worker's memory: with several workers, each counts on its own.
"""

from __future__ import annotations

from flask import Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address, storage_uri="memory://", default_limits=[])

# The routes that take a secret from the link, and the import; the limiter skips every other
# request at once.
SECRET_ROUTES = frozenset({"matches.claim", "matches.watch", "matches.watch_board", "matches.watch_stream"})
LIMITED_ROUTES = SECRET_ROUTES | {"history.import_file"}
# A club imports a handful of matches at a time; ten a minute lets that through and costs a
# worker at most ten replays of a capped file a minute per address.
IMPORT_RATE = "10 per minute"


@limiter.request_filter
def is_never_limited() -> bool:
    return request.endpoint not in LIMITED_ROUTES


def wrong_secret(response: Response) -> bool:
    """Only a 404 (an unknown or wrong secret) uses up the allowance."""
    return response.status_code == 404


def import_rate() -> str:
    """Imports allowed per address (``IMPORT_RATE_LIMIT``, or SCOREKEEPER_IMPORT_RATE_LIMIT)."""
    return str(current_app.config["IMPORT_RATE_LIMIT"])
