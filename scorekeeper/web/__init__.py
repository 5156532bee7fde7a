"""The web shell: an app factory in the style of Flask's tutorial (flaskr).

This package is the only place that imports Flask or sqlite-utils; the rules
live in the core and are only displayed here. Two settings profiles
(TRUST.md S7): ``lan`` (plain HTTP on the table's own network, the default)
and ``tls`` (secure ``__Host-`` cookies and HSTS behind HTTPS).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, Response, render_template, request
from flask_babel import gettext as _
from flask_compress import Compress
from flask_wtf.csrf import CSRFError, CSRFProtect
from htmx_flask import Htmx
from werkzeug.exceptions import HTTPException

from scorekeeper import __version__
from scorekeeper.web import assets, cache, db, i18n
from scorekeeper.web.limits import IMPORT_RATE, limiter
from scorekeeper.web.picker import picker
from scorekeeper.words import N_

PACKAGE = Path(__file__).resolve().parent
# The agreed layout keeps templates/ and static/ at the top of the repository; an
# installed wheel carries them inside the package (pyproject.toml, force-include).
ROOT = PACKAGE.parents[1]
TEMPLATES = next(p for p in (PACKAGE / "templates", ROOT / "templates") if p.is_dir())
STATIC = next(p for p in (PACKAGE / "static", ROOT / "static") if p.is_dir())

csrf = CSRFProtect()

CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
KNOWN_DEFAULTS = {"dev", "development", "secret", "changeme", "change-me", "default", "test", "flask"}
MIN_SECRET = 32
PROFILES = {
    "lan": {"SESSION_COOKIE_SECURE": False, "SESSION_COOKIE_NAME": "session"},
    "tls": {
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_NAME": "__Host-session",
        "PREFERRED_URL_SCHEME": "https",
    },
}


def _secret_key(instance: Path) -> str:
    """The secret key: from SCOREKEEPER_SECRET_KEY, else generated into the instance folder once."""
    from_env = os.environ.get("SCOREKEEPER_SECRET_KEY")
    if from_env:
        return from_env
    path = instance / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def check_secret_key(key: Any) -> None:
    """Refuse to start with a short or well-known secret key (TRUST.md S10)."""
    if not isinstance(key, str | bytes) or len(key) < MIN_SECRET:
        raise RuntimeError(f"SECRET_KEY must be at least {MIN_SECRET} characters")
    if str(key).lower() in KNOWN_DEFAULTS:
        raise RuntimeError("SECRET_KEY is a well-known default")


def create_app(test_config: dict[str, Any] | None = None, *, database: str | None = None) -> Flask:
    """Create the app; ``test_config`` overrides the configuration (tests pass a temporary DATABASE).

    ``database`` is the SQLite file (the command line's ``--db``); by default
    SCOREKEEPER_DATABASE, else ``scorekeeper.sqlite`` in the instance folder.
    """
    from scorekeeper.web import guide, history, imports, matches

    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(TEMPLATES),
        static_folder=str(STATIC),
    )
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_mapping(
        DATABASE=database
        or os.environ.get("SCOREKEEPER_DATABASE")
        or os.path.join(app.instance_path, "scorekeeper.sqlite"),
        PROFILE=os.environ.get("SCOREKEEPER_PROFILE", "lan"),
        MAX_CONTENT_LENGTH=16 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts hours; the token must not expire mid-game
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 30,
        SESSION_REFRESH_EACH_REQUEST=False,  # no Set-Cookie on every poll; roles renew when added
        RATELIMIT_HEADERS_ENABLED=False,
        IMPORT_RATE_LIMIT=os.environ.get("SCOREKEEPER_IMPORT_RATE_LIMIT", IMPORT_RATE),
        APP_VERSION=__version__,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if app.config["PROFILE"] not in PROFILES:
        raise RuntimeError(f"SCOREKEEPER_PROFILE must be one of {sorted(PROFILES)}")
    app.config.from_mapping(PROFILES[app.config["PROFILE"]])
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))
    check_secret_key(app.config["SECRET_KEY"])

    @app.before_request
    def allow_long_match_files() -> None:
        # Registered before CSRFProtect, which reads the form: only an import may post a long file.
        if request.endpoint == "history.import_file":  # a file uploaded, or pasted in its form
            request.max_content_length = request.max_form_memory_size = imports.IMPORT_LIMIT

    Htmx(app)
    Compress(app)  # zstd, brotli or gzip, as the phone accepts: the table's wifi may be poor
    csrf.init_app(app)
    limiter.init_app(app)
    cache.init_app(app)
    db.init_app(app)
    assets.init_app(app, STATIC)
    i18n.init_app(app)
    app.register_blueprint(matches.bp)
    app.register_blueprint(guide.bp)
    app.register_blueprint(history.bp)
    app.jinja_env.globals.update(htmx_script=matches.HTMX_SCRIPT, picker=picker, new_key=_new_key)
    app.after_request(_security_headers)
    _error_pages(app)
    return app


def _new_key() -> str:
    """A fresh idempotency key for one rendered action form (TRUST.md W1)."""
    return secrets.token_urlsafe(16)


def _security_headers(response: Response) -> Response:
    """TRUST.md S3/S5: CSP without inline script, no sniffing, no caching of pages, no indexing."""
    from flask import current_app

    headers = response.headers
    headers["X-Content-Type-Options"] = "nosniff"
    if request.endpoint not in ("static", "assets.file"):
        headers["Content-Security-Policy"] = CSP
        headers["Referrer-Policy"] = "same-origin"
        headers["X-Robots-Tag"] = "noindex"
        headers.setdefault("Cache-Control", "no-store")
    if current_app.config["PROFILE"] == "tls":
        headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
    return response


ERRORS = {
    400: (N_("Not understood"), N_("The request could not be read. Reload the page and try again.")),
    403: (N_("Not allowed"), N_("This phone may not do that.")),
    404: (N_("Not found"), N_("There is nothing here. A link may be mistyped or out of date.")),
    405: (N_("Not allowed"), N_("That is not something this page does.")),
    413: (N_("Too large"), N_("What was sent is too large.")),
    415: (N_("Not understood"), N_("This page takes a form, not that kind of content.")),
    429: (N_("Slow down"), N_("Too many wrong links from this address; wait a minute.")),
    500: (N_("Something went wrong"), N_("Nothing was recorded. Reload the page and try again.")),
    503: (N_("Read only"), N_("The score database needs attention; nothing can be recorded now.")),
}


def error_page(code: int, message: str | None = None) -> tuple[str, int]:
    """The short HTML page of an error: no traceback, SQL, path or token (TRUST.md I2)."""
    title, default = ERRORS.get(code, ERRORS[500])
    text = _(message or default)
    return render_template("error.html", code=code, title=_(title), message=text), code


def _error_pages(app: Flask) -> None:
    """Every error is a short HTML page (a blueprint may say more for its own routes)."""

    @app.errorhandler(CSRFError)
    def csrf_error(_: CSRFError) -> tuple[str, int]:
        return error_page(400, N_("This form expired or came from elsewhere. Reload the page and try again."))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[str, int]:
        return error_page(error.code or 500)

    @app.errorhandler(Exception)
    def server_error(error: Exception) -> tuple[str, int]:
        app.logger.exception("unhandled error")
        return error_page(500)
