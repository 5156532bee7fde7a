"""``scorekeeper check FILE [--json]``: replay a match file and say where it stands.

Exit codes (MATCH_FORMAT.md): 0 the file is valid, 1 an event breaks a
rule, 2 the file is not a ``chicago-match/1`` document.
"""

from __future__ import annotations

import argparse
import importlib
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


def build_parser() -> argparse.ArgumentParser:
    """The command line: one sub-command per job."""
    parser = argparse.ArgumentParser(prog="scorekeeper", description="Chicago Scorekeeper")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    checker = commands.add_parser("check", help="replay a chicago-match/1 file and print the totals")
    checker.add_argument("file", help="the match file (JSON)")
    checker.add_argument("--json", action="store_true", help="print one JSON object")
    server = commands.add_parser("serve", help="start the web app (SQLite file in the instance folder)")
    server.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    server.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    server.add_argument("--db", help="the SQLite file (default: scorekeeper.sqlite in the instance folder)")
    server.add_argument("--workers", type=int, default=1, help="gunicorn worker processes (default 1)")
    server.add_argument("--threads", type=int, default=8, help="threads per worker (default 8)")
    server.add_argument("--access-log", help="write an access log to this file ('-' for the terminal)")
    exporter = commands.add_parser("export", help="print a stored match as a chicago-match/1 file")
    exporter.add_argument("match_id")
    importer = commands.add_parser("import", help="store a chicago-match/1 file as a new match")
    importer.add_argument("file")
    backup = commands.add_parser("backup", help="copy the whole database (SQLite online backup)")
    backup.add_argument("path")
    for command in (exporter, importer, backup):
        command.add_argument("--db", help="the SQLite file (default: the instance folder's)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = build_parser().parse_args(argv)
    if args.command == "check":
        return check(args.file, args.json)
    # The shell depends on the core, never the reverse: it is loaded only for its own commands.
    if args.command == "serve":
        server = importlib.import_module("scorekeeper.web.server")
        server.serve(args.host, args.port, args.db, args.workers, args.threads, args.access_log)
        return EXIT_OK
    database = importlib.import_module("scorekeeper.web.commands")
    if args.command == "export":
        return int(database.export_match(args.match_id, args.db))
    if args.command == "import":
        return int(database.import_match(args.file, args.db))
    return int(database.backup(args.path, args.db))


if __name__ == "__main__":
    sys.exit(main())
