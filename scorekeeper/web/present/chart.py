"""A chart of every player's total by round, as SVG coordinates for the template to draw.

Colours come from CSS classes (``s0``…``s3``), so dark mode and the CSP need no
inline style.
"""

from __future__ import annotations

import math
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
    low: int = 0  # the value at the bottom: below 0 only when a value is (a rating, never a total)


def chart(
    totals: Sequence[Sequence[float]],
    names: Sequence[str],
    target: float,
    width: int = 320,
    height: int = 170,
    pad: int = 0,
) -> Chart:
    """Scale the totals after each round (``totals[0]`` is the start) into a ``width`` × ``height`` box.

    The x axis ends at the last round in ``totals``: a round not played has no tick.
    """
    rounds = len(totals) - 1
    values = [t for row in totals for t in row]
    top, low = math.ceil(max([target, *values, 1])), math.floor(min([0, *values]))
    left, bottom = pad, height - pad

    def x(r: int) -> float:
        return round(left + (width - 2 * pad) * r / max(1, rounds), 1)

    def y(v: float) -> float:
        return round(bottom - (height - 2 * pad) * (v - low) / (top - low), 1)

    lines = tuple(
        (f"s{seat}", " ".join(f"{x(r)},{y(row[seat])}" for r, row in enumerate(totals)), name)
        for seat, name in enumerate(names)
    )
    step = max(1, rounds // 6)
    ticks = tuple((x(r), str(r)) for r in range(0, rounds + 1, step))
    return Chart(width, height, lines, y(target), top, rounds, ticks, low)
