"""Serve the app on 127.0.0.1 and measure a scoring action and an unchanged live-view check.

In the same run, bench/minimal_app.py (one SQLite insert per POST, one row read per
conditional GET, its connection kept per thread) is served beside it as a floor of this
stack: the same ``serve()`` (waitress, the same threads for requests; no stream threads, as it
has no live view), the same client (bench/loadgen.py: one aiohttp connection per client,
reopened when the server closes it). Prints requests/s, p50 and p99 at 1, 8 and 32 concurrent
clients and the server's CPU per request, the reference's beside, each as min/median of
``--runs`` runs (the app's and the reference's runs interleaved); then the bytes on the wire of
the scoring page's first load (the page and every file it links) and of one action's swap.

Run: python bench/table.py [--seconds 3] [--runs 3]
Goals (issue 3): action p99 < 50 ms at 32 clients; first load < 40 KB, one swap < 6 KB
(compressed). No goal is set against the reference (issue 3's "0.5x the minimal POST" was
withdrawn); its figures say what the server and SQLite cost alone.
Each client scores its own realistic match (random legal play, tests/simulate.py),
started before any timing. Loopback only, bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import loadgen  # noqa: E402
from servers import Served, min_median, percentile, running  # noqa: E402

CONCURRENCY = (1, 8, 32)


async def rows(app: Served, ref: Served, runs: int, seconds: float) -> None:
    tables = {
        app: await loadgen.open_tables(app.base, 0, max(CONCURRENCY), reference=False),
        ref: await loadgen.open_tables(ref.base, 0, max(CONCURRENCY), reference=True),
    }
    for server in tables:  # warm up: every thread opens its connection, every cache fills
        for kind in ("tap", "check"):
            await loadgen.closed_loop(tables[server], kind, 1.0)
    print(
        f"{'what':<28}{'clients':>8}{'req/s':>11}{'p50 ms':>14}{'p99 ms':>15}{'CPU ms/req':>12}"
        f"{'ref req/s':>11}{'ref p99':>14}{'ref CPU':>10}"
    )
    for kind, label in (("tap", "scoring action (POST)"), ("check", "unchanged live poll (GET)")):
        for n in CONCURRENCY:
            got: dict[Served, dict[str, list[float]]] = {
                s: {"rate": [], "p50": [], "p99": [], "cpu": []} for s in tables
            }
            errors: list[str] = []
            for _ in range(runs):
                for server in tables:
                    cpu = server.cpu_seconds()
                    run = await loadgen.closed_loop(tables[server][:n], kind, seconds)
                    times = sorted(run.latencies)
                    got[server]["rate"].append(run.rate)
                    got[server]["p50"].append(statistics.median(times) * 1e3 if times else float("nan"))
                    got[server]["p99"].append(percentile(times, 0.99) * 1e3)
                    got[server]["cpu"].append((server.cpu_seconds() - cpu) / max(1, len(times)) * 1e3)
                    errors += run.errors
            print(
                f"{label:<28}{n:>8}{min_median(got[app]['rate'], 0):>11}{min_median(got[app]['p50']):>14}"
                f"{min_median(got[app]['p99']):>15}{min_median(got[app]['cpu'], 2):>12}"
                f"{min_median(got[ref]['rate'], 0):>11}{min_median(got[ref]['p99']):>14}"
                f"{min_median(got[ref]['cpu'], 2):>10}"
            )
            if errors:
                print(f"  errors: {len(errors)}, first: {errors[:3]}")
    await loadgen.close_tables(tables)


class Linked(HTMLParser):
    """The files a browser fetches on a first load: stylesheets, scripts, icons, the manifest, images."""

    FETCHED = {"stylesheet", "icon", "manifest"}

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and set((a.get("rel") or "").split()) & self.FETCHED and a.get("href"):
            self.paths.append(a["href"])
        elif tag in ("script", "img") and a.get("src"):
            self.paths.append(a["src"])


async def sizes(app: Served) -> None:
    """Bytes on the wire (as a phone's browser asks: gzip, deflate, br, zstd) of a first load and a swap."""
    (table,) = await loadgen.open_tables(app.base, 1000, 1, reference=False)
    for _ in range(3):
        await table.tap()
    keeper = table.keeper
    page = (await keeper.request("GET", f"/m/{table.match}", headers=loadgen.PLAIN))[2].decode()
    linked = Linked()
    linked.feed(page)
    print(f"\nbytes on the wire (Accept-Encoding: {loadgen.BROWSER['Accept-Encoding']})")
    total = 0
    for path in [f"/m/{table.match}", *linked.paths]:
        status, headers, body = await keeper.request("GET", path)
        name = "scoring page HTML" if path.startswith("/m/") else path
        print(f"  {name:<52} {len(body):>7,} B  {headers.get('Content-Encoding', 'identity')}  ({status})")
        total += len(body)
    print(f"  {'first load in total':<52} {total:>7,} B  goal < 40,960")
    event = table.script[table.version]
    fields = {} if event.type == "undo" else loadgen.form_for(event)
    path = f"/m/{table.match}/" + ("undo" if event.type == "undo" else "record")
    form = {**fields, "version": str(table.version), "key": "sizes", "csrf_token": table.token}
    status, headers, swap = await keeper.request("POST", path, form, {"HX-Request": "true"})
    encoding = headers.get("Content-Encoding", "identity")
    print(
        f"  {'one action swap (#table fragment)':<52} {len(swap):>7,} B  goal < 6,144 ({encoding}, {status})"
    )
    await table.close()


async def main_async(args: argparse.Namespace, workdir: Path) -> None:
    app = Served("app", workdir / "app.sqlite")
    ref = Served("minimal", workdir / "minimal.sqlite")
    with running(app, ref):
        print(
            f"scorekeeper serve (its defaults) and the minimal app under the same serve(); {args.seconds:g} s per run;"
            f" min/median of {args.runs} runs; loopback; {os.cpu_count()} cores shared with the client;"
            f" load average {os.getloadavg()[0]:.1f}"
        )
        loadgen.scripts()
        await rows(app, ref, args.runs, args.seconds)
        await sizes(app)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    with tempfile.TemporaryDirectory(prefix="bench-table-") as folder:
        asyncio.run(main_async(parser.parse_args(), Path(folder)))


if __name__ == "__main__":
    main()
