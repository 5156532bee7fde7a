"""Make the legacy database fixture: legacy.sqlite, legacy.json and the snapshots in expected/.

Run once, with the code of the commit the fixture is made by (not a test; pytest does not
collect it, and importing it does nothing):

    python tests/legacy/make_legacy_db.py --overwrite

Everything in the database is written the way people write it: through the app's own HTTP
routes, with the Flask test client (/new, the table's forms, undo, /import, rematch, rename
and merge), so the rows are exactly what that code writes. Each match is scored from its own
phone (a client of its own), and its scorekeeper secret is read from its hand-over page.

Then, in a fresh process over a fresh copy of the finished file (as the test does), it records
what the app shows: the exports byte for byte and the visible text of the pages.
test_legacy_database.py checks that a later version of the app still shows the same.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup
from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script: this checkout's code, not an editable install's
    sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from legacytools import (  # noqa: E402
    DATABASE,
    EXPECTED,
    EXPORTS,
    META,
    PAGE_KINDS,
    app_config,
    get,
    load_json,
    page_lines,
    page_text,
    watch_token,
    write_json,
)

# Fixed, so that the live-view links (an HMAC of the match id with this key) can be worked out again.
SECRET_KEY = "a3573e19d6e9b5d8422b95bd87c2a413fe72a6a034702825ccada000a4092f9e"
MATCHES = Path(__file__).resolve().parents[1] / "matches"
EN = {"Accept-Language": "en"}
HX = {"Accept-Language": "en", "HX-Request": "true"}


# Every match the fixture holds, in the order they are made, and the state it is left in.
STATES = {
    "new-no-dealer": "new match, nobody has drawn for the first deal",
    "dealer-chosen": "new match, first dealer chosen at creation (round 1, nothing recorded)",
    "draw-tied": "first-dealer draw tied: Anna and Bo draw again",
    "draw-tied-twice": "draw tied, the redraw tied again: a third draw is due",
    "draw-redrawn": "all three tied the draw; the redraw made Bo the dealer (round 1 begins)",
    "exchange": "phase 1 exchange in progress (Bo and Cia exchanged, Anna next)",
    "showdown": "phase 1 showdown in progress: pass, pair, two pair with cards; Dan next",
    "tie-pending": "tie for a flush in phase 1, Dan's cards entered, Bo's missing",
    "show-due": "phase 2: Anna scored phase 1 and must show before exchanging",
    "show-unsupported": "phase 2: Cia showed cards that do not make her straight; take-back offered",
    "chicago-called": "phase 3: Anna (15 points) called Chicago and took two tricks",
    "tricks": "phase 3 trick play, two tricks taken; the draw pile ran out in phase 2",
    "round-summary": "start of round 2: the round summary shows",
    "finished": "finished in round 4 (Bo 53); a Chicago won and one lost",
    "rematch": "a rematch of 'finished': same players and rules, nobody has drawn yet",
    "tie-break-finished": "target 20 (house rule): Dan and Eva tied on 21, Eva won the tie-break; Cia sat out",
    "tie-break-in-progress": "target 20: Anna and Cecilia tied on 21; the tie-break round is in phase 1, Filip sits out",
    "undos": "finished (Anna, royal flush) after undos: of a dealer choice, a declaration, two in a row, and a re-opening",
    "corrections": "corrections: +4, a take-back after an unsupported show, one cut by the zero floor; phase 3",
    "last-showdown": "phase 3 last showdown due after Eva took all five tricks",
    "ties-settled": "ties settled by verdict: identical (nobody scores), then Bo's is higher; phase 3",
    "house-first-to-reach": "house rules: target 20, first to reach, four of a kind 8; Filip reached 21 in round 2",
    "house-flags": "house rules: target 60, pair 2, last trick 6, Chicago 13 from 13, no exchanges from 10, Chicago leads, deuce doubles; round 2 last showdown",
    "import-royal-flush": "imported, finished (Bo 60), an unsupported show taken back",
    "import-tie-break": "imported (as a file upload), finished after a tie-break (house rule target 10)",
    "import-four-players": "imported, in progress: round 2 begins",
    "after-rename": "played after the renames, as Daniel and Göran P (Dan's and Göran's new names)",
    "pile-empty": "phase 2 exchange: the draw pile is empty, the discards must be shuffled",
}


def soup(response: Any) -> BeautifulSoup:
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def form_fields(line: str) -> dict[str, str]:
    """The fields a table form posts for one scoresheet line (tests/script.py's notation).

    ``draw Anna=3h Bo=Ks``; ``dealer Bo``; ``exchange Bo 3``; ``show Bo Qs Qh 9c 5d 2s``;
    ``declare Bo pair [cards]``; ``pass Bo``; ``tie Bo`` / ``tie identical`` /
    ``tie Bo=Qs,Qh,9c,9d,2s``; ``chicago Bo``; ``trick Bo [Ah]``; ``last_trick Bo [2c]``;
    ``adjust Bo -2 reason words``.
    """
    kind, *words = line.split()
    fields = {"type": kind}
    if kind == "draw":
        fields.update({f"draw.{n}": c for n, c in (w.split("=") for w in words)})
    elif kind in ("dealer", "pass", "chicago"):
        fields["player"] = " ".join(words)  # a name may have a space in it
    elif kind == "exchange":
        fields.update(player=words[0], count=words[1])
    elif kind == "show":
        fields.update(player=words[0], cards=" ".join(words[1:]))
    elif kind == "declare":
        fields.update(player=words[0], hand=words[1])
        if words[2:]:
            fields["cards"] = " ".join(words[2:])
    elif kind == "tie" and "=" in words[0]:
        name, cards = words[0].split("=")
        fields.update(player=name, cards=cards.replace(",", " "))
    elif kind == "tie":
        fields["winner"] = "" if words[0] == "identical" else words[0]
    elif kind in ("trick", "last_trick"):
        fields["winner"] = words[0]
        if words[1:]:
            fields["card"] = words[1]
    elif kind == "adjust":
        fields.update(player=words[0], points=words[1], reason=" ".join(words[2:]))
    else:
        raise ValueError(f"unknown line {line!r}")
    return fields


class Table:
    """One match, scored from its own phone (a test client of its own) through the table's forms."""

    def __init__(
        self, app: Any, label: str, players: list[str], dealer: str | None = None, **rules: str
    ) -> None:
        self.app, self.label = app, label
        self.phone = app.test_client()
        form = soup(self.phone.get("/new", headers=EN)).select_one("form.new-match")
        data = MultiDict(_defaults(form))
        data.setlist("name", (players + [""] * 4)[:4])
        data["dealer"] = "draw" if dealer is None else str(players.index(dealer))
        for key, value in rules.items():
            data[key] = value
        data["start"] = "1"
        created = self.phone.post("/new", data=data, headers=EN)
        assert created.status_code == 303, created.get_data(as_text=True)
        self.match_id = created.headers["Location"].rsplit("/", 1)[1]
        self._read_handover()

    @classmethod
    def of(cls, app: Any, label: str, phone: Any, match_id: str) -> Table:
        """A match made another way (an import, a rematch), held by ``phone``."""
        table = cls.__new__(cls)
        table.app, table.label = app, label
        table.phone, table.match_id = phone, match_id
        table._read_handover()
        return table

    def _read_handover(self) -> None:
        """The scorekeeper secret, from the share page's hand-over link (the live link is checked)."""
        page = self.phone.get(f"/m/{self.match_id}/handover", headers=EN)
        assert page.status_code == 200
        watch, claim = (a["href"] for a in soup(page).select("p.link-box a"))
        assert parse_qs(urlsplit(watch).query)["t"] == [watch_token(SECRET_KEY, self.match_id)]
        self.secret = parse_qs(urlsplit(claim).query)["t"][0]

    @property
    def version(self) -> int:
        return int(self.state_and_file()[1].get("version", 0))

    def state_and_file(self) -> tuple[Any, dict[str, Any]]:
        """The match replayed from its own export (the app's truth), to know whose turn it is."""
        from scorekeeper.matchfile import loads

        text = self.phone.get(f"/m/{self.match_id}/export", headers=EN).get_data()
        return loads(text).replay(), {"version": len(json.loads(text)["events"])}

    @property
    def state(self) -> Any:
        return self.state_and_file()[0]

    def _post(self, path: str, fields: dict[str, str]) -> None:
        page = soup(self.phone.get(f"/m/{self.match_id}", headers=EN))
        version = page.select_one("#table input[name=version]")["value"]
        key = page.select_one("#table input[name=key]")["value"]  # a fresh key, as the form carries
        data = {"version": version, "key": key, **fields}
        response = self.phone.post(f"/m/{self.match_id}/{path}", data=data, headers=HX)
        refusal = soup(response).select_one(".refusal")
        assert response.status_code == 200 and refusal is None, (
            self.label,
            fields,
            response.status_code,
            refusal and refusal.get_text(),
        )

    def do(self, *lines: str) -> Table:
        for line in lines:
            if line == "undo":
                self._post("undo", {})
            else:
                self._post("record", form_fields(line))
        return self

    def exchanges(self, *counts: int) -> Table:
        """Exchanges in turn, from the player left of the dealer."""
        for count in counts:
            state = self.state
            self.do(f"exchange {state.players[state.next_exchanger]} {count}")
        return self

    def showdown(self, stop_at: int | None = None, **said: str) -> Table:
        """A whole showdown in speaking order: ``said`` maps a name to ``hand [cards]``, others pass.

        ``stop_at``: stop after that many turns (a showdown in progress).
        """
        start = self.state
        where = (start.round, start.phase, start.tricks_over)
        for turn in range(len(start.order)):
            state = self.state
            if turn == stop_at or (state.round, state.phase, state.tricks_over) != where:
                break
            if state.stage.value not in ("exchange", "showdown"):
                break
            name = state.players[state.speaker]
            self.do(f"declare {name} {said[name]}" if name in said else f"pass {name}")
        return self

    def tricks(self, *winners: str) -> Table:
        """Tricks in order: ``Bo`` or ``Bo:Ah`` (with the winning card)."""
        return self.do(*(f"trick {w.replace(':', ' ')}" for w in winners))

    def meta(self) -> dict[str, Any]:
        state = self.state
        return {
            "label": self.label,
            "id": self.match_id,
            "keeper_secret": self.secret,
            "state": STATES[self.label],
            "players": list(state.players),
            "stage": state.stage.value,
            "round": state.round,
            "phase": state.phase,
            "totals": state.totals,
            "winner": state.winner_name,
            "version": self.version,
        }


def _defaults(form: Any) -> list[tuple[str, str]]:
    """What the new-match form posts untouched (text and number inputs, checked boxes, selects)."""
    out = []
    for field in form.find_all(["input", "select"]):
        name = field.get("name")
        if not name or name == "name":
            continue
        if field.name == "select":
            chosen = field.find("option", selected=True) or field.find("option")
            out.append((name, chosen.get("value", chosen.get_text())))
        elif field.get("type") in ("radio", "checkbox"):
            if field.has_attr("checked"):
                out.append((name, field.get("value", "on")))
        else:
            out.append((name, field.get("value", "")))
    return out


def build(app: Any) -> dict[str, Any]:
    """Make the matches (in STATES' order: the match list shows them newest first) and the people."""
    tables: list[Table] = []

    def keep(table: Table) -> Table:
        tables.append(table)
        time.sleep(0.01)  # every match its own updated_at: the list orders by it
        return table

    keep(Table(app, "new-no-dealer", ["Anna", "Bo", "Cia"]))
    keep(Table(app, "dealer-chosen", ["Anna", "Bo", "Cia", "Dan"], dealer="Cia"))
    keep(Table(app, "draw-tied", ["Anna", "Bo", "Cia", "Dan"]).do("draw Anna=3h Bo=3s Cia=Kd Dan=9c"))
    keep(Table(app, "draw-tied-twice", ["Eva", "Filip"]).do("draw Eva=5h Filip=5d", "draw Eva=Jc Filip=Js"))
    keep(
        Table(app, "draw-redrawn", ["Åsa", "Bo", "Cia"]).do(
            "draw Åsa=2h Bo=2d Cia=2c", "draw Åsa=Kh Bo=4s Cia=9d"
        )
    )
    keep(Table(app, "exchange", ["Anna", "Bo", "Cia"], dealer="Anna").exchanges(3, 0))
    keep(
        Table(app, "showdown", ["Anna", "Bo", "Cia", "Dan"], dealer="Dan")
        .exchanges(2, 5, 1, 0)
        .showdown(stop_at=3, Bo="pair", Cia="two_pair Qs Qh 9c 9d 2s")
    )
    keep(
        Table(app, "tie-pending", ["Bo", "Cia", "Dan"], dealer="Cia")
        .showdown(Dan="flush", Bo="flush")
        .do("tie Dan=Qh,9h,7h,4h,2h")
    )
    keep(Table(app, "show-due", ["Anna", "Bo"], dealer="Bo").exchanges(2, 1).showdown(Anna="three_of_a_kind"))
    keep(
        Table(app, "show-unsupported", ["Anna", "Bo", "Cia"], dealer="Bo")
        .showdown(Cia="straight")
        .do("show Cia 2c 4d 6h 8s Tc")
    )
    keep(
        Table(app, "chicago-called", ["Anna", "Bo"], dealer="Bo")
        .showdown(Anna="four_of_a_kind")
        .do("show Anna 7c 7d 7h 7s Kd")
        .exchanges(1, 3)
        .showdown(Anna="straight_flush")
        .exchanges(0, 2)
        .do("chicago Anna")
        .tricks("Anna:Ah", "Anna:Kh")
    )
    keep(
        Table(app, "tricks", ["Anna", "Bo", "Cia", "Dan"], dealer="Anna")
        .exchanges(5, 5, 5, 5)
        .showdown(Bo="pair", Cia="pair")
        .do("tie Bo=Qs,Qh,9c,5d,2s", "tie Cia=Jd,Jc,8h,4h,3d")
        .exchanges(5, 5, 2, 0)
        .showdown(Dan="flush")
        .exchanges(3)
        .tricks("Bo:Ah", "Cia:Kc")
    )
    keep(
        Table(app, "round-summary", ["Dan", "Eva", "Filip"], dealer="Dan")
        .showdown()
        .showdown(Eva="pair")
        .do("last_trick Filip")
        .showdown(Dan="two_pair")
    )
    finished = keep(
        Table(app, "finished", ["Anna", "Bo", "Cia"])
        .do("draw Anna=Ks Bo=4h Cia=9d")
        # Round 1, Bo deals.
        .exchanges(2, 3, 1)
        .showdown(Anna="flush Qh 9h 7h 4h 2h")
        .do("show Anna Qh 9h 7h 4h 2h")
        .exchanges(1, 0, 2)
        .showdown(Cia="full_house")
        .tricks("Cia", "Anna", "Anna", "Bo", "Bo:Ah")
        .showdown(Bo="straight")
        # Round 2, Cia deals.
        .showdown(Anna="four_of_a_kind")
        .showdown(Bo="straight_flush")
        .do("chicago Bo")
        .tricks("Bo", "Bo", "Bo", "Bo", "Bo")
        .showdown(Cia="three_of_a_kind")
        # Round 3, Anna deals.
        .showdown(Cia="two_pair")
        .showdown(Anna="full_house")
        .do("chicago Anna")
        .tricks("Anna", "Cia")
        .showdown(Bo="four_of_a_kind")
        # Round 4, Bo deals.
        .showdown(Bo="flush")
        .showdown(Bo="straight")
        .do("last_trick Bo")
        .showdown()
    )
    rematch = finished.phone.post(f"/m/{finished.match_id}/rematch", headers=EN)
    assert rematch.status_code == 303
    keep(Table.of(app, "rematch", finished.phone, rematch.headers["Location"].rsplit("/", 1)[1]))
    keep(
        Table(app, "tie-break-finished", ["Cia", "Dan", "Eva"], dealer="Cia", target="20")
        .showdown(Dan="straight_flush")
        .showdown(Eva="straight_flush")
        .do("last_trick Dan")
        .showdown(Eva="four_of_a_kind")
        .showdown(Dan="flush")
        .showdown(Eva="pair")
        .do("last_trick Eva")
        .showdown(Dan="three_of_a_kind")
        .showdown(Dan="pair")
        .showdown()
        .do("last_trick Eva")
        .showdown()
    )
    keep(
        Table(app, "tie-break-in-progress", ["Filip", "Anna", "Cecilia"], dealer="Filip", target="20")
        .showdown(Anna="straight_flush")
        .showdown(Cecilia="straight_flush")
        .do("last_trick Anna")
        .showdown(Cecilia="four_of_a_kind")
        .showdown(Anna="flush")
        .showdown(Cecilia="pair")
        .do("last_trick Cecilia")
        .showdown(Anna="three_of_a_kind")
        .exchanges(4)
    )
    keep(
        Table(app, "undos", ["Anna", "Bo"], dealer="Anna")
        .do("undo", "draw Anna=Ah Bo=2c")
        .do("declare Anna pair", "undo", "declare Anna two_pair", "pass Bo")
        .exchanges(2, 1)
        .do("undo", "undo")
        .exchanges(1, 0)
        .showdown(Anna="royal_flush Ts Js Qs Ks As")
        .do("last_trick Bo")
        .showdown()
        .do("undo", "declare Bo pair")
    )
    keep(
        Table(app, "corrections", ["Bo", "Cia", "Dan"], dealer="Bo")
        .do("adjust Cia 4 glömde sista sticket")
        .showdown(Dan="straight")
        .do("show Dan 2c 4d 6h 8s Tc", "adjust Dan -4 the cards shown did not make straight")
        .do("adjust Cia -10 wrong total")
        .showdown(Bo="pair")
    )
    keep(
        Table(app, "last-showdown", ["Bosse", "Eva"], dealer="Bosse")
        .showdown()
        .showdown()
        .tricks("Eva:Ah", "Eva:Kh", "Eva:Qh", "Eva:Jh", "Eva:2s")
    )
    keep(
        Table(app, "ties-settled", ["Anna", "Bo", "Cia"], dealer="Cia")
        .showdown(Anna="two_pair", Bo="two_pair")
        .do("tie identical")
        .showdown(Bo="three_of_a_kind", Cia="three_of_a_kind")
        .do("tie Bo")
    )
    keep(
        Table(
            app,
            "house-first-to-reach",
            ["Filip", "Åsa"],
            dealer="Filip",
            target="20",
            win="first_to_reach",
            **{"points.four_of_a_kind": "8"},
        )
        .showdown(Åsa="four_of_a_kind 9c 9d 9h 9s 2d")
        .showdown(Filip="straight_flush")
        .do("last_trick Åsa")
        .showdown(Filip="four_of_a_kind")
        .showdown(Filip="flush")
    )
    keep(
        Table(
            app,
            "house-flags",
            ["Bo", "Eva", "Göran"],
            dealer="Göran",
            target="60",
            last_trick="6",
            chicago="13",
            chicago_min="13",
            no_exchange_at="10",
            chicago_leads="on",
            deuce_last_trick_double="on",
            **{"points.pair": "2"},
        )
        .exchanges(2, 1, 0)
        .showdown(Bo="four_of_a_kind")
        .exchanges(3, 0, 1)
        .showdown(Bo="full_house")
        .exchanges(0, 2, 1)
        .do("chicago Bo")
        .tricks("Bo", "Bo", "Bo", "Bo", "Bo")
        .showdown(Eva="pair")
        .showdown()
        .showdown(Göran="pair Qs Qh 9c 5d 2s")
        .do("last_trick Göran 2c")
        .showdown(stop_at=1, Eva="flush")
    )

    # Imports: the recorded files that replay, as a file upload and as pasted text; the others are refused.
    for name, label in (
        ("two-players-to-royal-flush", "import-royal-flush"),
        ("tie-break-to-ten", "import-tie-break"),
        ("four-players-in-progress", "import-four-players"),
    ):
        phone = app.test_client()
        text = (MATCHES / f"{name}.json").read_bytes()
        if label == "import-tie-break":
            data = {"file": (BytesIO(text), f"{name}.json")}
            response = phone.post("/import", data=data, content_type="multipart/form-data", headers=EN)
        else:
            response = phone.post("/import", data={"text": text.decode()}, headers=EN)
        assert response.status_code == 303, response.get_data(as_text=True)
        keep(Table.of(app, label, phone, response.headers["Location"].split("/")[2]))
    for name in ("chicago-below-15", "bad-card", "truncated"):
        refused = app.test_client().post(
            "/import", data={"text": (MATCHES / f"{name}.json").read_text()}, headers=EN
        )
        assert refused.status_code == 422

    # People: renames and merges, from the person pages, as a person does.
    phone = app.test_client()
    people = {
        a.get_text(): int(a["href"].rsplit("/", 1)[1])
        for a in soup(phone.get("/players", headers=EN)).select("a[href^='/players/']")
    }
    changes = []
    for person, new_name in (("Dan", "Daniel"), ("Göran", "Göran P")):
        renamed = phone.post(f"/players/{people[person]}/rename", data={"name": new_name}, headers=EN)
        assert renamed.status_code == 303
        changes.append({"id": people[person], "was": person, "renamed": new_name})
    for keep_name, other in (("Cia", "Cecilia"), ("Bo", "Bosse")):
        merged = phone.post(
            f"/players/{people[keep_name]}/merge", data={"other": str(people[other])}, headers=EN
        )
        assert merged.status_code == 303
        changes.append({"id": people[other], "was": other, "merged_into": people[keep_name]})

    # After the renames: a match under a new name, and one under an old name of a merged person.
    keep(
        Table(app, "after-rename", ["Daniel", "Cecilia", "Göran P"], dealer="Daniel")
        .showdown(Cecilia="pair")
        .showdown(stop_at=1)
    )
    keep(
        Table(app, "pile-empty", ["Eva", "Filip", "Daniel", "Åsa"], dealer="Eva")
        .exchanges(5, 5, 5, 5)
        .showdown()
        .exchanges(5, 5, 2)
    )

    final = {
        a.get_text(): int(a["href"].rsplit("/", 1)[1])
        for a in soup(phone.get("/players", headers=EN)).select("a[href^='/players/']")
    }
    return {
        "secret_key": SECRET_KEY,
        "matches": [t.meta() for t in tables],
        "people": [{"id": i, "name": n} for n, i in sorted(final.items(), key=lambda item: item[1])],
        "people_changes": changes,
    }


def finish_file(work: Path) -> None:
    """The file as committed: every connection closed, vacuumed, the WAL checkpointed into it."""
    from scorekeeper.web import storage

    # The app keeps one connection per thread open across requests (storage.get_db): close them.
    for db in storage._local.__dict__.get("connections", {}).values():
        db.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{DATABASE}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(work, DATABASE)
    with closing(sqlite3.connect(DATABASE)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # The match list orders by updated_at: no two alike, or its order would be left to chance.
        ((count, different),) = conn.execute("SELECT count(*), count(DISTINCT updated_at) FROM matches")
        assert count == different == len(STATES), (count, different)
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{DATABASE}{suffix}").exists(), f"{DATABASE}{suffix} left behind"


def check_code() -> None:
    import scorekeeper

    where = Path(scorekeeper.__file__).resolve()
    assert where.is_relative_to(ROOT), f"not this checkout's code: {where}"


def make(overwrite: bool) -> None:
    from scorekeeper import __version__
    from scorekeeper.web import create_app

    check_code()

    if DATABASE.exists() and not overwrite:
        sys.exit(
            f"{DATABASE} exists. It is the fixture of an older version of the app: make a new one only on"
            " purpose, with the code of that version (--overwrite)."
        )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "scorekeeper.sqlite"
        app = create_app(app_config(work, SECRET_KEY))
        meta = build(app)
        finish_file(work)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=DATABASE.parent)
    write_json(META, {"made_by_commit": commit.stdout.strip(), "app_version": __version__, **meta})
    shutil.rmtree(EXPECTED, ignore_errors=True)
    # A fresh process, as the test: nothing the app keeps in memory from making the matches is reused.
    subprocess.run([sys.executable, __file__, "--snapshots"], check=True)


# Snapshots.


def requests(meta: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Every page to snapshot, by kind, each named ``label`` (the name in the test's id)."""
    matches = {m["label"]: m for m in meta["matches"]}
    pages: dict[str, dict[str, dict[str, Any]]] = {kind: {} for kind in PAGE_KINDS}
    people = {p["name"]: p["id"] for p in meta["people"]}
    pages["index"] = {
        "page-1": {"path": "/"},
        "page-2": {"path": "/?page=2"},
        "player-Bo": {"path": f"/?player={people['Bo']}"},
        "player-Cia": {"path": f"/?player={people['Cia']}"},
        "player-Daniel": {"path": f"/?player={people['Daniel']}"},
    }
    pages["players"] = {"players": {"path": "/players"}}
    for person in meta["people"]:
        pages["person"][f"{person['name']}-{person['id']}"] = {"path": f"/players/{person['id']}"}
    for change in meta["people_changes"]:
        if "merged_into" in change:  # merged away: no page of its own any more
            pages["person"][f"merged-{change['was']}-{change['id']}"] = {"path": f"/players/{change['id']}"}
    pages["rules"]["base"] = {"path": "/rules"}
    for label, match in matches.items():
        mid = match["id"]
        pages["history"][label] = {"path": f"/m/{mid}/history"}
        pages["table-keeper"][label] = {"path": f"/m/{mid}", "as": "keeper", "match": label}
        pages["table-stranger"][label] = {"path": f"/m/{mid}"}
        pages["watch"][label] = {"path": f"/watch?t={watch_token(meta['secret_key'], mid)}"}
        pages["handover"][label] = {"path": f"/m/{mid}/handover", "as": "keeper", "match": label}
        pages["rules"][label] = {"path": f"/rules?m={mid}"}
    for label in (
        "finished",
        "undos",
        "tie-break-finished",
        "corrections",
        "house-flags",
        "import-royal-flush",
    ):
        last = matches[label]["version"]
        for step in sorted({0, 1, last // 2, last - 1, last}):
            pages["at"][f"{label}@{step}"] = {"path": f"/m/{matches[label]['id']}/at/{step}"}
    mid = matches["finished"]["id"]
    pages["sv"]["table-keeper-finished"] = {
        "path": f"/m/{mid}",
        "as": "keeper",
        "match": "finished",
        "lang": "sv",
    }
    pages["sv"]["history-finished"] = {"path": f"/m/{mid}/history", "lang": "sv"}
    mid = matches["chicago-called"]["id"]
    pages["sv"]["table-keeper-chicago-called"] = {
        "path": f"/m/{mid}",
        "as": "keeper",
        "match": "chicago-called",
        "lang": "sv",
    }
    pages["sv"]["history-chicago-called"] = {"path": f"/m/{mid}/history", "lang": "sv"}
    return pages


def snapshots() -> None:
    """Record what the app shows over a fresh copy of legacy.sqlite (the way the test reads it)."""
    from scorekeeper.web import create_app

    check_code()
    meta = load_json(META)
    secrets = {m["label"]: m["keeper_secret"] for m in meta["matches"]}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "legacy.sqlite"
        shutil.copyfile(DATABASE, copy)
        app = create_app(app_config(copy, meta["secret_key"]))
        EXPORTS.mkdir(parents=True)
        exports = {}
        for match in meta["matches"]:
            for kind, path in (("json", f"/m/{match['id']}/export"), ("csv", f"/m/{match['id']}/export.csv")):
                response = get(app, {"path": path}, secrets)
                assert response.status_code == 200
                file = f"{match['label']}.{kind}"
                (EXPORTS / file).write_bytes(response.get_data())
                exports[f"{kind}:{match['label']}"] = {
                    "path": path,
                    "status": response.status_code,
                    "content_type": response.headers["Content-Type"],
                    "disposition": response.headers["Content-Disposition"],
                    "file": f"exports/{file}",
                }
        write_json(EXPECTED / "exports.json", exports)
        count = len(exports)
        for kind, pages in requests(meta).items():
            out = {}
            for name, request in pages.items():
                response = get(app, request, secrets)
                html = response.get_data(as_text=True)
                lines = page_lines(html)
                assert " ".join(lines) == page_text(html)
                assert response.status_code == 200 or name.startswith("merged-"), (kind, name)
                out[name] = {**request, "status": response.status_code, "text": lines}
            write_json(EXPECTED / f"{kind}.json", out)
            count += len(out)
    print(f"{len(meta['matches'])} matches, {len(meta['people'])} people, {count} snapshots")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--overwrite", action="store_true", help="replace an existing legacy.sqlite")
    # The second half, which make() runs in a fresh process.
    parser.add_argument("--snapshots", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    snapshots() if args.snapshots else make(args.overwrite)
