"""The points table and the house rules: MATCH_FORMAT.md's ``rules`` object.

``Rules()`` is the base game of RULES.md; every house rule is a field whose
default is off. ``Rules.from_dict`` reads the object of a match file and
refuses keys it does not know; ``to_dict`` writes only what differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from scorekeeper.hands import DECLARABLE, Category
from scorekeeper.words import N_, NP_, Said, listed, quoted, said, said_n, whole


class RulesError(ValueError):
    """A ``rules`` object that is not valid: an unknown key or a value of the wrong kind."""

    def __init__(self, words: Said) -> None:
        super().__init__(str(words))
        self.words = words  # for translation


@dataclass(frozen=True, slots=True)
class Bounds:
    """The whole numbers a field may hold, both ends included.

    >>> 1000 in NUMBERS["target"], 10**30 in NUMBERS["target"], True in NUMBERS["exchange.count"]
    (True, False, False)
    >>> str(NUMBERS["adjust.points"].file_refusal("points"))
    '“points” must be a whole number from −1000 to 1000'
    """

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return type(value) is int and self.low <= value <= self.high  # a JSON true is no number

    def read(self, text: str) -> int | None:
        """The number ``text`` writes in ASCII digits (a leading minus if negatives are allowed), or None.

        ``int`` alone reads too much: ``'١٢'`` as 12, ``'1_000'`` as 1000, and digits without end.

        >>> correction = NUMBERS["adjust.points"]
        >>> correction.read("-15"), correction.read("١٢"), correction.read("1_000"), correction.read(" 5")
        (-15, None, None, None)
        """
        digits = text[1:] if self.low < 0 and text[:1] == "-" else text
        widest = len(str(max(-self.low, self.high)))
        if not (digits.isascii() and digits.isdigit() and len(digits) <= widest):
            return None
        value = int(text)
        return value if self.low <= value <= self.high else None

    def refusal(self, field: Any) -> Said:
        """Say that ``field`` (a form's label for people) must be a number in these bounds."""
        must = N_("{field} must be a whole number from {low} to {high}")
        return said(must, field=field, low=whole(self.low), high=self.high)

    def file_refusal(self, key: str) -> Said:
        """Say that a match file's ``key`` (quoted as the file writes it) must be a number in these bounds."""
        must = N_("{key} must be a whole number from {low} to {high}")
        return said(must, key=quoted(key), low=whole(self.low), high=self.high)


# The range of every number a match carries, by where the file has it (TRUST.md I6). The file
# reader, the scorekeeper's forms and the new-match form all read them here. MATCH_FORMAT.md says
# only "int" (and 0-5 for a count), so these keep to what a real match can be: a target up to
# 1000 (the base is 52), and no points value beyond it (a house rule may make a royal flush worth
# the whole target); a correction goes as far either way, so it can take back any hand. Totals
# then stay far below SQLite's 64-bit integers.
POINTS = Bounds(0, 1000)
NUMBERS: Mapping[str, Bounds] = MappingProxyType(
    {
        "target": Bounds(1, 1000),
        "points": POINTS,  # each hand's points in the rules' table
        "last_trick": POINTS,
        "chicago": POINTS,
        "chicago_min": POINTS,
        "no_exchange_at": POINTS,
        "blanco_chicago": POINTS,
        "chicago_break_bonus": POINTS,
        "exchange.count": Bounds(0, 5),  # MATCH_FORMAT.md: 0-5 cards
        "adjust.points": Bounds(-POINTS.high, POINTS.high),  # a correction: + or -
    }
)


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


# A match file's words (MATCH_FORMAT.md) said to whoever edited one: the file's keys quoted as it
# writes them, and what could be written instead.
HAND_NAMES = listed(quoted(hand.value) for hand in DECLARABLE)


def not_a_hand_name(name: str) -> Said:
    """A hand name a match file gives that is none, and the names it could have given."""
    return said(
        N_("{name} is not a hand name; the hand names are {names}"), name=quoted(name), names=HAND_NAMES
    )


def instant_win_words(hands: Iterable[Category]) -> Said:
    """House rule ``instant_win``: the sentence that says scoring any of ``hands`` wins a match at once."""
    either = listed((hand.named for hand in hands), style="or")
    return said(N_("Whoever scores with {hand} wins the match immediately."), hand=either)


def won_with_words(player: str, hand: Category) -> Said:
    """House rule ``instant_win``: how ``player`` won the match at once."""
    return said(
        N_("{player} scored with {hand}, which wins the match immediately."), player=player, hand=hand.named
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
    # The variants of RULES.md, "Variants other scorekeepers and tables play".
    chicago_to_win: bool = False
    four_of_a_kind_resets: bool = False
    instant_win: tuple[Category, ...] = ()
    blanco_chicago: int | None = None
    chicago_break_bonus: int = 0
    over_target_resets: bool = False
    phases: int = 3
    more_players: bool = False

    @property
    def most_players(self) -> int:
        """How many players may sit at the table: 4, or 6 with the variant ``more_players``."""
        return 6 if self.more_players else 4

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, *, bounded: bool = True) -> Rules:
        """Read a ``rules`` object; ``{}`` or ``None`` gives the base rules.

        ``bounded=False`` reads the rules of a stored match: they were checked when it
        started, maybe before ``NUMBERS`` had ranges, and a match stays readable.

        >>> Rules.from_dict({"target": 30}).target
        30
        >>> Rules.from_dict({"goal": 30})
        Traceback (most recent call last):
        ...
        scorekeeper.rules.RulesError: “goal” is not a house rule
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            in_braces = N_("{key} must be in braces, such as {example}")
            raise RulesError(said(in_braces, key=quoted("rules"), example='{"target": 30}'))
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise RulesError(said(N_("{key} is not a house rule"), key=quoted(key)))
            values[key] = _READERS[key](key, value, bounded)
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
                out[f.name] = _written(value)
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
            out.append(
                said_n(
                    NP_("The target is {target} point.", "The target is {target} points."),
                    "target",
                    target=self.target,
                )
            )
        for hand in DECLARABLE:
            if self.points[hand] != base.points[hand]:
                scores = NP_("{hand}: {points} point.", "{hand}: {points} points.")
                out.append(said_n(scores, "points", hand=said(hand.label), points=self.points[hand]))
        if self.last_trick != base.last_trick:
            out.append(said(N_("The last trick scores {points}."), points=self.last_trick))
        if self.chicago != base.chicago:
            out.append(said(N_("Chicago is worth {points}."), points=self.chicago))
        if self.chicago_min != base.chicago_min:
            out.append(
                said_n(
                    NP_(
                        "A player needs at least {points} point to call Chicago.",
                        "A player needs at least {points} points to call Chicago.",
                    ),
                    "points",
                    points=self.chicago_min,
                )
            )
        if self.win is WinMode.FIRST_TO_REACH:
            out.append(said(N_("The first to reach the target wins immediately.")))
        if self.no_exchange_at is not None:
            out.append(
                said_n(
                    NP_(
                        "No exchanges for a player with {points} point or more.",
                        "No exchanges for a player with {points} points or more.",
                    ),
                    "points",
                    points=self.no_exchange_at,
                )
            )
        if self.chicago_leads:
            out.append(said(N_("The Chicago player leads the first trick.")))
        if self.deuce_last_trick_double:
            out.append(said(N_("The last trick won with a 2 scores double.")))
        return tuple(out) + self._variant_changes()

    def _variant_changes(self) -> tuple[Said, ...]:
        """The sentences of RULES.md's variants, in its order."""
        out: list[Said] = []
        if self.chicago_to_win:
            out.append(said(N_("Only a player who has won a Chicago can win the match.")))
        if self.four_of_a_kind_resets:
            out.append(said(N_("A showdown won with four of a kind puts everybody else back to 0.")))
        if self.instant_win:
            out.append(instant_win_words(self.instant_win))
        if self.blanco_chicago is not None:
            out.append(
                said(N_("A blanco Chicago may be called; it is worth {points}."), points=self.blanco_chicago)
            )
        if self.chicago_break_bonus:
            out.append(said(N_("Breaking a Chicago scores {points}."), points=self.chicago_break_bonus))
        if self.over_target_resets:
            out.append(
                said(N_("A player who goes over the target without having won a Chicago goes back to 0."))
            )
        if self.phases == 2:
            out.append(said(N_("A round has two phases.")))
        if self.more_players:
            out.append(said(N_("Five or six players may play.")))
        return tuple(out)


def _written(value: Any) -> Any:
    if isinstance(value, WinMode):
        return value.value
    if isinstance(value, tuple):  # instant_win: hand names
        return [hand.value for hand in value]
    return value


def _whole(key: str, value: Any, bounded: bool, bounds: str | None = None) -> int:
    within = NUMBERS[bounds or key]
    if value not in within and not (type(value) is int and not bounded):
        raise RulesError(within.file_refusal(key))
    return int(value)


def _flag(key: str, value: Any, bounded: bool) -> bool:
    if not isinstance(value, bool):
        raise RulesError(
            said(N_("{key} must be {first} or {second}"), key=quoted(key), first="true", second="false")
        )
    return value


def _points(key: str, value: Any, bounded: bool) -> Mapping[Category, int]:
    if not isinstance(value, Mapping):
        must = N_("{key} must give the points by hand name, such as {example}")
        raise RulesError(said(must, key=quoted("points"), example='{"four_of_a_kind": 8}'))
    table = dict(BASE_POINTS)
    names = {c.value: c for c in DECLARABLE}
    for name, points in value.items():
        if name not in names:
            raise RulesError(not_a_hand_name(name))
        table[names[name]] = _whole(f"points.{name}", points, bounded, "points")
    return MappingProxyType(table)


def _win(key: str, value: Any, bounded: bool) -> WinMode:
    try:
        return WinMode(value)
    except ValueError:
        raise RulesError(
            said(
                N_("{key} must be {first} or {second}"),
                key=quoted("win"),
                first='"end_of_round"',
                second='"first_to_reach"',
            )
        ) from None


def _threshold(key: str, value: Any, bounded: bool) -> int | None:
    return None if value is None else _whole(key, value, bounded)


def _hands(key: str, value: Any, bounded: bool) -> tuple[Category, ...]:
    names = {c.value: c for c in DECLARABLE}
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        must = N_("{key} must be a list of hand names, such as {example}")
        raise RulesError(said(must, key=quoted(key), example='["straight_flush", "royal_flush"]'))
    for name in value:
        if name not in names:
            raise RulesError(not_a_hand_name(name))
    return tuple(c for c in DECLARABLE if c.value in value)  # in the table's order, each once


def _phases(key: str, value: Any, bounded: bool) -> int:
    if value not in (2, 3) or type(value) is not int:
        raise RulesError(
            said(N_("{key} must be {first} or {second}"), key=quoted(key), first="3", second="2")
        )
    return int(value)


_READERS: dict[str, Callable[[str, Any, bool], Any]] = {
    "target": _whole,
    "points": _points,
    "last_trick": _whole,
    "chicago": _whole,
    "chicago_min": _whole,
    "win": _win,
    "no_exchange_at": _threshold,
    "chicago_leads": _flag,
    "deuce_last_trick_double": _flag,
    "chicago_to_win": _flag,
    "four_of_a_kind_resets": _flag,
    "instant_win": _hands,
    "blanco_chicago": _threshold,
    "chicago_break_bonus": _whole,
    "over_target_resets": _flag,
    "phases": _phases,
    "more_players": _flag,
}
