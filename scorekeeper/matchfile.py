"""Read and write ``chicago-match/1`` documents (MATCH_FORMAT.md).

A document that is not valid raises ``FormatError`` (the CLI's exit 2); an
event that breaks a rule is the engine's business (``RuleBroken``, exit 1).
``EVENT_TYPES`` is the one table that maps the file's type names to classes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from scorekeeper.cards import Card, CardError, format_hand, parse_card, parse_cards
from scorekeeper.events import (
    Adjust,
    Blanco,
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
from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.match import replay
from scorekeeper.rules import NUMBERS, Bounds, Rules, RulesError, not_a_hand_name
from scorekeeper.state import HAND_SIZE, MatchState
from scorekeeper.words import N_, Said, listed, quoted, said

FORMAT = "chicago-match/1"
MAX_NAME = 40
# What to write, shown in a refusal to whoever edited a file by hand (MATCH_FORMAT.md's shapes).
EVENT_EXAMPLE = '{"type": "pass", "player": "Bo"}'
FILE_EXAMPLE = '{"format": "chicago-match/1", "players": ["Anna", "Bo"], "events": []}'
EVENT_IN_BRACES = N_("each event must be in braces, such as {example}")

EVENT_TYPES: dict[str, type] = {
    "draw": Draw,
    "dealer": Dealer,
    "exchange": Exchange,
    "show": Show,
    "declare": Declare,
    "pass": Pass,
    "tie": Tie,
    "chicago": Chicago,
    "blanco": Blanco,
    "trick": Trick,
    "last_trick": LastTrick,
    "adjust": Adjust,
    "undo": Undo,
}


class FormatError(ValueError):
    """Not a valid ``chicago-match/1`` document; ``index`` names the event at fault, if one is.

    ``about_file`` marks the file's own words ("an event of type “show” needs “cards”"): a form that
    broke one of them is not the table's business (the web layer says something else).
    """

    def __init__(self, message: str | Said, index: int | None = None, *, about_file: bool = False) -> None:
        self.words = message if isinstance(message, Said) else None  # for translation, where marked
        self.about_file = about_file
        self.message = str(message)
        self.index = index
        super().__init__(self.message if index is None else f"event {index}: {self.message}")


@dataclass(frozen=True)
class MatchFile:
    """A match as the file holds it: players in seat order, rules, and every event.

    ``created_at`` and ``at`` (each event's time, None where the file gives none) are what a
    file read by ``load`` said of when it was recorded (MATCH_FORMAT.md: an import keeps them),
    in UTC; they are no part of the match itself, so two files of one match compare equal.
    """

    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)
    events: tuple[Event, ...] = ()
    created_at: str | None = field(default=None, compare=False)
    at: tuple[str | None, ...] = field(default=(), compare=False)

    def replay(self) -> MatchState:
        """Replay the events under the rules (raises ``RuleBroken``)."""
        return replay(self.players, self.rules, self.events)


def _about_file(template: str, **parts: Any) -> FormatError:
    return FormatError(said(template, **parts), about_file=True)


# Reading one field.


def _name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise _about_file(N_("{key} must be a player's name"), key=quoted(key))
    # Interned: the events of a match name the same few players, and a match kept in memory
    # would otherwise hold one copy of the name per event (a sixth of a long match's memory).
    return sys.intern(value)


def _count(key: str, value: Any) -> int:
    return _number(key, value, NUMBERS["exchange.count"])


def _points(key: str, value: Any) -> int:
    return _number(key, value, NUMBERS["adjust.points"])


def _number(key: str, value: Any, bounds: Bounds) -> int:
    if value not in bounds:
        raise FormatError(bounds.file_refusal(key))
    return int(value)


def _any_whole(key: str, value: Any) -> int:
    if type(value) is not int:
        raise _about_file(N_("{key} must be a whole number"), key=quoted(key))
    return value


def _reason(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _about_file(N_("{key} must be text"), key=quoted(key))
    return value


def _hand_name(key: str, value: Any) -> Category:
    names = {c.value: c for c in DECLARABLE}
    if value not in names:
        if isinstance(value, str):
            raise FormatError(not_a_hand_name(value), about_file=True)
        raise _about_file(
            N_("{key} must be a hand name, such as {example}"), key=quoted(key), example='"two_pair"'
        )
    return names[value]


def _hand(key: str, value: Any) -> tuple[Card, ...]:
    if not isinstance(value, str):
        raise FormatError(
            said(
                N_("{key} must be five cards, such as {example}"), key=quoted(key), example='"Qs Qh 9c 9d 2s"'
            )
        )
    try:
        cards = parse_cards(value)
    except CardError as error:
        raise FormatError(error.words) from None
    if len(cards) != HAND_SIZE:
        raise FormatError(said(N_("A hand is five cards, not {count}"), count=len(cards)))
    return cards  # a card twice is well-formed: the engine refuses it by the one-deck rule (exit 1)


def _card(key: str, value: Any) -> Card:
    if not isinstance(value, str):
        raise _about_file(N_("{key} must be a card, such as {example}"), key=quoted(key), example='"Qs"')
    try:
        return parse_card(value)
    except CardError as error:
        raise FormatError(error.words) from None


def _by_name(read: Callable[[str, Any], Any], example: str) -> Callable[[str, Any], dict[str, Any]]:
    def read_map(key: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping) or not value:
            must = N_("{key} must give the cards by player name, such as {example}")
            raise _about_file(must, key=quoted(key), example=example)
        return {_name(key, name): read(f"{key}.{name}", v) for name, v in value.items()}

    return read_map


def _winner(key: str, value: Any) -> str | None:
    return None if value is None else _name(key, value)


# Each type's fields: name -> (reader, required).
_FIELDS: dict[type, dict[str, tuple[Callable[[str, Any], Any], bool]]] = {
    Draw: {"cards": (_by_name(_card, '{"Anna": "7h", "Bo": "Kd"}'), True)},
    Dealer: {"player": (_name, True)},
    Exchange: {"player": (_name, True), "count": (_count, True)},
    Show: {"player": (_name, True), "cards": (_hand, True)},
    Declare: {"player": (_name, True), "hand": (_hand_name, True), "cards": (_hand, False)},
    Pass: {"player": (_name, True)},
    Tie: {"winner": (_winner, False), "cards": (_by_name(_hand, '{"Bo": "Qs Qh 9c 9d 2s"}'), False)},
    Chicago: {"player": (_name, True)},
    Blanco: {"player": (_name, True)},
    Trick: {"winner": (_name, True), "card": (_card, False)},
    LastTrick: {"winner": (_name, True), "card": (_card, False)},
    Adjust: {"player": (_name, True), "points": (_points, True), "reason": (_reason, True)},
    Undo: {},
}


def read_event(data: Any, *, bounded: bool = True) -> Event:
    """Read one event object (no index: ``read_match`` adds it to the error).

    ``bounded=False`` reads an event of the stored log: a correction recorded before corrections
    had a range (a count always had one) keeps its points, so no earlier match becomes unreadable.
    """
    if not isinstance(data, Mapping):
        raise _about_file(EVENT_IN_BRACES, example=EVENT_EXAMPLE)
    kind = data.get("type")
    if kind not in EVENT_TYPES:
        if isinstance(kind, str):
            not_a_type = N_("{kind} is not an event type; the types are {names}")
            raise _about_file(not_a_type, kind=quoted(kind), names=listed(quoted(t) for t in EVENT_TYPES))
        raise _about_file(N_("each event needs its type, such as {example}"), example=EVENT_EXAMPLE)
    cls = EVENT_TYPES[kind]
    spec = _FIELDS[cls] if bounded or cls is not Adjust else {**_FIELDS[cls], "points": (_any_whole, True)}
    for key in data:
        if key != "type" and key not in spec:
            no_such = N_("{key} does not belong in an event of type {kind}")
            raise _about_file(no_such, kind=quoted(kind), key=quoted(key))
    values: dict[str, Any] = {}
    for key, (read, required) in spec.items():
        if key in data:
            values[key] = read(key, data[key])
        elif required:
            raise _about_file(N_("an event of type {kind} needs {key}"), kind=quoted(kind), key=quoted(key))
    if cls is Tie and ("winner" in data) == ("cards" in data):
        either = N_("an event of type {kind} needs {first} or {second}")
        if "winner" in data:
            either = N_("an event of type {kind} has both {first} and {second}: keep one of them")
        raise _about_file(either, kind=quoted("tie"), first=quoted("winner"), second=quoted("cards"))
    return cls(**values)  # type: ignore[no-any-return]


def write_event(event: Event) -> dict[str, Any]:
    """Write one event in the canonical form (cards as ``Ts``, fields left out when None)."""
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        value = getattr(event, f.name)
        if value is None and not (isinstance(event, Tie) and f.name == "winner" and event.cards is None):
            continue
        out[f.name] = _written(value)
    return out


def _written(value: Any) -> Any:
    if isinstance(value, Card):
        return repr(value)
    if isinstance(value, tuple):
        return format_hand(value)
    if isinstance(value, Mapping):
        return {k: _written(v) for k, v in value.items()}
    if isinstance(value, Category):
        return value.value
    return value


TIME_EXAMPLE = '"2025-03-01T19:30:00+01:00"'


def read_time(key: str, value: Any) -> str:
    """Read an ISO 8601 time (``at``, ``created_at``) as UTC to the millisecond, as the app stores
    its own; a time without an offset is taken as UTC.

    >>> read_time("at", "2025-03-01T19:30:00+01:00")
    '2025-03-01T18:30:00.000+00:00'
    >>> read_time("at", "yesterday")
    Traceback (most recent call last):
    scorekeeper.matchfile.FormatError: “at” must be a time, such as "2025-03-01T19:30:00+01:00"
    """
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) and len(value) <= 40 else None
    except ValueError:
        moment = None
    if moment is None:
        raise _about_file(
            N_("{key} must be a time, such as {example}"), key=quoted(key), example=TIME_EXAMPLE
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def read_name(value: Any) -> str:
    """Check one player's name: trimmed, not empty, at most 40 characters."""
    if not isinstance(value, str):
        raise _about_file(N_("a player's name must be text"))
    name = value.strip()
    if not name:
        raise FormatError(said(N_("a player's name cannot be empty")))
    if len(name) > MAX_NAME:
        too_long = N_("{name} is longer than {max} characters")
        raise FormatError(said(too_long, name=quoted(name[:MAX_NAME] + "…"), max=MAX_NAME))
    return name


def read_players(value: Any, rules: Rules | None = None, *, in_file: bool = True) -> tuple[str, ...]:
    """Check the seat order: 2 to 4 distinct, non-empty names of at most 40 characters (up to 6 with
    the house rule ``more_players``). ``in_file``: said of a match file's "players" (after "Not a
    match file:"), else of the new-match form, where the refusal stands alone as a sentence."""
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        must = N_("{key} must be a list of names, such as {example}")
        raise _about_file(must, key=quoted("players"), example='["Anna", "Bo", "Cia"]')
    most = (rules or Rules()).most_players
    if not 2 <= len(value) <= most:
        if in_file:
            wrong = (
                N_("a match has 2 to 6 players, not {count}")
                if most > 4
                else N_("a match has 2 to 4 players, not {count}")
            )
        else:
            wrong = (
                N_("Chicago is played by 2 to 6 players, not {count}")
                if most > 4
                else N_("Chicago is played by 2 to 4 players, not {count}")
            )
        raise FormatError(said(wrong, count=len(value)))
    names = tuple(read_name(p) for p in value)
    if len({n.casefold() for n in names}) != len(names):
        twice = (
            N_("the players' names must be different")
            if in_file
            else N_("Each player needs a different name")
        )
        raise FormatError(said(twice))
    return names


def load(document: Any) -> MatchFile:
    """Read a parsed document; raise ``FormatError`` if it is not ``chicago-match/1``."""
    if not isinstance(document, Mapping):
        raise _about_file(N_("a match file must be in braces, such as {example}"), example=FILE_EXAMPLE)
    if document.get("format") != FORMAT:
        raise _about_file(N_("{key} must be {value}"), key=quoted("format"), value=f'"{FORMAT}"')
    try:
        rules = Rules.from_dict(document.get("rules"))
    except RulesError as error:
        raise FormatError(error.words, about_file=True) from None
    players = read_players(document.get("players"), rules)
    raw = document.get("events", [])
    if not isinstance(raw, list):
        in_brackets = N_("{key} must be a list in square brackets, such as {example}")
        raise _about_file(in_brackets, key=quoted("events"), example=f"[{EVENT_EXAMPLE}]")
    created = document.get("created_at")
    created_at = None if created is None else read_time("created_at", created)
    events, times = [], []
    for index, data in enumerate(raw):
        try:
            times.append(_time_of(data))
            events.append(read_event({k: v for k, v in data.items() if k != "at"}))
        except FormatError as error:
            raise FormatError(error.words or error.message, index, about_file=error.about_file) from None
    return MatchFile(players, rules, tuple(events), created_at, tuple(times))


def _time_of(data: Any) -> str | None:
    """An event's ``at`` (MATCH_FORMAT.md: optional on any event), read; None if it has none."""
    if not isinstance(data, Mapping):
        raise _about_file(EVENT_IN_BRACES, example=EVENT_EXAMPLE)
    return None if data.get("at") is None else read_time("at", data["at"])


def not_json(error: Exception) -> Said:
    """Why a text is no JSON, by line and column where the parser says."""
    if isinstance(error, json.JSONDecodeError):
        where = N_("not valid JSON (line {line}, column {column})")
        return said(where, line=error.lineno, column=error.colno)
    return said(N_("not valid JSON"))


def loads(text: str | bytes) -> MatchFile:
    """Read a match file's text."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise FormatError(not_json(error)) from None
    return load(document)


def dump(match: MatchFile, at: Sequence[str | None] = (), **extra: Any) -> dict[str, Any]:
    """The document for a match; ``extra`` adds top-level keys such as ``id``; ``at``, each
    event's time (None: none is known), is written as the events' ``at``."""
    events = [write_event(e) for e in match.events]
    for event, time in zip(events, at, strict=False):
        if time is not None:
            event["at"] = time
    return {
        "format": FORMAT,
        **extra,
        "players": list(match.players),
        "rules": match.rules.to_dict(),
        "events": events,
    }


def dumps(match: MatchFile, at: Sequence[str | None] = (), **extra: Any) -> str:
    """The text of a match file: indented JSON, one event a line."""
    document = dump(match, at, **extra)
    events = document.pop("events")
    head = json.dumps(document, ensure_ascii=False, indent=2)[:-2]
    lines = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in events)
    body = f'"events": [\n{lines}\n  ]' if events else '"events": []'
    return f"{head},\n  {body}\n}}\n"
