"""The ``metro-ai`` command line: games, bots, match, tournament, calibrate, analyse, play, serve, web,
bench.

Exit codes: 0 success, 1 failure (including an interrupted tournament or failed games), 2 bad usage
(unknown game, bot or option, a bad bot spec, a tournament file that holds another tournament, is
not a tournament file, lies in a missing folder or is in use by another run).
Every command has ``--help``; the listing and result commands have ``--json``.
"""
from __future__ import annotations

import argparse
import errno
import os
import secrets
import shlex
import sys
import textwrap
from pathlib import Path

from metro_ai import bench
from metro_ai.bots.limit import Limit
from metro_ai.engine.datafile import dumps
from metro_ai.engine.errors import PythonGameError
from metro_ai.optionspec import OPTION_VALUES_HELP, parse_options
from metro_ai.bots.catalogue import BotSpec, BotSpecError, bot_catalogue, describe_bots, format_value, parse_specs
from metro_ai.play.match import load_state, play_match
from metro_ai.registry import DEFAULT_GAME, game_class, list_games, load_game, register_game
from metro_ai.version import __version__

BOT_SPEC_HELP = """\
bot specs: NAME[:KEY=VALUE,...] where NAME is a bot or preset (metro-ai bots) and the keys are
its options plus iterations=N (budget per move, reproducible), time=S (seconds per move, not
reproducible) and label=TEXT (its name in tables); e.g. ismcts:c=1.0,iterations=500 or hard or
medium:time=0.5,label=quick. In a list, commas separate bots and KEY=VALUE items continue the bot
before them: ismcts:c=1.0,time=0.1,greedy,random is three bots."""



class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _add_game_args(p, players_default):
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


def _add_budget_args(p, what):
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help=f"search iterations per move for {what} (reproducible)")
    p.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per move for {what} (wall clock: not reproducible)")


