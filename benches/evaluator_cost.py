"""What a learned evaluator costs (issue #44's cost measure), side by side in one run, over the
positions of a few random games (medians of repeated timings):

- a call: in Python (`Evaluator.predict`: the seat's observation built and encoded with numpy,
  the model), as the search computes it (`LearnedValue.predict`: the features by the game's
  ``c_features``, the model in C; one Python call each), against the hand-written evaluation
  (the game's heuristic and its soft rank, from Python);
- the search: ISMCTS iterations a second (`ismcts`, `--iterations` each, one thread) with the
  game's hand-written cut-off and with ``eval=learned`` on this evaluator, the median over
  positions of their ratio.

    python benches/evaluator_cost.py EVALUATOR.json [--games 3] [--repeats 5] [--iterations 2000]
"""
import argparse
import random
import statistics
import time

import metro_ai
from metro_ai.bots.catalogue import BotSpec
from metro_ai.bots.limit import Limit
from metro_ai.bots.evaluator import load_learned
from metro_ai.learn import Evaluator
from metro_ai.learn.selfplay import soft_rank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("evaluator")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=2000)
    args = ap.parse_args()
    ev = Evaluator.load(args.evaluator)
    fast = load_learned(args.evaluator)
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

    def learned_c():
        for s in states:
            for p in range(n):
                fast.predict(s, p)

    def hand_written():
        for s in states:
            h = s.heuristic()
            for p in range(n):
                soft_rank(h, p, 1.0)

    times = {}
    for name, fn in (("learned", learned), ("learned in C", learned_c), ("hand-written", hand_written)):
        runs = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            fn()
            runs.append((time.perf_counter() - t) / (len(states) * n))
        times[name] = statistics.median(runs)
    print(f"{ev.game}, {len(states)} positions x {n} seats, {ev.model['kind']} model, a call: learned in Python "
          f"{1e6 * times['learned']:.1f} us, as the search computes it {1e6 * times['learned in C']:.2f} us, "
          f"hand-written {1e6 * times['hand-written']:.1f} us")
    ratios, speeds = [], {"hand-written": [], "learned": []}
    for s in states[::max(1, len(states) // 12)]:
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        got = {}
        for name, spec in (("hand-written", "ismcts"), ("learned", f"ismcts:evaluator={args.evaluator}")):
            bot = BotSpec.parse(spec).make(seed=1)
            t = time.perf_counter()
            bot.analyse(s, Limit(iterations=args.iterations))
            got[name] = args.iterations / (time.perf_counter() - t)
            speeds[name].append(got[name])
        ratios.append(got["learned"] / got["hand-written"])
    print(f"search, {len(ratios)} positions, {args.iterations} iterations: hand-written "
          f"{statistics.median(speeds['hand-written']):,.0f} iterations/s, learned "
          f"{statistics.median(speeds['learned']):,.0f}; median ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
