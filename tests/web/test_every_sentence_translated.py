"""Issue 13: every refusal, feed line, tie reason and score change, said in all seven languages.

The sentences come from the recorded matches (``tests/matches/*.json``) and the legacy fixture's
matches, replayed event by event, plus every refusal the engine has, every tie-break role and
rank, every kind of event and every refusal of a match file. Each is said the way a page says it
(``i18n.say`` under the reader's language), and a non-English one fails if it keeps a word of the
English messages. The English vocabulary is built from the English messages themselves, so a
message left untranslated is found whatever it says.

Issue 27 adds the pages: every message of every catalogue, and every refusal of every route (the
import's at event 1 and event 9) as the app shows it, so that words a route adds of its own are
found too.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from bs4 import BeautifulSoup
from webtools import HX, MATCHES, Keeper

from scorekeeper.cards import parse_card, parse_hand
from scorekeeper.events import (
    Adjust,
    Chicago,
    Dealer,
    Declare,
    Draw,
    Event,
    Exchange,
    LastTrick,
    Pass,
    Show,
    Tie,
    Trick,
    Undo,
)
from scorekeeper.feed import change_words, describe_words, undo_words
from scorekeeper.hands import Category, evaluate, explain_words
from scorekeeper.match import replay, undo_walk
from scorekeeper.matchfile import FormatError, load, loads, read_event
from scorekeeper.refusals import Refusal, RuleBroken
from scorekeeper.rules import Rules, RulesError
from scorekeeper.web import create_app
from scorekeeper.web.present.i18n import LANGUAGES, error_text, say
from scorekeeper.web.store import eventlog, stats
from scorekeeper.words import N_, listed, quoted, said

ROOT = Path(__file__).resolve().parents[2]
RECORDED = sorted((ROOT / "tests" / "matches").glob("*.json"))
LEGACY = ROOT / "tests" / "legacy" / "legacy.sqlite"
TRANSLATED = sorted(set(LANGUAGES) - {"en"})
KEYWORDS = {"N_": None, "NC_": ((1, "c"), 2), "NP_": (1, 2), "_": None, "gettext": None}
KEYWORDS |= {"ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
WORD = re.compile(r"[^\W\d_]+(?:[‘’ʻ'-][^\W\d_]+)*")  # letters of any script, "to‘da", "full-haus"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
# A match file's own spelling ("Qs Qh …"), or what someone typed, in each language's quotation marks.
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|«[^»]*»|“[^”]*”|”[^”]*”|「[^」]*」")
CARD = re.compile(r"\b(?:10|[2-9TJQKA])[shdc♠♥♦♣]")
# The game's name; names of formats, standards (Wi-Fi), units and libraries, the same in every language.
ALLOWED = {"chicago", "json", "csv", "chicago-match", "mb", "qr", "wi-fi", "openskill", "plackett", "luce"}
# Words of the English messages that are also the language's own, where the language uses them.
ALSO_THEIRS = {
    # "sin hand", the Swedish name "royal flush", "vara text", "skriv in", "en match", "under", "per
    # omgång", "samma person", "Live", "Be om", "period", "start", "version", "disk", "full", "all",
    # "bonus", "tv"
    "sv": {"hand", "royal", "flush", "text", "in", "match", "under", "per", "person", "live", "be"}
    | {"period", "start", "version", "disk", "full", "all", "bonus", "tv"},
    # "no és", the hand "full", the ace "as", "per a", "enter", "total(s)", "final", "base de dades",
    # "zero", "just", "aquest any", "variants" (variant's plural), "dues dates" (two dates)
    "ca": {"no", "full", "as", "per", "enter", "text", "total", "totals", "final", "base", "zero"}
    | {"just", "any", "variants", "dates"},
    # "poker qoʻli", a poker hand; "import qilish"; loanwords
    "uz": {"poker", "import", "server", "disk", "bonus"},
}


@functools.cache  # worked out when a test first asks (a second of every worker's collection, at import)
def english_vocabulary() -> set[str]:
    """Every word of two letters or more in the English messages the code and templates mark."""
    methods = [("scorekeeper/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {"templates/**.html": {"trimmed": "true"}}
    words: set[str] = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), methods, keywords=KEYWORDS, options_map=options):
        for text in message if isinstance(message, tuple) else (message,):
            words |= {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text)) if len(w) > 1}
    return words - ALLOWED


def english_words(text: str, lang: str, names: set[str]) -> list[str]:
    """The words of ``text`` that are English words of the messages (names, cards and quotes aside)."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = CARD.sub(" ", QUOTED.sub(" ", text))
    return [w for w in WORD.findall(text) if w.lower() in english_vocabulary() - ALSO_THEIRS.get(lang, set())]


