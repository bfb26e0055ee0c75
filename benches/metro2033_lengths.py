"""Game lengths of Metro 2033 (the board game) on the pure-Python reference engine: rounds and
decisions per game with uniformly random play and with the tests' card-aware random policy
(``card_aware`` in tests/metro2033/test_metro2033_reference.py), per player count, with the share of games
won by G2 (the rest reach the round limit of G30) and the reference engine's speed; the same with
the greedy bot (``make_bot("greedy")``) playing every seat of the registered game
(``load_game("metro2033")``); then random full games per second in the contract's C loop
(``random_playouts`` on ``Metro2033State``, a fresh deal a game) against the reference, measured
in the same run. (Earlier results also had a column for the state machine's own Python-driven
loop, ``FastMetro2033.random_playout``; that second Python API is gone.)

Usage: python benches/metro2033_lengths.py [--games 50] [--greedy-games 20] [--players 2 3 4 5 6]
[--round-limit 40]
"""
import argparse
import random
import statistics
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS / "metro2033"), str(TESTS)]   # the test module, and the helpers it imports

import metro_ai  # noqa: E402
from metro_ai.engine.core import random_playouts  # noqa: E402
from metro_ai.engine.metro2033.reference import RefMetro2033Game  # noqa: E402
from test_metro2033_reference import card_aware  # noqa: E402


def run(game, games, policy):
    rounds, steps, wins = [], [], 0
    t0 = time.perf_counter()
    for seed in range(games):
        s = game.new_state(seed)
        rng = random.Random(seed)
        k = 0
        while not s.is_terminal():
            s.apply(policy(s, rng))
            k += 1
        rounds.append(s.round)
        steps.append(k)
        wins += s.winner is not None
    return rounds, steps, wins, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--greedy-games", type=int, default=20)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    ap.add_argument("--round-limit", type=int, default=40)
    args = ap.parse_args()
    policies = {"uniform": lambda s, rng: rng.choice(s.legal_actions()), "card-aware": card_aware}
    print("| policy | players | rounds mean (min-max) | decisions mean (min-max) | G2 wins | games/s |")
    print("|---|---|---|---|---|---|")
    for name, policy in policies.items():
        for n in args.players:
            game = RefMetro2033Game(players=n, round_limit=args.round_limit)
            rounds, steps, wins, secs = run(game, args.games, policy)
            print(f"| {name} | {n} | {statistics.mean(rounds):.1f} ({min(rounds)}-{max(rounds)}) | "
                  f"{statistics.mean(steps):.0f} ({min(steps)}-{max(steps)}) | {wins}/{args.games} | "
                  f"{args.games / secs:.0f} |")
    for n in args.players:
        game = metro_ai.load_game("metro2033", players=n, round_limit=args.round_limit)
        bots = {}

        def greedy(s, rng):
            bot = bots.setdefault(s.current_player, metro_ai.make_bot("greedy", seed=s.current_player))
            return bot.choose(s, None)
        rounds, steps, wins, secs = run(game, args.greedy_games, greedy)
        print(f"| greedy | {n} | {statistics.mean(rounds):.1f} ({min(rounds)}-{max(rounds)}) | "
              f"{statistics.mean(steps):.0f} ({min(steps)}-{max(steps)}) | {wins}/{args.greedy_games} | "
              f"{args.greedy_games / secs:.1f} |")
    print()
    print("| players | reference games/s | contract C loop games/s | ratio |")
    print("|---|---|---|---|")
    uniform = policies["uniform"]
    for n in args.players:
        ref_rate = args.games / run(RefMetro2033Game(players=n, round_limit=args.round_limit), args.games, uniform)[3]
        fast_games = 20 * args.games
        game = metro_ai.load_game("metro2033", players=n, round_limit=args.round_limit)
        t0 = time.perf_counter()
        for seed in range(fast_games):
            random_playouts(game.new_state(seed), 1, seed)
        c_rate = fast_games / (time.perf_counter() - t0)
        print(f"| {n} | {ref_rate:.0f} | {c_rate:.0f} | {c_rate / ref_rate:.0f}x |")


if __name__ == "__main__":
    main()
