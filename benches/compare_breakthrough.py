"""Side by side, in one run: random full Breakthrough games per second for the Cython engine
(C-level playout loop and Python-driven loop) and the pure-Python reference engine, medians of
repeats; then the distribution of game lengths (turns and actions).

All three engines play uniformly random legal actions with the default turn limit (1000 turns,
R18); uniform play cleans up its own progress, so almost every such game reaches the limit.
Game lengths are reported for uniform play and for the reference tests' card-aware random policy
(completes quests, keeps stations, rarely cleans up), whose games end with a winner (B8).

Usage: python benches/compare_breakthrough.py [--players 2 3 4 5] [--repeats 5] [--json out.json]
"""
import argparse
import json
import platform
import random
import statistics
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS / "breakthrough"), str(TESTS)]   # the test module, and the helpers it imports

import metro_ai  # noqa: E402
from metro_ai.bench.engine import random_game_rates  # noqa: E402  (the timed loops of metro-ai bench)
from metro_ai.engine.breakthrough import reference as ref
from test_breakthrough_reference import _policy  # noqa: E402  (the card-aware random policy)


def lengths(game, games, greedy, seed0=0):
    """(turns, actions) of `games` games on the Cython engine."""
    turns, actions = [], []
    for i in range(games):
        s = game.new_state(seed0 + i)
        rng = random.Random(seed0 + i)
        n = 0
        while not s.is_terminal():
            la = s.legal_actions()
            s.apply(_policy(s, rng, greedy, la))
            n += 1
        turns.append(s.turn)
        actions.append(n)
    return turns, actions


def summary(xs):
    q = statistics.quantiles(xs, n=4)
    return {"mean": statistics.fmean(xs), "median": statistics.median(xs), "q1": q[0], "q3": q[2],
            "max": max(xs)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--length-games", type=int, default=200)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    rows, dist = [], []
    for players in args.players:
        game = metro_ai.load_game("breakthrough", players=players)
        rgame = ref.RefBreakthroughGame(players=players)
        rates = random_game_rates(game, rgame, (200, 10, 2), args.repeats)
        rows.append({"players": players, "cython_c_loop": rates["c_loop"], "cython_python_loop": rates["python_loop"],
                     "reference": rates["reference"], "ratio_c_loop": rates["c_loop_ratio"],
                     "ratio_python_loop": rates["python_loop_ratio"]})
        for policy, greedy in (("uniform", False), ("card-aware", True)):
            turns, actions = lengths(game, args.length_games, greedy)
            dist.append({"players": players, "policy": policy, "games": args.length_games,
                         "turns": summary(turns), "actions": summary(actions)})
    print(f"Breakthrough random full games per second (uniform play, turn limit 1000; median of "
          f"{args.repeats}; {platform.processor() or platform.machine()}, Python {platform.python_version()})")
    print("| players | Cython, C loop | Cython, Python loop | reference | C loop / reference | Python loop / reference |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['players']} | {row['cython_c_loop']:,.0f} | {row['cython_python_loop']:,.1f} | "
              f"{row['reference']:,.2f} | {row['ratio_c_loop']:,.0f}x | {row['ratio_python_loop']:,.0f}x |")
    print()
    print(f"Game lengths ({args.length_games} games per row): turns / actions, mean, median, quartiles, max")
    print("| players | policy | turns mean | median | Q1-Q3 | max | actions mean | median | Q1-Q3 | max |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in dist:
        t, a = row["turns"], row["actions"]
        print(f"| {row['players']} | {row['policy']} | {t['mean']:.0f} | {t['median']:.0f} | "
              f"{t['q1']:.0f}-{t['q3']:.0f} | {t['max']} | {a['mean']:.0f} | {a['median']:.0f} | "
              f"{a['q1']:.0f}-{a['q3']:.0f} | {a['max']} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": platform.platform(), "rows": rows,
                                               "lengths": dist}, indent=2))


if __name__ == "__main__":
    main()