# What is said: (text to say, the names in it). Built once from the matches and the tables below.


def _recorded() -> Iterator[tuple[tuple[str, ...], Rules, list[Event], Exception | None]]:
    """Each recorded match: players, rules, the events that stand, and the error at its end, if any."""
    for path in RECORDED:
        try:
            match = loads(path.read_text(encoding="utf-8"))
        except FormatError as error:
            yield (), Rules(), [], error
            continue
        yield match.players, match.rules, list(match.events), None
    with closing(sqlite3.connect(f"file:{LEGACY}?immutable=1", uri=True)) as db:
        for match_id, players, rules in db.execute("SELECT id, players, rules FROM matches"):
            rows = db.execute("SELECT type, payload FROM events WHERE match_id = ? ORDER BY seq", [match_id])
            events = [
                read_event({"type": kind, **json.loads(payload)}, bounded=False) for kind, payload in rows
            ]
            yield tuple(json.loads(players)), Rules.from_dict(json.loads(rules)), events, None


def _replayed(players: tuple[str, ...], rules: Rules, events: list[Event]) -> Iterator[Any]:
    """Every sentence of a match, event by event: feed lines, next actions, outcomes, changes, refusals."""
    _, cancelled = undo_walk(events)
    for end in range(len(events) + 1):
        try:
            state = replay(players, rules, events[:end])
        except RuleBroken as error:
            yield error.words
            return
        yield state.next_action().text
        if state.outcome is not None:
            yield state.outcome.words
        if end:
            event = events[end - 1]
            yield describe_words(event)
            if end - 1 in cancelled:
                yield undo_words(events[cancelled[end - 1]])
    for change in state.changes():
        yield change_words(state, change)
    for change in rules.changes():
        yield change


def _refusals() -> Iterator[Any]:
    """Every refusal the engine has, its parts filled in (both counts where a count chooses the words)."""
    parts: dict[str, Any] = {
        "players": listed(["Anna", "Bo"]),
        "card": "Qs",
        "cards": "Qs Qh 9c 9d 2s",
        "best": Category.TWO_PAIR,
        "actual": Category.PAIR,
        "hand": Category.FULL_HOUSE,
        "error": said(N_("{card} is not a card"), card=quoted("1x")),
    }
    for refusal in Refusal:
        for number in (1, 9):
            names = re.findall(
                r"\{(\w+)\}", refusal.message if isinstance(refusal.message, str) else refusal.message[1]
            )
            filled = {
                n: parts.get(n, number if n in ("score", "phase", "number", "threshold", "min") else "Bo")
                for n in names
            }
            yield RuleBroken(refusal, **filled).words


def _events() -> Iterator[Any]:
    """One event of every kind and shape the feed says."""
    hand = parse_hand("Qs Qh 9c 9d 2s")
    events: list[Event] = [
        Draw({"Anna": parse_card("3h"), "Bo": parse_card("Kd")}),
        Dealer("Bo"),
        *(Exchange("Bo", n) for n in (0, 1, 3)),
        Show("Bo", hand),
        Declare("Bo", Category.TWO_PAIR),
        Declare("Bo", Category.TWO_PAIR, hand),
        Pass("Bo"),
        Tie(None, None),
        Tie("Bo", None),
        Tie(None, {"Bo": hand, "Cia": parse_hand("Ks Kh 4c 4d 9s")}),
        Chicago("Bo"),
        Trick("Bo"),
        Trick("Bo", parse_card("As")),
        LastTrick("Bo"),
        LastTrick("Bo", parse_card("2c")),
        Adjust("Bo", -3, ""),
        Undo(),
    ]
    for event in events:
        yield describe_words(event)
        yield undo_words(event)


