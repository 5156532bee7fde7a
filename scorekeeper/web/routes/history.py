"""The history blueprint: a match's sheet, chart, log and steps; its rematch; export and import.

Reading routes are GETs that write nothing; rematch and import are plain
form posts like every other write.
"""

from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.match import replay
from scorekeeper.matchfile import FormatError
from scorekeeper.refusals import RuleBroken
from scorekeeper.summary import played_on, protocol, score_sheet, totals_by_round
from scorekeeper.web import roles
from scorekeeper.web.errors import error_page
from scorekeeper.web.forms import ALREADY_USED, creation_key
from scorekeeper.web.present.chart import chart
from scorekeeper.web.present.feed import full_log
from scorekeeper.web.present.i18n import error_text, house_rules, say
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.table import table_context, variant_notes
from scorekeeper.web.roles import keeper_required
from scorekeeper.web.security import creation_limit, csrf, import_rate, limiter
from scorekeeper.web.settings import IMPORT_LIMIT
from scorekeeper.web.store import creations, eventlog, writes
from scorekeeper.web.store.eventlog import match_or_404
from scorekeeper.web.store.imports import TooManyEvents, export_text, import_match, origin
from scorekeeper.web.store.stored import StoredMatch
from scorekeeper.words import N_, said

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("history", __name__)


@bp.get("/m/<match_id>/history")
def match_page(match_id: str) -> str:
    """The whole match: score sheet by round and phase, chart, and every event with its time."""
    return _match_page(match_or_404(match_id))


def _match_page(match: StoredMatch) -> str:
    state = eventlog.state_of(match)
    return render_template(
        "history/match.html",
        match=match,
        state=state,
        sheet=score_sheet(state),
        protocol=protocol(state),
        origin=origin(match.id),
        chart=chart(totals_by_round(state), state.players, state.rules.target),
        log=full_log(match),
        house_rules=house_rules(state.rules),
        rules_beside_target=house_rules(state.rules, target=False),
        played_on=played_on(state),
        **variant_notes(state),
    )


@bp.get("/m/<match_id>/at/<int(max=999999):step>")
def at(match_id: str, step: int) -> str:
    """The table exactly as it was after the first ``step`` events."""
    match = match_or_404(match_id)
    if not 0 <= step <= match.version:
        abort(404)
    return _at(match, step)


def _at(match: StoredMatch, step: int) -> str:
    earlier = match.at(step)
    state = replay(match.players, match.rules, earlier.events)
    return render_template("history/at.html", step=step, last=match.version, **table_context(earlier, state))


def _forbidden(match_id: str) -> None:
    match_or_404(match_id)  # an unknown match is not found; a known one is not theirs
    abort(403)


@bp.post("/m/<match_id>/rematch")
@creation_limit
@keeper_required(_forbidden)  # the scorekeeper starts the rematch; the others follow the new live link
def rematch(match_id: str) -> BaseResponse:
    """A new match with the same players, seats and house rules."""
    match = match_or_404(match_id)
    try:
        key = creation_key(request.form)
    except FormatError:
        abort(400)
    made = roles.digest(f"rematch:{match.id}")  # what the key makes: this match's rematch
    try:
        new_id = creations.create_match(
            match.players, match.rules, key=key, fingerprint=made, rematch_of=match.id
        )
    except writes.KeyReused:
        abort(422)  # TRUST.md W3: the key of another match's rematch
    roles.grant(new_id)
    return redirect(url_for("matches.show", match_id=new_id), 303)


@bp.get("/m/<match_id>/export.csv")
def export_csv(match_id: str) -> Response:
    """The score sheet as CSV: one line per change of a total, then the totals after each round."""
    match = match_or_404(match_id)
    state = eventlog.state_of(match)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["round", "phase", "player", "points", "for", *(f"total {p}" for p in state.players)])
    for sheet_round in score_sheet(state):
        for line in sheet_round.lines:
            writer.writerow([sheet_round.number, line.phase, line.player, line.delta, line.what])
        writer.writerow([sheet_round.number, "", "", "", "end of round", *sheet_round.totals])
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="chicago-{match.id}.csv"'
    return response


