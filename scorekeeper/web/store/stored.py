"""A match as stored: its file's contents, its times and taps, and the answers they give."""

from __future__ import annotations

from dataclasses import dataclass

from scorekeeper.events import Event, Undo
from scorekeeper.match import walk_back
from scorekeeper.matchfile import MatchFile
from scorekeeper.rules import Rules


@dataclass(frozen=True)
class StoredMatch:
    """A match as stored: its file contents plus the shell's own fields (never who may write)."""

    id: str
    file: MatchFile
    version: int
    created_at: str
    updated_at: str
    recorded_at: tuple[str, ...]
    steps: tuple[int, ...] = ()  # for each event, the seq of the first event its tap recorded
    text: int | None = None  # its text_bytes, when counted as it was read or written (else counted anew)

    @property
    def players(self) -> tuple[str, ...]:
        return self.file.players

    @property
    def rules(self) -> Rules:
        return self.file.rules

    @property
    def events(self) -> tuple[Event, ...]:
        return self.file.events

    def at(self, step: int) -> StoredMatch:
        """The match as it was after its first ``step`` events."""
        stamp = self.recorded_at[step - 1] if step else self.created_at
        file = MatchFile(self.players, self.rules, self.events[:step])
        return StoredMatch(
            self.id, file, step, self.created_at, stamp, self.recorded_at[:step], self.steps[:step]
        )

    def latest_tap(self) -> list[int]:
        """The indexes of the events of the latest tap still in effect (what one undo takes back)."""
        kept, _ = walk_back(self.events, len(self.events))
        if not kept:
            return []
        step = self.steps[kept[-1]]
        if step < kept[0]:  # the tap began before the walk stopped: read on from its first event
            kept, _ = walk_back(self.events, step)
        return [index for index in kept if self.steps[index] == step]

    def undone_step(self) -> list[int]:
        """The indexes of the events the latest tap took back, oldest first, when that tap was an
        undo (what "Redo" records again); none otherwise. An undo never undoes an undo, so a redo
        records those events anew, as a tap of its own."""
        if not self.events or not isinstance(self.events[-1], Undo):
            return []
        step = self.steps[-1]
        if not all(isinstance(event, Undo) for event in self.events[step:]):
            return []
        _, cancelled = walk_back(self.events, step)
        return sorted(cancelled[i] for i in range(step, len(self.events)) if i in cancelled)

    def last_step(self) -> int:
        """How many events the latest tap still in effect recorded (what one undo takes back)."""
        return len(self.latest_tap()) or 1  # none: the engine refuses the undo, there is nothing to undo