def _tie_reasons() -> Iterator[Any]:
    """Why one hand beats another: every category, every role, every rank in each of its forms."""
    ranks = "23456789TJQKA"
    for r, lower in zip(ranks[1:], ranks, strict=False):
        k1, k2, k3 = [k for k in ranks if k not in (r, lower)][:3]
        pair, other = (
            evaluate(f"{r}s {r}h {k1}c {k2}d {k3}s"),
            evaluate(f"{lower}s {lower}h {k1}d {k2}h {k3}h"),
        )
        yield explain_words(pair, other)  # "higher pair, eights against sevens": each rank in the plural
        yield evaluate(f"{r}s {r}h {r}c {k1}d {k2}s").words()
        yield evaluate(f"{k1}s {r}h {lower}c {k2}d {k3}d").words()  # high card: each rank in the singular
    pairs = [
        ("Qh 8h 6h 4h 2h", "9s 7s 5s 4s 3s"),
        ("Qh 9h 7h 4h 3h", "Qs 9s 7s 4s 2s"),
        ("7c 7d 7h 7s Kd", "7c 7d 7h 7s Qd"),
        ("Kc Kd Ks 5h 5d", "Kc Kd Ks 4h 4d"),
        ("2h 3h 4h 5h 6h", "Ad 2d 3d 4d 5d"),
        ("8s 8h 8d Kc 4h", "8s 8h 8d Kc 3h"),
        ("Ks Kh 5c 5d 2s", "Ks Kh 4c 4d As"),
        ("Ks Kh 4c 4d 9s", "Kd Kc 4h 4s 2s"),
        ("Qs Qh 9c 5d 3s", "Qd Qc 9h 5h 2d"),
        ("Ac 9d 7s 4h 3d", "Ac 9c 7d 4s 2d"),
        ("Tc Jd Qh Ks Ac", "As Ah Ac Kd Qh"),
        ("9h 7h 5h 4h 2h", "9s 7s 5s 4s 2s"),
        ("Th Jh Qh Kh Ah", "9s 9h 9c 9d 2s"),
    ]
    for a, b in pairs:
        high, low = sorted((evaluate(a), evaluate(b)), reverse=True)
        yield explain_words(high, low)
        yield high.words()
        yield low.words()


GOOD = {"format": "chicago-match/1", "players": ["Anna", "Bo"], "rules": {}, "events": []}


def _broken_documents() -> list[Any]:
    """Match files that are not ``chicago-match/1``: their shape, their fields, their rules, an event."""
    good = GOOD
    return [
        [],
        {**good, "format": "x"},
        {**good, "players": "Anna"},
        {**good, "players": [1, 2]},
        {**good, "events": {}},
        {**good, "rules": []},
        {**good, "rules": {"goal": 1}},
        {**good, "rules": {"target": "x"}},
        {**good, "rules": {"chicago_leads": 1}},
        {**good, "rules": {"points": []}},
        {**good, "rules": {"points": {"pairs": 1}}},
        {**good, "rules": {"win": "x"}},
        *(
            {**good, "events": [event]}
            for event in (
                1,
                {},
                {"type": "fold"},
                {"type": "pass"},
                {"type": "pass", "player": "Bo", "x": 1},
                {"type": "pass", "player": ""},
                {"type": "exchange", "player": "Bo", "count": 9},
                {"type": "adjust", "player": "Bo", "points": 1, "reason": 2},
                {"type": "declare", "player": "Bo", "hand": "pairs"},
                {"type": "declare", "player": "Bo", "hand": 2},
                {"type": "show", "player": "Bo", "cards": 5},
                {"type": "trick", "winner": "Bo", "card": 5},
                {"type": "draw", "cards": []},
                {"type": "tie", "winner": "Bo", "cards": {"Bo": "Qs Qh 9c 9d 2s"}},
            )
        ),
    ]


