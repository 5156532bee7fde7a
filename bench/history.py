"""Fill a database with 10,000 finished matches and time the history pages (server time, in-process).

Run: python bench/history.py [--matches 10000]
Goals (issue 4): the match list, a match page, a player page and the hand checker each under
50 ms; a match page's cost independent of how many other matches are stored (timed at 100
and at the full count). The matches come from the engine: 60 real matches played by random
legal play to the end (2-4 players, realistic rounds), each stored many times under different
players from a pool of 40 names, with their figures worked out as the app does.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from simulate import random_events  # noqa: E402

from scorekeeper.matchfile import write_event  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402
from scorekeeper.summary import figures, totals_by_round  # noqa: E402
from scorekeeper.web import create_app  # noqa: E402
from scorekeeper.web import figures as kept_figures  # noqa: E402
from scorekeeper.web.db import get_db  # noqa: E402

POOL = [f"Player{i:02d}" for i in range(40)]
TEMPLATES = 60
MARK = "\u27e8{}\u27e9"  # a placeholder name no real name contains


def play_templates(rng: random.Random) -> list[dict]:
    """Real matches, played to the end by the engine, with placeholder names."""
    templates = []
    while len(templates) < TEMPLATES:
        players = tuple(MARK.format(i) for i in range(rng.choice((2, 3, 3, 4))))
        events, states = random_events(players, Rules(), rng.choice, 3000, undo=False)
        state = states[-1]
        if not state.is_finished:
            continue
        rows = []
        for event in events:
            payload = write_event(event)
            kind = payload.pop("type")
            rows.append((kind, json.dumps(payload, ensure_ascii=False)))
        templates.append(
            {
                "players": players,
                "events": rows,
                "figures": figures(state, events),
                "chart": json.dumps(totals_by_round(state)),
                "winner": state.winner,
                "rounds": state.round,
            }
        )
    return templates


def fill(db_path: str, count: int, templates: list[dict], rng: random.Random) -> list[str]:
    """Store ``count`` finished matches in one transaction; return their ids."""
    app = create_app(
        {"DATABASE": db_path, "SECRET_KEY": "bench-history-secret-key-0123456789", "WTF_CSRF_ENABLED": False}
    )
    ids = []
    with app.app_context():
        db = get_db()
        db.execute("BEGIN IMMEDIATE")
        for name in POOL:
            person = db.execute("INSERT INTO people (name) VALUES (?)", [name]).lastrowid
            db.execute("INSERT INTO aliases (name, person_id) VALUES (?, ?)", [name, person])
            db.execute("INSERT INTO players (name, last_played) VALUES (?, ?)", [name, "2026-01-01"])
        figure_sql = kept_figures.INSERT
        for i in range(count):
            t = templates[i % len(templates)]
            names = rng.sample(POOL, len(t["players"]))
            match_id = f"m{i:05d}"
            stamp = f"2026-{1 + i * 11 // count:02d}-01T00:00:{i % 60:02d}.{i:06d}"
            swap = dict(zip(t["players"], names, strict=True))

            def named(text: str, swap: dict[str, str] = swap) -> str:
                for mark, name in swap.items():
                    text = text.replace(mark, name)
                return text

            db.execute(
                "INSERT INTO matches (id, players, rules, created_at, updated_at, version, status, winner, round, chart)"
                " VALUES (?, ?, '{}', ?, ?, ?, 'finished', ?, ?, ?)",
                [
                    match_id,
                    json.dumps(names),
                    stamp,
                    stamp,
                    len(t["events"]),
                    names[t["winner"]],
                    t["rounds"],
                    t["chart"],
                ],
            )
            db.conn.executemany(
                "INSERT INTO events (match_id, seq, type, payload, recorded_at) VALUES (?, ?, ?, ?, ?)",
                [
                    (match_id, seq, kind, named(payload), stamp)
                    for seq, (kind, payload) in enumerate(t["events"])
                ],
            )
            for f in t["figures"]:
                db.execute(figure_sql, kept_figures.figure_row(match_id, f, names[f.seat]))
            ids.append(match_id)
        db.execute("COMMIT")
    return ids


def timed(client, path: str, runs: int = 15) -> tuple[float, float]:
    """(first request, median of the next ``runs``) in milliseconds."""
    start = time.perf_counter()
    response = client.get(path)
    first = (time.perf_counter() - start) * 1e3
    assert response.status_code == 200, (path, response.status_code)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        client.get(path)
        times.append((time.perf_counter() - start) * 1e3)
    return first, statistics.median(times)


def measure(db_path: str, ids: list[str]) -> dict[str, tuple[float, float]]:
    app = create_app(
        {"DATABASE": db_path, "SECRET_KEY": "bench-history-secret-key-0123456789", "WTF_CSRF_ENABLED": False}
    )
    client = app.test_client()
    middle = ids[len(ids) // 2]
    hands = "hand1=9s+7s+5s+4s+2s&hand2=Qh+9h+7h+4h+2h&hand3=Ac+Kd+Qc+Js+Tc&hand4=8d+8c+3h+3s+2d"
    return {
        "match list (page 1)": timed(client, "/"),
        "match list, one player": timed(client, "/?player=7"),
        "match page (sheet, chart, log)": timed(client, f"/m/{middle}/history"),
        "the table of a match": timed(client, f"/m/{middle}"),
        "a step of a match": timed(client, f"/m/{middle}/at/40"),
        "player page": timed(client, "/players/7"),
        "players": timed(client, "/players"),
        "hand checker, four hands": timed(client, f"/hands?{hands}"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(2026)
    start = time.perf_counter()
    templates = play_templates(rng)
    events = sum(len(t["events"]) for t in templates) / len(templates)
    rounds = sum(t["rounds"] for t in templates) / len(templates)
    print(
        f"{TEMPLATES} matches played to the end by the engine: {events:.0f} events, {rounds:.1f} rounds on average"
    )
    workdir = Path(tempfile.mkdtemp(prefix="bench-history-"))
    small_ids = fill(str(workdir / "small.sqlite"), 100, templates, random.Random(1))
    big_ids = fill(str(workdir / "big.sqlite"), args.matches, templates, random.Random(1))
    size = (workdir / "big.sqlite").stat().st_size / 1e6
    print(
        f"filled {args.matches:,} finished matches ({size:.0f} MB) in {time.perf_counter() - start:.0f} s\n"
    )
    small = measure(str(workdir / "small.sqlite"), small_ids)
    big = measure(str(workdir / "big.sqlite"), big_ids)
    print(f"{'server time, ms':<34}{'first':>8}{'median':>8}   {'with 100 stored: first':>22}{'median':>8}")
    for name, (first, median) in big.items():
        s_first, s_median = small[name]
        print(f"{name:<34}{first:>8.1f}{median:>8.1f}   {s_first:>22.1f}{s_median:>8.1f}")
    print(
        f"\ngoal: each under 50 ms with {args.matches:,} matches; the match page the same with 100 or {args.matches:,}"
    )


if __name__ == "__main__":
    main()
