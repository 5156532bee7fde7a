"""Who may ask what: CSRF tokens, trusted proxies, the secret key's fit, security headers, rate limits.

Behind a reverse proxy the app sees the proxy, not the phone: ``PROXIES``
(``SCOREKEEPER_PROXIES``) says how many proxies stand in front of it, and only
that many ``X-Forwarded-For/-Proto/-Host/-Port`` values are trusted
(Werkzeug's ``ProxyFix``, TRUST.md S13), so links say the proxy's scheme and
host and rate limits count each phone. The default is 0 under ``lan`` (nobody
in front: a forged header is ignored) and 1 under ``tls`` (the app serves no
TLS itself, so one proxy terminates it). ``X-Forwarded-Prefix`` is never
trusted: the app is served at the root of its host.

Rate limits (Flask-Limiter): wrong secrets are counted per address, right ones never (TRUST.md S8);
imports are counted per address, so that a few clients cannot keep the worker replaying files (I7);
so are the matches made (a new match, a rematch): each new name in one is a new person on every list.

The counters live in the server's memory.
"""

from __future__ import annotations

import threading
from pathlib import Path

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect
from limits.storage import MemoryStorage
from werkzeug.middleware.proxy_fix import ProxyFix

from scorekeeper.web import datadir, roles
from scorekeeper.web.settings import DEFAULT_PROXIES, IMPORT_LIMIT, MAX_PROXIES, ConfigError

# Module-level as Flask-WTF's decorator ``@csrf.exempt`` needs it when the routes are defined; it
# keeps no state of an app's (the exemptions are the routes' names).
csrf = CSRFProtect()

# media-src adds data: for NoSleep.js (static/vendor/), which keeps the screen on where the Wake Lock API
# is missing (plain HTTP on the table's network) by playing a tiny video it carries as data: URIs. A
# media file cannot run script; script-src stays 'self'.
CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self';"
    " media-src 'self' data:"
)
HSTS = "max-age=31536000; includeSubDomains"
# Files, not pages: they may be cached, and need no CSP of their own.
FILE_ENDPOINTS = ("static", "site.file")


def security_headers(profile: str, page: bool = True) -> dict[str, str]:
    """The headers a response of the ``profile`` carries: a page's, or a file's (``page=False``).

    A page also gets ``Cache-Control: no-store`` unless its view set another.
    """
    headers = {"X-Content-Type-Options": "nosniff"}
    if page:
        headers.update(
            {"Content-Security-Policy": CSP, "Referrer-Policy": "same-origin", "X-Robots-Tag": "noindex"}
        )
    if profile == "tls":
        headers["Strict-Transport-Security"] = HSTS
    return headers


def add_security_headers(response: Response) -> Response:
    """TRUST.md S3/S5: CSP without inline script, no sniffing, no caching of pages, no indexing."""
    page = request.endpoint not in FILE_ENDPOINTS
    response.headers.update(security_headers(current_app.config["PROFILE"], page))
    if page:
        response.headers.setdefault("Cache-Control", "no-store")
    return response


class LockedMemoryStorage(MemoryStorage):
    """limits' memory storage, its counts taken one at a time (``locked-memory://``).

    The memory storage of limits 5.8 (the newest on the index here) restarts its expiry timer
    without a lock: two threads that count at once can both find the timer stopped, and the
    second starts the timer the first made, which raises RuntimeError ("threads can only be
    started once"): a 500 for a spectator or an import (seen in tests/load, four imports at
    once). Upstream locks it since alisaifee/limits#352. Each counting method here holds one
    lock around the library's own; they are cheap, and only the limited routes count.
    """

    STORAGE_SCHEME = ["locked-memory"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: str) -> None:
        self._counting = threading.RLock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        with self._counting:
            return super().incr(key, expiry, amount)

    def decr(self, key: str, amount: int = 1) -> int:
        with self._counting:
            return super().decr(key, amount)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        with self._counting:
            return super().acquire_entry(key, limit, expiry, amount)

    def acquire_sliding_window_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        with self._counting:
            return super().acquire_sliding_window_entry(key, limit, expiry, amount)