def _file_refusals() -> Iterator[Exception]:
    """A match file's refusals: its shape, its fields, its rules."""
    for document in _broken_documents():
        try:
            load(document)
        except (FormatError, RulesError) as error:
            yield error
        else:  # pragma: no cover - each document above is broken
            raise AssertionError(document)
    for text in ("{", "[1,"):
        try:
            loads(text)
        except FormatError as error:
            yield error


class Said(NamedTuple):
    sentences: list[Any]  # what the core says, each to be said in every language
    errors: list[Exception]  # a broken file's refusals
    names: set[str]  # the players' names and the keepers' own words in them


@functools.cache  # worked out when a test first asks, not at import in every worker
def everything_said() -> Said:
    names = {"Anna", "Bo", "Cia"}
    said_here: list[Any] = []
    errors: list[Exception] = []
    for players, rules, events, error in _recorded():
        names |= set(players)
        names |= {
            e.reason for e in events if isinstance(e, Adjust)
        }  # a correction's reason is the keeper's text
        if error is not None:
            errors.append(error)
            continue
        said_here += [s for s in _replayed(players, rules, events) if s]
    said_here += [*_refusals(), *_events(), *_tie_reasons()]
    errors += list(_file_refusals())
    return Said(said_here, errors, names)


@pytest.fixture(scope="module")
def said_in(tmp_path_factory):
    """Say everything in each language, as a page does: {lang: [(text, what it was)]}."""
    database = tmp_path_factory.mktemp("said") / "scorekeeper.sqlite"
    app = create_app(
        {"TESTING": True, "DATABASE": str(database), "SECRET_KEY": "test-secret-key-0123456789abcdef"}
    )
    out: dict[str, list[tuple[str, Any]]] = {}
    for lang in LANGUAGES:
        with app.test_request_context(headers={"Cookie": f"lang={lang}"}):
            out[lang] = [(say(s), s) for s in everything_said().sentences] + [
                (error_text(e), e) for e in everything_said().errors
            ]
    return out


def test_the_sentences_cover_the_matches_the_refusals_and_the_hands():
    sentences, errors, _ = everything_said()
    assert len(RECORDED) >= 7 and len(sentences) > 1000
    assert {type(e).__name__ for e in errors} >= {"FormatError"}
    assert len({str(s) for s in sentences}) > 400, "distinct sentences"
    assert "higher pair, eights against sevens" in {str(s) for s in sentences}


def test_english_says_what_the_core_says(said_in):
    """The English page and the core's ``str()`` (the CLI, the match file) say the same words; only an
    event at fault is counted from 1 on a page, as the history counts events (the CLI says the file
    format's 0-based index, MATCH_FORMAT.md)."""

    def on_a_page(core: str) -> str:
        return re.sub(r"^event (\d+): ", lambda m: f"event {int(m[1]) + 1}: ", core)

    assert [text for text, _ in said_in["en"]] == [on_a_page(str(what)) for _, what in said_in["en"]]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_word_is_left_in_another_language(said_in, lang):
    left = {text: english_words(text, lang, everything_said().names) for text, _ in said_in[lang]}
    left = {text: words for text, words in left.items() if words}
    assert left == {}


def test_the_check_finds_an_english_word():
    """The vocabulary is the English messages': an untranslated sentence cannot pass."""
    assert english_words("Bo passed", "sv", {"Bo"}) == ["passed"]
    assert english_words("Bo passade", "sv", {"Bo"}) == []
    assert english_words("pair: eights > sevens", "ca", set()) == ["pair", "eights", "sevens"]
    assert english_words("'count' måste vara ett heltal, Qs, Chicago", "sv", set()) == []


# Every message of every catalogue: a sentence a page composes is made of these (and of the core's
# words above), so none of them may keep an English word either.


