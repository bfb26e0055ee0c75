"""What a learned evaluator costs a call in Python (issue #44's cost measure): its features
(the seat's observation, encoded) and the model, against the hand-written evaluation (the game's
heuristic and its soft rank), over the positions of a few random games; medians of repeated
timings, side by side in one run.

    python benches/evaluator_cost.py EVALUATOR.json [--games 3] [--repeats 5]
"""
import argparse
import random
import statistics
import time

import metro_ai
from metro_ai.learn import Evaluator
from metro_ai.learn.selfplay import soft_rank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("evaluator")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    ev = Evaluator.load(args.evaluator)
    game = metro_ai.load_game(ev.game, **ev.options)
    rng = random.Random(1)
    states = []
    for g in range(args.games):
        s = game.new_state(g)
        while not s.is_terminal():
            states.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
    n = game.num_players

    def learned():
        for s in states:
            for p in range(n):
                ev.predict(s, p)

    def hand_written():
        for s in states:
            h = s.heuristic()
            for p in range(n):
                soft_rank(h, p, 1.0)

    times = {}
    for name, fn in (("learned", learned), ("hand-written", hand_written)):
        runs = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            fn()
            runs.append((time.perf_counter() - t) / (len(states) * n))
        times[name] = statistics.median(runs)
    print(f"{ev.game}, {len(states)} positions x {n} seats, {ev.model['kind']} model: learned "
          f"{1e6 * times['learned']:.1f} us a call, hand-written {1e6 * times['hand-written']:.1f} us; "
          f"ratio {times['learned'] / times['hand-written']:.1f}")


if __name__ == "__main__":
    main()
