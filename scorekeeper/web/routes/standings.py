"""The standings blueprint: everybody's rating and figures over a period, for a circle of players.

A GET page that writes nothing. The period is this month, this year, all
time, or between two days (UTC, both included); the ratings start afresh at
the period's first match (ratings.py). The circle is whom the page lists and
charts (everybody who finished a match in the period if none is chosen); a
rating counts every finished match of the period, whoever else played it.
A link the page cannot read is answered 400, saying which part and why.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from flask import Blueprint, render_template
from flask import request as flask_request
from werkzeug.datastructures import MultiDict

from scorekeeper.web.present.chart import Chart, chart
from scorekeeper.web.present.i18n import gettext as _
from scorekeeper.web.present.i18n import say
from scorekeeper.web.routes.matches import PERSON
from scorekeeper.web.store import ratings, stats
from scorekeeper.words import N_, Said, said

# Module-level as Flask's decorators (``@bp.get``) need it when the routes are defined: state the
# library forces, and no app's (a blueprint holds its routes; routes/__init__.py registers it).
bp = Blueprint("standings", __name__)

PERIODS = ("month", "year", "all", "between")
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
CIRCLE_MOST = 50  # people chosen at once: a club's circle, and a link of a sensible length
SHOWN = stats.PEOPLE_PAGE  # rows listed at most, whoever played
CHARTED = 4  # lines on the chart: its four colours (s0-s3), the circle's best four
CHART_POINTS = 120  # points per line at most: a long period is drawn every few matches


class Unreadable(Exception):
    """A standings link the page cannot read, in words (answered 400)."""

    def __init__(self, words: Said) -> None:
        self.words = words
        super().__init__(str(words))


@dataclass(frozen=True)
class Period:
    """The days a standings page covers, both included; None: open at that end."""

    kind: str
    first: date | None = None
    last: date | None = None

    def bounds(self) -> tuple[str, str]:
        """The ISO times a match must finish between (from ``since``, before ``until``)."""
        since = self.first.isoformat() if self.first else ""
        if self.last is None or self.last == date.max:
            return since, "\uffff"
        return since, (self.last + timedelta(days=1)).isoformat()


def read_period(args: MultiDict[str, str], today: date) -> Period:
    """The period a link asks for (this month by default)."""
    kind = args.get("period", "month")
    if kind not in PERIODS:
        raise Unreadable(said(N_("The period must be this month, this year, all time, or between two dates")))
    if kind == "month":
        return Period(kind, today.replace(day=1))
    if kind == "year":
        return Period(kind, today.replace(month=1, day=1))
    if kind == "all":
        return Period(kind)
    first, last = _day(args, "from", N_("The start date")), _day(args, "to", N_("The end date"))
    if first and last and first > last:
        raise Unreadable(said(N_("The start date must not be after the end date")))
    return Period(kind, first, last)


def _day(args: MultiDict[str, str], name: str, label: str) -> date | None:
    text = args.get(name, "")
    if not text:
        return None
    try:
        if not DAY.fullmatch(text):
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise Unreadable(
            said(N_("{field} must be a date written as 2025-03-01"), field=said(label))
        ) from None


def read_circle(args: MultiDict[str, str]) -> dict[int, str]:
    """The people a link names (none: everybody), by id, with their names."""
    texts = args.getlist("player")
    if len(texts) > CIRCLE_MOST:
        raise Unreadable(said(N_("Choose at most {count} players"), count=CIRCLE_MOST))
    ids = []
    for text in texts:
        number = PERSON.read(text)
        if number is None:
            raise Unreadable(PERSON.refusal(said(N_("Player"))))
        ids.append(number)
    found = ratings.people_named(ids)
    unknown = [number for number in ids if number not in found]
    if unknown:
        raise Unreadable(said(N_("There is no player number {number}"), number=unknown[0]))
    return found


@bp.get("/standings")
def page() -> str:
    """Ratings, matches played and won, points per round and Chicagos of a period, and a chart."""
    args = flask_request.args
    period = read_period(args, datetime.now(UTC).date())
    circle = read_circle(args)
    rated = ratings.ratings_between(*period.bounds())
    rows = [s for s in rated.standings.values() if not circle or s.person in circle]
    rows.sort(key=lambda s: (-s.rating, s.name.casefold(), s.person))
    choices = {p["id"]: p["name"] for p in stats.recent_people()} | circle
    return render_template(
        "standings/page.html",
        period=period,
        periods=PERIODS,
        circle=circle,
        choices=sorted(choices.items(), key=lambda item: (item[1].casefold(), item[0])),
        rows=rows[:SHOWN],
        more=len(rows) - SHOWN,
        absent=[name for person, name in circle.items() if person not in rated.standings],
        matches=rated.matches,
        chart=rating_chart(rows[:CHARTED], rated.matches) if rows else None,
    )


def rating_chart(rows: list[ratings.Standing], count: int) -> Chart:
    """The ratings of ``rows`` after each match of the period, drawn as the match chart draws totals."""
    step = max(1, math.ceil(count / CHART_POINTS))
    picks = [*range(0, count, step), count]
    drawn = chart([[row.path[i] for row in rows] for i in picks], [row.name for row in rows], 0)
    # The chart labels each point by its place: here, the match it follows.
    return replace(drawn, ticks=tuple((x, str(picks[int(label)])) for x, label in drawn.ticks))


@bp.errorhandler(Unreadable)
def unreadable(error: Unreadable) -> tuple[str, int]:
    message = say(error.words)
    return render_template("error.html", code=400, title=_("Request not understood"), message=message), 400


@bp.app_template_global()
def rating_changes(match_id: str) -> tuple[ratings.Change, ...]:
    """What a finished match did to its players' ratings, all time (a match's history page shows it)."""
    return ratings.changes_of(match_id)
