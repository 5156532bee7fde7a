"""A chart of every player's total by round, as SVG coordinates for the template to draw.

Colours come from CSS classes (``s0``…``s3``), so dark mode and the CSP need no
inline style.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    lines: tuple[tuple[str, str, str], ...]  # (css class, "x,y x,y …", name)
    target_y: float | None
    top: int
    rounds: int
    ticks: tuple[tuple[float, str], ...]  # (x, label) along the bottom


def chart(
    totals: Sequence[Sequence[int]],
    names: Sequence[str],
    target: int,
    width: int = 320,
    height: int = 170,
    pad: int = 0,
) -> Chart:
    """Scale the totals after each round (``totals[0]`` is the start) into a ``width`` × ``height`` box.

    The x axis ends at the last round in ``totals``: a round not played has no tick.
    """
    rounds = len(totals) - 1
    top = max([target, *(t for row in totals for t in row), 1])
    left, bottom = pad, height - pad

    def x(r: int) -> float:
        return round(left + (width - 2 * pad) * r / max(1, rounds), 1)

    def y(v: int) -> float:
        return round(bottom - (height - 2 * pad) * v / top, 1)

    lines = tuple(
        (f"s{seat}", " ".join(f"{x(r)},{y(row[seat])}" for r, row in enumerate(totals)), name)
        for seat, name in enumerate(names)
    )
    step = max(1, rounds // 6)
    ticks = tuple((x(r), str(r)) for r in range(0, rounds + 1, step))
    return Chart(width, height, lines, y(target), top, rounds, ticks)
