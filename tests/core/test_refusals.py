"""Every refusal has a stable code with an English message, ready for translation (issue 2, item 5)."""

import ast
from pathlib import Path

import pytest

import scorekeeper
from scorekeeper.refusals import Refusal, RuleBroken, Section

CORE = Path(scorekeeper.__file__).parent


def raised_refusals() -> set[Refusal]:
    raised = set()
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RuleBroken":
                first = node.args[0]
                named = isinstance(first, ast.Attribute) and getattr(first.value, "id", None) == "Refusal"
                assert named, f"{path.name}: RuleBroken needs a Refusal member by name"
                raised.add(Refusal[first.attr])
    return raised


def test_every_refusal_is_raised_somewhere():
    assert raised_refusals() == set(Refusal)


def test_every_refusal_has_a_message_and_a_section_of_the_rules():
    for refusal in Refusal:
        assert refusal.message and isinstance(refusal.section, Section), refusal


def test_a_refusal_keeps_its_code_and_parameters_beside_the_text():
    error = RuleBroken(Refusal.CHICAGO_MIN, player="Cia", score=9, min=15)
    assert (error.code, error.params) == ("chicago_min", {"player": "Cia", "score": 9, "min": 15})
    assert type(error.code) is str and error.refusal is Refusal("chicago_min")
    assert error.section == "chicago"
    assert error.message == str(error) == "Cia has 9 points; Chicago needs 15"
    error.index = 17
    assert str(error) == "event 17: Cia has 9 points; Chicago needs 15"


def test_a_message_with_a_missing_parameter_fails_loudly():
    with pytest.raises(KeyError):
        RuleBroken(Refusal.CHICAGO_MIN, player="Cia")
