"""``metro-ai tournament``: a round robin, gauntlet or ladder between bots on duplicate deals,
stored in SQLite as each game finishes (resumable), and its report with ratings."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from metro_ai.bots.catalogue import parse_specs
from metro_ai.engine.datafile import dumps
from metro_ai.optionspec import OPTION_VALUES_HELP

from .common import (BOT_SPEC_HELP, StartedProgress, add_budget_arguments, add_game_arguments, add_pool_arguments,
                     check_jobs, check_plot, game_options, limit_of, output_error, require_dask)

NAME = "tournament"
HELP = "a round robin or gauntlet between bots, with ratings"
DESCRIPTION = textwrap.dedent("""\
    Play a tournament: every table of bots (round robin: every set of --players bots;
    gauntlet: the first bot against copies of each other) on --deals deals, each deal in
    every seating (duplicate deals: the same seed with the seats rotated, so luck cancels).
    Results go into an SQLite file (--db) as each game finishes. Run the same command again,
    or --resume, to continue an interrupted tournament; Ctrl-C stops cleanly.
    Ratings on the Elo scale with 95% bootstrap intervals: Bradley-Terry for 2 players,
    Plackett-Luce (pairwise composite likelihood; openskill as a cross-check) for more.
    With iteration budgets the same --seed gives the same results anywhere; time budgets
    are not reproducible.""")
EPILOG = (BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP
          + "\n\nexit codes: 0 done, 1 interrupted, games failed or a damaged --db file, 2 bad usage (also: --db in use "
          "by another run, or a symbolic link: a tournament is never written through a link)")


def add_arguments(p):
    add_game_arguments(p, 2)
    p.add_argument("--bots", nargs="+", default=None, metavar="SPEC",
                   help="the bots (default: ismcts,greedy,random)")
    p.add_argument("--mode", choices=("round-robin", "gauntlet", "ladder"), default=None,
                   help="round-robin (default), gauntlet (the first bot against each other bot) or ladder "
                        "(bots listed weakest first, each against the next two)")
    p.add_argument("--deals", type=int, default=None, help="deals per table (default: 30)")
    p.add_argument("--seatings", choices=("rotate", "all"), default=None,
                   help="rotate: each bot in each seat once per deal (default); all: every permutation")
    p.add_argument("--seed", type=int, default=None, help="tournament seed; every game's seeds derive from it (default: 1)")
    add_budget_arguments(p, "search bots whose spec has no budget (default: the bot's own, 1,000 iterations)")
    p.add_argument("--db", default="metro-ai-tournament.sqlite", metavar="FILE",
                   help="SQLite file for the results (default: metro-ai-tournament.sqlite)")
    p.add_argument("--resume", action="store_true",
                   help="continue the tournament in --db with its stored settings (and just report if it is done)")
    p.add_argument("--overwrite", action="store_true", help="discard what --db holds and start afresh")
    add_pool_arguments(p, jobs_note="; 1: no pool")
    p.add_argument("--max-games", type=int, default=None, metavar="N", help="stop after N games this run (resume later)")
    p.add_argument("--anchor", metavar="BOT", help="fix this bot's Elo at 1500 (default: the mean is 1500)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the Elo intervals (default: 1000)")
    p.add_argument("--csv", metavar="FILE", help="write the standings as CSV")
    p.add_argument("--games-csv", metavar="FILE", help="write every game as CSV (one row per seat)")
    p.add_argument("--records", metavar="DIR",
                   help="write each game's match record to DIR/game-NNNNNN.json (for replay, analyse, review)")
    p.add_argument("--plot", metavar="DIR", help="write ratings.png and winrate.png into DIR (extra: plot)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


#: The options that describe a tournament: with --resume and none of them, the stored settings.
_CONFIG_ARGS = ("game", "players", "bots", "mode", "deals", "seatings", "seed", "iterations", "time")


def _config(args):
    from metro_ai.play.tournament import TournamentConfig
    given = any(getattr(args, k) is not None for k in _CONFIG_ARGS) or args.option
    if args.resume and not given:
        return None
    name, options = game_options(args, 2)
    return TournamentConfig(
        game=name, options=options,
        bots=parse_specs(args.bots if args.bots is not None else ["ismcts,greedy,random"]),
        mode=args.mode or "round-robin", deals=args.deals if args.deals is not None else 30,
        seatings=args.seatings or "rotate", seed=args.seed if args.seed is not None else 1, limit=limit_of(args))


def run(args) -> int:
    from metro_ai.play import report as rep
    from metro_ai.play.tournament import Tournament, TournamentError
    check_jobs(args)
    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if args.max_games is not None and args.max_games < 0:
        raise ValueError(f"--max-games must be >= 0, got {args.max_games}")
    for flag, path in (("--csv", args.csv), ("--games-csv", args.games_csv), ("--records", args.records)):
        if path and not Path(path).resolve().parent.is_dir():      # fail now, not after the games
            raise ValueError(f"{flag} {path}: no such directory")
    if args.records and Path(args.records).exists() and not Path(args.records).is_dir():
        raise ValueError(f"--records {args.records}: not a directory")
    check_plot(args)
    require_dask(args)
    config = _config(args)
    if args.resume and not Path(args.db).exists():
        raise TournamentError(f"there is no tournament to resume in {args.db!r}")
    if config is not None and args.anchor is not None and args.anchor not in config.labels:
        raise ValueError(f"--anchor {args.anchor!r} is not one of the bots: {', '.join(config.labels)}")
    progress = None
    if not args.quiet:
        progress = StartedProgress()
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
    if args.records:
        try:
            written = tournament.write_records(args.records)
        except OSError as exc:
            raise output_error("--records", args.records, exc) from None
        print(f"{len(written)} match records written to {args.records}", file=sys.stderr)
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
