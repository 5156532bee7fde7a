"""Everything htmx-specific: which requests want a fragment, and how to answer them (and the 204).

Every ``HX-`` header is read here (through htmx-flask's ``request.htmx``),
so changing the htmx version is a one-file change.
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template
from htmx_flask import request

HTMX_VERSION = "2.0.11"
HTMX_SCRIPT = f"vendor/htmx-{HTMX_VERSION}.min.js"


def wants_partial() -> bool:
    """True for an htmx request that swaps a fragment (not a boosted or history-restore one)."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def render(page: str, partial: str, /, status: int = 200, **context: Any) -> Response:
    """Render the fragment for htmx, the whole page otherwise; responses vary on HX-Request."""
    template = partial if wants_partial() else page
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def redirect_page(html: str, location: str) -> Response:
    """``html`` (a fragment), and for htmx a whole-page redirect to ``location`` (``HX-Redirect``):
    the page loads anew there, its scripts with it."""
    response = Response(html, mimetype="text/html")
    response.headers["HX-Redirect"] = location
    response.vary.add("HX-Request")
    return response


def no_content() -> Response:
    """A 204 whose empty body is counted (a length of 0): without one, Flask-Compress compressed
    the nothing and sent ``Content-Encoding`` on a 204."""
    return Response(b"", status=204)
