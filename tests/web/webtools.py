"""A scorekeeper that records by form posts (like flaskr's AuthActions), and HTML helpers."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from bs4 import BeautifulSoup

from scorekeeper.matchfile import write_event
from scorekeeper.web import roles
from scorekeeper.web.store import db as database
from scorekeeper.web.store import eventlog

HX = {"HX-Request": "true"}


def form_for(event) -> dict:
    """The form fields a scorekeeper's tap posts for an event (the file's fields, as the form sends them)."""
    data = write_event(event)
    kind = data["type"]
    fields = {"type": kind}
    for key in ("player", "hand", "winner", "card", "reason", "count", "points"):
        if key in data:
            fields[key] = "" if data[key] is None else str(data[key])
    if kind == "draw":
        fields.update({f"draw.{name}": card for name, card in data["cards"].items()})
    elif kind == "tie" and "cards" in data:
        ((player, cards),) = data["cards"].items()
        fields.update(player=player, cards=cards)
    elif "cards" in data:
        fields["cards"] = data["cards"]
    return fields


class Keeper:
    """Record like a scorekeeper: each verb is one POST of the form the page shows."""

    def __init__(self, app, client):
        self.app, self.client, self.match_id = app, client, None

    def new(self, *players: str, dealer: str | None = None, **rules: str):
        data = {"name": list(players), "dealer": "draw" if dealer is None else str(players.index(dealer))}
        data.update(rules, start="1")
        response = self.client.post("/new", data=data)
        assert response.status_code == 303, response.text
        self.match_id = response.headers["Location"].rsplit("/", 1)[1]
        return self

    def detailed(self):
        """This phone records showdowns declaration by declaration (the one-tap grid is the default)."""
        self.client.set_cookie("entry", "detail")
        return self

    @property
    def match(self):
        with self.app.app_context():
            return eventlog.load_match(self.match_id)

    @property
    def version(self) -> int:
        return self.match.version

    def rows(self) -> int:
        with self.app.app_context():
            return database.get_db().table("events").count_where("match_id = ?", [self.match_id])

    def post(self, path="record", htmx=True, version=None, **fields):
        data = {"version": str(self.version if version is None else version), **fields}
        return self.client.post(f"/m/{self.match_id}/{path}", data=data, headers=HX if htmx else {})

    def record(self, event, **kwargs):
        """Post an event the way the screen does (tied hands: one player's cards at a time)."""
        if event.type == "undo":
            return self.post("undo", **kwargs)
        if event.type == "tie" and event.cards and len(event.cards) > 1:
            for name, cards in event.cards.items():
                response = self.post(**form_for(type(event)(cards={name: cards})), **kwargs)
            return response
        return self.post(**form_for(event), **kwargs)

    def declare(self, player, hand, cards=None, **kwargs):
        fields = {"type": "declare", "player": player, "hand": hand}
        if cards:
            fields["cards"] = cards
        return self.post(**fields, **kwargs)

    def page(self) -> BeautifulSoup:
        return BeautifulSoup(self.client.get(f"/m/{self.match_id}").text, "html.parser")


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.text, "html.parser")


MATCHES = Path(__file__).parents[1] / "matches"


def recorded(name: str) -> dict:
    return json.loads((MATCHES / f"{name}.json").read_text())


def old_secret(app, match_id: str) -> str:
    """Give a match a secret of its own, as every match had before roles moved to the server (its
    hash in ``matches.keeper_hash``; the old cookies and hand-over links carried the secret)."""
    secret = secrets.token_urlsafe(32)
    with app.app_context():
        db = database.get_db()
        with db.conn:
            db.execute("UPDATE matches SET keeper_hash = ? WHERE id = ?", [roles.digest(secret), match_id])
    return secret
