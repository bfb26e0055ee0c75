"""``metro-ai review``: a recorded game reviewed decision by decision (see
:mod:`metro_ai.play.review`): each seat's marked moves with the better move, its accuracy and its
luck; ``--json`` writes the whole review, ``--plot`` the win-chance graph. Several records, or a
tournament's file, are reviewed in bulk (``--jobs``, ``--dask``) and summed up per bot."""
from __future__ import annotations

import sys

from pathlib import Path

from .common import (BOT_SPEC_HELP, add_budget_arguments, add_pool_arguments, check_jobs, check_plot, check_writable,
                     limit_of, output_error, require_dask)

NAME = "review"
HELP = "review a recorded game: each decision's cost, each seat's accuracy and luck, a win-chance graph"
EPILOG = BOT_SPEC_HELP


def add_arguments(p):
    p.add_argument("record", metavar="RECORD.json", nargs="+",
                   help="a match record (metro-ai play and match --save, tournament --records, metro_ai.play_match, "
                        "the protocol's save); several, or a tournament's FILE.sqlite, are reviewed in bulk")
    p.add_argument("--bot", default="hard", metavar="SPEC",
                   help="the search bot or preset that values each decision (default: hard)")
    add_budget_arguments(p, "the reviewing bot (default: the spec's, else the bot's own)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="decisions searched at once, one thread each (default: 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the review's searches (default: 0)")
    p.add_argument("--repeats", type=int, default=1, metavar="K",
                   help="independent searches a decision, summed (the noise then also from their spread; default: 1)")
    p.add_argument("--seat", type=int, action="append", default=None, metavar="K",
                   help="review this seat only (repeatable; default: every seat; one record only)")
    add_pool_arguments(p, "; several records: one game a job", "; several records")
    p.add_argument("--json", default=None, metavar="FILE", help="write the whole review as JSON ('-': stdout)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="the win-chance graph, marked decisions as dots (needs the plot extra: matplotlib; one record only)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


#: The first bytes of an SQLite file (a tournament's).
_SQLITE = b"SQLite format 3\x00"


def _bulk(args):
    """The records to review in bulk and their keys (a tournament's game ids), or None for one."""
    if len(args.record) == 1:
        try:
            with open(args.record[0], "rb") as f:
                if f.read(len(_SQLITE)) != _SQLITE:
                    return None
        except OSError:
            return None                                 # review() names the file and what is wrong
        from metro_ai.play.tournament import Tournament
        tournament = Tournament(db=args.record[0])
        ids = [g["id"] for g in tournament.results().games]
        if not ids:
            raise ValueError(f"{args.record[0]}: the tournament has no game done yet")
        return tournament.records(ids), ids
    return [Path(r) for r in args.record], None


def run(args) -> int:
    from metro_ai.engine.datafile import dumps
    from metro_ai.play.report import ProgressLine
    from metro_ai.play.review import review, review_games, review_summary, summary_table
    bulk = _bulk(args)
    if bulk is not None:                    # (a wrong combination first: before what is missing to carry it out)
        for flag, given in (("--plot", args.plot), ("--seat", args.seat)):
            if given:
                raise ValueError(f"{flag} is for one record; several are reviewed whole and summed up per bot")
    elif args.dask:
        raise ValueError("--dask reviews several games, one a job; one record is reviewed here (--workers threads)")
    check_plot(args)
    check_jobs(args)
    require_dask(args)
    for flag, path in (("--json", args.json if args.json != "-" else None), ("--plot", args.plot)):
        if path:
            check_writable(flag, path)
    bar = None if args.quiet else ProgressLine(unit="search" if bulk is None else "game")
    try:
        if bulk is None:
            result = review(args.record[0], bot=args.bot, limit=limit_of(args), workers=args.workers,
                            seed=args.seed, seats=args.seat, repeats=args.repeats, progress=bar)
        else:
            reviews = review_games(bulk[0], bot=args.bot, limit=limit_of(args), seed=args.seed, repeats=args.repeats,
                                   workers=args.workers, jobs=args.jobs, dask=args.dask, keys=bulk[1], progress=bar)
    finally:
        if bar is not None:
            bar.close()
    if bulk is None:
        data, text = result.to_dict(), result.table()
    else:
        rows = review_summary(reviews)
        names = bulk[1] if bulk[1] is not None else args.record
        data = {"format": "metro-ai-reviews", "version": 1, "bots": rows,
                "games": [{"source": str(name), **r.to_dict()} for name, r in zip(names, reviews)]}
        text = f"{len(reviews)} games reviewed by {reviews[0].describe(args.seed)}, per bot:\n" + summary_table(rows)
    if args.json == "-":
        print(dumps(data, indent=2))
    else:
        print(text)
    if args.json and args.json != "-":
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(dumps(data, indent=2) + "\n")
        except OSError as exc:
            raise output_error("--json", args.json, exc) from None
        print(f"review written to {args.json}", file=sys.stderr)
    if args.plot:
        from metro_ai.play.review import plot_review
        try:
            plot_review(result, args.plot)
        except OSError as exc:
            raise output_error("--plot", args.plot, exc) from None
        print(f"win-chance graph written to {args.plot}", file=sys.stderr)
    return 0
