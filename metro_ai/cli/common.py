"""What several commands of ``metro-ai`` share, written once: the bot-spec help, the game options
(``--game``, ``--players``, ``--option``), the search budget (``--iterations``, ``--time``), the
seats' bot specs, the deal seed, the local pool and Dask (``--jobs``, ``--dask``), the ``--plot``
check, the progress line and the final standings.

A command module adds its options with the ``add_*`` functions here and reads them back with the
functions of the same idea (``add_game_arguments`` and ``game_of``, ``add_budget_arguments`` and
``limit_of``, ``add_pool_arguments`` and ``check_jobs``/``require_dask``).
"""
from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path

from metro_ai.bots.catalogue import BotSpecError, parse_specs
from metro_ai.bots.limit import Limit
from metro_ai.optionspec import parse_options
from metro_ai.registry import DEFAULT_GAME, game_class, list_games, load_game

BOT_SPEC_HELP = """\
bot specs: NAME[:KEY=VALUE,...] where NAME is a bot or preset (metro-ai bots) and the keys are
its options plus iterations=N (budget per move, reproducible), time=S (seconds per move, not
reproducible) and label=TEXT (its name in tables); e.g. ismcts:c=1.0,iterations=500 or hard or
medium:time=0.5,label=quick. In a list, commas separate bots and KEY=VALUE items continue the bot
before them: ismcts:c=1.0,time=0.1,greedy,random is three bots."""


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Every command's help: its description and epilog printed as written, line for line."""


# ---- the game: --game, --players, --option ----

def add_game_arguments(p, players_default):
    """``--game``, ``--players`` and ``--option``; `players_default` is the player count the
    help names (None: the game's own). ``game_options`` and ``game_of`` read them."""
    p.add_argument("--game", default=None, metavar="GAME",
                   help=f"game name: {', '.join(list_games())} (default: {DEFAULT_GAME})")
    what = "the game's default" if players_default is None else f"{players_default}, within the game's range"
    p.add_argument("--players", type=int, default=None, help=f"number of players (default: {what})")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help=f"a game option, e.g. {_option_example()} (metro-ai games lists them); repeat it for "
                        "more; a value with commas is a list (a,b), one starting with [ { or \" is JSON")


def _option_example():
    """An example of --option from the default game's declared options."""
    for o in game_class(DEFAULT_GAME).OPTIONS:
        if o.name != "players" and o.kind in ("bool", "int", "choice"):
            value = str(not o.default).lower() if o.kind == "bool" else o.choices[-1] if o.kind == "choice" else o.default
            return f"--option {o.name}={value}"
    return "--option NAME=VALUE"


def game_options(args, players_default):
    """The game name and options of --game, --players and --option (--players wins over a
    default; giving players both ways is an error). `players_default` None: the game's own."""
    name = args.game or DEFAULT_GAME
    cls = game_class(name)
    options = parse_options(args.option)
    if "players" in options and args.players is not None:
        raise ValueError("players given twice: use --players N or --option players=N, not both")
    if args.players is not None:
        options["players"] = args.players
    elif "players" not in options:
        default = cls.option("players").default if players_default is None else players_default
        options["players"] = min(max(default, cls.min_players), cls.max_players)
    return name, options


def game_words(name, options) -> list[str]:
    """The command-line words that give this game again: ``--game NAME --option K=V ...``."""
    words = ["--game", name]
    for key, value in sorted(options.items()):
        words += ["--option", f"{key}={json.dumps(value)}"]
    return words


def game_of(args, players_default):
    """The game of --game, --players and --option, loaded."""
    name, options = game_options(args, players_default)
    return load_game(name, **options)


# ---- the bots: their specs and budget ----

def add_budget_arguments(p, what):
    """``--iterations`` and ``--time``, the budget per move of `what`; ``limit_of`` reads them."""
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help=f"search iterations per move for {what} (reproducible)")
    p.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per move for {what} (wall clock: not reproducible)")