def _parser():
    p = argparse.ArgumentParser(prog="metro-ai", description="AI opponents for the Metro family of games.",
                                epilog="exit codes: 0 success, 1 failure, 2 bad usage")
    p.add_argument("--version", action="version", version=f"metro-ai {__version__}")
    p.add_argument("--game-module", action="append", default=[], metavar="MODULE:CLASS",
                   help="register a game of your own before the command: package.module:Class or "
                        "path/to/file.py:Class (repeatable; also $METRO_AI_GAMES, comma-separated)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    g = sub.add_parser("games", help="list the games and their options")
    g.add_argument("--json", action="store_true", help="machine-readable output")
    g.add_argument("--markdown", action="store_true", help="the options as Markdown tables")

    b = sub.add_parser("bots", help="list the bots, their options and the presets", epilog=BOT_SPEC_HELP,
                       formatter_class=_Formatter)
    b.add_argument("--json", action="store_true", help="machine-readable output")

    m = sub.add_parser("match", help="play one game between bots and print the result",
                       epilog=BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP,
                       formatter_class=_Formatter)
    _add_game_args(m, 2)
    m.add_argument("--bots", nargs="+", default=["random"], metavar="SPEC",
                   help="one bot spec per seat, or one for every seat (default: random)")
    _add_budget_args(m, "search bots whose spec has no budget")
    m.add_argument("--seed", type=int, default=None,
                   help="deal seed; bot seeds derive from it (default: a random one, printed so the game can be replayed)")
    m.add_argument("--save", metavar="FILE", help="write the match record (JSON) to FILE; metro_ai.replay reads it")
    m.add_argument("--quiet", action="store_true", help="print only the result, not the final board")
    m.add_argument("--json", action="store_true", help="print the match record as JSON")
    m.add_argument("--svg", metavar="DIR", help="write an SVG picture of the position after every move to DIR "
                   "(000.svg is the deal), the last move marked")

    t = sub.add_parser(
        "tournament", help="a round robin or gauntlet between bots, with ratings", formatter_class=_Formatter,
        description=textwrap.dedent("""\
            Play a tournament: every table of bots (round robin: every set of --players bots;
            gauntlet: the first bot against copies of each other) on --deals deals, each deal in
            every seating (duplicate deals: the same seed with the seats rotated, so luck cancels).
            Results go into an SQLite file (--db) as each game finishes. Run the same command again,
            or --resume, to continue an interrupted tournament; Ctrl-C stops cleanly.
            Ratings on the Elo scale with 95% bootstrap intervals: Bradley-Terry for 2 players,
            Plackett-Luce (pairwise composite likelihood; openskill as a cross-check) for more.
            With iteration budgets the same --seed gives the same results anywhere; time budgets
            are not reproducible."""),
        epilog=BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP
        + "\n\nexit codes: 0 done, 1 interrupted, games failed or a damaged --db file, 2 bad usage (also: --db in use "
        "by another run, or a symbolic link: a tournament is never written through a link)")
    _add_game_args(t, 2)
    t.add_argument("--bots", nargs="+", default=None, metavar="SPEC",
                   help="the bots (default: ismcts,greedy,random)")
    t.add_argument("--mode", choices=("round-robin", "gauntlet", "ladder"), default=None,
                   help="round-robin (default), gauntlet (the first bot against each other bot) or ladder "
                        "(bots listed weakest first, each against the next two)")
    t.add_argument("--deals", type=int, default=None, help="deals per table (default: 30)")
    t.add_argument("--seatings", choices=("rotate", "all"), default=None,
                   help="rotate: each bot in each seat once per deal (default); all: every permutation")
    t.add_argument("--seed", type=int, default=None, help="tournament seed; every game's seeds derive from it (default: 1)")
    _add_budget_args(t, "search bots whose spec has no budget (default: the bot's own, 1,000 iterations)")
    t.add_argument("--db", default="metro-ai-tournament.sqlite", metavar="FILE",
                   help="SQLite file for the results (default: metro-ai-tournament.sqlite)")
    t.add_argument("--resume", action="store_true",
                   help="continue the tournament in --db with its stored settings (and just report if it is done)")
    t.add_argument("--overwrite", action="store_true", help="discard what --db holds and start afresh")
    t.add_argument("--jobs", type=int, default=-1, help="local worker processes (default: -1, one per core; 1: no pool)")
    t.add_argument("--dask", metavar="tcp://HOST:PORT", help="run the games on this Dask scheduler instead (extra: dask)")
    t.add_argument("--max-games", type=int, default=None, metavar="N", help="stop after N games this run (resume later)")
    t.add_argument("--anchor", metavar="BOT", help="fix this bot's Elo at 1500 (default: the mean is 1500)")
    t.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the Elo intervals (default: 1000)")
    t.add_argument("--csv", metavar="FILE", help="write the standings as CSV")
    t.add_argument("--games-csv", metavar="FILE", help="write every game as CSV (one row per seat)")
    t.add_argument("--plot", metavar="DIR", help="write ratings.png and winrate.png into DIR (extra: plot)")
    t.add_argument("--quiet", action="store_true", help="no progress line")
    t.add_argument("--json", action="store_true", help="print the report as JSON")

    c = sub.add_parser(
        "calibrate", help="measure a difficulty ladder in Elo (random = 0) for make_bot(..., elo=)",
        formatter_class=_Formatter,
        description=textwrap.dedent("""\
            Measure a difficulty ladder: the levels (weakest first; default random, ismcts at 50
            iterations without and with a margin, easy, medium, ismcts at 500 and temperature 0.1,
            ismcts at 500, greedy, ismcts at 1,500, hard, the sampled ones keeping to moves within
            0.03 of the best; Breakthrough bridges from random at 150 iterations, margins 0.1 and
            0.07) play a ladder tournament (each against the next two, --deals duplicate deals, seats
            rotated), and every level gets an Elo rating with its 95% bootstrap interval, the first
            level (random) fixed at 0. The ladder also says, per level, how often it plays the
            strongest level's move on --positions positions, and which neighbours the results cannot
            tell apart. Written as JSON to --out; ismcts:elo=R,ladder=FILE plays at rating R on it.
            Games go into --db as they finish: run the same command again to continue."""),
        epilog=BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP)
    _add_game_args(c, 2)
    c.add_argument("--levels", nargs="+", default=None, metavar="SPEC",
                   help="the levels as bot specs, weakest first (default: see above); the first is rated 0")
    c.add_argument("--deals", type=int, default=None, help="duplicate deals per pairing (default: 50)")
    c.add_argument("--seed", type=int, default=None, help="seed of the games and the bootstrap (default: 2026)")
    c.add_argument("--positions", type=int, default=None, metavar="N",
                   help="positions for the agreement table (default: 200; 0: none)")
    c.add_argument("--db", default=None, metavar="FILE",
                   help="SQLite file of the games (default: the ladder's file name with .sqlite, in the working "
                        "directory, so that calibrations of different ladders keep their games apart)")
    c.add_argument("--out", default=None, metavar="FILE", help="write the ladder (JSON) to FILE (default: "
                   "ladder-GAME-Np.json)")
    c.add_argument("--plot", metavar="FILE.png", help="draw the ladder to this PNG (extra: plot)")
    c.add_argument("--jobs", type=int, default=-1, help="local worker processes (default: -1, one per core)")
    c.add_argument("--dask", metavar="tcp://HOST:PORT", help="run the games on this Dask scheduler instead, as "
                   "tournament does; the same ladder as a local run (extra: dask)")
    c.add_argument("--quiet", action="store_true", help="no progress line")
    c.add_argument("--json", action="store_true", help="print the ladder as JSON rather than tables")

    a = sub.add_parser("analyse", aliases=["analyze"],
                       help="a search bot's analysis of a saved position or of a position in a match record",
                       epilog=BOT_SPEC_HELP, formatter_class=_Formatter)
    a.add_argument("state", metavar="FILE.json",
                   help="a saved state (the JSON of state.to_json()) or a match record (metro-ai match --save)")
    a.add_argument("--move", type=int, default=None, metavar="N",
                   help="with a match record: the position before its action N (numbered from 0, so 0 is the "
                        "deal; default: the last position with a real choice, more than one legal action)")
    a.add_argument("--bot", default="ismcts", metavar="SPEC", help="a search bot or preset (default: ismcts)")
    _add_budget_args(a, "the bot (default: the spec's, else the bot's own)")
    a.add_argument("--seed", type=int, default=1, help="bot seed (default: 1)")
    a.add_argument("--top", type=int, default=10, help="actions to show (default: 10)")
    a.add_argument("--json", action="store_true", help="print the analysis as JSON")

    pl = sub.add_parser("play", help="play against bots in the terminal",
                        epilog=BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP,
                        formatter_class=_Formatter)
    _add_game_args(pl, 2)
    pl.add_argument("--bots", nargs="+", default=["medium"], metavar="SPEC",
                    help="the opponents: one spec for every other seat, or one per other seat (default: medium)")
    pl.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first (default: 0)")
    pl.add_argument("--seed", type=int, default=None,
                    help="deal seed (default: a random one, printed so the game can be replayed)")
    pl.add_argument("--hint-bot", default="ismcts:time=1", metavar="SPEC",
                    help="the bot that answers 'hint' (default: ismcts:time=1)")
    _add_budget_args(pl, "opponents whose spec has no budget")
    sv = sub.add_parser(
        "serve", help="serve the bots over JSON-RPC 2.0: stdio (one message per line) or --ws HOST:PORT",
        formatter_class=_Formatter,
        description=textwrap.dedent("""\
            Serve the games and bots to a front end in any language: JSON-RPC 2.0, one message per
            line on stdin/stdout (the default; it ends when stdin ends), or WebSocket with --ws
            (one message per text frame; port 0 picks a free port, printed on stderr). Methods:
            hello, new_game, load_state, state, legal_actions, apply, observation, svg, go, stop,
            analyse, undo, redo, save, close; searches send progress notifications.
            The specification is docs/protocol.md."""))
    sv.add_argument("--ws", metavar="HOST:PORT", help="serve WebSocket clients on HOST:PORT instead of stdio")
    _add_server_args(sv)

    we = sub.add_parser(
        "web", help="play in the browser: a local page that plays every game against the bots",
        formatter_class=_Formatter,
        description=textwrap.dedent("""\
            Serve a page that plays every registered game against the bots, on one port: the
            page over HTTP and the protocol (docs/protocol.md) over WebSocket at /ws. Choose the
            game, its options, the seats (you or a bot, with its difficulty), see the bots think,
            ask for a hint, undo, save and load games. The address is printed; the browser opens
            it unless --no-browser. Ctrl-C stops the server."""))
    we.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    we.add_argument("--port", type=int, default=8000, help="the port (default: 8000; 0 picks a free one)")
    we.add_argument("--no-browser", action="store_true", help="do not open a browser, only print the address")
    _add_server_args(we)

    be = sub.add_parser("bench", help="speed, memory and strength benchmarks: a Markdown table and JSON",
                        description=bench.__doc__.split("\n\n", 1)[1].replace("``", ""),
                        formatter_class=_Formatter,
                        epilog="exit codes: 0 done, 1 a section you named could not run (with --versus: the "
                               "builds could not be compared), 2 bad usage")
    bench.add_arguments(be)
    return p


# ---- helpers ----

def _limit(args):
    if args.iterations is None and args.time is None:
        return None
    return Limit(iterations=args.iterations, time=args.time)


def _deal_seed(args, say):
    """``--seed``, or a random deal seed drawn from the operating system, told through `say` so
    that the game can be replayed: ``seed 123456 (replay with --seed 123456)``."""
    if args.seed is not None:
        return args.seed
    args.seed = secrets.randbelow(1_000_000)
    say(f"seed {args.seed} (replay with --seed {args.seed})")
    return args.seed


def _writable(flag, path):
    """Fail now, before any game, where the output file `path` of `flag` cannot be written:
    its folder is missing or not a folder, or the path is a folder."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{flag} {path}: is a directory")
    if not target.resolve().parent.is_dir():
        raise ValueError(f"{flag} {path}: no such directory")


def _output_error(flag, path, exc):
    """An output file that could not be written, as a usage error (exit 2) naming the flag."""
    return ValueError(f"{flag} {path}: cannot write there ({exc.strerror or exc})")


def _game_options(args, players_default):
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


def _game(args, players_default):
    name, options = _game_options(args, players_default)
    return load_game(name, **options)


def _catalogue():
    return bot_catalogue()


# ---- commands ----

def _cmd_games(args):
    info = {name: game_class(name).describe() for name in list_games()}
    if args.json:
        print(dumps(info, indent=2))
        return 0
    if args.markdown:
        print(_games_markdown(info))
        return 0
    families = sorted({g["family"] for g in info.values()}, key=lambda f: (f != "metro", f))
    for family in families:
        if len(families) > 1:
            print(f"[{'the Metro family' if family == 'metro' else family + ' games'}]")
        for name, g in info.items():
            if g["family"] != family:
                continue
            print(f"{name}: {g['title']} ({g['players']['min']}-{g['players']['max']} players)")
            for opt, o in g["options"].items():
                rule = f" [{o['rule']}]" if o["rule"] else ""
                print(f"    {opt} (default {o['default']!r}; {o['allowed']}): {o['help']}{rule}")
            if g["readings"]:
                print(f"    {READINGS_HEADING}:")
                for r in g["readings"]:
                    print(f"      [{r['rule']}] {r['text']}")
    return 0


#: How ``games`` introduces a game's readings (``Game.readings``).
READINGS_HEADING = "readings (this project's decisions, not the printed rules; docs/rules/ says why)"


def _games_markdown(info):
    """Every game's options as Markdown tables (the option tables of docs/guide/games.md)."""
    out = []
    for name, g in info.items():
        out += [f"**{name}**: {g['title']}, {g['players']['min']}-{g['players']['max']} players", "",
                "| option | default | allowed | rule | what |", "|---|---|---|---|---|"]
        for opt, o in g["options"].items():
            out.append(f"| `{opt}` | `{o['default']!r}` | {o['allowed']} | {o['rule'] or ''} | {o['help']} |")
        if g["readings"]:
            out += ["", f"{READINGS_HEADING[0].upper()}{READINGS_HEADING[1:]}:", ""]
            out += [f"- **{r['rule']}** {r['text']}" for r in g["readings"]]
        out.append("")
    return "\n".join(out).rstrip()


def _cmd_bots(args):
    cat = _catalogue()
    if args.json:
        out = dict(describe_bots())          # name -> description (kept for scripts)
        out.update({"bots": cat["bots"], "presets": cat["presets"], "ladders": cat["ladders"]})
        print(dumps(out, indent=2))
        return 0
    print("bots:")
    for name, b in cat["bots"].items():
        print(f"  {name}: {b['description']}")
        for k, v in b["options"].items():
            h = b["option_help"][k]
            print(f"      {k}={format_value(v)}: {h['description']} ({h['allowed']})")
        if b["default_budget"]:
            it, tm = b["default_budget"]["iterations"], b["default_budget"]["time"]
            print("      default budget: " + (f"{it} iterations" if it else f"{tm} s") + " per move")
        elif not b["searches"]:
            print("      no budget: it does not search")
    print("presets (ismcts with options and a budget; options can be overridden, e.g. hard:time=2):")
    for name, pr in cat["presets"].items():
        print(f"  {name}: {pr['description']}")
    print("Elo ladders (ismcts:elo=R plays at rating R, random = 0; metro-ai calibrate makes more):")
    for name, lad in cat["ladders"].items():
        span = f"elo {lad['elo']['min']:.0f} to {lad['elo']['max']:.0f}" if lad["elo"] else \
            "its levels could not be told apart: no elo"
        print(f"  {name}: {span}; " + ", ".join(f"{k} {v:.0f}" for k, v in lad["levels"].items()))
    print()
    print(BOT_SPEC_HELP)
    return 0


def _seat_specs(items, seats, what):
    specs = parse_specs(items)
    if len(specs) == 1:
        specs = specs * seats
    if len(specs) != seats:
        raise BotSpecError(f"{what} names {len(specs)} bots for {seats} seats: give one spec, or one per seat")
    return specs


def _cmd_match(args):
    game = _game(args, 2)
    specs = _seat_specs(args.bots, game.num_players, "--bots")
    if args.save:
        _writable("--save", args.save)
    pictures = None
    if args.svg:                        # the folder first: a bad path fails before the seed is drawn
        pictures = Path(args.svg)
        try:
            pictures.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _output_error("--svg", args.svg, exc) from None
    seed = _deal_seed(args, lambda text: print(f"metro-ai: {text}", file=sys.stderr))
    final: list = []
    if pictures is not None:
        try:
            (pictures / "000.svg").write_text(game.new_state(seed).svg())
        except OSError as exc:
            raise _output_error("--svg", args.svg, exc) from None

    def on_action(s, p, a):
        final[:] = [s]
        if pictures is not None:
            moves.append(a)
            try:
                (pictures / f"{len(moves):03d}.svg").write_text(s.svg(lastmove=a))
            except OSError as exc:
                raise _output_error("--svg", args.svg, exc) from None

    moves: list = []

    record = play_match(game, specs, seed=seed, limit=_limit(args), on_action=on_action)
    if args.save:
        try:
            with open(args.save, "w") as fh:
                fh.write(dumps(record))
        except OSError as exc:
            raise _output_error("--save", args.save, exc) from None
    if args.json:
        print(dumps(record))
        return 0
    if not args.quiet and final:
        print(final[0].render())
        print()
    print(f"{game.name}, {game.num_players} players, seed {seed}, {len(record['actions'])} actions, "
          f"{record['seconds']:.2f} s")
    for line in _standing_lines(record["returns"], record["scores"],
                                [f"player {p} ({record['bots'][p]})" for p in range(game.num_players)]):
        print(line)
    return 0


def _standing_lines(returns, scores, names):
    """The final standings, best first, by return: ties share a place, marked ``=``
    (``=1. player 0 (random): 12 points, return 0.500``)."""
    from metro_ai.play.report import place_labels
    labels = place_labels(returns)
    ranked = sorted(range(len(returns)), key=lambda p: (-returns[p], -scores[p] if isinstance(scores[p], (int, float))
                                                         else 0, p))
    return [f"  {labels[p]:>2}. {names[p]}: {scores[p]} points, return {returns[p]:.3f}" for p in ranked]


_CONFIG_ARGS = ("game", "players", "bots", "mode", "deals", "seatings", "seed", "iterations", "time")


def _tournament_config(args):
    from metro_ai.play.tournament import TournamentConfig
    given = any(getattr(args, k) is not None for k in _CONFIG_ARGS) or args.option
    if args.resume and not given:
        return None
    name, options = _game_options(args, 2)
    return TournamentConfig(
        game=name, options=options,
        bots=parse_specs(args.bots if args.bots is not None else ["ismcts,greedy,random"]),
        mode=args.mode or "round-robin", deals=args.deals if args.deals is not None else 30,
        seatings=args.seatings or "rotate", seed=args.seed if args.seed is not None else 1, limit=_limit(args))


def _cmd_tournament(args):
    from metro_ai.play import report as rep
    from metro_ai.play.tournament import Tournament, TournamentError
    from pathlib import Path
    if args.jobs == 0 or args.jobs < -1:
        raise ValueError(f"--jobs must be a positive number of processes or -1 (one per core), got {args.jobs}")
    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if args.max_games is not None and args.max_games < 0:
        raise ValueError(f"--max-games must be >= 0, got {args.max_games}")
    for flag, path in (("--csv", args.csv), ("--games-csv", args.games_csv)):
        if path and not Path(path).resolve().parent.is_dir():      # fail now, not after the games
            raise ValueError(f"{flag} {path}: no such directory")
    if args.plot:
        try:
            rep.require_matplotlib()
        except RuntimeError as exc:
            raise ValueError(str(exc)) from None
    _require_dask(args)
    config = _tournament_config(args)
    if args.resume and not Path(args.db).exists():
        raise TournamentError(f"there is no tournament to resume in {args.db!r}")
    if config is not None and args.anchor is not None and args.anchor not in config.labels:
        raise ValueError(f"--anchor {args.anchor!r} is not one of the bots: {', '.join(config.labels)}")
    progress = None
    if not args.quiet:
        progress = _StartedProgress()
    interrupted = False
    tournament = Tournament(config, db=args.db)
    try:
        result = tournament.run(jobs=args.jobs, dask=args.dask, progress=progress, max_games=args.max_games,
                                overwrite=args.overwrite)
    except KeyboardInterrupt:
        interrupted = True
        result = tournament.results()
    finally:
        if progress is not None:
            progress.close()
    report = rep.build_report(result, bootstrap=args.bootstrap, anchor=args.anchor)
    if args.csv:
        rep.write_csv(report, args.csv)
    if args.games_csv:
        rep.write_games_csv(result, args.games_csv)
    plots = rep.plot(report, args.plot) if args.plot else []
    if args.json:
        print(dumps({**report, "interrupted": interrupted, "plots": plots}, indent=2))
    else:
        print(rep.format_report(report))
        for path in plots:
            print(f"wrote {path}")
    if interrupted or not result.complete:
        print(f"metro-ai: {'interrupted: ' if interrupted else ''}{len(result.games)}/{result.total} games kept in "
              f"{args.db}; continue with: metro-ai tournament --resume --db {args.db}", file=sys.stderr)
        return 1 if interrupted or result.failures else 0
    if result.failures:
        print(f"metro-ai: {len(result.failures)} game(s) failed; first: {result.failures[0]['error']}; "
              "--resume retries them", file=sys.stderr)
        return 1
    return 0


class _StartedProgress:
    """The progress line, told how many games were already done when this run began."""

    def __init__(self):
        from metro_ai.play.report import ProgressLine
        self.line = None
        self.cls = ProgressLine

    def __call__(self, done, total, result):
        if self.line is None:               # the first call comes before this run's first game
            self.line = self.cls(already=done)
        self.line(done, total, result)

    def close(self):
        if self.line is not None:
            self.line.close()


def _require_dask(args):
    """With --dask, a clear error before anything is played or written if Dask is not installed."""
    if args.dask:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ValueError("--dask needs Dask: pip install 'metro-ai[dask]'") from None


def _cmd_calibrate(args):
    from metro_ai import ladder as lad
    if args.jobs == 0 or args.jobs < -1:
        raise ValueError(f"--jobs must be a positive number of processes or -1 (one per core), got {args.jobs}")
    if args.deals is not None and args.deals < 1:
        raise ValueError(f"--deals must be positive, got {args.deals}")
    if args.positions is not None and args.positions < 0:
        raise ValueError(f"--positions must be >= 0, got {args.positions}")
    if args.plot:
        from metro_ai.play.report import require_matplotlib
        try:
            require_matplotlib()
        except RuntimeError as exc:
            raise ValueError(str(exc)) from None
    _require_dask(args)
    name, options = _game_options(args, 2)
    players = options.pop("players")
    out = Path(args.out or f"ladder-{name}-{players}p.json")
    args.db = args.db or Path(out.name).with_suffix(".sqlite").name
    for path in (out, Path(args.db)) + ((Path(args.plot),) if args.plot else ()):
        if not path.resolve().parent.is_dir():      # fail now, not after the games
            raise ValueError(f"{path}: no such directory")
    progress = None if args.quiet else _StartedProgress()
    try:
        ladder = lad.calibrate(name, players, options, levels=args.levels or None,
                               deals=args.deals or lad.DEFAULT_DEALS, seed=args.seed if args.seed is not None else lad.DEFAULT_SEED,
                               jobs=args.jobs, db=args.db, dask=args.dask,
                               positions=args.positions if args.positions is not None else lad.DEFAULT_POSITIONS,
                               progress=progress, command=shlex.join(["metro-ai", *args.argv]))
    finally:
        if progress is not None:
            progress.close()
    out.write_text(dumps(ladder, indent=1) + "\n", encoding="utf-8")
    plot = lad.plot_ladder(ladder, args.plot) if args.plot else None
    if args.json:
        print(dumps(ladder, indent=2))
    else:
        print(lad.format_ladder(ladder))
        print(f"wrote {out}" + (f" and {plot}" if plot else ""))
    return 0


def _analysis_position(args):
    """The state to analyse, and the record's move number (None for a saved state)."""
    from metro_ai.engine.datafile import parse_json, read_text
    from metro_ai.engine.errors import StateFormatError
    from metro_ai.play.match import is_record, record_position
    text = read_text(args.state, what="saved state or match record", error=StateFormatError)

    def not_json(message):
        raise StateFormatError(message)
    try:
        data = parse_json(text, not_json)
    except StateFormatError:
        data = None                      # load_state says what is wrong, naming the file
    if is_record(data):
        return record_position(Path(args.state), args.move)      # read as a file: its errors name it
    if args.move is not None:
        raise ValueError(f"--move picks a position of a match record, but {args.state!r} is a saved state")
    return load_state(args.state), None


def _cmd_analyse(args):
    state, move = _analysis_position(args)
    spec = BotSpec.parse(args.bot)
    bot = spec.make(seed=args.seed)
    if not bot.searches:
        catalogue = bot_catalogue()
        searching = [name for name, about in catalogue["bots"].items() if about["searches"]]
        raise BotSpecError(f"bot {spec.name!r} does not search, so it has no analysis; use "
                           f"{', '.join(searching)} or a preset ({', '.join(catalogue['presets'])})")
    if state.is_terminal():
        raise ValueError("the saved game is over: there is nothing to analyse" if move is None else
                         f"the game is over at move {move}: there is nothing to analyse; pick an earlier --move")
    limit = _limit(args) or spec.limit
    legal = state.legal_actions()
    if len(legal) == 1:                 # a forced move: nothing to search
        from metro_ai.bots.mcts import ActionStats, Analysis
        text = state.action_to_string(legal[0])
        analysis = Analysis(state.current_player, [ActionStats(legal[0], text, 0, 0.0, 1.0)], legal[0], text,
                            workers=bot.resources().workers)
    else:
        analysis = bot.analyse(state, limit)
    if args.json:
        out = analysis.to_dict()
        out["forced"] = len(legal) == 1
        if move is not None:
            out["move"] = move
        print(dumps(out, indent=2))
    else:
        if move is not None:
            print(f"the position before action {move} of the record:")
        if len(legal) == 1:
            print(f"player {analysis.player}: {analysis.chosen_text}  (a forced move: the only legal action, "
                  "nothing to search)")
        else:
            print(analysis.table(top=args.top))
    return 0


# ---- play ----

def _cmd_play(args, read=None, write=None):
    from metro_ai.play.human import HumanSeat
    from metro_ai.play.loop import Stop, play_game
    from metro_ai.play.match import make_seats
    read = read or input
    write = write or print
    game = _game(args, 2)
    n = game.num_players
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat must be 0-{n - 1} for {n} players, got {args.seat}")
    me = args.seat
    others = [p for p in range(n) if p != me]
    specs = _seat_specs(args.bots, n - 1, "--bots")
    hint_spec = BotSpec.parse(args.hint_bot)
    if not hint_spec.searches():
        raise BotSpecError(f"--hint-bot {args.hint_bot!r} does not search; use ismcts, pimc, flat-mc or a preset")
    seed = _deal_seed(args, write)
    human = HumanSeat(me, read=read, write=write, hint=hint_spec, hint_seed=seed)
    seats, limits, info = make_seats(specs[:me] + [human] + specs[me:], seed=seed, limit=_limit(args), game=game)
    labels = [s["bot"] for s in info]
    state = game.new_state(seed)
    human.begin(state)
    write(f"{game.name}, {n} players; you are player {me}. "
          + ", ".join(f"P{p}: {labels[p]}" for p in others) + ". Type 'help' for commands.")
    try:
        play_game(state, seats, limits,
                  on_move=lambda s, move: write(human.move_line(s, move, labels[move['player']])))
    except Stop:
        return 0
    write("")
    human.show(state)
    scores, returns = state.scores(), state.returns()
    write("game over:")
    for line in _standing_lines(returns, scores, [f"P{q} ({labels[q]})" for q in range(n)]):
        write(line)
    best = max(returns)
    write("you win!" if returns[me] == best and returns.count(best) == 1 else
          "you share first place" if returns[me] == best else "you lose")
    return 0


_LIMIT_HELP = {
    "max_message_bytes": "the longest message accepted",
    "max_games": "open games per connection",
    "max_connections": "WebSocket connections at once",
    "max_searches": "searches (go, analyse) running at once, all connections together",
    "max_searches_per_connection": "searches running at once on one connection",
    "max_workers": "the bot option workers (threads of one search)",
    "max_nodes": "the bot option max_nodes (tree nodes of one search, ~40 bytes each)",
    "max_search_seconds": "seconds of one search: a longer time limit is refused, a longer search stops",
    "max_file_bytes": "the largest data file read from --data-dir",
    "max_undo": "positions kept for undo in one game (older moves cannot be undone)",
}


def _plain_number(x):
    """A default as a person reads it: 1,048,576 rather than 1.04858e+06, 60 rather than 60.0."""
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _add_server_args(parser):
    """The options of a protocol server (serve, web): limits, data directory, access."""
    from metro_ai.protocol.limits import Limits
    defaults = Limits()
    lim = parser.add_argument_group("limits (a client cannot exceed them; hello reports them; docs/security.md)")
    for key, words in _LIMIT_HELP.items():
        default = getattr(defaults, key)
        lim.add_argument("--" + key.replace("_", "-"), type=float if isinstance(default, float) else int,
                         default=None, metavar="S" if isinstance(default, float) else "N",
                         help=f"{words} (default: {_plain_number(default)})")
    acc = parser.add_argument_group("files and access (docs/security.md)")
    acc.add_argument("--data-dir", metavar="DIR", default=None,
                     help="the folder whose files clients may name in file options (company_chart, cards, "
                          "ladder=, ...), by relative name; without it clients name no files")
    acc.add_argument("--token", default=None, metavar="TOKEN",
                     help="the token every WebSocket client, the web page included, presents as ?token=TOKEN "
                          "(default: $METRO_AI_TOKEN, else a fresh random one, printed with the address)")
    acc.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                     help="also let web pages of ORIGIN (e.g. http://localhost:3000) connect, with the token; "
                          "repeatable")
    acc.add_argument("--allow-remote", action="store_true",
                     help="allow listening on an address other machines can reach (prints a warning)")


