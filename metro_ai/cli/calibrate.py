"""``metro-ai calibrate``: measure a difficulty ladder in Elo (random = 0), played as a ladder
tournament, and write it as the JSON that ``ismcts:elo=R,ladder=FILE`` reads."""
from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

from metro_ai.engine.datafile import dumps
from metro_ai.optionspec import OPTION_VALUES_HELP

from .common import (BOT_SPEC_HELP, StartedProgress, add_game_arguments, add_pool_arguments, check_jobs, check_plot,
                     game_options, require_dask)

NAME = "calibrate"
HELP = "measure a difficulty ladder in Elo (random = 0) for make_bot(..., elo=)"
DESCRIPTION = textwrap.dedent("""\
    Measure a difficulty ladder: the levels (weakest first; default random, ismcts at 50
    iterations without and with a margin, easy, medium, ismcts at 500 and temperature 0.1,
    ismcts at 500, greedy, ismcts at 1,500, hard, the sampled ones keeping to moves within
    0.03 of the best; Breakthrough bridges from random at 150 iterations, margins 0.1 and
    0.07) play a ladder tournament (each against the next two, --deals duplicate deals, seats
    rotated), and every level gets an Elo rating with its 95% bootstrap interval, the first
    level (random) fixed at 0. The ladder also says, per level, how often it plays the
    strongest level's move on --positions positions, and which neighbours the results cannot
    tell apart. Written as JSON to --out; ismcts:elo=R,ladder=FILE plays at rating R on it.
    Games go into --db as they finish: run the same command again to continue.""")
EPILOG = BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP


def add_arguments(p):
    add_game_arguments(p, 2)
    p.add_argument("--levels", nargs="+", default=None, metavar="SPEC",
                   help="the levels as bot specs, weakest first (default: see above); the first is rated 0")
    p.add_argument("--deals", type=int, default=None, help="duplicate deals per pairing (default: 50)")
    p.add_argument("--seed", type=int, default=None, help="seed of the games and the bootstrap (default: 2026)")
    p.add_argument("--positions", type=int, default=None, metavar="N",
                   help="positions for the agreement table (default: 200; 0: none)")
    p.add_argument("--db", default=None, metavar="FILE",
                   help="SQLite file of the games (default: the ladder's file name with .sqlite, in the working "
                        "directory, so that calibrations of different ladders keep their games apart)")
    p.add_argument("--out", default=None, metavar="FILE", help="write the ladder (JSON) to FILE (default: "
                   "ladder-GAME-Np.json)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the ladder to this PNG (extra: plot)")
    add_pool_arguments(p, dask_note=", as tournament does; the same ladder as a local run")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--json", action="store_true", help="print the ladder as JSON rather than tables")


def run(args) -> int:
    from metro_ai import ladder as lad
    check_jobs(args)
    if args.deals is not None and args.deals < 1:
        raise ValueError(f"--deals must be positive, got {args.deals}")
    if args.positions is not None and args.positions < 0:
        raise ValueError(f"--positions must be >= 0, got {args.positions}")
    check_plot(args)
    require_dask(args)
    name, options = game_options(args, 2)
    players = options.pop("players")
    out = Path(args.out or f"ladder-{name}-{players}p.json")
    args.db = args.db or Path(out.name).with_suffix(".sqlite").name
    for path in (out, Path(args.db)) + ((Path(args.plot),) if args.plot else ()):
        if not path.resolve().parent.is_dir():      # fail now, not after the games
            raise ValueError(f"{path}: no such directory")
    progress = None if args.quiet else StartedProgress()
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
