"""The history blueprint: a match's sheet, chart, log and steps; people; the hand checker; import/export.

Reading routes are GETs that write nothing; rematch, rename, merge and
import are plain form posts like every other write.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from scorekeeper.cards import Card, CardError, parse_hand
from scorekeeper.hands import rank_hands
from scorekeeper.match import replay
from scorekeeper.matchfile import FormatError
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.summary import protocol, score_sheet, totals_by_round
from scorekeeper.web import csrf, roles
from scorekeeper.web.forms import creation_key, whole_number
from scorekeeper.web.limits import creations, import_rate, limiter
from scorekeeper.web.present.chart import chart
from scorekeeper.web.present.i18n import error_text, rules_summary
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.table import full_log, table_context
from scorekeeper.web.roles import keeper_required
from scorekeeper.web.routes.matches import PAGE, link_number
from scorekeeper.web.store import eventlog, people, stats, writes
from scorekeeper.web.store.eventlog import StoredMatch, match_or_404
from scorekeeper.web.store.imports import IMPORT_LIMIT, TooManyEvents, import_match, origin
from scorekeeper.words import N_

bp = Blueprint("history", __name__)

HAND_SLOTS = 4
HAND_TEXT, HAND_PICKS = 60, 8  # room for five cards with spaces, symbols and mistakes


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
        rules_summary=rules_summary(state.rules),
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
@creations
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
        new_id, keeper = writes.create_match(
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
        return render_template("history/import.html", refusal="Choose a match file, or paste one."), 422
    try:
        key = creation_key(request.form)
    except FormatError as error:
        return render_template("history/import.html", refusal=error_text(error)), 422
    try:
        match_id, keeper = import_match(text, key)  # a repeat of this form: the match it made
        roles.grant(match_id)
    except writes.AlreadyStored as stored:  # counted once: a link to it, and no role in it
        return render_template("history/import.html", stored=stored.match_id)
    except TooManyEvents as error:
        return render_template("history/import.html", refusal=error_text(error)), 422
    except FormatError as error:
        return render_template("history/import.html", refusal=f"Not a match file: {error}"), 422
    except RuleBroken as error:
        return render_template("history/import.html", refusal=f"Refused: {error}"), 422
    except writes.KeyReused:
        refusal = _("This tap was already used for another action.")
        return render_template("history/import.html", refusal=refusal), 422
    return redirect(url_for("history.match_page", match_id=match_id), 303)


def _read_form() -> None:
    """Parse the form from the body already read, and check its CSRF token."""
    if current_app.config["WTF_CSRF_ENABLED"]:
        csrf.protect()
    request.form  # noqa: B018 - parsed here, as protect() does, when the check is off (tests)


@bp.errorhandler(413)
@bp.errorhandler(429)
def too_much(error: HTTPException) -> tuple[str, int]:
    """A file over the cap, or imports too fast: the import page says which (other pages: the plain one)."""
    from scorekeeper.web import error_page

    code = error.code or 500
    if request.endpoint != "history.import_file":
        return error_page(code)
    if code == 413:
        refusal = _(
            "A match file may be at most %(size)d MB: this one is larger.", size=IMPORT_LIMIT // 2**20
        )
    else:
        refusal = _("Too many imports from this address: wait a minute, then try again.")
    return render_template("history/import.html", refusal=refusal), code


@bp.get("/players")
def players() -> str:
    """Everybody, a page at a time by name, and the people log: every rename and merge, each
    undoable (TRUST.md P1)."""
    page = link_number("page", PAGE, N_("The page number")) if "page" in request.args else 1
    return _players_page(page)


def _players_page(page: int = 1, **refused: str) -> str:
    """A page of the players (``stats.PEOPLE_PAGE`` of them), whether more follow, and the people log."""
    size = stats.PEOPLE_PAGE
    found = stats.people((page - 1) * size, size + 1)
    return render_template(
        "history/players.html",
        people=found[:size],
        more=len(found) > size,
        page=page,
        log=people.log(),
        **refused,
    )


@bp.get("/players/<int(max=999999999):person_id>")
def player(person_id: int) -> str:
    person = stats.person(person_id)
    if person is None:
        abort(404)
    return render_template("history/player.html", person=person, others=stats.names())


@bp.post("/players/<int(max=999999999):person_id>/rename")
def rename(person_id: int) -> BaseResponse | tuple[str, int]:
    person = stats.person(person_id)
    if person is None:
        abort(404)
    try:
        people.rename_person(person_id, request.form.get("name", ""))
    except people.NotFound:
        abort(404)  # merged into someone else meanwhile
    except (FormatError, people.NameTaken) as error:
        typed = request.form.get("name", "")  # a refused form shows what was typed into it
        refused = {"refusal": error_text(error), "typed_name": typed}
        page = render_template("history/player.html", person=person, others=stats.names(), **refused)
        return page, 422
    return redirect(url_for("history.player", person_id=person_id), 303)


@bp.post("/players/<int(max=999999999):person_id>/merge")
def merge(person_id: int) -> BaseResponse:
    other = whole_number(request.form.get("other", ""))
    if stats.person(person_id) is None or other is None:
        abort(404)
    try:
        people.merge_people(person_id, other)  # a second tap finds it done, and answers the same
    except people.NotFound:
        abort(404)
    return redirect(url_for("history.player", person_id=person_id), 303)


@bp.post("/players/log/<int(max=999999999):entry_id>/undo")
def undo_change(entry_id: int) -> BaseResponse | tuple[str, int]:
    """Take back one rename or merge of the people log, in one tap (TRUST.md P1)."""
    try:
        people.undo_change(entry_id, request.form.get("key") or None)
    except people.NotFound:
        abort(404)
    except people.Refused as error:
        return _players_page(refusal=error_text(error)), error.status
    return redirect(url_for("history.players"), 303)


@bp.get("/hands")
def hands() -> tuple[str, int] | str:
    """The hand checker: type or pick up to four hands; see each one and who wins, card by card."""
    slots: list[dict[str, Any]] = []
    for i in range(1, HAND_SLOTS + 1):
        # A hand is five cards: what is typed past a few dozen characters, or picked past a few
        # cards, is not read (20,000 cards took 134 ms and a 164 KB page of errors, TRUST.md I8).
        typed = request.args.get(f"hand{i}", "").strip()[:HAND_TEXT]
        picked = request.args.getlist(f"pick{i}")[:HAND_PICKS]
        slots.append({"index": i, "text": " ".join(p for p in [typed, *picked] if p), "wrong": False})
    errors = _hand_errors(slots)
    given = [(str(_("Hand %(num)d", num=s["index"])), s["text"]) for s in slots if s["text"]]
    ranked = rank_hands(given) if given and not errors else []
    page = render_template(
        "history/hands.html", slots=slots, ranked=ranked, errors=errors, points=Rules().points
    )
    return (page, 422) if errors else page


def _hand_errors(slots: list[dict[str, Any]]) -> list[str]:
    """Every error at once, each naming its hand: each hand read alone, then no card in two hands."""
    errors: list[str] = []
    owner: dict[Card, int] = {}  # each card read so far, and the hand it is in
    for slot in slots:
        if not slot["text"]:
            continue
        try:
            cards = parse_hand(slot["text"])
        except CardError as error:
            slot["wrong"] = True
            hand = _("Hand %(num)d", num=slot["index"])
            errors.append(str(_("%(hand)s: %(error)s", hand=hand, error=error_text(error))))
            continue
        for card in cards:
            if card in owner:  # RULES.md: one deck is in play
                slot["wrong"] = True
                twice = _(
                    "%(card)s is in Hand %(first)d and in Hand %(second)d: one deck is in play",
                    card=repr(card),
                    first=owner[card],
                    second=slot["index"],
                )
                errors.append(str(twice))
            else:
                owner[card] = slot["index"]
    return errors