def limit_of(args):
    """The ``Limit`` of --iterations and --time, or None where neither is given."""
    if args.iterations is None and args.time is None:
        return None
    return Limit(iterations=args.iterations, time=args.time)


def seat_specs(items, seats, what):
    """The bot specs of `items` (the option `what`) for `seats` seats: one spec for every seat,
    or one per seat; BotSpecError otherwise."""
    specs = parse_specs(items)
    if len(specs) == 1:
        specs = specs * seats
    if len(specs) != seats:
        raise BotSpecError(f"{what} names {len(specs)} bots for {seats} seats: give one spec, or one per seat")
    return specs


def deal_seed(args, say):
    """``--seed``, or a random deal seed drawn from the operating system, told through `say` so
    that the game can be replayed: ``seed 123456 (replay with --seed 123456)``."""
    if args.seed is not None:
        return args.seed
    args.seed = secrets.randbelow(1_000_000)
    say(f"seed {args.seed} (replay with --seed {args.seed})")
    return args.seed


def standing_lines(returns, scores, names):
    """The final standings, best first, by return: ties share a place, marked ``=``
    (``=1. player 0 (random): 12 points, return 0.500``)."""
    from metro_ai.play.report import place_labels
    labels = place_labels(returns)
    ranked = sorted(range(len(returns)), key=lambda p: (-returns[p], -scores[p] if isinstance(scores[p], (int, float))
                                                         else 0, p))
    return [f"  {labels[p]:>2}. {names[p]}: {scores[p]} points, return {returns[p]:.3f}" for p in ranked]


# ---- many games: --jobs, --dask, --plot, the progress line ----

def add_pool_arguments(p, jobs_note="", dask_note=""):
    """``--jobs`` (local worker processes) and ``--dask`` (a scheduler instead), each help ending
    with its note; ``check_jobs`` and ``require_dask`` check them."""
    p.add_argument("--jobs", type=int, default=-1, help=f"local worker processes (default: -1, one per core{jobs_note})")
    p.add_argument("--dask", metavar="tcp://HOST:PORT",
                   help=f"run the games on this Dask scheduler instead{dask_note} (extra: dask)")


def check_jobs(args):
    """--jobs is a positive number of processes or -1; ValueError otherwise."""
    if args.jobs == 0 or args.jobs < -1:
        raise ValueError(f"--jobs must be a positive number of processes or -1 (one per core), got {args.jobs}")


def require_dask(args):
    """With --dask, a clear error before anything is played or written if Dask is not installed."""
    if args.dask:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ValueError("--dask needs Dask: pip install 'metro-ai[dask]'") from None


def check_plot(args):
    """With --plot, a clear error before anything is played if matplotlib is not installed."""
    if args.plot:
        from metro_ai.play.report import require_matplotlib
        try:
            require_matplotlib()
        except RuntimeError as exc:
            raise ValueError(str(exc)) from None


class StartedProgress:
    """The progress line, told how many games were already done when this run began."""

    def __init__(self, unit="game"):
        from metro_ai.play.report import ProgressLine
        self.line = None
        self.cls = ProgressLine
        self.unit = unit

    def __call__(self, done, total, result=None):
        if self.line is None:               # the first call comes before this run's first game
            self.line = self.cls(already=done, unit=self.unit)
        self.line(done, total, result)

    def close(self):
        if self.line is not None:
            self.line.close()


def check_writable(flag, path):
    """Fail now, before any work, where the output file `path` of `flag` cannot be written:
    its folder is missing or not a folder, or the path is a folder."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{flag} {path}: is a directory")
    if not target.resolve().parent.is_dir():
        raise ValueError(f"{flag} {path}: no such directory")


def output_error(flag, path, exc):
    """An output file that could not be written, as a usage error (exit 2) naming the flag."""
    return ValueError(f"{flag} {path}: cannot write there ({exc.strerror or exc})")
