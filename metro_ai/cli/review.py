"""``metro-ai review``: a recorded game reviewed decision by decision (see
:mod:`metro_ai.play.review`): each seat's marked moves with the better move, its accuracy and its
luck; ``--json`` writes the whole review, ``--plot`` the win-chance graph."""
from __future__ import annotations

import sys

from .common import BOT_SPEC_HELP, add_budget_arguments, check_plot, check_writable, limit_of, output_error

NAME = "review"
HELP = "review a recorded game: each decision's cost, each seat's accuracy and luck, a win-chance graph"
EPILOG = BOT_SPEC_HELP


def add_arguments(p):
    p.add_argument("record", metavar="RECORD.json",
                   help="a match record (metro-ai play and match --save, metro_ai.play_match, the protocol's save)")
    p.add_argument("--bot", default="hard", metavar="SPEC",
                   help="the search bot or preset that values each decision (default: hard)")
    add_budget_arguments(p, "the reviewing bot (default: the spec's, else the bot's own)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="decisions searched at once, one thread each (default: 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the review's searches (default: 0)")
    p.add_argument("--repeats", type=int, default=1, metavar="K",
                   help="independent searches a decision, summed (the noise then also from their spread; default: 1)")
    p.add_argument("--seat", type=int, action="append", default=None, metavar="K",
                   help="review this seat only (repeatable; default: every seat)")
    p.add_argument("--json", default=None, metavar="FILE", help="write the whole review as JSON ('-': stdout)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="the win-chance graph, marked decisions as dots (needs the plot extra: matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    from metro_ai.engine.datafile import dumps
    from metro_ai.play.report import ProgressLine
    from metro_ai.play.review import review
    check_plot(args)
    for flag, path in (("--json", args.json if args.json != "-" else None), ("--plot", args.plot)):
        if path:
            check_writable(flag, path)
    bar = None if args.quiet else ProgressLine(unit="search")
    try:
        result = review(args.record, bot=args.bot, limit=limit_of(args), workers=args.workers, seed=args.seed,
                        seats=args.seat, repeats=args.repeats, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    if args.json == "-":
        print(dumps(result.to_dict(), indent=2))
    else:
        print(result.table())
    if args.json and args.json != "-":
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(dumps(result.to_dict(), indent=2) + "\n")
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