def _catalogue(lang: str) -> list[str]:
    path = ROOT / "scorekeeper" / "web" / "translations" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as file:
        catalogue = read_po(file)
    return [
        text
        for message in catalogue
        if message.id
        for text in (message.string if isinstance(message.string, tuple) else (message.string,))
    ]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_message_of_the_catalogue_keeps_an_english_word(lang):
    left = {text: english_words(PLACEHOLDER.sub(" ", text), lang, set()) for text in _catalogue(lang)}
    assert {text: words for text, words in left.items() if words} == {}


# Every refusal of every route, through the app as a phone meets it: the table's forms with a field
# left out (test_form_errors.py tries every field), a stale or foreign post, the new-match form, the
# import (a file refused at its event 1 and at its event 9), the players' log, the standings' links,
# the hand checker and the error pages. What the page shows (each role="alert", its heading and its
# tab's title) must hold no English word. Words a route glues on ("Refused: …") are the same in
# every language, and each language's words are its catalogue's, checked whole above: so each
# refusal is asked for in one language, the six taking turns, and the import's at both counts in
# all six. 90 requests, not 600: a second or two.

TABLE_FORMS = [  # (what, fields): one post for each thing the table's forms can be refused for
    ("no action", {"player": "Bo"}),
    ("no such action", {"type": "fold", "player": "Bo"}),
    ("a dealer without a player", {"type": "dealer"}),
    ("an exchange without a player", {"type": "exchange", "count": "2"}),
    ("an exchange without a count", {"type": "exchange", "player": "Bo"}),
    ("an exchange of no number", {"type": "exchange", "player": "Bo", "count": "x"}),
    ("a show without cards", {"type": "show", "player": "Bo"}),
    ("a declaration without a hand", {"type": "declare", "player": "Bo"}),
    ("a tie's cards without a player", {"type": "tie", "cards": "Qs Qh 9c 5d 2s"}),
    ("a tie without cards or winner", {"type": "tie", "player": "Bo"}),
    ("a tie not there", {"type": "tie", "winner": "Bo"}),
    ("a Chicago without a player", {"type": "chicago"}),
    ("a trick without a winner", {"type": "trick", "card": "Ah"}),
    ("a trick now", {"type": "trick", "winner": "Bo"}),
    ("a last trick without a winner", {"type": "last_trick"}),
    ("a correction without points", {"type": "adjust", "player": "Bo"}),
    ("a correction of no number", {"type": "adjust", "player": "Bo", "points": "x"}),
    ("a draw without a rank", {"type": "draw", "draw.Bo": "2c", "draw.Cia": "Ks"}),
    ("a rule broken", {"type": "pass", "player": "Anna"}),
    ("a stale version", {"type": "pass", "player": "Bo", "version": "1"}),
    ("a version not a number", {"type": "pass", "player": "Bo", "version": "x"}),
]
NEW_MATCH = {"name": ["Anna", "Bo", "Cia"], "dealer": "0", "start": "1"}


def _at_event(event: Any, index: int) -> str:
    """A match file whose event ``index`` (as the file counts them: from 0) is ``event``, after legal ones."""
    document = json.loads((ROOT / "tests" / "matches" / "tie-break-to-ten.json").read_text(encoding="utf-8"))
    assert len(document["events"]) > index
    document["events"] = document["events"][:index] + [event]
    return json.dumps(document)


