"""Issue 6: axe-core finds nothing on any page, in light and dark mode; a round is scored by keyboard alone.

axe-core comes from npm (package.json; ``npm ci`` in the README's test command).
It is injected through the DevTools protocol, so the pages keep their real
Content-Security-Policy while they are checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browsertools import SETTLED, draw_for_deal, open_imported, start_match, tap, wait_until

from scorekeeper.match import replay
from scorekeeper.matchfile import MatchFile, dumps, loads
from scorekeeper.refusals import RuleBroken

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
MATCHES = ROOT / "tests" / "matches"


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci` (the README's test command does)")
    return AXE.read_text()


def violations(page, axe_source: str) -> list[str]:
    """axe's violations on the page as it is: every rule in light mode, and in dark mode the
    contrast of colours (the only thing the colour scheme changes: the stylesheet's dark block
    sets colours alone), which costs a fraction of a whole run."""
    found = []
    # resultTypes: axe works out the details of violations only, not of every check passed (axe's
    # own advice for speed; the violations are the same).
    for scheme, options in (
        ("light", "{resultTypes: ['violations']}"),
        ("dark", "{runOnly: ['color-contrast'], resultTypes: ['violations']}"),
    ):
        page.emulate_media(color_scheme=scheme)
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.evaluate(axe_source)
        result = page.evaluate(
            f"axe.run(document, {options}).then(r => r.violations.map(v => v.id + ' (' + v.impact + '): '"
            " + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', ')))"
        )
        found += [f"{scheme}: {v}" for v in result]
    page.emulate_media(color_scheme="light")
    return found


def states_worth_checking(file: MatchFile, seen: set[tuple] | None = None) -> list[int]:
    """Prefixes of a match, one for each distinct kind of screen the scorekeeper passes through
    (and not in ``seen``, the kinds another match showed already, which it then holds too)."""
    seen = set() if seen is None else seen
    found = []
    for n in range(len(file.events) + 1):
        try:
            state = replay(file.players, file.rules, file.events[:n])
        except RuleBroken:  # a file that breaks a rule: its screens up to there
            break
        kind = (
            state.stage.value,
            state.phase,
            state.chicago is not None,
            bool(state.tricks),
            state.tiebreak,
            state.unsupported is not None,
        )
        if kind not in seen:
            seen.add(kind)
            found.append(n)
    return found


def test_every_page_passes_axe_in_light_and_dark_mode(page, server, axe_source, tmp_path, screens):
    from scorekeeper.web import create_app

    app = create_app(
        {
            "DATABASE": str(tmp_path / "routes.sqlite"),
            "SECRET_KEY": "accessibility-secret-key-0123456789",
            "TESTING": True,
        }
    )
    pages = {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in (rule.methods or ())}
    not_pages = {"static", "site.file", "site.manifest", "site.service_worker", "history.export"}
    not_pages |= {
        "history.export_csv",
        "sharing.watch_board",
        "sharing.watch_stream",
        "sharing.claim",
        "room.board",
    }  # files, fragments, a stream, a redirect

    file = loads((MATCHES / "four-players-in-progress.json").read_text())
    table = open_imported(page, server, dumps(file))
    match_id = table.rsplit("/", 1)[1]
    share = page.goto(f"{server}/m/{match_id}/handover").text()
    watch = re.search(r"/watch\?t=[\w-]+", share).group(0)
    for name in ("Anna B", "Anna C"):  # the people log: a change undone, the undo, one still undoable
        page.goto(server + "/players/1")
        page.locator("details.correct summary").click()
        page.fill("details.correct input[name=name]", name)
        page.get_by_role("button", name="Rename", exact=True).click()
        page.wait_for_url(server + "/players/1")
    page.goto(server + "/players")
    page.get_by_role("button", name="Undo", exact=True).click()
    page.wait_for_url(server + "/players")
    assert page.locator("#people-log li").count() == 3
    visits = {
        "matches.index": "/",
        "matches.new": "/new",
        "matches.show": f"/m/{match_id}",
        "sharing.handover": f"/m/{match_id}/handover",
        "sharing.watch": watch,
        "history.match_page": f"/m/{match_id}/history",
        "history.at": f"/m/{match_id}/at/3",
        "history.import_file": "/import",
        "players.players": "/players",
        "players.player": "/players/1",
        "guide.hands": "/hands?hand0=As+Ks+Qs+Js+10s&hand1=Ah+Kh+Qh+Jh+10h&hand2=2c+2d+5h+7s+9c",
        "site.offline": "/offline",
        "guide.rules": f"/rules?m={match_id}",
        "standings.page": "/standings?period=all",
        "room.page": "/room",
    }
    assert pages - not_pages == set(visits), "a new page: add it here so that axe checks it"
    problems = {}
    for endpoint, path in visits.items():
        page.goto(server + path)
        problems[endpoint] = violations(page, axe_source)
    page.goto(server + f"/m/{match_id}")  # a refusal shown in place: a correction of 0 points
    page.locator("details.correct summary").click()
    form = page.locator("details.correct form").first
    form.locator("input[name=points]").fill("0")
    tap(page, form.get_by_role("button"))
    assert page.locator(".refusal").count() == 1
    problems["refusal"] = violations(page, axe_source)
    page.goto(server + "/no-such-page")
    problems["404"] = violations(page, axe_source)
    page.goto(server + "/new")
    page.locator("details.house-rules summary").click()  # the house rules, open
    problems["new, house rules open"] = violations(page, axe_source)
    assert {k: v for k, v in problems.items() if v} == {}


def test_every_kind_of_scoring_screen_passes_axe(page, server, axe_source):
    """Each kind of screen once, from whichever of these matches shows it first."""
    seen: set[tuple] = set()
    problems = {}
    for name in [
        "four-players-in-progress",
        "tie-break-to-ten",
        "two-players-to-royal-flush",
        "chicago-below-15",
    ]:
        file = loads((MATCHES / f"{name}.json").read_text())
        for n in states_worth_checking(file, seen):
            open_imported(page, server, dumps(MatchFile(file.players, file.rules, file.events[:n])))
            problems[f"{name}[:{n}]"] = violations(page, axe_source)
    assert len(seen) >= 20  # the kinds of screen checked (stage, phase, Chicago, tricks, tie-break)
    assert {k: v for k, v in problems.items() if v} == {}


def focused(page) -> str:
    return page.evaluate(
        "(() => { const e = document.activeElement;"
        " return e.tagName + ' ' + (e.getAttribute('name') || '') + ' ' + (e.value || '') + ' '"
        " + e.textContent.trim().slice(0, 60); })()"
    )


def tab_to(page, pattern: str, limit: int = 120) -> None:
    """Press Tab until the focused element's description matches ``pattern``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if re.search(pattern, focused(page)):
            return
    raise AssertionError(f"Tab never reached {pattern!r}")


