"""``scorekeeper check FILE [--json]`` over the recorded matches in tests/matches (MATCH_FORMAT.md)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorekeeper.cli import main

RECORDED = Path(__file__).parents[1] / "matches"
# One match per variant of RULES.md ("Variants other scorekeepers and tables play") lives in
# matches/variants: the tests that score every top-level file by taps on the web pages and say its
# sentences in every language wait for the pages and translations of those variants (issue 28).
MATCHES = sorted(RECORDED.glob("*.json")) + sorted((RECORDED / "variants").glob("*.json"))


def expected_of(path: Path) -> dict:
    text = path.read_text()
    if path.name == "truncated.json":  # not JSON at all, so its expectation is here
        return {"exit": 2, "event": None, "error": "not valid JSON"}
    return json.loads(text)["expected"]


def test_every_variant_has_a_recorded_match():
    variants = {p.stem for p in (RECORDED / "variants").glob("*.json")}
    assert variants == {
        "chicago-to-win",
        "four-of-a-kind-resets",
        "instant-win",
        "blanco-chicago",
        "chicago-break-bonus",
        "over-target-resets",
        "two-phases",
        "six-players",
    }


@pytest.mark.parametrize("path", MATCHES, ids=[p.stem for p in MATCHES])
def test_recorded_match_replays_to_its_stated_result_in_json(path, capsys):
    expected = expected_of(path)
    code = main(["check", str(path), "--json"])
    out = capsys.readouterr().out
    assert code == expected["exit"]
    assert out.count("\n") == 1, "exactly one JSON object"
    result = json.loads(out)
    assert result["ok"] is (code == 0)
    if code == 0:
        assert list(result) == ["ok", "scores", "winner", "round", "status"]
        for key in ("scores", "winner", "round", "status"):
            assert result[key] == expected[key]
    elif code == 1:
        assert list(result) == ["ok", "event", "error", "scores"]
        assert (result["event"], result["error"], result["scores"]) == (
            expected["event"],
            expected["error"],
            expected["scores"],
        )
    else:
        assert result["event"] == expected["event"]
        assert result["error"].startswith(expected["error"])


@pytest.mark.parametrize("path", MATCHES, ids=[p.stem for p in MATCHES])
def test_recorded_match_in_text_prints_totals_and_where_it_stands(path, capsys):
    expected = expected_of(path)
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    assert code == expected["exit"]
    if code == 0:
        for name, score in expected["scores"].items():
            assert any(line.split() == [name, str(score)] for line in out.splitlines())
        if expected["winner"]:
            assert f"{expected['winner']} won in round {expected['round']}." in out
        else:
            assert f"Round {expected['round']}, phase" in out
        assert err == ""
    elif code == 1:
        assert err.strip() == f"event {expected['event']}: {expected['error']}"
    else:
        assert err.startswith("not a chicago-match/1 document: ")


def test_a_missing_file_is_exit_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.json"), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["ok"] is False


def test_the_console_script_runs_as_installed():
    path = next(p for p in MATCHES if p.stem == "chicago-below-15")
    result = subprocess.run(
        [sys.executable, "-m", "scorekeeper.cli", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == "event 7: Cia has 9 points; Chicago needs 15"


@pytest.mark.parametrize(
    ("change", "event", "error"),
    [
        ({"rules": {"target": 10**30}}, None, "“target” must be a whole number from 1 to 1000"),
        (
            {"rules": {"points": {"pair": 10**20}}},
            None,
            "“points.pair” must be a whole number from 0 to 1000",
        ),
        (
            {"events": [{"type": "adjust", "player": "Bo", "points": 2**63, "reason": ""}]},
            1,
            "“points” must be a whole number from −1000 to 1000",
        ),
        (
            {"events": [{"type": "exchange", "player": "Bo", "count": -1}]},
            1,
            "“count” must be a whole number from 0 to 5",
        ),
    ],
    ids=["target", "points.pair", "adjust", "count"],
)
def test_a_number_out_of_its_range_is_exit_2_naming_the_field(tmp_path, capsys, change, event, error):
    """TRUST.md I6: not a chicago-match/1 document, said without a traceback."""
    document = {"format": "chicago-match/1", "players": ["Anna", "Bo"], "events": []}
    document.update(change)
    document["events"] = [{"type": "dealer", "player": "Anna"}, *document["events"]]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(document))
    assert main(["check", str(path), "--json"]) == 2
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is False and result["event"] == event and result["error"].startswith(error)
