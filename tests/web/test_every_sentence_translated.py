"""Issue 13: every refusal, feed line, tie reason and score change, said in all seven languages.

The sentences come from the recorded matches (``tests/matches/*.json``) and the legacy fixture's
matches, replayed event by event, plus every refusal the engine has, every tie-break role and
rank, every kind of event and every refusal of a match file. Each is said the way a page says it
(``i18n.say`` under the reader's language), and a non-English one fails if it keeps a word of the
English messages. The English vocabulary is built from the English messages themselves, so a
message left untranslated is found whatever it says.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir

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
from scorekeeper.words import N_, listed, said

ROOT = Path(__file__).resolve().parents[2]
MATCHES = sorted((ROOT / "tests" / "matches").glob("*.json"))
LEGACY = ROOT / "tests" / "legacy" / "legacy.sqlite"
TRANSLATED = sorted(set(LANGUAGES) - {"en"})
KEYWORDS = {"N_": None, "NC_": ((1, "c"), 2), "NP_": (1, 2), "_": None, "gettext": None}
KEYWORDS |= {"ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
WORD = re.compile(r"[^\W\d_]+(?:[‘’ʻ'-][^\W\d_]+)*")  # letters of any script, "to‘da", "full-haus"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")  # a match file's own spelling ('count', "Qs Qh …")
CARD = re.compile(r"\b(?:10|[2-9TJQKA])[shdc♠♥♦♣]")
ALLOWED = {"chicago", "json"}  # the game's name; a file format's name
# Words of the English messages that are also the language's own, where the language uses them.
ALSO_THEIRS = {
    "sv": {"hand", "royal", "flush", "text"},  # "sin hand", the Swedish name "royal flush", "vara text"
    "ca": {
        "no",
        "full",
        "as",
        "per",
        "enter",
        "text",
    },  # "no és", the hand "full", the ace "as", "per a", "enter"
    "uz": {"poker"},  # "poker qo‘li", a poker hand
}


def english_vocabulary() -> set[str]:
    """Every word of two letters or more in the English messages the code and templates mark."""
    methods = [("scorekeeper/**.py", "python"), ("templates/**.html", "jinja2")]
    options = {"templates/**.html": {"trimmed": "true"}}
    words: set[str] = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), methods, keywords=KEYWORDS, options_map=options):
        for text in message if isinstance(message, tuple) else (message,):
            words |= {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text)) if len(w) > 1}
    return words - ALLOWED


VOCABULARY = english_vocabulary()


def english_words(text: str, lang: str, names: set[str]) -> list[str]:
    """The words of ``text`` that are English words of the messages (names, cards and quotes aside)."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = CARD.sub(" ", QUOTED.sub(" ", text))
    return [w for w in WORD.findall(text) if w.lower() in VOCABULARY - ALSO_THEIRS.get(lang, set())]


# What is said: (text to say, the names in it). Built once from the matches and the tables below.


def _recorded() -> Iterator[tuple[tuple[str, ...], Rules, list[Event], Exception | None]]:
    """Each recorded match: players, rules, the events that stand, and the error at its end, if any."""
    for path in MATCHES:
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
        "error": said(N_("{card} is not a card"), card="'1x'"),
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
        yield explain_words(pair, other)  # "pair: eights > sevens": each rank in the plural
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


def _file_refusals() -> Iterator[Exception]:
    """A match file's refusals: its shape, its fields, its rules."""
    good = {"format": "chicago-match/1", "players": ["Anna", "Bo"], "rules": {}, "events": []}
    broken = [
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
    for document in broken:
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


def _said() -> tuple[list[Any], list[Exception], set[str]]:
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
    return said_here, errors, names


SAID, ERRORS, NAMES = _said()


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
            out[lang] = [(say(s), s) for s in SAID] + [(error_text(e), e) for e in ERRORS]
    return out


def test_the_sentences_cover_the_matches_the_refusals_and_the_hands():
    assert len(MATCHES) >= 7 and len(SAID) > 1000
    assert {type(e).__name__ for e in ERRORS} >= {"FormatError"}
    assert len({str(s) for s in SAID}) > 400, "distinct sentences"
    assert "pair: eights > sevens" in {str(s) for s in SAID}


def test_english_says_what_the_core_says(said_in):
    """The English page and the core's ``str()`` (the CLI, the match file) say the same words."""
    assert [text for text, _ in said_in["en"]] == [str(what) for _, what in said_in["en"]]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_word_is_left_in_another_language(said_in, lang):
    left = {text: english_words(text, lang, NAMES) for text, _ in said_in[lang]}
    left = {text: words for text, words in left.items() if words}
    assert left == {}


def test_the_check_finds_an_english_word():
    """The vocabulary is the English messages': an untranslated sentence cannot pass."""
    assert english_words("Bo passed", "sv", {"Bo"}) == ["passed"]
    assert english_words("Bo passade", "sv", {"Bo"}) == []
    assert english_words("pair: eights > sevens", "ca", set()) == ["pair", "eights", "sevens"]
    assert english_words("'count' måste vara ett heltal, Qs, Chicago", "sv", set()) == []
