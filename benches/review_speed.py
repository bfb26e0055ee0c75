"""How long a game review takes (issue #43's speed measure): a game of `medium` bots played,
then reviewed at `hard` with 1 and with 2 workers (threads).

    python benches/review_speed.py [--game metro2033] [--players 3] [--seed 5] [--workers 1 2]
"""
import argparse
import time

import metro_ai


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="metro2033")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    game = metro_ai.load_game(args.game, players=args.players)
    record = metro_ai.play_match(game, ["medium"] * args.players, seed=args.seed)
    states = metro_ai.replay(record)
    choices = sum(1 for s in states[:-1] if len(s.legal_actions()) > 1)
    for workers in args.workers:
        t = time.perf_counter()
        r = metro_ai.review(record, bot=args.bot, workers=workers, seed=0)
        wall = time.perf_counter() - t
        print(f"{args.game} {args.players}p: {len(record['actions'])} actions, {choices} decisions with a choice; "
              f"review by {args.bot}, {workers} worker(s): {wall:.1f} s ({r.iterations:,} iterations)", flush=True)


if __name__ == "__main__":
    main()
