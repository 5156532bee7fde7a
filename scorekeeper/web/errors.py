"""Every error is a short HTML page: no traceback, SQL, path or token (TRUST.md I2).

A full disk, a read-only or missing database is the read-only page, and why
(TRUST.md R6); a write that waited too long for the others is a 503 to retry.
"""

from __future__ import annotations

import sqlite3

from flask import Flask, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from scorekeeper.web.forms import NOT_UNDERSTOOD, OUT_OF_DATE
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.security import CREATE_ROUTES
from scorekeeper.web.settings import BUSY_TIMEOUT_MS
from scorekeeper.web.store import db
from scorekeeper.web.store.faults import fault_of
from scorekeeper.words import N_

ERRORS = {
    400: (
        N_("Request not understood"),
        NOT_UNDERSTOOD,
    ),
    403: (N_("Not allowed"), N_("This phone may not do that.")),
    404: (N_("Not found"), N_("There is nothing here. A link may be mistyped or out of date.")),
    405: (N_("Not allowed"), N_("This page cannot do that.")),
    413: (N_("Too large"), N_("That is too large to send.")),
    415: (N_("Request not understood"), N_("This page only accepts its own form. Reload it and try again.")),
    429: (
        N_("Too many requests"),
        N_("Too many wrong links from this address. Wait a minute, then try again."),
    ),
    500: (N_("Something went wrong"), N_("Nothing was recorded. Reload the page and try again.")),
    503: (N_("Read-only"), N_("The score database needs attention; nothing can be recorded now.")),
}
# The 429 of a route that makes a match (the import says its own, history.py).
TOO_MANY_MATCHES = N_("Too many new matches from this address. Wait a minute, then try again.")


def error_page(code: int, message: str | None = None) -> tuple[str, int]:
    """The short HTML page of an error: no traceback, SQL, path or token (TRUST.md I2)."""
    title, default = ERRORS.get(code, ERRORS[500])
    if code == 429 and request.endpoint in CREATE_ROUTES:
        default = TOO_MANY_MATCHES
    text = _(message or default)
    return render_template("error.html", code=code, title=_(title), message=text), code


def init_app(app: Flask) -> None:
    """Every error is a short HTML page (a blueprint may say more for its own routes)."""

    @app.errorhandler(CSRFError)
    def csrf_error(_: CSRFError) -> tuple[str, int]:
        return error_page(400, OUT_OF_DATE)

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
            app.logger.warning("a write waited %d ms for the others and gave up", BUSY_TIMEOUT_MS)
            title, message = ERRORS[500]
            page = render_template("error.html", code=503, title=_(title), message=_(message))
            return page, 503, {"Retry-After": "2"}
        fault = fault_of(error, app.config["DATABASE"])
        if fault is None:
            return server_error(error)
        app.logger.warning("scores cannot be saved: %s (%s)", fault.reason, error)
        db.forget_connection()
        return error_page(503, fault.message)