def press(page, key: str = "Enter") -> None:
    """Activate the focused button by keyboard and wait for the answer and the swap."""
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.keyboard.press(key)
    wait_until(page, SETTLED)


def test_a_round_is_scored_with_the_keyboard_alone(page, server, screens):
    start_match(page, server, "Anna", "Bo")
    page.locator("select[name='draw.Anna']").focus()  # the ranks: typed into each list, Tab goes on
    page.keyboard.type("5")
    page.keyboard.press("Tab")
    page.keyboard.type("K")
    tab_to(page, "Record the draw")
    press(page)
    # After each tap the keyboard lands on the next action's heading, not at the top of the page.
    assert focused(page).startswith("H2")
    assert "Round 1 · phase 1 · Anna deals" in page.locator(".where").inner_text()

    # The one-tap grid is the default; this is the other flow.
    tab_to(page, "Or enter the declarations one by one")
    press(page)
    tab_to(page, r"^BUTTON hand pair")  # Bo speaks first: declares a pair
    press(page, " ")
    assert focused(page).startswith("H2") and "Anna: declare or pass" in focused(page)
    tab_to(page, "Anna passes")
    press(page)
    for player in ("Bo", "Anna"):  # phase 2: both pass
        tab_to(page, f"{player} passes")
        press(page)
    tab_to(page, r"^BUTTON winner Bo Bo$")  # phase 3: who took the last trick (asked first)
    press(page)
    for player in ("Bo", "Anna"):
        tab_to(page, f"{player} passes")
        press(page)
    seats = page.locator("#scoreboard .seat")
    totals = {
        seats.nth(i).locator(".name").inner_text(): seats.nth(i).locator(".score").inner_text()
        for i in range(2)
    }
    assert totals == {"Anna": "0", "Bo": "6"}  # a pair (1) and the last trick (5)
    assert "Round 2" in page.locator(".where").inner_text()
    # The change was said aloud, through the live region that outlives the swaps.
    wait_until(page, "document.getElementById('announce').textContent.length > 0")
    screens(page, "after-a-keyboard-round")


def test_reduced_motion_turns_transitions_off(page, server):
    page.emulate_media(reduced_motion="reduce")
    start_match(page, server, "Anna", "Bo")
    draw_for_deal(page, Anna="5h", Bo="Ks")
    durations = page.evaluate(
        "[...document.querySelectorAll('*')].flatMap(e => [getComputedStyle(e).transitionDuration,"
        " getComputedStyle(e, '::after').transitionDuration, getComputedStyle(e).animationDuration])"
    )
    assert {d for d in durations if d not in ("0s", "")} == set()
