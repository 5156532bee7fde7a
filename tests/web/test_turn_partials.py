"""The turn shows what the core decided: one partial per stage, and no rule worked out in a template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from webtools import soup

from scorekeeper.state import Stage

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
MATCHES = TEMPLATES / "matches"

# Each pattern is a rule decided again in a template; the message says which answer to ask for.
FORBIDDEN = {
    r"\bstage\b": "a branch on the stage: turn.turn_partials picks the partials by the Stage enum",
    r"(?<![\w.%-])15(?![\w.])": "Chicago's minimum: it lives in Rules.chicago_min",
    r"can_call_chicago": "state.chicago_refusal: the option shows why not",
    r"no_exchange_at": "state.exchange_max: how many cards at most",
    r"chicago_min\s*(==|!=|<|>)|(==|!=|<|>)=?\s*state\.rules\.chicago_min": "state.chicago_refusal",
    r"phase\s*(==|!=|<|>|\bin\b)": "the state's answers (open_stages, last_showdown, show_due)",
    r"(not|length)\s*(state\.)?tricks\b|tricks\|length": "state.chicago_open, state.last_trick_alone",
    r"players\|length": "state.drawing_again",
}


def partials() -> list[Path]:
    """The table's partials (the pages, such as the new-match form, name house rules as fields)."""
    return sorted([*MATCHES.glob("_*.html"), *MATCHES.glob("turn/_*.html")])


@pytest.mark.parametrize("path", partials(), ids=lambda p: str(p.relative_to(MATCHES)))
def test_no_partial_of_the_table_decides_a_rule(path):
    text = re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)
    found = [why for pattern, why in FORBIDDEN.items() if re.search(pattern, text)]
    assert found == []


def test_the_lint_would_catch_the_rules_the_turn_used_to_decide():
    """The patterns match the lines the old _turn.html had (issue 10)."""
    old = [
        "{% if state.stage.value == 'first_dealer' %}",
        "{% if n and state.rules.no_exchange_at is not none and state.totals[exchanger] >= state.rules.no_exchange_at %}",
        "{% if state.phase == 3 and state.stage.value in ('exchange', 'tricks') %}",
        "{% if not state.tricks and state.chicago is none %}",
        "{% if action.players|length < state.players|length %}",
        "{{ state.can_call_chicago(seat) }}",
        "it needs 15 points",
    ]
    for line in old:
        assert any(re.search(pattern, line) for pattern in FORBIDDEN), line


def test_every_stage_has_its_partial():
    for stage in Stage:
        assert (MATCHES / "turn" / f"_{stage.value}.html").is_file(), stage


def test_the_turn_only_includes_the_partials_it_is_given():
    text = (MATCHES / "_turn.html").read_text()
    assert "{% if" not in text and "{% for partial in turn_partials %}{% include partial %}" in text


@pytest.mark.parametrize(
    ("script", "partials"),
    [
        ([], ["first_dealer"]),
        ([{"type": "dealer", "player": "Anna"}], ["round", "exchange", "showdown"]),
        ([{"type": "dealer", "player": "Anna"}, {"type": "pass", "player": "Bo"}], ["round", "showdown"]),
    ],
    ids=["first dealer", "exchange then showdown", "showdown"],
)
def test_the_turn_shows_one_partial_per_open_stage(keeper, app, script, partials):
    from scorekeeper.web.present.turn import turn_partials
    from scorekeeper.web.store import eventlog

    keeper.new("Anna", "Bo", dealer=None)
    for fields in script:
        keeper.post(**fields)
    with app.app_context():
        state = eventlog.state_of(keeper.match)
    assert turn_partials(state) == [f"matches/turn/_{name}.html" for name in partials]
    assert soup(keeper.client.get(f"/m/{keeper.match_id}")).select_one("#turn") is not None