@bp.get("/m/<match_id>/export")
def export(match_id: str) -> Response:
    """Download the match as a ``chicago-match/1`` file."""
    match = match_or_404(match_id)
    from scorekeeper import __version__

    text = export_text(match, app_version=__version__)
    response = Response(text, mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="chicago-{match.id}.json"'
    return response


# TRUST.md I7: imports are counted per address before the form is read. CSRF exemption only puts
# the rate limit first: the view checks the token itself.
@bp.route("/import", methods=["GET", "POST"])
@limiter.limit(import_rate, methods=["POST"])
@csrf.exempt  # type: ignore[untyped-decorator]
def import_file() -> BaseResponse | tuple[str, int] | str:
    """Import a ``chicago-match/1`` file: replayed by the engine first; a refused file stores nothing."""
    if request.method == "GET":
        return render_template("history/import.html")
    # CSRFProtect reads the whole form (up to 2 MiB, 0.3 s of CPU for one of escapes) before any
    # view runs, and a route's rate limit is counted only when its view runs: a client over its
    # allowance would still cost the server that much per post.
    _read_form()
    upload = request.files.get("file")
    # A browser sends the file field even when no file was chosen: then the pasted text counts.
    text = upload.read() if upload is not None and upload.filename else request.form.get("text", "").encode()
    if not text.strip():
        return render_template("history/import.html", refusal=_("Choose a match file, or paste one.")), 422
    try:
        key = creation_key(request.form)
    except FormatError as error:
        return render_template("history/import.html", refusal=error_text(error)), 422
    try:
        match_id = import_match(text, key)  # a repeat of this form: the match it made
        roles.grant(match_id)
    except creations.AlreadyStored as stored:  # counted once: a link to it, and no role in it
        return render_template("history/import.html", stored=stored.match_id)
    except TooManyEvents as error:
        return render_template("history/import.html", refusal=error_text(error)), 422
    except (FormatError, RuleBroken) as error:
        return render_template("history/import.html", refusal=not_imported(error)), 422
    except writes.KeyReused:
        refusal = _(ALREADY_USED)
        return render_template("history/import.html", refusal=refusal), 422
    return redirect(url_for("history.match_page", match_id=match_id), 303)


def not_imported(error: FormatError | RuleBroken) -> str:
    """Why a file was not imported, one sentence in the page's language (the event at fault named)."""
    words = error.words or error.message  # a match file's error without words: only the JSON parser's
    if isinstance(error, RuleBroken):
        why = N_("Nothing was imported: event {index} breaks a rule ({error})")
    elif error.index is not None:
        why = N_("Nothing was imported: event {index} cannot be read ({error})")
    else:
        why = N_("Not a match file: {error}")
    # Counted from 1, as the history counts events ("Event 1 of 59"); the file format's index is 0-based.
    number = None if error.index is None else error.index + 1
    return say(said(why, index=number, error=words))


def _read_form() -> None:
    """Parse the form from the body already read, and check its CSRF token."""
    if current_app.config["WTF_CSRF_ENABLED"]:
        csrf.protect()
    request.form  # noqa: B018 - parsed here, as protect() does, when the check is off (tests)


@bp.errorhandler(413)
@bp.errorhandler(429)
def too_much(error: HTTPException) -> tuple[str, int]:
    """A file over the cap, or imports too fast: the import page says which (other pages: the plain one)."""

    code = error.code or 500
    if request.endpoint != "history.import_file":
        return error_page(code)
    if code == 413:
        refusal = _(
            "A match file may be at most %(size)d MB: this one is larger.", size=IMPORT_LIMIT // 2**20
        )
    else:
        refusal = _("Too many imports from this address. Wait a minute, then try again.")
    return render_template("history/import.html", refusal=refusal), code
