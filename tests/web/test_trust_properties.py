"""TRUST.md I1, I4, I5: generated bad input, a stateful model, hostile names (Hypothesis)."""

from __future__ import annotations

import html.parser
import json
import random
import re
import sqlite3

import pytest  # noqa: E402
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from simulate import candidates
from trusttools import mutating_rules, url
from webtools import form_for

from scorekeeper.match import replay
from scorekeeper.rules import Rules
from scorekeeper.web import create_app
from scorekeeper.web.store import db as database

# The "ci" profile (derandomized, no deadline): tests/conftest.py's, or Hypothesis's own of the same
# settings in I1's worker processes.
CI = settings(settings.get_profile("ci"), suppress_health_check=list(HealthCheck))
pytestmark = pytest.mark.slow
# Each property runs at a moderate count by default, and at TRUST.md's count under `pytest --nightly`
# (I1: 10,000 posts, about 60 s; I4: 200 sequences, about 60 s; I5: 1,000 names, about 20 s).


def fresh_app(tmp_path_factory, name: str):
    return fresh_app_at(tmp_path_factory.mktemp(name) / "db.sqlite")


def fresh_app_at(path):
    config = {
        "TESTING": True,
        "DATABASE": str(path),
        "SECRET_KEY": "property-tests-secret-key-0123456789",
        "WTF_CSRF_ENABLED": False,
    }
    return create_app({**config, "RATELIMIT_ENABLED": False})


# I1: 10,000 malformed posts, 0 server errors, nothing changed by a refusal.

FIELD_NAMES = [
    "type",
    "player",
    "hand",
    "cards",
    "pick",
    "count",
    "points",
    "reason",
    "winner",
    "card",
    "version",
    "key",
    "name",
    "dealer",
    "start",
    "move",
    "target",
    "win",
    "other",
    "text",
    "draw.Anna",
    "points.pair",
]
VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "declare",
            "pass",
            "tie",
            "undo",
            "draw",
            "exchange",
            "adjust",
            "trick",
            "Anna",
            "Bo",
            "Dan",
            "pair",
            "high_card",
            "Qs Qh 9c 9d 2s",
            "1x",
            "-1",
            "0",
            "6",
            "999999999999",
            "",
            "null",
            "{}",
        ]
    ),
    st.integers(-(10**6), 10**6).map(str),
    st.deferred(lambda: NUMBERS),
)

# TRUST.md I6: numbers from the whole integer range (every number of digits up to 40 alike, either
# sign: 2**63 overflowed SQLite), with Python's underscores, and in other scripts' digits ('١٢', '１２').
WHOLE_RANGE = st.integers(0, 40).flatmap(lambda digits: st.integers(-(10**digits), 10**digits))
NUMBERS = st.one_of(
    WHOLE_RANGE.map(str),
    WHOLE_RANGE.map(lambda n: f"{n:_}"),
    st.text(st.characters(categories=["Nd"]), min_size=1, max_size=3),
    st.sampled_from([str(2**63), str(10**30), str(-(2**63) - 1), "1_000", "١٢", "+5", "1e3", "0x10"]),
)
# A post the route would accept, but for one number. "{version}" is the match's version when posted.
CURRENT = "{version}"
PROBE_BASE = {
    "version": CURRENT,
    "player": "Anna",
    "reason": "fuzz",
    "name": ["Anna", "Bo"],
    "dealer": "0",
    "start": "1",
    "other": "1",
}
PROBED = {  # the route (its endpoint) -> the number fields it reads
    "matches.record": ("points", "count", "version"),
    "matches.undo": ("version",),
    "matches.new": (
        "target",
        "last_trick",
        "chicago",
        "chicago_min",
        "no_exchange_at",
        "points.pair",
        "points.royal_flush",
    ),
    "players.merge": ("other",),
    "history.import_file": ("text",),
}
IMPORTED = ("target", "points.pair", "chicago_min", "adjust.points", "exchange.count")


def _imported(where: str, number: int) -> str:
    """A match file that is valid but for one number."""
    rules: dict = {}
    events = [{"type": "dealer", "player": "Anna"}]
    if where == "adjust.points":
        events.append({"type": "adjust", "player": "Bo", "points": number, "reason": ""})
    elif where == "exchange.count":
        events.append({"type": "exchange", "player": "Bo", "count": number})
    elif where == "points.pair":
        rules["points"] = {"pair": number}
    else:
        rules[where] = number
    return json.dumps(
        {"format": "chicago-match/1", "players": ["Anna", "Bo"], "rules": rules, "events": events}
    )


@st.composite
def number_probes(draw, fields: tuple[str, ...]) -> dict:
    """A post its route would accept, but for one of the numbers it reads; "plain" if it is ASCII digits."""
    field = draw(st.sampled_from(fields))
    kind = "exchange" if field == "count" else "adjust"
    probe = {**PROBE_BASE, "type": kind, "points": "1", "count": "1"}
    if field == "text":
        number = draw(WHOLE_RANGE)
        probe["text"] = _imported(draw(st.sampled_from(IMPORTED)), number)
        plain = abs(number) < 10**4
    else:
        probe[field] = draw(NUMBERS)
        plain = re.fullmatch(r"-?[0-9]{1,4}", probe[field].strip()) is not None
    return {**probe, "__probe__": (field, plain)}


