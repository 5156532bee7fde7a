"""How totals change: who scored a showdown, each change of a total and why, and their history."""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper.hands import Category
from scorekeeper.words import N_, Said, Worded, said


@dataclass(frozen=True, slots=True)
class Scored:
    """Who scored a showdown, for which hand and how many points (phase 2's show checks it)."""

    seat: int
    hand: Category
    points: int


class Reason(Worded):
    """Why a total changed: the value (the spelling of a point source), a label and a phrase for people."""

    def __init__(self, value: str, label: str, phrase: str) -> None:
        self.label = label  # as a heading: "Last trick"
        self.phrase = phrase  # in a sentence: "Bo +5, last trick"

    HAND = "hand", N_("Hand"), N_("hand")
    LAST_TRICK = "last_trick", N_("Last trick"), N_("last trick")
    CHICAGO_WON = "chicago_won", N_("Chicago won"), N_("Chicago won")
    CHICAGO_LOST = "chicago_lost", N_("Chicago lost"), N_("Chicago lost")
    ADJUST = "adjust", N_("Corrections"), N_("correction")
    # The variants of RULES.md (house rules).
    BLANCO_WON = "blanco_won", N_("Blanco Chicago won"), N_("blanco Chicago won")
    BLANCO_LOST = "blanco_lost", N_("Blanco Chicago lost"), N_("blanco Chicago lost")
    CHICAGO_BROKEN = "chicago_broken", N_("Chicago broken"), N_("broke the Chicago")
    FOUR_OF_A_KIND_RESET = (
        "four_of_a_kind_reset",
        N_("Reset by four of a kind"),
        N_("reset by four of a kind"),
    )
    OVER_TARGET = "over_target", N_("Over the target"), N_("over the target without a Chicago")


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """One change of a total: ``delta`` is what was really applied after the floor at 0."""

    round: int
    phase: int
    seat: int
    delta: int
    reason: Reason
    hand: Category | None = None
    note: str | Said = ""  # a correction's reason, or why a hand won
    floored: bool = False  # a loss the floor at 0 cut short (RULES.md, Points): "Anna +0, Chicago lost"

    @property
    def what(self) -> Said:
        """What the change was for: its hand, ``last trick``, or ``correction (reason)``."""
        if self.hand is not None:
            return self.hand.phrase
        if self.reason is Reason.ADJUST and self.note:
            return said(N_("correction ({note})"), note=self.note)
        return said(self.reason.phrase)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the latest showdown ended: who scored (``player``, None for nobody) and why."""

    round: int
    phase: int
    player: str | None
    hand: Category | None
    points: int
    reason: Said | str  # "" when the best hand simply won

    @property
    def text(self) -> str:
        """The outcome in words: ``Cia +2, two pair (…)`` or why nobody scored."""
        return str(self.words)

    @property
    def words(self) -> Said:
        """``text``, kept apart for translation."""
        if self.player is None or self.hand is None:
            return self.reason if isinstance(self.reason, Said) else said(N_("nobody scores"))
        scored = said(
            N_("{player} +{points}, {hand}"), player=self.player, points=self.points, hand=self.hand.phrase
        )
        if not self.reason:
            return scored
        return said(N_("{outcome} ({reason})"), outcome=scored, reason=self.reason)


@dataclass(frozen=True, slots=True, eq=False)
class _History:
    """A persistent list of score changes (newest first), so that appending costs O(1)."""

    change: ScoreChange
    before: _History | None

    def __eq__(self, other: object) -> bool:
        # Walk the list instead of recursing: a long match has hundreds of changes.
        a: _History | None = self
        b = other
        while isinstance(a, _History) and isinstance(b, _History):
            if a is b:
                return True
            if a.change != b.change:
                return False
            a, b = a.before, b.before
        return a is None and b is None

    def __hash__(self) -> int:
        return hash(self.change)
