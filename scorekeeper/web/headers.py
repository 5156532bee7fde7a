"""The security headers of every response (TRUST.md S3, S5), and the app's one bodiless answer, 204."""

from __future__ import annotations

from flask import Response, current_app, request

# media-src adds data: for NoSleep.js (static/vendor/), which keeps the screen on where the Wake Lock API
# is missing (plain HTTP on the table's network) by playing a tiny video it carries as data: URIs. A
# media file cannot run script; script-src stays 'self'.
CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self';"
    " media-src 'self' data:"
)
HSTS = "max-age=31536000; includeSubDomains"
# Files, not pages: they may be cached, and need no CSP of their own.
FILE_ENDPOINTS = ("static", "assets.file")


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


def no_content() -> Response:
    """A 204 whose empty body is counted (a length of 0): without one, Flask-Compress compressed
    the nothing and sent ``Content-Encoding`` on a 204."""
    return Response(b"", status=204)
