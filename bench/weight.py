"""The weight of each page on the wire: a first visit, and a repeat visit with the browser's cache.

Serves the app (``scorekeeper serve``) on 127.0.0.1 and opens each page in Debian's Chromium
(Playwright) at a phone's size; the DevTools protocol reports every response's bytes
as they crossed the wire (compressed, headers included). A first visit starts from
an empty cache; the repeat visit opens the same page again in the same browser.

Run: python bench/weight.py
Goals (issue 6): the scoring page's first load under 40 KB compressed in total, a repeat
visit under 8 KB.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "browser")]

from browsertools import launch  # noqa: E402
from servers import Served  # noqa: E402  (bench/, this script's folder)

from scorekeeper.matchfile import dumps, loads  # noqa: E402


def kind(url: str, mime: str) -> str:
    if "css" in mime:
        return "css"
    if "javascript" in mime:
        return "js"
    if "html" in mime:
        return "html"
    return "other"


def visit(context, url: str) -> dict[str, int]:
    """Open ``url`` in a new tab; the bytes received per kind of file."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    mimes: dict[str, str] = {}
    urls: dict[str, str] = {}
    sizes: dict[str, int] = defaultdict(int)
    cdp.on("Network.responseReceived", lambda e: mimes.update({e["requestId"]: e["response"]["mimeType"]}))
    cdp.on("Network.requestWillBeSent", lambda e: urls.update({e["requestId"]: e["request"]["url"]}))

    def finished(event: dict) -> None:
        rid = event["requestId"]
        sizes[kind(urls.get(rid, ""), mimes.get(rid, ""))] += int(event["encodedDataLength"])

    cdp.on("Network.loadingFinished", finished)
    page.goto(url, wait_until="networkidle")
    page.close()
    return dict(sizes)


def main() -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-weight-"))
    app = Served("app", folder / "w.sqlite")  # the app as every bench serves it (servers.py)
    try:
        server = app.start().base
        with sync_playwright() as playwright:
            browser = launch(playwright.chromium)
            # A match in progress, scored by this phone (imported through the page).
            setup = browser.new_context()
            page = setup.new_page()
            page.goto(server + "/import")
            file = loads((ROOT / "tests" / "matches" / "four-players-in-progress.json").read_text())
            page.fill("textarea[name=text]", dumps(file))
            page.get_by_role("button", name="Import").click()
            page.wait_for_url(re.compile(r"/history$"))
            table = page.url.removesuffix("/history")
            share = page.goto(table + "/handover").text()
            watch = server + re.search(r"/watch\?t=[\w-]+", share).group(0)
            state = setup.storage_state()
            setup.close()
            pages = {
                "scoring page": table,
                "live view": watch,
                "match list": server + "/",
                "new match": server + "/new",
                "score sheet": table + "/history",
                "players": server + "/players",
                "hand checker": server + "/hands",
                "rules": server + "/rules",
            }
            print("compressed bytes on the wire (headers included), Chromium at 390x844")
            print(f"{'page':<14} {'visit':<7} {'html':>7} {'css':>7} {'js':>7} {'other':>7} {'total':>8}")
            for name, url in pages.items():
                context = browser.new_context(
                    storage_state=state, viewport={"width": 390, "height": 844}, service_workers="block"
                )
                for label in ("first", "repeat"):
                    sizes = visit(context, url)
                    row = [sizes.get(k, 0) for k in ("html", "css", "js", "other")]
                    print(
                        f"{name:<14} {label:<7} "
                        + " ".join(f"{b / 1024:6.1f}K" for b in row)
                        + f" {sum(row) / 1024:7.1f}K"
                    )
                context.close()
            browser.close()
        print("goals: scoring page first load < 40 KB, repeat visit < 8 KB")
    finally:
        app.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