MALFORMED = st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=8), VALUES, max_size=6)


def _malformed_posts(db: str, part: int, parts: int, examples: int) -> tuple[int, int]:
    """One share of I1 in its own process: its own app and database, every ``parts``-th route."""
    from pathlib import Path

    app = fresh_app_at(db)
    client = app.test_client()
    made = client.post("/new", data={"name": ["Anna", "Bo"], "dealer": "0", "start": "1"})
    match_id = made.headers["Location"].rsplit("/", 1)[1]
    routes = sorted(mutating_rules(app).values())[part::parts]
    assert Path(db).exists() and routes
    seen = {"requests": 0, "refused": 0, "numbers": 0}

    def rows_touched() -> int:
        # Every write goes through the app's kept connections; total_changes counts every row any
        # statement touched, rolled back or not, so an unchanged count means nothing was written.
        return sum(db.conn.total_changes for db in app.extensions[database.EXTENSION].idle)

    def version() -> str:
        conn = sqlite3.connect(app.config["DATABASE"])
        (found,) = conn.execute("SELECT version FROM matches WHERE id = ?", [match_id]).fetchone()
        conn.close()
        return str(found)

    endpoints = {rule: endpoint for endpoint, rule in mutating_rules(app).items()}
    posted: set[str] = set()

    @settings(CI, max_examples=examples)
    @given(st.sampled_from(routes), st.sampled_from([match_id, "nope", ""]), st.data())
    def post(rule, which, data):
        probed = PROBED.get(endpoints[rule])
        fields = data.draw(st.one_of(MALFORMED, number_probes(probed)) if probed else MALFORMED)
        field, plain = fields.pop("__probe__", (None, True))
        if fields.get("version") == CURRENT:
            fields["version"] = version()
        before = rows_touched()
        response = client.post(url(rule, which or match_id, person_id=1), data=fields)
        seen["requests"] += 1
        posted.add(rule)
        assert response.status_code < 500, (rule, fields, response.status_code)
        if not plain:  # I6: a number out of every range, or not in ASCII digits, is never read as one
            assert 400 <= response.status_code < 500, (rule, field, fields[field], response.status_code)
            seen["numbers"] += 1
        if 400 <= response.status_code < 500:
            seen["refused"] += 1
            assert rows_touched() == before, (rule, fields)
            assert response.mimetype == "text/html"

    post()
    print(f"I1 share {part}: {seen['numbers']} posts with a number out of every range, each refused")
    assert posted == set(routes), set(routes) - posted  # every route of the share was posted to
    return seen["requests"], seen["refused"]


@pytest.mark.parametrize(
    "total",
    [
        pytest.param(500, id="500 posts"),
        pytest.param(10_000, id="10,000 posts", marks=pytest.mark.nightly),
    ],
)
def test_malformed_posts_never_cause_a_server_error_or_a_change(tmp_path, total):
    """The nightly 10,000 in two processes (one per core), each with its own app and half the routes;
    the default run's 500 in this one (the suite's workers keep both cores busy already)."""
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    started = time.monotonic()
    if total <= 1000:
        results = [_malformed_posts(str(tmp_path / "i1.sqlite"), 0, 1, total)]
    else:
        parts = 2
        app = fresh_app_at(tmp_path / "routes.sqlite")
        assert len(mutating_rules(app)) >= 2 * parts  # every share has routes to post to
        with ProcessPoolExecutor(parts, mp_context=multiprocessing.get_context("spawn")) as pool:
            shares = [
                pool.submit(
                    _malformed_posts, str(tmp_path / f"i1-{part}.sqlite"), part, parts, total // parts
                )
                for part in range(parts)
            ]
            results = [share.result() for share in shares]
    assert sum(requests for requests, _ in results) == total
    assert all(refused > 0 for _, refused in results)
    took = time.monotonic() - started
    # TRUST.md I1: a budget of about 60 s for 10,000, printed and never asserted (a timed assertion
    # fails on a loaded machine and blocks a good change). Measured here: 45-55 s on two shared cores.
    print(f"\nI1: {total} malformed posts in {took:.0f} s (budget for 10,000: about 60 s)")


# I4: after every step the rendered scores equal the reference (the core replaying what was accepted).


SEAT = re.compile(r'<span class="name">([^<]*)</span>\s*<span class="score">(\d+)</span>')


