"""The points table and the house rules: MATCH_FORMAT.md's ``rules`` object.

``Rules()`` is the base game of RULES.md; every house rule is a field whose
default is off. ``Rules.from_dict`` reads the object of a match file and
refuses keys it does not know; ``to_dict`` writes only what differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.words import N_, Said, said


class RulesError(ValueError):
    """A ``rules`` object that is not valid: an unknown key or a value of the wrong kind."""


class WinMode(StrEnum):
    """When the match is won (RULES.md, "Winning")."""

    END_OF_ROUND = "end_of_round"
    FIRST_TO_REACH = "first_to_reach"


BASE_POINTS: Mapping[Category, int] = MappingProxyType(
    {
        Category.PAIR: 1,
        Category.TWO_PAIR: 2,
        Category.THREE_OF_A_KIND: 3,
        Category.STRAIGHT: 4,
        Category.FLUSH: 5,
        Category.FULL_HOUSE: 6,
        Category.FOUR_OF_A_KIND: 7,
        Category.STRAIGHT_FLUSH: 8,
        Category.ROYAL_FLUSH: 52,
    }
)


@dataclass(frozen=True)
class Rules:
    """The rules one match is played by; the defaults are the base rules."""

    target: int = 52
    points: Mapping[Category, int] = field(default_factory=lambda: BASE_POINTS)
    last_trick: int = 5
    chicago: int = 15
    chicago_min: int = 15
    win: WinMode = WinMode.END_OF_ROUND
    no_exchange_at: int | None = None
    chicago_leads: bool = False
    deuce_last_trick_double: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Rules:
        """Read a ``rules`` object; ``{}`` or ``None`` gives the base rules.

        >>> Rules.from_dict({"target": 30}).target
        30
        >>> Rules.from_dict({"goal": 30})
        Traceback (most recent call last):
        ...
        scorekeeper.rules.RulesError: unknown house rule 'goal'
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RulesError("'rules' must be an object")
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise RulesError(f"unknown house rule '{key}'")
            values[key] = _READERS[key](key, value)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Write the rules that differ from the base rules, in the file's spelling."""
        base = Rules()
        out: dict[str, Any] = {}
        for f in fields(self):
            value, default = getattr(self, f.name), getattr(base, f.name)
            if f.name == "points":
                changed = {c.value: v for c, v in value.items() if default[c] != v}
                if changed:
                    out["points"] = changed
            elif value != default:
                out[f.name] = value.value if isinstance(value, WinMode) else value
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(sorted(self.to_dict().items())))

    def changes(self) -> tuple[Said, ...]:
        """Say each way these rules differ from the base rules, one sentence each.

        >>> [str(change) for change in Rules(target=30, chicago_leads=True).changes()]
        ['The target is 30 points.', 'The Chicago player leads the first trick.']
        """
        base = Rules()
        out: list[Said] = []
        if self.target != base.target:
            out.append(said(N_("The target is {target} points."), target=self.target))
        for hand in DECLARABLE:
            if self.points[hand] != base.points[hand]:
                out.append(
                    said(N_("{hand} scores {points}."), hand=said(hand.label), points=self.points[hand])
                )
        if self.last_trick != base.last_trick:
            out.append(said(N_("The last trick scores {points}."), points=self.last_trick))
        if self.chicago != base.chicago:
            out.append(said(N_("Chicago is worth {points}."), points=self.chicago))
        if self.chicago_min != base.chicago_min:
            out.append(said(N_("Chicago may be called from {points} points."), points=self.chicago_min))
        if self.win is WinMode.FIRST_TO_REACH:
            out.append(said(N_("The first to reach the target wins at once.")))
        if self.no_exchange_at is not None:
            out.append(said(N_("No exchanges from {points} points."), points=self.no_exchange_at))
        if self.chicago_leads:
            out.append(said(N_("The Chicago player leads the first trick.")))
        if self.deuce_last_trick_double:
            out.append(said(N_("The last trick won with a 2 scores double.")))
        return tuple(out)


def _whole(key: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RulesError(f"'{key}' must be a whole number of at least {low}")
    return value


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"'{key}' must be true or false")
    return value


def _points(key: str, value: Any) -> Mapping[Category, int]:
    if not isinstance(value, Mapping):
        raise RulesError("'points' must be an object of hand name to points")
    table = dict(BASE_POINTS)
    names = {c.value: c for c in DECLARABLE}
    for name, points in value.items():
        if name not in names:
            raise RulesError(f"'{name}' is not a hand name")
        table[names[name]] = _whole(f"points.{name}", points)
    return MappingProxyType(table)


def _win(key: str, value: Any) -> WinMode:
    try:
        return WinMode(value)
    except ValueError:
        raise RulesError("'win' must be 'end_of_round' or 'first_to_reach'") from None


def _threshold(key: str, value: Any) -> int | None:
    return None if value is None else _whole(key, value)


_READERS = {
    "target": lambda k, v: _whole(k, v, low=1),
    "points": _points,
    "last_trick": _whole,
    "chicago": _whole,
    "chicago_min": _whole,
    "win": _win,
    "no_exchange_at": _threshold,
    "chicago_leads": _flag,
    "deuce_last_trick_double": _flag,
}
