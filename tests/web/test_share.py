"""Issue 11, item 4: the share page shows each link as a QR code drawn on the server, and leaks no secret."""

from __future__ import annotations

import re

import pytest
import segno
from webtools import soup

from scorekeeper.web import roles

QUIET_ZONE = 4


@pytest.fixture
def share(keeper):
    """The scorekeeper's share page, its two links (checked to work) and the secrets in them."""
    keeper.new("Anna", "Bo", dealer="Anna")
    response = keeper.client.get(f"/m/{keeper.match_id}/handover")
    assert response.status_code == 200
    page = soup(response)
    links = {link_id: page.select_one(f"a#{link_id}")["href"] for link_id in ("watch-link", "claim-link")}
    with keeper.app.test_request_context():
        watch = roles.watch_token(keeper.match_id)
    base = "https://localhost" if keeper.app.config["PROFILE"] == "tls" else "http://localhost"
    assert links["watch-link"] == f"{base}/watch?t={watch}"
    claim = links["claim-link"].removeprefix(f"{base}/claim?t=")
    other_phone = keeper.app.test_client()
    assert other_phone.get(links["watch-link"]).status_code == 200
    taken = other_phone.get(links["claim-link"])
    assert taken.status_code == 303 and taken.headers["Location"] == f"/m/{keeper.match_id}"
    return response, links, (watch, claim)


def drawn_modules(svg) -> tuple[int, set[tuple[int, int]]]:
    """The size of an SVG QR code in modules and its dark modules (row, column), read from its path."""
    size = int(svg["viewbox"].split()[2])
    x = y = 0.0
    dark = set()
    for command, numbers in re.findall(r"([Mmh])([-\d. ]+)", svg.find("path", stroke="#000")["d"]):
        values = [float(n) for n in numbers.split()]
        if command == "M":
            x, y = values
        elif command == "m":
            x, y = x + values[0], y + values[1]
        else:
            dark |= {(int(y), int(x) + i) for i in range(int(values[0]))}
            x += values[0]
    return size, dark


def segno_modules(link: str) -> set[tuple[int, int]]:
    matrix = segno.make(link, micro=False).matrix_iter(border=QUIET_ZONE)
    return {(r, c) for r, row in enumerate(matrix) for c, bit in enumerate(row) if bit}


@pytest.mark.both_profiles
def test_the_share_page_draws_each_link_as_a_qr_code_of_exactly_that_link(share):
    response, links, _ = share
    page = soup(response)
    for link_id, link in links.items():
        anchor = page.select_one(f"a#{link_id}")
        assert anchor["href"] == anchor.text == link
        svg = anchor.find_parent(class_="share").select_one("svg.qr")
        size, dark = drawn_modules(svg)
        assert dark == segno_modules(link)  # the very modules segno gives this link, nothing else
        assert size == segno.make(link, micro=False).symbol_size(border=QUIET_ZONE)[0]
        assert all(
            QUIET_ZONE <= r < size - QUIET_ZONE and QUIET_ZONE <= c < size - QUIET_ZONE for r, c in dark
        )
        # dark on its own white square, quiet zone included, whatever the page's colours
        assert svg.find("path", fill="#fff")["d"] == f"M0 0h{size}v{size}h-{size}z"
        assert svg["role"] == "img" and svg.title.text.startswith("QR code of the")
    assert page.select("details svg.qr") == [page.select("svg.qr")[1]]  # the hand-over code behind a click


def test_the_share_page_has_no_inline_style_and_no_fixed_size_for_the_codes(share):
    page = soup(share[0])
    assert page.select("[style]") == [] and page.find_all("style") == []
    for svg in page.select("svg"):
        assert "width" not in svg.attrs and "height" not in svg.attrs  # app.css sizes them


@pytest.mark.both_profiles
def test_the_secrets_appear_only_in_their_own_link(share):
    response, links, secrets = share
    page = soup(response)
    for secret, link_id in zip(secrets, links, strict=True):
        attributes = [
            (element.name, name)
            for element in page.find_all(True)
            for name, value in element.attrs.items()
            if secret in (value if isinstance(value, str) else " ".join(value))
        ]
        assert attributes == [("a", "href")]
        assert page.select_one(f"a#{link_id}")["href"].endswith(secret)
        texts = [text.parent.name for text in page.find_all(string=re.compile(re.escape(secret)))]
        assert texts == ["a"]
        assert not any(secret in value for value in response.headers.values())


@pytest.mark.both_profiles
def test_copy_and_share_buttons_start_hidden_and_point_at_their_link(share):
    """app.js shows them where the browser can copy or share; without script the link text is there."""
    page = soup(share[0])
    for link_id in ("watch-link", "claim-link"):
        buttons = page.select(f"button[data-copy={link_id}], button[data-share={link_id}]")
        assert [b.text for b in buttons] == ["Copy the link", "Share the link"]
        assert all(b.has_attr("hidden") and b["type"] == "button" for b in buttons)
        assert page.select_one(f"[data-copied={link_id}]").has_attr("hidden")
