"""The sharing blueprint: the hand-over of the scorekeeper's role, and the live view.

The live view is the page, its board, and its stream of versions.

Read-only, for the others at the table, behind the live-view secret. The
stream pushes the board to the page when it changes (``live.py``); a page
without a stream polls the board, and an unchanged one is answered 304. Every route
takes the secret from the link, so the limiter counts wrong ones (TRUST.md S8).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.web import live, roles
from scorekeeper.web.cache import cache, text_size
from scorekeeper.web.present import qr
from scorekeeper.web.present.htmx import no_content, redirect_page, render
from scorekeeper.web.present.i18n import get_locale
from scorekeeper.web.present.reach import share_reach
from scorekeeper.web.present.table import board_context
from scorekeeper.web.roles import keeper_required
from scorekeeper.web.security import limiter, wrong_secret
from scorekeeper.web.store import eventlog
from scorekeeper.web.store.eventlog import match_or_404
from scorekeeper.web.store.stored import StoredMatch

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("sharing", __name__)

T = TypeVar("T")

# A board is kept per version and language; a stream a tap behind may still ask for the one
# before the newest, none for older ones (it is sent the newest board).
BOARDS_KEPT = 2


@bp.get("/m/<match_id>/handover")
@keeper_required(404)
def handover(match_id: str) -> str:
    """The scorekeeper's page of links: hand the role to another phone, or share the live view.

    Each link is shown as text and as a QR code drawn into the page (``qr.svg``): the
    hand-over secret appears in no other URL, so no log can keep it.
    """
    match = match_or_404(match_id)
    reach = share_reach()  # opened on the server's own machine, the links name its address on the network
    claim = reach.url("sharing.claim", t=roles.handover_token(match.id))
    watch = reach.url("sharing.watch", t=roles.watch_token(match.id))
    return render_template(
        "matches/handover.html", match=match, claim_url=claim, watch_url=watch, qr=qr.svg, reach=reach
    )


@bp.get("/claim")
@limiter.limit("30/minute", deduct_when=wrong_secret)
def claim() -> BaseResponse:
    """A hand-over link: this browser becomes a scorekeeper, then a URL without the secret."""
    _, match_id = _opened(roles.match_by_handover)
    roles.grant(match_id)
    return redirect(url_for("matches.show", match_id=match_id), 303)


def _opened(find: Callable[[str], T | None]) -> tuple[str, T]:
    """The link's secret (``t``) and what it opens, or the 404 (which the limiter counts)."""
    token = request.args.get("t", "")
    found = find(token) if token else None
    if found is None:
        abort(404)
    return token, found


def _watched(token: str) -> StoredMatch:
    match = eventlog.load_match("", watch=token) if token else None
    if match is None:
        abort(404)
    return match


@bp.get("/watch")
@limiter.limit("30/minute", deduct_when=wrong_secret)
def watch() -> Response:
    token = request.args.get("t", "")
    match = _watched(token)
    rematch = _rematch_url(match.id)
    context = board_context(match, eventlog.state_of(match), watch_token=token, rematch_url=rematch)
    return render("matches/watch.html", "matches/_board.html", **context)


def _rematch_url(match_id: str) -> str | None:
    """The live view of the match's rematch, if one was started: shown to whoever holds this match's
    live-view link, which is the point (the others at the table follow it without scanning again).
    Never the rematch's scorekeeper or hand-over secret."""
    rematch = eventlog.rematch_of(match_id)
    return None if rematch is None else url_for("sharing.watch", t=roles.watch_token(rematch))


@bp.get("/watch/board")
@limiter.limit("30/minute", deduct_when=wrong_secret)
def watch_board() -> Response:
    """The board fragment; 304 when the match has not changed since the version the page holds."""
    token, found = _opened(eventlog.watched_version)
    rematch = _rematch_url(found[0])
    if rematch is not None:  # the page goes on to the rematch's live view
        match = _watched(token)
        context = board_context(match, eventlog.state_of(match), watch_token=token, rematch_url=rematch)
        return redirect_page(render_template("matches/_board.html", **context), rematch)
    etag = f'"v{found[1]}"'
    if request.headers.get("If-None-Match") == etag:
        response = Response(status=304)
    else:
        match = _watched(token)
        etag = f'"v{match.version}"'
        response = Response(_board_html(match, token), mimetype="text/html")
        response.vary.add("HX-Request")
    response.headers["ETag"] = etag
    return response


def _board_html(match: StoredMatch, token: str) -> str:
    """The board of a match at a version, rendered once for all its spectators who read one language
    (and reach the app at one mount point: its links carry it)."""
    return cache().kept_version(
        "board",
        _board_group(match.id),
        match.version,
        lambda: _rendered(match, token),
        text_size,
        BOARDS_KEPT,
    )


def _board_group(match_id: str) -> tuple[str, str, str]:
    """What a board's versions are kept under: its match, its language, and its links' mount point."""
    return match_id, str(get_locale()), request.script_root


def _rendered(match: StoredMatch, token: str) -> str:
    context = board_context(match, eventlog.state_of(match), watch_token=token)
    return render_template("matches/_board.html", **context)


def _text_of(environ: dict[str, Any]) -> dict[str, str]:
    """The environ's text (its CGI variables and headers), without its streams, sockets and objects."""
    return {key: value for key, value in environ.items() if isinstance(value, str)}


@bp.get("/watch/stream")
@limiter.limit("30/minute", deduct_when=wrong_secret)
def watch_stream() -> Response:
    """The match's board as server-sent events: at each change, and its version as a heartbeat.

    The page says which version it shows (``v``, or Last-Event-ID when the browser
    reconnects); if the match has moved on since, the board comes at once. 204 when
    this process holds as many streams as it may: the browser does not reconnect,
    and the page goes on polling.
    """
    token, found = _opened(eventlog.watched_version)
    versions = live.versions()
    if not versions.join(*found):
        return no_content()

    match_id, kept = found[0], cache()
    group = _board_group(match_id)

    # A board not yet made is read and rendered in a request context of its own, made from this
    # request's environ: its language, its links' mount point and host are all in its text. A
    # stream holds that one dict, not its whole request context, for as long as it is open.
    app, environ = current_app._get_current_object(), _text_of(request.environ)  # type: ignore[attr-defined]

    def made() -> tuple[int, str]:
        with app.request_context(environ):
            match = eventlog.load_match(match_id)
            assert match is not None  # a match is never deleted while watched
            return match.version, _board_html(match, token)

    def board(version: int) -> tuple[int, str]:
        """The board at ``version`` as an event: the one polls get, if a poll or another stream made it."""
        html = kept.get("board", (group, version))
        found = (version, html) if html is not None else made()
        return found[0], live.board_event(*found)

    shown = request.headers.get("Last-Event-ID") or request.args.get("v", "")
    stream = live.Stream(versions, match_id, int(shown) if shown.isdigit() and len(shown) < 10 else -1, board)
    # The stream leaves ``versions`` when the server closes the response (``Stream.close``).
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy (nginx) passes each event on at once
    return response
