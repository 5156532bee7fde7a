"""Issue 11, item 5: a refused form says what to do on the screen, in the reader's language.

The forms post the match file's field names, and the file's reader words its errors for the
file's readers ("an event of type “show” needs “cards”"). None of that may reach the table.
"""

from __future__ import annotations

import re

import pytest
from webtools import HX, soup

FIELDS = ("type", "player", "hand", "winner", "card", "cards", "count", "points", "reason", "draw", "tap")
# Every form the table shows, filled in as a tap sends it; each test leaves fields out.
FORMS = {
    "draw": {"type": "draw", "draw.Anna": "7h", "draw.Bo": "2c", "draw.Cia": "Ks"},
    "dealer": {"type": "dealer", "player": "Bo"},
    "exchange": {"type": "exchange", "player": "Bo", "count": "2"},
    "show": {"type": "show", "player": "Bo", "cards": "Qs Qh 9c 9d 2s"},
    "declare": {"type": "declare", "player": "Bo", "hand": "pair", "cards": "Qs Qh 9c 5d 2s"},
    "pass": {"type": "pass", "player": "Bo"},
    "tie-cards": {"type": "tie", "player": "Bo", "cards": "Qs Qh 9c 5d 2s"},
    "tie-verdict": {"type": "tie", "winner": "Bo"},
    "chicago": {"type": "chicago", "player": "Bo"},
    "trick": {"type": "trick", "winner": "Bo", "card": "Ah"},
    "last_trick": {"type": "last_trick", "winner": "Bo", "card": "2c"},
    "adjust": {"type": "adjust", "player": "Bo", "points": "-2", "reason": "oops"},
}


def without_each_field(form: dict[str, str]):
    """The form with each of its fields left out in turn, and with each one left empty."""
    for key in form:
        yield {k: v for k, v in form.items() if k != key}
        yield {**form, key: ""}


POSTS = [
    pytest.param("record", fields, id=f"{name}-{i}")
    for name, form in FORMS.items()
    for i, fields in enumerate(without_each_field(form))
]
POSTS += [
    pytest.param("showdown", {"player": "Bo"}, id="showdown-no-hand"),
    pytest.param("showdown", {"hand": "pair"}, id="showdown-no-player"),
    pytest.param("showdown", {"tap": "pair:"}, id="showdown-tap-no-player"),
    pytest.param("showdown", {"tap": ":Bo"}, id="showdown-tap-no-hand"),
    pytest.param("showdown", {"tap": "high_card:Bo"}, id="showdown-no-such-hand"),
    pytest.param("record", {"type": "declare", "player": "Bo", "hand": "high_card"}, id="no-such-hand"),
    pytest.param("record", {"type": "pass", "player": "Bo", "hand": "pair"}, id="a-field-too-many"),
    pytest.param("record", {"type": "undo"}, id="undo-as-a-record"),
]


def refusal(response) -> str:
    found = soup(response).select_one("p.refusal")
    return "" if found is None else found.get_text(" ", strip=True)


@pytest.mark.parametrize(("path", "fields"), POSTS)
def test_every_refused_form_speaks_of_the_screen_in_the_readers_language(keeper, client, path, fields):
    """Each form with a field left out or empty: taken (it was optional), or refused in words for people."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    said = {}
    for lang in ("sv", "en"):  # a refused post stores nothing, so both languages meet the same table
        data = {"version": str(keeper.version), **fields}
        headers = {**HX, "Accept-Language": lang}
        response = client.post(f"/m/{keeper.match_id}/{path}", data=data, headers=headers)
        if response.status_code == 200:
            return  # the field was optional: the engine took the action
        assert response.status_code == 422
        said[lang] = refusal(response)
        assert said[lang], "a refusal says why"
        assert "event" not in said[lang].lower(), said[lang]
        assert not any(f"'{name}'" in said[lang] or f"“{name}”" in said[lang] for name in FIELDS), said[lang]
        assert not re.search(r"['“][\w.]+['”] must be", said[lang]), said[
            lang
        ]  # the file's "“player” must be …"
    assert said["sv"] != said["en"], f"not translated: {said['en']}"


def test_checking_the_cards_with_the_entry_closed_says_what_to_do(keeper, client):
    """Phase 2, "Check Bo's cards" with the card entry still closed posts no cards."""
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    keeper.post("showdown", tap="pair:Bo")
    page = keeper.page()
    form = page.select_one("#turn .show form")
    assert form is not None, "the phase-2 show form"
    fields = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")}
    fields.pop("key")
    rows = keeper.rows()
    english = keeper.post(**fields)
    assert english.status_code == 422
    assert refusal(english) == "Enter the five cards Bo shows, or go on without checking them"
    swedish = client.post(
        f"/m/{keeper.match_id}/record", data=fields, headers={**HX, "Accept-Language": "sv"}
    )
    assert refusal(swedish) == "Skriv in de fem kort Bo visar, eller gå vidare utan att kontrollera dem"
    assert keeper.rows() == rows


def test_a_correction_without_its_points_asks_how_many_to_add_or_take_away(keeper):
    keeper.new("Anna", "Bo", "Cia", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="adjust", player="Bo", sign="take", reason="oops")
    assert response.status_code == 422
    assert refusal(response) == "Enter how many points to add or take away"
    assert keeper.rows() == rows


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_refused_first_dealer_draw_keeps_every_rank_tapped(keeper, htmx):
    keeper.new("Anna", "Bo", "Cia")
    drawn = {"draw.Anna": "7", "draw.Cia": "K"}  # Bo's rank not tapped
    response = keeper.post(type="draw", drawing=["Anna", "Bo", "Cia"], htmx=htmx, **drawn)
    assert response.status_code == 422
    assert "Tap the rank each player drew" in soup(response).select_one(".refusal").get_text()
    chosen = {
        s["name"]: s.select_one("option[selected]").get_text()
        for s in soup(response).select("form.draw select")
    }
    assert chosen == {"draw.Anna": "7", "draw.Bo": "–", "draw.Cia": "K"}


def test_a_refused_declaration_keeps_its_cards_typed_and_picked_in_an_open_picker(keeper):
    keeper.detailed().new("Anna", "Bo", "Cia", dealer="Anna")
    response = keeper.post(type="declare", player="Bo", hand="flush", cards="Qs Qh 9c", pick=["5d", "2s"])
    assert response.status_code == 422  # those cards make a pair, not a flush
    picker = soup(response).select_one("form.hands details.picker")
    assert picker.has_attr("open")
    assert picker.select_one("input[name=cards]")["value"] == "Qs Qh 9c 5d 2s"


def test_a_refused_trick_keeps_its_winning_card(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    keeper.post("showdown", tap="")
    keeper.post("showdown", tap="")
    keeper.post("showdown", tap="")
    response = keeper.post(type="trick", winner="Bo", card="Zz")
    assert response.status_code == 422
    cards = [i.get("value") for i in soup(response).select(".tricks form:not(.last-trick) input[name=card]")]
    assert cards == ["Zz"]
