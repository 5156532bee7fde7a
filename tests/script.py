"""Test scripts: events written the way a scoresheet reads, and replayed."""

from __future__ import annotations

import pytest

from scorekeeper.cards import parse_card, parse_cards
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
from scorekeeper.hands import Category
from scorekeeper.match import replay
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState


def event(line: str) -> Event:
    """Read one event written as a line, e.g. ``declare Bo two_pair Qs Qh 9c 9d 2s``.

    Cards are read as the match file reads them: a card twice is the engine's to refuse.

    ``draw Anna=3h Bo=Ks``; ``tie Bo`` / ``tie identical`` / ``tie Bo=Qs,Qh,9c,9d,2s``;
    ``trick Bo [Ah]``; ``last_trick Bo [2c]``; ``adjust Bo -2 reason words``; ``undo``.
    """
    kind, *words = line.split()
    match kind:
        case "draw":
            return Draw({n: parse_card(c) for n, c in (w.split("=") for w in words)})
        case "dealer":
            return Dealer(words[0])
        case "exchange":
            return Exchange(words[0], int(words[1]))
        case "show":
            return Show(words[0], parse_cards(" ".join(words[1:])))
        case "declare":
            cards = parse_cards(" ".join(words[2:])) if words[2:] else None
            return Declare(words[0], Category(words[1]), cards)
        case "pass":
            return Pass(words[0])
        case "tie" if "=" in words[0]:
            return Tie(cards={n: parse_cards(h) for n, h in (w.split("=") for w in words)})
        case "tie":
            return Tie(winner=None if words[0] == "identical" else words[0])
        case "chicago":
            return Chicago(words[0])
        case "blanco":
            return Blanco(words[0])
        case "trick" | "last_trick":
            card = parse_card(words[1]) if len(words) > 1 else None
            return (Trick if kind == "trick" else LastTrick)(words[0], card)
        case "adjust":
            return Adjust(words[0], int(words[1]), " ".join(words[2:]))
        case "undo":
            return Undo()
    raise ValueError(f"unknown test event {line!r}")


def events(script: str) -> list[Event]:
    """Read events separated by semicolons or new lines."""
    lines = [part.strip() for chunk in script.splitlines() for part in chunk.split(";")]
    return [event(line) for line in lines if line]


def play(script: str, players: str = "Anna Bo Cia", rules: Rules | None = None) -> MatchState:
    """Replay a script for the players (seat order) under the rules."""
    return replay(tuple(players.split()), rules or Rules(), events(script))


# A round in which nobody scores a hand: Anna deals, so Bo speaks first.
QUIET_PHASE = "pass Bo; pass Cia; pass Anna"


def refused(
    script: str, message: str, players: str = "Anna Bo Cia", rules: Rules | None = None
) -> RuleBroken:
    """Replay ``script``; its last event must be refused with ``message``, and only it."""
    with pytest.raises(RuleBroken) as caught:
        play(script, players, rules)
    assert caught.value.message == message
    assert caught.value.index == len(events(script)) - 1
    return caught.value
