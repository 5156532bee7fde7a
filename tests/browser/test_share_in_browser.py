"""Issue 11, item 4: the share page at 360 × 640: QR codes big enough to scan, copy and share buttons."""

from __future__ import annotations

import re
import struct
import zlib

import pytest
import segno
from browsertools import start_match, wait_until

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 640}
FAKE_SHARE = """Object.defineProperty(Navigator.prototype, 'share', {configurable: true,
  value: function (data) { window.shared = data; return Promise.resolve(); }});"""
NO_SHARE = "delete Navigator.prototype.share;"
NO_CLIPBOARD = "delete Navigator.prototype.clipboard;"
NO_COPY_AT_ALL = NO_CLIPBOARD + " Document.prototype.queryCommandSupported = function () { return false; };"


def phone(browser, *init_scripts: str, **options):
    context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True, **options)
    for script in init_scripts:
        context.add_init_script(script)
    return context


def open_share_page(page, server: str) -> str:
    """Start a match and follow the table's link to its share page; the live-view link."""
    start_match(page, server, "Anna", "Bo")
    page.locator("footer.links a[href$='/handover']").click()
    page.wait_for_url(re.compile(r"/handover$"))
    return page.locator("a#watch-link").get_attribute("href")


def qr_box(page, nth: int) -> dict:
    code = page.locator("svg.qr").nth(nth)
    assert code.is_visible()
    return code.bounding_box()


def png_rows(png: bytes) -> list[bytes]:
    """The pixel rows of an 8-bit RGB or RGBA PNG, as Chromium's screenshots are."""
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    assert depth == 8 and colour in (2, 6)
    step = 3 if colour == 2 else 4
    chunks, at = b"", 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        if png[at + 4 : at + 8] == b"IDAT":
            chunks += png[at + 8 : at + 8 + length]
        at += 12 + length
    raw, stride, rows, previous = zlib.decompress(chunks), width * step, [], bytes(width * step)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - step] if x >= step else 0
            b, c = previous[x], previous[x - step] if x >= step else 0
            p = a + b - c
            paeth = a if abs(p - a) <= min(abs(p - b), abs(p - c)) else b if abs(p - b) <= abs(p - c) else c
            line[x] = (line[x] + (0, a, b, (a + b) // 2, paeth)[kind]) & 0xFF
        rows.append(bytes(line))
        previous = line
    return [bytes(row[i] for i in range(0, stride, step)) for row in rows]  # the red channel: enough here


def seen_modules(page, nth: int) -> set[tuple[int, int]]:
    """The dark modules of a QR code as the screen shows it: the pixel at each module's centre."""
    red = png_rows(page.locator("svg.qr").nth(nth).screenshot())
    size = int(page.locator("svg.qr").nth(nth).get_attribute("viewBox").split()[2])
    at = [int((n + 0.5) * len(red) / size) for n in range(size)]
    return {(r, c) for r in range(size) for c in range(size) if red[at[r]][at[c]] < 128}


def modules_of(link: str) -> set[tuple[int, int]]:
    matrix = segno.make(link, micro=False).matrix_iter(border=4)
    return {(r, c) for r, row in enumerate(matrix) for c, bit in enumerate(row) if bit}


def test_the_codes_are_square_and_big_enough_to_scan_in_light_and_dark(browser, server, screens):
    context = phone(browser)
    page = context.new_page()
    watch = open_share_page(page, server)
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        box = qr_box(page, 0)
        assert box["width"] == box["height"] >= 200, box
        assert seen_modules(page, 0) == modules_of(watch)  # on screen: the link's code, dark on light
        screens(page, f"share-{scheme}")
    page.get_by_text("Show the scorekeeping link").click()
    box = qr_box(page, 1)
    assert box["width"] == box["height"] >= 200, box
    assert seen_modules(page, 1) == modules_of(page.locator("a#claim-link").get_attribute("href"))
    page.locator("svg.qr").nth(1).scroll_into_view_if_needed()
    screens(page, "share-dark-hand-over")
    page.emulate_media(color_scheme="light")
    screens(page, "share-light-hand-over")
    context.close()


def test_the_copy_button_copies_the_link(browser, server, screens):
    context = phone(browser, NO_SHARE, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = open_share_page(page, server)
    copy = page.locator("[data-copy=watch-link]")
    assert copy.is_visible() and page.locator("[data-share=watch-link]").is_hidden()  # no Web Share here
    assert page.locator("[data-copied=watch-link]").is_hidden()
    copy.click()
    wait_until(page, "!document.querySelector('[data-copied=watch-link]').hidden")
    assert page.evaluate("navigator.clipboard.readText()") == watch
    assert page.locator("#announce").inner_text() == "Copied"
    screens(page, "copied")
    context.close()


def test_without_the_clipboard_api_the_link_is_copied_as_selected_text(browser, server):
    """Plain HTTP on a table's network has no Clipboard API: the button copies all the same."""
    context = phone(browser, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.add_init_script(NO_CLIPBOARD)
    watch = open_share_page(page, server)
    page.locator("[data-copy=watch-link]").click()
    wait_until(page, "!document.querySelector('[data-copied=watch-link]').hidden")
    reader = context.new_page()  # the same phone's clipboard, read where the API is
    reader.goto(server + "/")
    assert reader.evaluate("navigator.clipboard.readText()") == watch
    context.close()


def test_the_share_button_hands_the_link_to_the_share_sheet(browser, server):
    context = phone(browser, FAKE_SHARE)
    page = context.new_page()
    open_share_page(page, server)
    page.get_by_text("Show the scorekeeping link").click()
    claim = page.locator("a#claim-link").get_attribute("href")
    page.locator("[data-share=claim-link]").click()
    wait_until(page, "window.shared !== undefined")
    assert page.evaluate("window.shared") == {"url": claim}
    context.close()


def test_buttons_the_browser_cannot_serve_stay_hidden_and_the_page_works_without_script(browser, server):
    context = phone(browser, NO_SHARE, NO_COPY_AT_ALL)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_share_page(page, server)
    assert page.locator(".share button:visible").count() == 0
    assert errors == []
    context.close()
    context = phone(browser, java_script_enabled=False)
    page = context.new_page()
    start_match(page, server, "Anna", "Bo")
    page.goto(page.url + "/handover")
    assert page.locator(".share button:visible").count() == 0
    assert qr_box(page, 0)["width"] >= 200
    assert page.locator("a#watch-link").inner_text().startswith(server + "/watch?t=")  # selectable text
    context.close()
