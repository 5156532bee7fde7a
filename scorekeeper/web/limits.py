"""Rate limits (Flask-Limiter): wrong secrets are counted per address, right ones never (TRUST.md S8)."""

from __future__ import annotations

from flask import Response
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address, storage_uri="memory://", default_limits=[])


def wrong_secret(response: Response) -> bool:
    """Only a 404 (an unknown or wrong secret) uses up the allowance."""
    return response.status_code == 404