def _refused_posts(ids: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """(what, method, path, data) of every refusal; ``ids`` names the matches and people made first."""
    table, over, version = ids["table"], ids["over"], ids["version"]
    record = f"/m/{table}/record"
    cases = [(what, "POST", record, {"version": version, **fields}) for what, fields in TABLE_FORMS]
    cases += [
        ("no version", "POST", record, {"type": "pass", "player": "Bo"}),
        (
            "a key used before",
            "POST",
            record,
            {"version": version, "type": "pass", "player": "Anna", "key": ids["used_key"]},
        ),
        ("showdown without a hand", "POST", f"/m/{table}/showdown", {"version": version, "player": "Bo"}),
        (
            "showdown, a tap of no hand",
            "POST",
            f"/m/{table}/showdown",
            {"version": version, "tap": "high_card:Bo"},
        ),
        ("nothing to redo", "POST", f"/m/{table}/redo", {"version": version}),
        ("an undo out of date", "POST", f"/m/{table}/undo", {"version": "1"}),
        (
            "the match is over",
            "POST",
            f"/m/{over}/record",
            {"version": ids["over_version"], "type": "pass", "player": "Bo"},
        ),
        ("no name", "POST", "/new", {"start": "1"}),
        ("one name", "POST", "/new", {**NEW_MATCH, "name": ["Anna"]}),
        ("a name twice", "POST", "/new", {**NEW_MATCH, "name": ["Anna", "Anna"]}),
        ("a long name", "POST", "/new", {**NEW_MATCH, "name": ["Anna", "B" * 60]}),
        ("no such dealer", "POST", "/new", {**NEW_MATCH, "dealer": "7"}),
        ("a form's key out of date", "POST", "/new", {**NEW_MATCH, "key": "?"}),
        ("a hand's points not a number", "POST", "/new", {**NEW_MATCH, "points.pair": "x"}),
        *(
            (f"house rule {rule} not a number", "POST", "/new", {**NEW_MATCH, rule: "x"})
            for rule in ("target", "last_trick", "chicago", "chicago_min", "no_exchange_at")
        ),
        ("a rematch key out of date", "POST", f"/m/{over}/rematch", {"key": "?"}),
        ("import: nothing", "POST", "/import", {"text": " "}),
        ("import: not JSON", "POST", "/import", {"text": "{"}),
        (
            "import: a key out of date",
            "POST",
            "/import",
            {"text": _at_event({"type": "pass"}, 1), "key": "?"},
        ),
        ("import: too many events", "POST", "/import", {"text": json.dumps({**GOOD, "events": [1] * 5001})}),
        ("import: too large", "POST", "/import", {"text": " " * (2 * 1024 * 1024 + 1)}),
        (
            "import: a key used before",
            "POST",
            "/import",
            {"text": _at_event({"type": "dealer", "player": "Bo"}, 0), "key": ids["import_key"]},
        ),
        *(("import: a broken file", "POST", "/import", {"text": json.dumps(d)}) for d in _broken_documents()),
        ("players: no such page", "GET", "/players?page=x", None),
        ("players: a name taken", "POST", f"/players/{ids['anna']}/rename", {"name": "Bo"}),
        ("players: an empty name", "POST", f"/players/{ids['anna']}/rename", {"name": " "}),
        ("players: not the latest change", "POST", f"/players/log/{ids['earlier_change']}/undo", None),
        ("players: an undo undone", "POST", f"/players/log/{ids['undo_entry']}/undo", None),
        ("players: undone already", "POST", f"/players/log/{ids['undone_change']}/undo", None),
        ("matches: no such player", "GET", "/?player=x", None),
        ("standings: no such period", "GET", "/standings?period=x", None),
        (
            "standings: days the wrong way",
            "GET",
            "/standings?period=between&from=2026-02-01&to=2026-01-01",
            None,
        ),
        ("standings: not a day", "GET", "/standings?period=between&from=1.2.2026", None),
        ("standings: too many players", "GET", "/standings?" + "&".join(["player=1"] * 51), None),
        ("standings: no such player", "GET", "/standings?player=99999", None),
        ("hands: not a card", "GET", "/hands?hand1=Qs+Qh+9c+9d+1x", None),
        ("hands: four cards", "GET", "/hands?hand1=Qs+Qh+9c+9d", None),
        ("hands: a card twice", "GET", "/hands?hand1=Qs+Qs+9c+9d+2s", None),
        ("hands: a card in two hands", "GET", "/hands?hand1=Qs+Qh+9c+9d+2s&hand2=Qs+Kh+4c+4d+9s", None),
        ("not found", "GET", "/nothing-here", None),
        ("not a page's method", "GET", record, None),
        ("not the scorekeeper", "POST", record, {"version": version, "type": "pass", "player": "Cia"}),
    ]
    return cases


def _counted_posts() -> list[tuple[str, str, str, Any]]:
    """The import's refusals that name an event, at event 1 and at event 9 (a count's two forms)."""
    cases = []
    for index in (1, 9):
        broken = _at_event({"type": "trick", "winner": "Anna"}, index)
        cases.append((f"import: event {index} breaks a rule", "POST", "/import", {"text": broken}))
        unreadable = _at_event({"type": "pass"}, index)
        cases.append((f"import: event {index} unreadable", "POST", "/import", {"text": unreadable}))
    return cases


def _shown(response: Any) -> list[str]:
    """What a refused request shows: each alert, the heading and the tab's title."""
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    found = page.select("[role=alert]:not(#offline), main h1, title")
    return [" ".join(tag.get_text(" ").split()) for tag in found if tag.get_text(strip=True)]


@pytest.fixture(scope="module")
def refused_in(tmp_path_factory):
    """Every refusal of every route, said in a language: {lang: [(what, status, [text shown])]}."""
    database = tmp_path_factory.mktemp("refused") / "scorekeeper.sqlite"
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(database),
            "SECRET_KEY": "test-secret-key-0123456789abcdef",
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
        }
    )
    client, stranger = app.test_client(), app.test_client()
    keeper = Keeper(app, client).new("Anna", "Bo", "Cia", dealer="Anna")
    ids: dict[str, Any] = {"table": keeper.match_id, "used_key": "a-tap-used-once-already-0"}
    assert keeper.post(htmx=False, type="pass", player="Bo", key=ids["used_key"]).status_code == 303
    ids["version"] = str(keeper.version)
    over = client.post("/import", data={"text": (MATCHES / "two-players-to-royal-flush.json").read_text()})
    ids["over"] = over.headers["Location"].split("/")[2]
    with app.app_context():
        ids["over_version"] = str(eventlog.load_match(ids["over"]).version)
    ids["import_key"] = "an-import-key-used-once-0"
    first = {"text": _at_event({"type": "dealer", "player": "Anna"}, 0), "key": ids["import_key"]}
    assert client.post("/import", data=first).status_code == 303
    with app.app_context():
        anna, cia = stats.person_id_of("Anna"), stats.person_id_of("Cia")
    ids["anna"] = anna
    for name in ("Anna A", "Anna B"):
        assert client.post(f"/players/{anna}/rename", data={"name": name}).status_code == 303
    assert client.post(f"/players/{cia}/rename", data={"name": "Cia C"}).status_code == 303
    assert client.post("/players/log/3/undo").status_code == 303
    ids.update(earlier_change=1, undone_change=3, undo_entry=4)
    cases = _refused_posts(ids)
    out: dict[str, list[tuple[str, int, list[str]]]] = {lang: [] for lang in TRANSLATED}
    turns = [(TRANSLATED[i % len(TRANSLATED)], case) for i, case in enumerate(cases)]
    turns += [(lang, case) for case in _counted_posts() for lang in TRANSLATED]
    for lang, (what, method, path, data) in turns:
        phone = stranger if what == "not the scorekeeper" else client  # a phone without the role
        phone.set_cookie("lang", lang)
        response = phone.open(path, method=method, data=data, headers=HX if "/m/" in path else {})
        out[lang].append((what, response.status_code, _shown(response)))
    return out


def test_every_refusal_of_every_route_is_refused_and_says_something(refused_in):
    """The walk meets refusals, not pages that took the post (each one is a 4xx with words)."""
    met = [said for lang in TRANSLATED for said in refused_in[lang]]
    taken = [(what, status) for what, status, shown in met if status < 400 or not shown]
    assert taken == [], "these requests were not refused; the walk no longer checks what they say"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_refusal_of_any_route_keeps_an_english_word(refused_in, lang):
    names = everything_said().names | {"Anna A", "Anna B", "Cia C", "B" * 40}
    left = {
        (what, text): english_words(text, lang, names)
        for what, _, shown in refused_in[lang]
        for text in shown
    }
    assert {key: words for key, words in left.items() if words} == {}
