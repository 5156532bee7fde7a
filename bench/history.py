"""Fill a database with 10,000 finished matches and time the history pages through a real server.

Run: python bench/history.py [--matches 10000] [--runs 3]
Goals (issue 4): the match list, a match page, a player page and the hand checker each under
50 ms; a match page's cost independent of how many other matches are stored (timed at 100
and at the full count). The matches come from the engine: 60 real matches played by random
legal play to the end (2-4 players, realistic rounds), each stored many times under different
players from a pool of 40 names, with their figures worked out as the app does.

Each database is served by ``scorekeeper serve`` (waitress, its defaults) and asked over
loopback by one phone (bench/loadgen.py), so the times are round trips, not in-process calls. Before any timing every route is asked once for another
target, by 16 phones at once (templates compiled, every thread's connection open): "first"
is then the first request for a match, player or hand not asked before, and "median" the
median of the next 15. Each figure is min/median of ``--runs`` runs (a new target each run
where the route has one; the two databases' runs interleaved), with the server's CPU per
request (read from /proc in clock ticks of 10 ms: over 16 requests, good to about 0.6 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

import loadgen  # noqa: E402
from servers import SECRET, Served, min_median, running  # noqa: E402
from simulate import random_events  # noqa: E402

from scorekeeper.matchfile import write_event  # noqa: E402
from scorekeeper.rules import Rules  # noqa: E402
from scorekeeper.summary import figures, totals_by_round  # noqa: E402
from scorekeeper.web import create_app  # noqa: E402
from scorekeeper.web.store import figures as kept_figures  # noqa: E402
from scorekeeper.web.store.db import get_db  # noqa: E402

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
    app = create_app({"DATABASE": db_path, "SECRET_KEY": SECRET, "WTF_CSRF_ENABLED": False})
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


HANDS = (
    "hand1=9s+7s+5s+4s+2s&hand2=Qh+9h+7h+4h+2h&hand3=Ac+Kd+Qc+Js+Tc&hand4=8d+8c+3h+3s+2d",
    "hand1=As+Ks+Qs+Js+9s&hand2=Th+Td+Tc+4h+4s&hand3=6c+6d+8h+8s+2d&hand4=3c+4d+5h+6s+7d",
    "hand1=Kh+Kd+2c+2d+9h&hand2=5s+5h+5d+Jc+Qd&hand3=Ah+Qh+8h+6h+3h&hand4=7c+7d+7h+7s+Kc",
    "hand1=2c+3c+4c+5c+6c&hand2=9d+9h+Jc+Js+Ad&hand3=Tc+Jd+Qh+Ks+Ah&hand4=4s+4d+8c+Qs+Kh",
)


def routes(ids: list[str], run: int) -> dict[str, str]:
    """Each route's target for a run; run -1 is the warm-up's, asked of no timed run."""
    match = ids[len(ids) // 2 + run]
    person = 8 + run
    return {
        "match list (page 1)": "/" if run >= 0 else "/?page=2",
        "match list, one player": f"/?player={person}",
        "match page (sheet, chart, log)": f"/m/{match}/history",
        "the table of a match": f"/m/{match}",
        "a step of a match": f"/m/{match}/at/40",
        "player page": f"/players/{person}",
        "players": "/players",
        "hand checker, four hands": f"/hands?{HANDS[run + 1]}",
    }


async def warm_up(server: Served, ids: list[str]) -> None:
    phones = [loadgen.Phone(server.base) for _ in range(16)]
    for path in routes(ids, -1).values():
        replies = await asyncio.gather(*(phone.request("GET", path) for phone in phones))
        assert all(status == 200 for status, _, _ in replies), (path, [r[0] for r in replies])
    for phone in phones:
        await phone.close()


async def measure(server: Served, ids: list[str], run: int) -> dict[str, tuple[float, float, float]]:
    """Each route: (first request, median of the next 15) in ms, and the server's CPU ms per request."""
    phone = loadgen.Phone(server.base)
    found = {}
    for name, path in routes(ids, run).items():
        times = []
        cpu = server.cpu_seconds()
        for _ in range(16):
            start = time.perf_counter()
            status, _, _ = await phone.request("GET", path)
            times.append((time.perf_counter() - start) * 1e3)
            assert status == 200, (path, status)
        found[name] = (times[0], statistics.median(times[1:]), (server.cpu_seconds() - cpu) / 16 * 1e3)
    await phone.close()
    return found


async def measure_both(paths: dict[str, str], ids: dict[str, list[str]], runs: int) -> None:
    servers = {name: Served("app", Path(path)) for name, path in paths.items()}
    with running(*servers.values()):
        for name, server in servers.items():
            await warm_up(server, ids[name])
        found: dict[str, list[dict]] = {name: [] for name in servers}
        for run in range(runs):
            for name, server in servers.items():
                found[name].append(await measure(server, ids[name], run))
    big, small = found["big"], found["small"]
    print(
        f"{'round trip on loopback, ms':<34}{'first':>12}{'median':>12}{'CPU ms/req':>12}"
        f"   {'100 stored: first':>18}{'median':>12}"
    )

    def figure(runs_found: list[dict], route: str, i: int, digits: int = 1) -> str:
        return min_median([r[route][i] for r in runs_found], digits)

    for route in big[0]:
        print(
            f"{route:<34}{figure(big, route, 0):>12}{figure(big, route, 1):>12}{figure(big, route, 2, 2):>12}"
            f"   {figure(small, route, 0):>18}{figure(small, route, 1):>12}"
        )


def fill_and_measure(workdir: Path, templates: list[dict], args: argparse.Namespace, start: float) -> None:
    paths = {"small": str(workdir / "small.sqlite"), "big": str(workdir / "big.sqlite")}
    ids = {
        "small": fill(paths["small"], 100, templates, random.Random(1)),
        "big": fill(paths["big"], args.matches, templates, random.Random(1)),
    }
    size = (workdir / "big.sqlite").stat().st_size / 1e6
    print(
        f"filled {args.matches:,} finished matches ({size:.0f} MB) in {time.perf_counter() - start:.0f} s;"
        f" scorekeeper serve with its defaults; min/median of {args.runs} runs\n"
    )
    asyncio.run(measure_both(paths, ids, args.runs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(2026)
    start = time.perf_counter()
    templates = play_templates(rng)
    events = sum(len(t["events"]) for t in templates) / len(templates)
    rounds = sum(t["rounds"] for t in templates) / len(templates)
    print(
        f"{TEMPLATES} matches played to the end by the engine: {events:.0f} events, {rounds:.1f} rounds on average"
    )
    with tempfile.TemporaryDirectory(prefix="bench-history-") as folder:
        fill_and_measure(Path(folder), templates, args, start)
    print(
        f"\ngoal: each under 50 ms with {args.matches:,} matches; the match page the same with 100 or {args.matches:,}"
    )


if __name__ == "__main__":
    main()