def _server(args):
    """The `Server` (limits, data directory) of serve or web from the command line."""
    from metro_ai.protocol.limits import Limits, Server
    given = {key: getattr(args, key) for key in _LIMIT_HELP if getattr(args, key) is not None}
    limits = Limits(**given)
    return Server(limits, args.data_dir)


def _access(args):
    import os
    return dict(token=args.token if args.token is not None else os.environ.get("METRO_AI_TOKEN") or None,
                allow_origins=tuple(args.allow_origin), allow_remote=args.allow_remote)


def _port_in_use(exc, where, hint):
    """A listening socket's address already taken, as a usage error that says so and how to
    pick a free port; any other OSError as it is."""
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return ValueError(f"{where} is in use (another server?): choose another port, or {hint} for a free one")
    return exc


def _cmd_serve(args):
    from metro_ai.protocol import run_websocket, serve_stdio
    server = _server(args)
    if args.ws:
        try:
            return run_websocket(args.ws, server, **_access(args))
        except OSError as exc:
            host = args.ws.rpartition(":")[0]
            raise _port_in_use(exc, f"--ws {args.ws}: the port", f"--ws {host}:0") from None
    return serve_stdio(server)


def _cmd_web(args):
    from metro_ai.web import run_web
    try:
        return run_web(args.host, args.port, not args.no_browser, _server(args), **_access(args))
    except OSError as exc:
        raise _port_in_use(exc, f"port {args.port} on {args.host}", "--port 0") from None


def _cmd_bench(args):
    return bench.execute(args, shlex.join(["metro-ai", *args.argv]))


COMMANDS = {"games": _cmd_games, "bots": _cmd_bots, "match": _cmd_match, "tournament": _cmd_tournament,
            "calibrate": _cmd_calibrate,
            "analyse": _cmd_analyse, "analyze": _cmd_analyse, "play": _cmd_play, "serve": _cmd_serve,
            "web": _cmd_web, "bench": _cmd_bench}


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)      # the command, for reports
    try:
        for spec in args.game_module:            # the operator's games (never a client's: serve, web)
            register_game(spec)
        return COMMANDS[args.command](args)
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


if __name__ == "__main__":
    sys.exit(main())
