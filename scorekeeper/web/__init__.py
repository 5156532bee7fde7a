"""The web shell: an app factory in the style of Flask's tutorial (flaskr).

This package is the only place that imports Flask or sqlite-utils; the rules
live in the core and are only displayed here. Two settings profiles
(TRUST.md S7): ``lan`` (plain HTTP on the table's own network, the default)
and ``tls`` (secure ``__Host-`` cookies and HSTS behind HTTPS).

Behind a reverse proxy the app sees the proxy, not the phone: ``PROXIES``
(``SCOREKEEPER_PROXIES``) says how many proxies stand in front of it, and only
that many ``X-Forwarded-For/-Proto/-Host/-Port`` values are trusted
(Werkzeug's ``ProxyFix``, TRUST.md S13), so links say the proxy's scheme and
host and rate limits count each phone. The default is 0 under ``lan`` (nobody
in front: a forged header is ignored) and 1 under ``tls`` (the app serves no
TLS itself, so one proxy terminates it). ``X-Forwarded-Prefix`` is never
trusted: the app is served at the root of its host.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from flask_compress import Compress
from flask_wtf.csrf import CSRFError, CSRFProtect
from htmx_flask import Htmx
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

from scorekeeper import __version__
from scorekeeper.web import assets, cache, capabilities, datadir, db, headers, i18n, live
from scorekeeper.web.faults import fault_of
from scorekeeper.web.i18n import gettext as _
from scorekeeper.web.limits import CREATE_RATE, CREATE_ROUTES, IMPORT_RATE, limiter
from scorekeeper.web.macros import action_form
from scorekeeper.web.picker import picker
from scorekeeper.words import N_

PACKAGE = Path(__file__).resolve().parent
# The agreed layout keeps templates/ and static/ at the top of the repository; an
# installed wheel carries them inside the package (pyproject.toml, force-include).
ROOT = PACKAGE.parents[1]
TEMPLATES = next(p for p in (PACKAGE / "templates", ROOT / "templates") if p.is_dir())
STATIC = next(p for p in (PACKAGE / "static", ROOT / "static") if p.is_dir())

# Module-level as Flask-WTF's decorator ``@csrf.exempt`` needs it when the routes are defined; it
# keeps no state of an app's (the exemptions are the routes' names).
csrf = CSRFProtect()

# A secret key's floor (TRUST.md S10, S12): a length, and two cheap signs of a key typed by hand.
MIN_SECRET = 32
MIN_DISTINCT = 8
DEFAULT_PROXIES = {"lan": 0, "tls": 1}
MAX_PROXIES = 5
PROFILES = {
    "lan": {"SESSION_COOKIE_SECURE": False, "SESSION_COOKIE_NAME": "session"},
    "tls": {
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_NAME": "__Host-session",
        "PREFERRED_URL_SCHEME": "https",
    },
}


def _secret_key(folder: Path) -> str:
    """The secret key kept in the data folder, generated there on first start.

    Processes starting at once over a new data folder must all read the same
    whole key: each writes its key to a file of its own and links it into
    place; the first link wins (TRUST.md R6).
    """
    path = folder / datadir.KEY
    if not path.exists():
        try:
            _link_new_key(path)
        except OSError as error:  # a read-only data folder: one line, no traceback
            raise ConfigError(
                f"cannot keep a new secret key in {path} ({error.strerror}): set SCOREKEEPER_SECRET_KEY"
            ) from None
    return path.read_text().strip()


def _data_folder(app: Flask) -> datadir.DataFolder:
    """The data folder, the old instance folder moved to it first if need be (datadir.py); made if new."""
    old = datadir.old_folder(app)
    folder = datadir.settle(old, Path(app.instance_path), movable=datadir.in_environment(old))
    try:
        folder.path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot make the data folder {folder.path} ({error.strerror})") from None
    return folder


def _link_new_key(path: Path) -> None:
    """Write a new key whole to a file of its own, then link it to ``path`` unless another process did."""
    draft = path.with_name(f"{path.name}.{secrets.token_hex(8)}.new")
    with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(secrets.token_hex(32))
    try:
        os.link(draft, path)
    except FileExistsError:
        pass  # another process linked its key first: that one is the key
    finally:
        draft.unlink()


class ConfigError(RuntimeError):
    """The app refuses to start with these settings; the message says what to change."""


def check_secret_key(key: Any) -> None:
    """Refuse a secret key with too little entropy (TRUST.md S10, S12).

    The rule: at least 32 characters, at least 8 different ones, and not a
    shorter piece repeated (``"a" * 32``, ``"changeme" * 4``). A random key,
    such as the one the app generates (``secrets.token_hex(32)``), passes; a
    list of well-known defaults could not, as every default is shorter than 32.
    """
    if not isinstance(key, str | bytes) or len(key) < MIN_SECRET:
        raise ConfigError(f"SECRET_KEY must be at least {MIN_SECRET} characters")
    if len(set(key)) < MIN_DISTINCT:
        raise ConfigError(f"SECRET_KEY must have at least {MIN_DISTINCT} different characters")
    if any(key[period:] == key[:-period] for period in range(1, len(key) // 2 + 1)):
        raise ConfigError("SECRET_KEY must not be a shorter piece repeated")


def _trust_proxies(app: Flask) -> None:
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


def _check_key_fits(app: Flask) -> None:
    """Refuse to start over matches made with another secret key (TRUST.md S12).

    Every live-view link is derived from the key and every phone's role rides
    in a cookie signed with it: a new key would orphan them all. Nothing is
    lost by refusing: with the old key back, everything works again.
    """
    if not capabilities.made_with_key(app.config["DATABASE"], app.config["SECRET_KEY"]):
        raise ConfigError(
            "this database's matches were made with another secret key; with this one every live-view"
            " link and every phone's scorekeeper role would stop working. Start with the old key: set"
            " SCOREKEEPER_SECRET_KEY to it, or put it back in the file"
            f" {app.config['KEY_FILE'] or Path(app.instance_path) / datadir.KEY}"
        )


def _cache_bytes(megabytes: str | None) -> int:
    """Each worker's cache budget (SCOREKEEPER_CACHE_MB, whole megabytes; docs/scaling.md says how
    much a long match needs)."""
    if megabytes is None:
        return cache.DEFAULT_BUDGET
    if not (
        megabytes.isascii() and megabytes.isdigit() and len(megabytes) <= 5 and 1 <= int(megabytes) <= 65_536
    ):
        raise ConfigError("SCOREKEEPER_CACHE_MB must be a whole number of megabytes, from 1 to 65536")
    return int(megabytes) << 20


def create_app(test_config: dict[str, Any] | None = None, *, database: str | None = None) -> Flask:
    """Create the app; ``test_config`` overrides the configuration (tests pass a temporary DATABASE).

    ``database`` is the SQLite file (the command line's ``--db``); by default
    SCOREKEEPER_DATABASE, else ``scorekeeper.sqlite`` in the data folder
    (datadir.py), where the secret key is kept too unless SCOREKEEPER_SECRET_KEY
    gives it. The data folder is Flask's instance folder (``config.py`` is read
    from it); it is looked for, moved from the old place and made only when the
    database or the key is to be kept there.
    """
    from scorekeeper.web import guide, history, imports, matches, room, standings, watching  # noqa: F401 - watching's routes are matches.bp's

    app = Flask(
        __name__,
        instance_path=str(datadir.user_folder()),
        instance_relative_config=True,
        template_folder=str(TEMPLATES),
        static_folder=str(STATIC),
    )
    app.config.from_mapping(
        DATABASE=database or os.environ.get("SCOREKEEPER_DATABASE"),
        SECRET_KEY=os.environ.get("SCOREKEEPER_SECRET_KEY"),
        KEY_FILE=None,  # where the key is kept, when the data folder keeps it
        DATA_NOTE=None,  # what serve says about the data folder (moved, or left at the old place)
        PROFILE=os.environ.get("SCOREKEEPER_PROFILE", "lan"),
        PROXIES=os.environ.get("SCOREKEEPER_PROXIES"),  # None: the profile's default
        MAX_CONTENT_LENGTH=16 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # a match lasts hours; the token must not expire mid-game
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 30,
        SESSION_REFRESH_EACH_REQUEST=False,  # no Set-Cookie on every poll; roles renew when added
        RATELIMIT_HEADERS_ENABLED=False,
        IMPORT_RATE_LIMIT=os.environ.get("SCOREKEEPER_IMPORT_RATE_LIMIT", IMPORT_RATE),
        CREATE_RATE_LIMIT=os.environ.get("SCOREKEEPER_CREATE_RATE_LIMIT", CREATE_RATE),
        APP_VERSION=__version__,
        CACHE_BYTES=_cache_bytes(os.environ.get("SCOREKEEPER_CACHE_MB")),
        # A table's answer (about 11 KB of HTML) compresses to 2.6 KB at level 1 and 2.3 KB at the
        # defaults (brotli 4, gzip 6), which take two to three times the CPU (0.1 ms a tap, issue 14).
        # A phone on the table's wifi over plain HTTP is offered gzip only.
        COMPRESS_BR_LEVEL=1,
        COMPRESS_LEVEL=1,
        COMPRESS_ZSTD_LEVEL=1,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if app.config["PROFILE"] not in PROFILES:
        raise ConfigError(f"SCOREKEEPER_PROFILE must be one of {sorted(PROFILES)}")
    app.config.from_mapping(PROFILES[app.config["PROFILE"]])
    _trust_proxies(app)
    if not app.config["DATABASE"] or not app.config["SECRET_KEY"]:
        folder = _data_folder(app)
        app.config["DATA_NOTE"] = folder.said
        if not app.config["DATABASE"]:
            app.config["DATABASE"] = str(folder.path / datadir.DATABASE)
        if not app.config["SECRET_KEY"]:
            app.config["SECRET_KEY"] = _secret_key(folder.path)
            app.config["KEY_FILE"] = str(folder.path / datadir.KEY)
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
    _check_key_fits(app)
    capabilities.init_app(app)
    assets.init_app(app, STATIC)
    i18n.init_app(app)
    live.init_app(app)
    app.url_map.converters["int"] = AsciiInteger  # before the routes are added
    app.register_blueprint(matches.bp)
    app.register_blueprint(guide.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(standings.bp)
    app.register_blueprint(room.bp)
    app.jinja_env.globals.update(
        htmx_script=matches.HTMX_SCRIPT, picker=picker, action_form=action_form, new_key=_new_key
    )
    app.after_request(headers.add_security_headers)
    _error_pages(app)
    return app


class AsciiInteger(IntegerConverter):
    """``<int:…>`` in ASCII digits only (TRUST.md I6): werkzeug's ``\\d+`` also takes ``'١'`` as 1."""

    regex = r"[0-9]+"