class TableMachine(RuleBasedStateMachine):
    """The scorekeeper taps, undoes, double-taps and sends rubbish; the page must agree with the model."""

    app = None

    @initialize(seed=st.integers(0, 10**6))
    def start(self, seed):
        self.rng = random.Random(seed)
        self.client = TableMachine.app.test_client()
        response = self.client.post("/new", data={"name": ["Anna", "Bo", "Cia"], "dealer": "0", "start": "1"})
        self.match_id = response.headers["Location"].rsplit("/", 1)[1]
        self.events = []  # the events the server acknowledged, in order (the reference)
        self.version = 1
        self.last = None  # the last accepted post, to send again
        from scorekeeper.events import Dealer

        self.events.append(Dealer("Anna"))

    def model(self):
        return replay(("Anna", "Bo", "Cia"), Rules(), self.events)

    def post(self, path, data):
        return self.client.post(f"/m/{self.match_id}/{path}", data=data, headers={"HX-Request": "true"})

    @rule()
    def tap_something_legal(self):
        options = candidates(self.model())
        if not options:
            return
        event = self.rng.choice(options)
        data = {**form_for(event), "version": str(self.version), "key": f"k{self.rng.random()}"}
        response = self.post("record", data)
        if response.status_code == 200:
            self.events.append(event)
            self.version += 1
            self.last = ("record", data)
        else:
            assert response.status_code in (409, 422), response.status_code

    @rule()
    def undo(self):
        data = {"version": str(self.version), "key": f"u{self.rng.random()}"}
        response = self.post("undo", data)
        if response.status_code == 200:
            from scorekeeper.events import Undo

            self.events.append(Undo())
            self.version += 1
            self.last = ("undo", data)
        else:
            assert response.status_code == 422  # nothing to undo

    @rule()
    def tap_twice(self):
        if self.last is not None:
            assert self.post(*self.last).status_code == 200  # the same key: recorded once, answered again

    @rule(
        junk=st.dictionaries(
            st.sampled_from(["type", "player", "hand", "count", "version"]), st.text(max_size=6)
        )
    )
    def send_rubbish(self, junk):
        response = self.post("record", junk)
        assert response.status_code in (400, 409, 412, 415, 422)

    @rule()
    def tap_on_a_stale_screen(self):
        if self.version > 1:
            response = self.post("record", {"version": str(self.version - 1), "type": "pass", "player": "Bo"})
            assert response.status_code == 409

    @invariant()
    def the_page_shows_the_models_scores(self):
        if not hasattr(self, "client"):
            return
        page = self.client.get(f"/m/{self.match_id}").text
        shown = {name: int(score) for name, score in SEAT.findall(page)}
        assert shown == self.model().totals


@pytest.mark.parametrize(
    "sequences",
    [pytest.param(10, id="10 sequences"), pytest.param(200, id="200 sequences", marks=pytest.mark.nightly)],
)
def test_the_page_always_agrees_with_the_reference_model(tmp_path_factory, sequences):
    TableMachine.app = fresh_app(tmp_path_factory, "i4")
    TableMachine.TestCase.settings = settings(CI, max_examples=sequences, stateful_step_count=50)
    TableMachine.TestCase().runTest()


# I5: hostile names stay text.

PAYLOADS = [
    "<script>alert(1)</script>",
    '" hx-post="/new" x="',
    "' onmouseover='alert(1)",
    "<img src=x onerror=alert(1)>",
    "\u202eevil",
    "🂡 ace",
    "Bo\x00b",
    "{{ 7*7 }}",
    "</section><script>x</script>",
    '"><svg onload=alert(1)>',
]
NAMES = st.one_of(st.sampled_from(PAYLOADS), st.text(min_size=1, max_size=40)).filter(
    lambda n: n.strip() and n.strip().casefold() != "bo" and "\x00" not in n.strip()[:0]
)


class Structure(html.parser.HTMLParser):
    """Which attributes appear on which tags, and how many scripts: what a name must never change."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.pairs: set[tuple[str, str]] = set()
        self.scripts = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.pairs |= {(tag, name) for name, _ in attrs}
        self.scripts += tag == "script"


@pytest.mark.parametrize(
    "names",
    [pytest.param(50, id="50 names"), pytest.param(1_000, id="1,000 names", marks=pytest.mark.nightly)],
)
def test_hostile_player_names_are_only_ever_text(tmp_path_factory, names):
    app = fresh_app(tmp_path_factory, "i5")
    client = app.test_client()

    def pages(first: str):
        made = client.post("/new", data={"name": [first, "Bo"], "dealer": "0", "start": "1"})
        assert made.status_code == 303, made.text
        match_id = made.headers["Location"].rsplit("/", 1)[1]
        client.post(f"/m/{match_id}/record", data={"version": "1", "type": "pass", "player": "Bo"})
        paths = [f"/m/{match_id}", f"/m/{match_id}/history", "/"]
        return [client.get(p).text for p in paths]

    baseline = [Structure(p) for p in pages("Anna")]

    @settings(CI, max_examples=names)
    @given(NAMES)
    def hostile(name):
        for text, allowed in zip(pages(name), baseline, strict=True):
            found = Structure(text)
            assert found.scripts == allowed.scripts
            assert found.pairs <= allowed.pairs, found.pairs - allowed.pairs
            assert "<script>alert" not in text

    for payload in PAYLOADS:  # each of them at any count, besides the names drawn
        hostile = example(payload)(hostile)
    hostile()
