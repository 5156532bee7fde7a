"""A tap sent again after its answer was lost (issue 25, item 5; TRUST.md W2): the phone sends the same
form, key and version once the network is back, however the match has moved on since; the server
answers with what the first sending recorded, and records nothing more."""

from __future__ import annotations

import pytest
from webtools import soup

TAPS = {
    "a pass": ("record", {"type": "pass", "player": "Bo"}),
    "a quick showdown": ("showdown", {"tap": "flush:Cia"}),
    "an undo": ("undo", {}),
}


@pytest.mark.parametrize("path, fields", TAPS.values(), ids=TAPS.keys())
def test_a_tap_sent_again_after_the_match_moved_on_answers_with_what_it_recorded(keeper, path, fields):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="pair:Bo", key="before")  # something for the undo to take back
    version = keeper.version
    first = keeper.post(path, version=version, key="lost", **fields)
    assert first.status_code == 200
    keeper.post("undo", key="after")  # the match moves on before the tap is sent again
    rows = keeper.rows()
    again = keeper.post(path, version=version, key="lost", **fields)
    assert again.status_code == 200, soup(again).select_one(".refusal")
    assert again.headers["X-Event-Seq"] == first.headers["X-Event-Seq"]
    assert soup(again).select_one(".refusal") is None
    assert keeper.rows() == rows  # recorded once


def test_a_tap_on_a_stale_screen_is_still_refused_as_stale(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    version = keeper.version
    keeper.post("showdown", tap="pair:Bo", key="one")
    rows = keeper.rows()
    stale = keeper.post("undo", version=version, key="two")  # the screen before the showdown: no undo
    assert stale.status_code == 409
    assert "The score changed after this screen was loaded" in soup(stale).select_one(".refusal").text
    assert keeper.rows() == rows
