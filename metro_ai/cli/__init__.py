"""The ``metro-ai`` command line: games, bots, match, tournament, calibrate, train, analyse, review, play,
serve, web, bench.

One module per command (``COMMANDS``, in the order ``metro-ai --help`` lists them), each with its
``NAME`` and ``HELP`` (and, where it has them, ``ALIASES``, ``DESCRIPTION``, ``EPILOG``),
``add_arguments(parser)`` and ``run(args) -> int``; what several commands share is written once,
in :mod:`~metro_ai.cli.common` (the game, budget, bot, pool and plot options) and
:mod:`~metro_ai.cli.serving` (the protocol server's options of serve and web).
docs/dev/adding-a-command.md says where a new command goes.

Exit codes: 0 success, 1 failure (including an interrupted tournament or failed games), 2 bad usage
(unknown game, bot or option, a bad bot spec, a tournament file that holds another tournament, is
not a tournament file, lies in a missing folder or is in use by another run).
Every command has ``--help``; the listing and result commands have ``--json``.
"""
from __future__ import annotations

import argparse
import os
import sys

from metro_ai.engine.errors import PythonGameError
from metro_ai.registry import register_game
from metro_ai.version import __version__

from . import analyse, bench, bots, calibrate, games, match, play, review, serve, tournament, train, web
from .common import Formatter

#: The commands, in the order ``metro-ai --help`` lists them.
COMMANDS = (games, bots, match, tournament, calibrate, train, analyse, review, play, serve, web, bench)


def build_parser() -> argparse.ArgumentParser:
    """The ``metro-ai`` parser: the global options, then one sub-parser per module of
    ``COMMANDS``, its options added by the module's ``add_arguments``."""
    p = argparse.ArgumentParser(prog="metro-ai", description="AI opponents for the Metro family of games.",
                                epilog="exit codes: 0 success, 1 failure, 2 bad usage")
    p.add_argument("--version", action="version", version=f"metro-ai {__version__}")
    p.add_argument("--game-module", action="append", default=[], metavar="MODULE:CLASS",
                   help="register a game of your own before the command: package.module:Class or "
                        "path/to/file.py:Class (repeatable; also $METRO_AI_GAMES, comma-separated)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS:
        command.add_arguments(sub.add_parser(
            command.NAME, aliases=list(getattr(command, "ALIASES", ())), help=command.HELP,
            description=getattr(command, "DESCRIPTION", None), epilog=getattr(command, "EPILOG", None),
            formatter_class=Formatter))
    return p


def _command(name):
    """The module of the command called `name` (its name or an alias)."""
    return next(c for c in COMMANDS if name == c.NAME or name in getattr(c, "ALIASES", ()))


def main(argv=None) -> int:
    """Run ``metro-ai`` with `argv` (default: the process's arguments); the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)      # the command, for reports
    try:
        for spec in args.game_module:            # the operator's games (never a client's: serve, web)
            register_game(spec)
        return _command(args.command).run(args)
    except PythonGameError as exc:     # a game written in Python broke the contract: its author's to fix
        print(f"metro-ai: error in the game's code: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:   # bad options, bot specs, states, settings: a usage error
        print(f"metro-ai: error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_status", 2)             # 1: a damaged file (a tournament's)
    except BrokenPipeError:                  # output piped into head & co.: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except OSError as exc:
        print(f"metro-ai: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError,
                                     NotADirectoryError)) else 1
    except KeyboardInterrupt:
        print("metro-ai: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI reports, never dumps a traceback on users
        print(f"metro-ai: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1

