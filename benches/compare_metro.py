"""Side by side, in one run: random full Metro games per second for the Cython engine (C-level
playout loop and Python-driven loop) and the pure-Python reference engine; medians of repeats.

Usage: python benches/compare_metro.py [--players 2 4] [--repeats 5] [--json out.json]
"""
import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import metro_ai  # noqa: E402
from metro_ai.engine.core import random_playouts  # noqa: E402
from reference import metro_ref as ref  # noqa: E402


def rate(fn, games, repeats):
    """Median games per second over `repeats` timed runs of `fn(games)`."""
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(games)
        rates.append(games / (time.perf_counter() - t0))
    return statistics.median(rates)


def random_game_rates(game, rgame, counts, repeats):
    """Random full games per second (medians) for the Cython engine driven by the C-level
    play-out loop and from Python, and for the reference engine `rgame`; `counts` gives how
    many games each timed run plays, (C loop, Python loop, reference)."""
    start = game.new_state(seed=1)

    def c_loop(n):
        random_playouts(start, n, 7)

    def python_loop(g, n):
        rng = random.Random(2)
        for i in range(n):
            s = g.new_state(i)
            while not s.is_terminal():
                s.apply(rng.choice(s.legal_actions()))

    return (rate(c_loop, counts[0], repeats), rate(lambda n: python_loop(game, n), counts[1], repeats),
            rate(lambda n: python_loop(rgame, n), counts[2], repeats))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    rows = []
    for players in args.players:
        game = metro_ai.load_game("metro", players=players)
        rgame = ref.RefMetroGame(players=players)
        c, py, r = random_game_rates(game, rgame, (20000, 300, 30), args.repeats)
        rows.append({"players": players, "cython_c_loop": c, "cython_python_loop": py, "reference": r,
                     "ratio_c_loop": c / r, "ratio_python_loop": py / r})
    print(f"Metro random full games per second (median of {args.repeats}; {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()})")
    print("| players | Cython, C loop | Cython, Python loop | reference | C loop / reference | Python loop / reference |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['players']} | {row['cython_c_loop']:,.0f} | {row['cython_python_loop']:,.0f} | "
              f"{row['reference']:,.1f} | {row['ratio_c_loop']:,.0f}x | {row['ratio_python_loop']:,.0f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": platform.platform(), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
