"""The routes: one blueprint per URL family, each registered here and nowhere else.

``matches`` (the list, a new match, the table), ``sharing`` (the hand-over and
the live view), ``history`` (a match's history, rematch, export and import),
``players``, ``standings`` (ratings over a period), ``room`` (the board of
every match under way), ``guide`` (the rules and the hand checker) and
``site`` (static files, the installable app's files, the language).
"""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import IntegerConverter

from scorekeeper.web.routes import guide, history, matches, players, room, sharing, site, standings
from scorekeeper.web.settings import STATIC


class AsciiInteger(IntegerConverter):
    """``<int:…>`` in ASCII digits only (TRUST.md I6): werkzeug's ``\\d+`` also takes ``'١'`` as 1."""

    regex = r"[0-9]+"


def register(app: Flask) -> None:
    """The converters, then every blueprint (the converters must be there before the routes)."""
    app.url_map.converters["int"] = AsciiInteger
    site.init_app(app, STATIC)
    for blueprint in (
        site.bp,
        matches.bp,
        sharing.bp,
        history.bp,
        players.bp,
        standings.bp,
        room.bp,
        guide.bp,
    ):
        app.register_blueprint(blueprint)
