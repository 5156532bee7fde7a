"""Issue 11, item 5: what a new user hit at the table, each fixed with a test that failed before."""

from __future__ import annotations

from webtools import soup


def correction_form(page):
    return page.select_one("details.correct form")


def test_a_correction_takes_points_away_without_a_minus_key(keeper):
    """An iPhone's number pad has no minus: the sign is a choice of its own, and plain forms work."""
    keeper.new("Anna", "Bo", dealer="Anna")
    form = correction_form(keeper.page())
    signs = {i["value"]: i.has_attr("checked") for i in form.select("input[type=radio][name=sign]")}
    assert signs == {"add": True, "take": False}
    assert form.select_one("input[name=points]")["min"] == "0"
    assert keeper.post(type="adjust", player="Bo", sign="add", points="7", reason="start").status_code == 200
    assert keeper.post(type="adjust", player="Bo", sign="take", points="5", reason="typo").status_code == 200
    assert keeper.match.file.replay().totals["Bo"] == 2
    taken_back = keeper.post(type="adjust", player="Bo", points="-2", reason="x")  # signed: no choice posted
    assert taken_back.status_code == 200
    assert keeper.match.file.replay().totals["Bo"] == 0


def test_a_correction_with_a_sign_takes_a_size_and_a_refused_one_keeps_what_was_typed(keeper):
    keeper.new("Anna", "Bo", dealer="Anna")
    rows = keeper.rows()
    response = keeper.post(type="adjust", player="Bo", sign="take", points="-5", reason="typo")
    assert response.status_code == 422
    page = soup(response)
    assert "Points must be a whole number from 0 to 1000" in page.select_one("p.refusal").text
    assert keeper.rows() == rows
    assert page.select_one("details.correct").has_attr("open")
    form = correction_form(page)
    assert form.select_one("option[selected]").text == "Bo"
    assert form.select_one("input[name=sign][checked]")["value"] == "take"
    assert form.select_one("input[name=points]")["value"] == "-5"
    assert form.select_one("input[name=reason]")["value"] == "typo"
    assert keeper.post(type="adjust", player="Bo", sign="minus", points="5", reason="").status_code == 422
