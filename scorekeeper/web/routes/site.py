"""The site's own files and its language.

Static files under fingerprinted names, cached by phones for a year; the installable app's files;
the language switch.

Each file in ``static/`` is also served as ``/a/<name>.<hash>.<ext>``, the hash
taken from its content when the app starts (no build step, so a checkout and an
installed wheel behave alike). A changed file gets a new name, so its old one
may be cached forever. The service worker and the manifest keep fixed names
at the top of the site, as browsers require.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.web.present.htmx import HTMX_SCRIPT
from scorekeeper.web.present.i18n import COOKIE, LANGUAGES, get_locale
from scorekeeper.web.present.i18n import gettext as _

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("site", __name__)

YEAR = 60 * 60 * 24 * 365


def fingerprints(static: Path) -> dict[str, str]:
    """``{"app.css": "app.1a2b3c4d5e.css", ...}`` for every file under ``static``."""
    names = {}
    for path in sorted(p for p in static.rglob("*") if p.is_file()):
        name = path.relative_to(static).as_posix()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
        stem, dot, ext = name.rpartition(".")
        names[name] = f"{stem}.{digest}.{ext}" if dot and "/" not in ext else f"{name}.{digest}"
    return names


def init_app(app: Flask, static: Path) -> None:
    names = fingerprints(static)
    app.extensions["assets"] = {"names": names, "files": {v: k for k, v in names.items()}}
    app.jinja_env.globals["asset"] = asset


def asset(name: str) -> str:
    """The fingerprinted URL of a static file (for templates)."""
    return url_for("site.file", name=current_app.extensions["assets"]["names"][name])


def shell() -> list[str]:
    """What the service worker keeps for the app to open without the network."""
    wanted = ("app.css", "app.js", HTMX_SCRIPT, "icons/icon-192.png", "icons/favicon-48.png")
    return [asset(n) for n in wanted] + [url_for("site.offline")]


@bp.get("/a/<path:name>")
def file(name: str) -> Response:
    real = current_app.extensions["assets"]["files"].get(name)
    if real is None:
        abort(404)
    response = send_from_directory(current_app.static_folder or "", real, max_age=YEAR)
    response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    return response


# The page links the manifest by its language: a browser fetches it without cookies, and each
# language's file is then one URL that may be cached (a day: the icons' names change with a release).
@bp.get("/manifest.webmanifest")
@bp.get("/manifest.<lang>.webmanifest")
def manifest(lang: str | None = None) -> Response:
    """The installable app's manifest, its name and description in the language the URL names."""
    if lang is not None and lang not in LANGUAGES:
        abort(404)
    icons = [
        {"src": asset("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": asset("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": asset("icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    body = {
        "name": _("Chicago Scorekeeper"),
        "short_name": _("Chicago"),
        "description": _("Keep score at the table for Swedish Chicago."),
        "lang": str(get_locale()),
        "dir": "ltr",
        "start_url": url_for("matches.index"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#f7f5ef",
        "theme_color": "#0b6e4f",
        "icons": icons,
    }
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    if lang is None:  # the language chosen by the cookie or the browser's languages
        response.headers["Cache-Control"] = "private, max-age=3600"
        response.vary.update(("Accept-Language", "Cookie"))
    else:
        response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, at the top so that its scope is the whole site; never cached itself."""
    files = shell()
    version = hashlib.sha256(" ".join(files).encode()).hexdigest()[:10]
    text = render_template("sw.js", shell=files, version=version)
    response = Response(text, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline() -> str:
    """The page the service worker shows when the server cannot be reached."""
    return render_template("offline.html")


def _back(target: str) -> str:
    """The page the switch was made on: the Referer when it is this site's (it keeps a live view's
    secret out of the page), else the posted path. Never another site."""
    referer = urlsplit(request.referrer or "")
    if referer.netloc == request.host and referer.path.startswith("/"):
        return referer.path + (f"?{referer.query}" if referer.query else "")
    if urlsplit(target).netloc or not target.startswith("/") or target.startswith("//"):
        return url_for("matches.index")
    return target


@bp.post("/language")
def switch() -> BaseResponse:
    """Switch the language of this phone (a plain form post, so it works without JavaScript)."""
    chosen = request.form.get("lang", "")
    response = redirect(_back(request.form.get("next", "/")), 303)
    if chosen in LANGUAGES:
        response.set_cookie(
            COOKIE,
            chosen,
            max_age=60 * 60 * 24 * 365,
            samesite="Lax",
            httponly=True,
            secure=current_app.config["SESSION_COOKIE_SECURE"],  # every cookie is Secure under tls (S13)
        )
    return response
