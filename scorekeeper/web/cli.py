"""The ``scorekeeper`` command: the core's ``check``; the shell's serve, export, import and backup.

Exit codes follow ``scorekeeper check``: 0 done, 1 an event breaks a rule,
2 not a ``chicago-match/1`` document (or no such match or file). The
database path reaches the app through ``create_app``, never the environment.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import sys
from collections.abc import Callable, Sequence

from flask import Flask

from scorekeeper import cli as core
from scorekeeper.matchfile import FormatError
from scorekeeper.refusals import RuleBroken
from scorekeeper.rules import Bounds
from scorekeeper.web import create_app
from scorekeeper.web.settings import ConfigError
from scorekeeper.web.store import eventlog
from scorekeeper.web.store.creations import AlreadyStored
from scorekeeper.web.store.db import CannotStart
from scorekeeper.web.store.imports import export_text, import_match


def _app(db: str | None) -> Flask:
    return create_app(database=os.path.abspath(db) if db else None)


# Said when serve listens on every interface under plain HTTP (the lan profile's risk, docs/serving.md).
OPEN_TO_THE_NETWORK = (
    "Plain HTTP: anyone on this network can open the app, and could copy a phone's cookie by listening."
    " On a network you do not trust (a cafe, a club), start it with --host 127.0.0.1 instead."
)


def where_kept(app: Flask) -> str:
    """What ``serve`` says first: where the matches and the key are (back them up together, TRUST.md S12)."""
    key = app.config["KEY_FILE"] or (
        "SCOREKEEPER_SECRET_KEY" if os.environ.get("SCOREKEEPER_SECRET_KEY") else "the settings (config.py)"
    )
    database = app.config["DATABASE"]
    lines = [f"The matches are kept in {database}, their secret key in {key}: back them up together."]
    if app.config["DATA_NOTE"]:
        lines.append(app.config["DATA_NOTE"])
    return "\n".join(lines)


def export_match(match_id: str, db: str | None) -> int:
    """Print a stored match as a ``chicago-match/1`` file."""
    with _app(db).app_context():
        match = eventlog.load_match(match_id)
        if match is None:
            print(f"no match {match_id!r} in this database", file=sys.stderr)
            return 2
        sys.stdout.write(export_text(match))
    return 0


def import_file(path: str, db: str | None) -> int:
    """Store a match file as a new match, after replaying it; a refused file stores nothing."""
    try:
        with open(path, "rb") as file:
            text = file.read()
    except OSError as error:
        print(f"{path}: {error.strerror}", file=sys.stderr)
        return 2
    with _app(db).app_context():
        try:
            match_id = import_match(text)
        except FormatError as error:
            print(f"not a chicago-match/1 document: {error}", file=sys.stderr)
            return 2
        except RuleBroken as error:
            print(error, file=sys.stderr)
            return 1
        except AlreadyStored as stored:  # stored once: its id, as for a match just stored
            print("this match is already stored: not imported again", file=sys.stderr)
            match_id = stored.match_id
    print(match_id)
    return 0


def backup(target: str, db: str | None) -> int:
    """Copy the whole database with SQLite's online backup (safe while the app is serving)."""
    app = _app(db)
    source = sqlite3.connect(app.config["DATABASE"])
    destination = sqlite3.connect(target)
    try:
        with destination:
            source.backup(destination)
    finally:
        destination.close()
        source.close()
    print(f"backed up {app.config['DATABASE']} to {target}")
    return 0


def _number(low: int, high: int) -> Callable[[str], int]:
    """An option's number in ASCII digits from ``low`` to ``high`` (argparse's ``type=int`` takes '١٢')."""
    bounds = Bounds(low, high)

    def read(text: str) -> int:
        value = bounds.read(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text!r}")
        return value

    return read


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the core's ``check`` and the shell's commands."""
    parser, commands = core.build_parser()
    server = commands.add_parser("serve", help="start the web app (SQLite file in the user data folder)")
    server.add_argument(
        "--host",
        help="address to listen on (default 0.0.0.0, every interface, so that the phones at the table can"
        " open it; 127.0.0.1 behind a proxy, SCOREKEEPER_PROXIES)",
    )
    server.add_argument("--port", type=_number(1, 65535), default=5000, help="port (default 5000)")
    server.add_argument("--db", help="the SQLite file (default: scorekeeper.sqlite in the user data folder)")
    server.add_argument(
        "--threads", type=_number(1, 256), default=16, help="threads that answer requests (default 16)"
    )
    server.add_argument(
        "--streams",
        type=_number(0, 5000),
        default=1000,
        help="live-view streams held at once, a thread each (default 1000); beyond them pages poll",
    )
    server.add_argument("--access-log", help="write an access log to this file ('-' for the terminal)")
    exporter = commands.add_parser("export", help="print a stored match as a chicago-match/1 file")
    exporter.add_argument("match_id")
    importer = commands.add_parser("import", help="store a chicago-match/1 file as a new match")
    importer.add_argument("file")
    backup = commands.add_parser("backup", help="copy the whole database (SQLite online backup)")
    backup.add_argument("path")
    for command in (exporter, importer, backup):
        command.add_argument("--db", help="the SQLite file (default: the user data folder's)")
    return parser


def _can_listen(host: str, port: int) -> None:
    """Raise OSError unless this machine can listen on ``host`` and ``port`` (as waitress binds: reusing
    an address some closed connection still holds)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)


def _dashed_id(argv: Sequence[str]) -> list[str]:
    """``export -abc…`` read as ``export -- -abc…``: argparse takes a word that starts with '-' for an
    option, and a match id (``secrets.token_urlsafe``) starts with one about one time in 64.

    Every word of ``export`` that is none of its options (``--db PATH``, ``--db=PATH``, ``-h``) is
    its id; a command line that already has ``--`` is left as it is.
    """
    if list(argv[:1]) != ["export"] or "--" in argv:
        return list(argv)
    options: list[str] = []
    words: list[str] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--db":
            options += argv[i : i + 2]  # the option and its path
            i += 1
        elif word in ("-h", "--help") or word.startswith("--db="):
            options.append(word)
        else:
            words.append(word)
        i += 1
    return ["export", *options, "--", *words]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (2, and one line saying why, if the app will not start)."""
    args = build_parser().parse_args(_dashed_id(sys.argv[1:] if argv is None else argv))
    try:
        return _run(args)
    except (ConfigError, CannotStart) as error:
        print(f"scorekeeper: {error}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.command == "check":
        return core.check(args.file, args.json)
    if args.command == "serve":
        from scorekeeper.web.present.reach import default_host
        from scorekeeper.web.server import ALL_INTERFACES, serve

        app = _app(args.db)
        host = args.host if args.host is not None else default_host(app)
        app.config.update(SERVE_HOST=host, SERVE_PORT=args.port)  # what the share page says (reach.py)
        print(where_kept(app), flush=True)
        if host in ALL_INTERFACES and not app.config["PROXIES"]:
            print(OPEN_TO_THE_NETWORK, flush=True)
        try:
            _can_listen(host, args.port)  # before waitress, which leaves its socket open when it cannot
            serve(app, host, args.port, args.threads, args.streams, args.access_log)
        except OSError as error:  # the port is taken, or the address is none of this machine's
            print(
                f"scorekeeper: cannot listen on {host} port {args.port} ({error.strerror})", file=sys.stderr
            )
            return 2
        return 0
    if args.command == "export":
        return export_match(args.match_id, args.db)
    if args.command == "import":
        return import_file(args.file, args.db)
    return backup(args.path, args.db)


if __name__ == "__main__":
    sys.exit(main())
