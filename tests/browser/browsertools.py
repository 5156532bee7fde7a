"""The browser the tests drive, and taps as a scorekeeper makes them: click, wait for the answer and the swap."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    # A new document reuses the frame of the one it replaces, as Chromium did before RenderDocument:
    # the browser tests' CPU 157 s → 138 s (a page load here costs ~0.1 s of Chromium's CPU).
    # Chromium keeps only the last --disable-features, and Playwright passes its own list before
    # these arguments (chromiumSwitches.ts): that list is repeated here, or this one would undo it.
    "--disable-features=RenderDocument,"
    + "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    + "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,"
    + "AvoidCorsURLLoaderRestartOnRedirect,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,"
    + "PreconnectToSearch",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Several phones are several windows here: none of them may be throttled as a background tab.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


def launch(browser_type, args: list[str] = CHROMIUM_ARGS):
    """Debian's Chromium headless shell: the browser tests' CPU 162 s → 100 s beside the full browser
    under --headless=new (the same pages, layout and scripts; no window system to emulate)."""
    executable = shutil.which("chromium-headless-shell")
    if executable is None:
        pytest.fail("Chromium is not installed: apt-get install -y chromium-headless-shell (.ci/run does it)")
    return browser_type.launch(executable_path=executable, args=args)


SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def wait_until(page, predicate: str, timeout: float = 5.0) -> None:
    """Poll a JavaScript predicate from outside the page.

    ``page.wait_for_function`` evaluates a string inside the page, which the app's
    Content-Security-Policy forbids (no 'unsafe-eval'); ``evaluate`` goes through
    the DevTools protocol instead, so the tests run under the real CSP.
    """
    import time

    deadline = time.monotonic() + timeout
    while not page.evaluate(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {predicate}")
        time.sleep(0.02)


def tap(page, locator) -> None:
    """Tap a button that posts, and wait until htmx has swapped the answer in."""
    with page.expect_response(lambda r: r.request.method == "POST"):
        locator.click()
    wait_until(page, SETTLED)


def button(page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def detailed_entry(page) -> None:
    """Switch this phone to declaration-by-declaration entry, if it shows the one-tap grid."""
    toggle = page.locator("#turn form.entry-style button[value=detail]")
    if toggle.count():
        tap(page, toggle)


def quick(page, player: str | None, hand: str | None = None) -> None:
    """One tap for the whole showdown: ``player`` scored ``hand`` (None: nobody scores)."""
    toggle = page.locator("#turn form.entry-style button[value=quick]")
    if toggle.count():
        tap(page, toggle)
    if player is None:
        tap(page, page.locator("#turn button.nobody"))
        return
    cell = page.locator(f"#turn .quick-grid button[value='{hand}:{player}']")
    if not cell.is_visible():  # one of the rarest hands, behind their row
        page.locator("#turn details.quick-rare > summary").click()
    tap(page, cell)


def declare(page, player: str, hand: str) -> None:
    detailed_entry(page)
    assert player in page.locator("#turn .declare h2").inner_text()
    tap(page, page.locator(f"#turn button[name=hand][value={hand}]"))


def pass_(page, player: str) -> None:
    detailed_entry(page)
    tap(page, button(page, f"{player} passes"))


def all_pass(page, *players: str) -> None:
    for player in players:
        pass_(page, player)


def trick(page, winner: str) -> None:
    """Record one trick (trick by trick sits behind a toggle while only the last trick may be recorded)."""
    toggle = page.locator(".tricks details.trick-by-trick:not([open]) summary")
    if toggle.count():
        toggle.click()
    form = page.locator(".tricks form:not(.last-trick)").first
    tap(page, form.get_by_role("button", name=winner, exact=True))


def pick_cards(page, prefix: str, cards: str) -> None:
    for card in cards.split():
        page.locator(f"label[for={prefix}-{card}]").click()


def scores(page) -> dict[str, int]:
    seats = page.locator("#scoreboard .seat")
    return {
        seats.nth(i).locator(".name").inner_text(): int(seats.nth(i).locator(".score").inner_text())
        for i in range(seats.count())
    }


def start_match(page, server: str, *players: str) -> None:
    """Fill the new-match form with the players in seat order and start (the first dealer drawn)."""
    import re

    page.goto(server + "/new")
    for i, name in enumerate(players):
        page.locator("input[name=name]").nth(i).fill(name)
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url(re.compile(r"/m/"))


def tap_rank(page, name: str, card: str) -> None:
    """Tap the rank ``name`` drew for the first deal (``"5h"`` or ``"5"``: only the rank is tapped)."""
    rank = card[:-1] if len(card) > 1 and card[-1] in "shdc♠♥♦♣" else card
    rank = "10" if rank.upper() == "T" else rank.upper()
    page.locator(f"select[name='draw.{name}']").select_option(rank)


def draw_for_deal(page, **cards: str) -> None:
    """Record the draw for the first deal by taps on ranks: ``draw_for_deal(page, Anna="5h", Bo="K")``."""
    for name, card in cards.items():
        tap_rank(page, name, card)
    tap(page, button(page, "Record the draw"))


_STARTS = iter(range(10**9))


def another_match(text: str) -> str:
    """A match file's text saying it was started now (its own ``created_at``, a millisecond apart from
    every other): imported, it is a match of its own. The same file imported again is the match
    already stored (issue 25), and the browser tests share one server."""
    import json
    from datetime import UTC, datetime, timedelta

    document = json.loads(text)
    started = datetime.now(UTC) + timedelta(milliseconds=next(_STARTS))
    document["created_at"] = started.isoformat(timespec="milliseconds")
    return json.dumps(document, ensure_ascii=False)


def open_imported(page, server: str, text: str) -> str:
    """Store a match from its file's text as the import page's form posts it (this phone keeps its
    score: the answer's role cookie is the page's), and open its table; the table's URL.

    Sent by the page's own request context, not by filling the import page: loading that page and
    the score sheet its answer leads to was half of what a screen checked this way cost. The import
    page itself has tests of its own (test_review_by_taps, tests/web/test_imports.py).
    """
    import re
    from urllib.parse import urljoin

    fields = dict(
        re.findall(r'name="(csrf_token|key)" value="([^"]+)"', page.request.get(server + "/import").text())
    )
    answer = page.request.post(
        server + "/import", multipart={**fields, "text": another_match(text)}, max_redirects=0
    )
    assert answer.status == 303, answer.text()
    page.goto(urljoin(server, answer.headers["location"]).removesuffix("/history"))
    return page.url


def import_events(page, server: str, players, events, rules=None) -> str:
    """Store a match of ``players`` and ``events`` (and ``rules``) and open its table (``open_imported``)."""
    import json

    file = {"format": "chicago-match/1", "players": list(players), "rules": rules or {}, "events": events}
    return open_imported(page, server, json.dumps(file))