def _new_key() -> str:
    """A fresh idempotency key for one rendered action form (TRUST.md W1)."""
    return secrets.token_urlsafe(16)


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
# The 429 of a route that makes a match (the import says its own, history.py).
TOO_MANY_MATCHES = N_("Too many new matches from this address: wait a minute, then try again.")


def error_page(code: int, message: str | None = None) -> tuple[str, int]:
    """The short HTML page of an error: no traceback, SQL, path or token (TRUST.md I2)."""
    title, default = ERRORS.get(code, ERRORS[500])
    if code == 429 and request.endpoint in CREATE_ROUTES:
        default = TOO_MANY_MATCHES
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

    @app.errorhandler(sqlite3.Error)
    def storage_error(error: sqlite3.Error) -> tuple[str, int] | tuple[str, int, dict[str, str]]:
        """A full disk, a read-only or missing database: the read-only page and why (TRUST.md R6).
        A writer that waited the whole busy timeout for the others (a server overloaded): 503, try
        again; its transaction never began, so nothing was recorded and a retry records once."""
        if db.is_locked(error):
            app.logger.warning("a write waited %d ms for the others and gave up", db.BUSY_TIMEOUT_MS)
            title, message = ERRORS[500]
            page = render_template("error.html", code=503, title=_(title), message=_(message))
            return page, 503, {"Retry-After": "2"}
        fault = fault_of(error, app.config["DATABASE"])
        if fault is None:
            return server_error(error)
        app.logger.warning("scores cannot be saved: %s (%s)", fault.reason, error)
        db.forget_connection()
        return error_page(503, fault.message)
