"""How long a game review takes (issue #43's speed measure): a game of `medium` bots played,
then reviewed at `hard` with 1 and with 2 workers (threads). With ``--points-cost``, what keeping
the score margins for the loss in points costs: each decision's search timed with and without
them, alternately, one worker; the median ratio.

    python benches/review_speed.py [--game metro2033] [--players 3] [--seed 5] [--workers 1 2]
    python benches/review_speed.py --game metro --players 2 --points-cost
"""
import argparse
import statistics
import time

from metro_ai.bots.catalogue import BotSpec

import metro_ai


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="metro2033")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--points-cost", action="store_true", help="time the searches with and without points")
    args = ap.parse_args()
    game = metro_ai.load_game(args.game, players=args.players)
    record = metro_ai.play_match(game, ["medium"] * args.players, seed=args.seed)
    states = metro_ai.replay(record)
    choices = sum(1 for s in states[:-1] if len(s.legal_actions()) > 1)
    if args.points_cost:
        points_cost(args, states, choices)
        return
    for workers in args.workers:
        t = time.perf_counter()
        r = metro_ai.review(record, bot=args.bot, workers=workers, seed=0)
        wall = time.perf_counter() - t
        print(f"{args.game} {args.players}p: {len(record['actions'])} actions, {choices} decisions with a choice; "
              f"review by {args.bot}, {workers} worker(s): {wall:.1f} s ({r.iterations:,} iterations)", flush=True)


def points_cost(args, states, choices):
    """Each decision searched twice by the same seeded bot, with and without points, in turn
    (which goes first alternates): the ratios of their times, and their median."""
    spec = BotSpec.parse(args.bot)
    ratios, plain_total, kept_total = [], 0.0, 0.0
    for i, s in enumerate(x for x in states[:-1] if len(x.legal_actions()) > 1):
        times = {}
        for points in ((False, True) if i % 2 == 0 else (True, False)):
            bot = spec.make(seed=i)
            t = time.perf_counter()
            bot.analyse(s, points=points)
            times[points] = time.perf_counter() - t
        ratios.append(times[True] / times[False])
        plain_total += times[False]
        kept_total += times[True]
    print(f"{args.game} {args.players}p, {choices} decisions by {args.bot}: without points {plain_total:.2f} s, "
          f"with {kept_total:.2f} s; median ratio {statistics.median(ratios):.3f} "
          f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}-{statistics.quantiles(ratios, n=4)[2]:.3f})")


if __name__ == "__main__":
    main()
