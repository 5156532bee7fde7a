"""The room board (issue 28): three tables under way on one screen, each tap there within a second."""

import time

import pytest
from browsertools import another_match, draw_for_deal, quick, start_match, wait_until
from webtools import MATCHES

pytestmark = pytest.mark.browser

TABLES = (("Ada", "Ben"), ("Cy", "Di"), ("Ed", "Flo"))
SMALL = {"width": 360, "height": 640}


def room_text(room) -> str:
    return room.locator("#room").inner_text()


def test_the_room_board_follows_three_tables_within_a_second_of_a_tap(browser, context, server, screens):
    tables = []
    for names in TABLES:
        table = context.new_page()
        start_match(table, server, *names)
        draw_for_deal(table, **{names[0]: "Ah", names[1]: "2c"})  # the second deals (the lower card)
        tables.append(table)
    tv = browser.new_context(viewport={"width": 1280, "height": 720})
    room = tv.new_page()
    room.goto(server + "/room")
    for names in TABLES:
        assert f"{names[1]} deals" in room_text(room)
    screens(room, "room-tv")
    for table, (other, _dealer) in zip(tables, TABLES, strict=True):
        before = room.evaluate("document.getElementById('room').dataset.version")
        quick(table, other, "pair")  # the tap is answered: from here, the room has a second
        tapped = time.monotonic()
        wait_until(room, f"() => document.getElementById('room').dataset.version !== '{before}'", timeout=1.0)
        assert time.monotonic() - tapped < 1.0
        seat = room.locator(".room-table .seats li", has_text=other)
        assert seat.locator(".score").inner_text() == "1" and seat.locator(".delta").inner_text() == "+1"
    html = room.content()
    assert "/watch" not in html and "/claim" not in html and "/handover" not in html  # no secret
    tv.close()


def test_the_room_board_and_the_standings_fit_a_small_phone(browser, server, screens):
    phone = browser.new_context(viewport=SMALL, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = phone.new_page()
    page.goto(server + "/import")
    page.locator("textarea[name=text]").fill(
        another_match((MATCHES / "four-players-tie-break-and-correction.json").read_text())
    )
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_url("**/history")
    for path, what in (("/room", "room"), ("/standings?period=all", "standings")):
        page.goto(server + path)
        wide = page.evaluate("document.documentElement.scrollWidth")
        screens(page, f"{what}-360", full_page=True)
        assert wide <= SMALL["width"], f"{path} is {wide} px wide"
    phone.close()
