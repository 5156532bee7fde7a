"""Each player's figures per match (``match_players``) and the chart's points, derived from the events.

They are kept so that statistics are SQL sums (stats.py); they are always
worked out by today's engine from the event log, which stays the source of
truth. The write path replaces them in the same transaction as the events
(or leaves them, when a tap cannot have changed them: ``writes._same_figures``);
``fill_in`` works them out at start for matches that have none (a database
from before they existed).
"""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database

from scorekeeper.hands import Category
from scorekeeper.matchfile import MatchFile, read_event
from scorekeeper.rules import Rules
from scorekeeper.state import MatchState
from scorekeeper.summary import PlayerFigures, Tally, figures, tally, totals_by_round

# Where points came from (summary.PlayerFigures.points), one p_<source> column each.
POINT_SOURCES = (
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "last_trick",
    "chicago_won",
    "chicago_lost",
    "adjust",
    # The variants' own reasons (RULES.md, Variants; migration m010).
    "blanco_won",
    "blanco_lost",
    "chicago_broken",
    "four_of_a_kind_reset",
    "over_target",
)
COLUMNS = (
    "match_id",
    "seat",
    "name",
    "score",
    "won",
    "finished",
    "rounds",
    "chicago_won",
    "chicago_lost",
    "best_hand",
    *(f"p_{source}" for source in POINT_SOURCES),
)
INSERT = f"INSERT INTO match_players ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"

Rows = list[list[Any]]


def figure_row(match_id: str, f: PlayerFigures, name: str | None = None) -> list[Any]:
    """The values of one match_players row, in COLUMNS order (``name`` overrides the player's)."""
    best = -1 if f.best_hand is None else Category(f.best_hand).order
    row = [match_id, f.seat, name or f.name, f.score, f.won, f.finished, f.rounds, f.chicago_won]
    return [*row, f.chicago_lost, best, *(f.points.get(source, 0) for source in POINT_SOURCES)]


def work_out(match_id: str, state: MatchState, counted: Tally | None = None) -> tuple[Rows, str]:
    """Each player's figures (match_players rows) and the chart's points (not written); ``counted``:
    the state's tally (``summary.tally``), if the caller has it."""
    counted = counted or tally(state)
    rows = [figure_row(match_id, f) for f in figures(state, counted)]
    return rows, json.dumps(totals_by_round(state, counted))


def write(db: Database, match_id: str, rows: Rows, chart: str) -> None:
    """Replace a match's figures and chart (inside the caller's transaction)."""
    db.execute("DELETE FROM match_players WHERE match_id = ?", [match_id])
    db.conn.executemany(INSERT, rows)
    db.execute("UPDATE matches SET chart = ? WHERE id = ?", [chart, match_id])


def fill_in(db: Database) -> None:
    """Work out the figures of every match that has none (its chart is NULL), in the caller's transaction."""
    missing = [row[0] for row in db.execute("SELECT id FROM matches WHERE chart IS NULL").fetchall()]
    for match_id in missing:
        players, rules = db.execute("SELECT players, rules FROM matches WHERE id = ?", [match_id]).fetchone()
        stored = db.execute(
            "SELECT type, payload FROM events WHERE match_id = ? ORDER BY seq", [match_id]
        ).fetchall()
        # The log is read as it was written: numbers recorded before their ranges stay readable.
        events = tuple(read_event({"type": k, **json.loads(p)}, bounded=False) for k, p in stored)
        played_by = Rules.from_dict(json.loads(rules), bounded=False)
        file = MatchFile(tuple(json.loads(players)), played_by, events)
        write(db, match_id, *work_out(match_id, file.replay()))
