"""``scorekeeper check FILE [--json]``: replay a match file and say where it stands.

This is the core's part of the command line; the web shell's commands
(``serve``, ``export``, ``import``, ``backup``) are added to the same parser by
``scorekeeper.web.cli``, which is the installed ``scorekeeper`` command.

Exit codes (MATCH_FORMAT.md): 0 the file is valid, 1 an event breaks a
rule, 2 the file is not a ``chicago-match/1`` document.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from scorekeeper import __version__
from scorekeeper.matchfile import FORMAT, FormatError, MatchFile, loads
from scorekeeper.refusals import RuleBroken
from scorekeeper.state import MatchState

EXIT_OK, EXIT_RULE, EXIT_FORMAT = 0, 1, 2


def _where(state: MatchState) -> str:
    if state.winner_name is not None:
        return f"{state.winner_name} won in round {state.round}."
    action = state.next_action()
    if state.round == 0:
        return f"{action.text}."
    tiebreak = " (tie-break)" if state.tiebreak else ""
    return f"Round {state.round}{tiebreak}, phase {state.phase}: {action.text}."


def _totals(state: MatchState) -> str:
    width = max(len(name) for name in state.players)
    return "\n".join(f"{name:<{width}}  {score:>3}" for name, score in state.totals.items())


def check(path: str, as_json: bool) -> int:
    """Replay the file at ``path``; print totals and status; return the exit code."""
    try:
        with open(path, "rb") as file:
            match: MatchFile = loads(file.read())
    except OSError as error:
        return _refuse_file(as_json, f"{path}: {error.strerror}", None)
    except FormatError as error:
        return _refuse_file(as_json, error, error.index)
    try:
        state = match.replay()
    except RuleBroken as error:
        before: MatchState = error.state
        if as_json:
            _print_json(ok=False, event=error.index, error=error.message, scores=before.totals)
        else:
            print(_totals(before))
            print(error, file=sys.stderr)
        return EXIT_RULE
    if as_json:
        status = "finished" if state.is_finished else "in_progress"
        _print_json(ok=True, scores=state.totals, winner=state.winner_name, round=state.round, status=status)
    else:
        print(_totals(state))
        print(_where(state))
    return EXIT_OK


def _refuse_file(as_json: bool, error: str | FormatError, index: int | None) -> int:
    if as_json:
        _print_json(ok=False, event=index, error=getattr(error, "message", error))
    else:
        print(f"not a {FORMAT} document: {error}", file=sys.stderr)
    return EXIT_FORMAT


def _print_json(**result: Any) -> None:
    print(json.dumps(result, ensure_ascii=False))


def build_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The command line and its sub-command list (the web shell adds its own commands to it)."""
    parser = argparse.ArgumentParser(prog="scorekeeper", description="Chicago Scorekeeper")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    checker = commands.add_parser("check", help="replay a chicago-match/1 file and print the totals")
    checker.add_argument("file", help="the match file (JSON)")
    checker.add_argument("--json", action="store_true", help="print one JSON object")
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``scorekeeper check``; return the exit code."""
    args = build_parser()[0].parse_args(argv)
    return check(args.file, args.json)


if __name__ == "__main__":
    sys.exit(main())