# Module-level because Flask-Limiter's decorators (``@limiter.limit``) need the object when the
# routes are defined: the one piece of module state the library forces on the shell. Its counters
# live in the storage it makes at ``init_app``, and so belong to the last app made in the process.
limiter = Limiter(key_func=get_remote_address, storage_uri="locked-memory://", default_limits=[])

# The routes that take a secret from the link, those that make a match, and the import; the
# limiter skips every other request at once.
SECRET_ROUTES = frozenset({"sharing.claim", "sharing.watch", "sharing.watch_board", "sharing.watch_stream"})
CREATE_ROUTES = frozenset({"matches.new", "history.rematch"})
LIMITED_ROUTES = SECRET_ROUTES | CREATE_ROUTES | {"history.import_file"}


@limiter.request_filter
def is_never_limited() -> bool:
    return request.endpoint not in LIMITED_ROUTES


def wrong_secret(response: Response) -> bool:
    """Only a 404 (an unknown or wrong secret) uses up the allowance."""
    return response.status_code == 404


def created(response: Response) -> bool:
    """Only a match made (a 303 to it) uses up the allowance: a seat-order button or a refused form
    makes nothing."""
    return response.status_code == 303


def create_rate() -> str:
    """Matches made per address (``CREATE_RATE_LIMIT``, or SCOREKEEPER_CREATE_RATE_LIMIT)."""
    return str(current_app.config["CREATE_RATE_LIMIT"])


def import_rate() -> str:
    """Imports allowed per address (``IMPORT_RATE_LIMIT``, or SCOREKEEPER_IMPORT_RATE_LIMIT)."""
    return str(current_app.config["IMPORT_RATE_LIMIT"])


# One allowance per address for every route that makes a match (the import has its own).
creation_limit = limiter.shared_limit(create_rate, scope="creations", methods=["POST"], deduct_when=created)


def init_app(app: Flask) -> None:
    """CSRF tokens on every form and rate limits on the routes that take a secret or make a match."""
    csrf.init_app(app)
    limiter.init_app(app)


def allow_long_match_files() -> None:
    """Let only an import post a long file (registered before CSRFProtect, which reads the form)."""
    if request.endpoint == "history.import_file":  # a file uploaded, or pasted in its form
        request.max_content_length = request.max_form_memory_size = IMPORT_LIMIT


def trust_proxies(app: Flask) -> None:
    """Trust ``X-Forwarded-*`` from exactly the configured number of proxies (TRUST.md S13)."""
    proxies = app.config["PROXIES"]
    if proxies is None:
        proxies = DEFAULT_PROXIES[app.config["PROFILE"]]
    if isinstance(proxies, str) and proxies.isascii() and proxies.isdigit():
        proxies = int(proxies)
    if not isinstance(proxies, int) or isinstance(proxies, bool) or not 0 <= proxies <= MAX_PROXIES:
        raise ConfigError(
            f"SCOREKEEPER_PROXIES must be the number of proxies in front of the app, 0 to {MAX_PROXIES}"
        )
    app.config["PROXIES"] = proxies
    if proxies:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies
        )


def check_key_fits(app: Flask) -> None:
    """Refuse to start over matches made with another secret key (TRUST.md S12).

    Every live-view link is derived from the key and every phone's role rides
    in a cookie signed with it: a new key would orphan them all. Nothing is
    lost by refusing: with the old key back, everything works again.
    """
    if not roles.made_with_key(app.config["DATABASE"], app.config["SECRET_KEY"]):
        raise ConfigError(
            "this database's matches were made with another secret key; with this one every live-view"
            " link and every phone's scorekeeper role would stop working. Start with the old key: set"
            " SCOREKEEPER_SECRET_KEY to it, or put it back in the file"
            f" {app.config['KEY_FILE'] or Path(app.instance_path) / datadir.KEY}"
        )
