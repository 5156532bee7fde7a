"""Every refusal has a stable code with an English message, ready for translation (issue 2, item 5)."""

import ast
from pathlib import Path

import pytest

import scorekeeper
from scorekeeper.refusals import MESSAGES, RuleBroken

CORE = Path(scorekeeper.__file__).parent


def raised_codes() -> set[str]:
    codes = set()
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RuleBroken":
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path.name}: RuleBroken needs a literal code"
                codes.add(first.value)
    return codes


def test_every_raised_code_has_a_message_and_every_message_is_used():
    assert raised_codes() == set(MESSAGES)


def test_a_refusal_keeps_its_code_and_parameters_beside_the_text():
    error = RuleBroken("chicago_min", player="Cia", score=9, min=15)
    assert (error.code, error.params) == ("chicago_min", {"player": "Cia", "score": 9, "min": 15})
    assert error.message == str(error) == "Cia has 9 points; Chicago needs 15"
    error.index = 17
    assert str(error) == "event 17: Cia has 9 points; Chicago needs 15"


def test_a_message_with_a_missing_parameter_fails_loudly():
    with pytest.raises(KeyError):
        RuleBroken("chicago_min", player="Cia")
