"""Our ``ismcts`` against OpenSpiel's ISMCTS on the same game, position and iteration budget.

Both search the Metro opening (deal seed 11: ``load_game("metro", players=n).new_state(11)`` for
ours, the same deal through ``metro_ai.interop.openspiel`` for OpenSpiel's) with random play-outs
to the end of the game, one thread, and report iterations (simulations) per second and the ratio.

OpenSpiel's bot: its C++ ``pyspiel.ISMCTSBot`` if it runs on the bridged game, else its Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (with ``RandomRolloutEvaluator(1)``). The C++ bot
is probed in a child process first, because on a game registered from Python (whose
``resample_from_infostate`` is Python) it crashed with a segmentation fault in open-spiel 2.0.2;
the table says which bot ran.

Usage: python benches/openspiel_compare.py [--iterations 1000] [--players 2 4] [--repeats 3]
Needs the optional extra: pip install "metro-ai[openspiel]".
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import metro_ai

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts
    from metro_ai.interop import openspiel as bridge
except ImportError as exc:
    sys.exit(f"openspiel_compare: {exc}")

DEAL = 11
UCT_C = 0.7                      # our default exploration constant; returns are in [0, 1] for both


def bridged_opening(players):
    game = bridge.load("metro", players=players)
    state = game.new_initial_state()
    state.apply_action(DEAL)
    return game, state


def ours(players, iterations, seed):
    state = metro_ai.load_game("metro", players=players).new_state(DEAL)
    bot = metro_ai.make_bot("ismcts", seed=seed, c=UCT_C)
    r = bot.analyse(state, metro_ai.Limit(iterations=iterations))
    return r.iterations / r.seconds


def openspiel_python(players, iterations, seed):
    game, state = bridged_opening(players)
    bot = os_ismcts.ISMCTSBot(game, os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                              uct_c=UCT_C, max_simulations=iterations,
                              random_state=np.random.RandomState(seed))
    t0 = time.perf_counter()
    bot.run_search(state)
    return iterations / (time.perf_counter() - t0)


def openspiel_cpp(players, iterations, seed):
    game, state = bridged_opening(players)
    bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, iterations)
    t0 = time.perf_counter()
    bot.step(state)
    return iterations / (time.perf_counter() - t0)


def cpp_works(players):
    """Run the C++ bot in a child process: it may crash the interpreter."""
    try:
        p = subprocess.run([sys.executable, __file__, "--cpp-probe", str(players)],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    if p.returncode == 0:
        return True, "ran"
    if p.returncode < 0:
        return False, f"killed by signal {-p.returncode}"
    return False, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:120]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cpp-probe", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cpp_probe is not None:
        openspiel_cpp(args.cpp_probe, 50, 0)
        return

    print(f"Python {platform.python_version()}, open_spiel {getattr(pyspiel, '__version__', '?')}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs; Metro opening (deal {DEAL}), "
          f"{args.iterations} iterations, uct_c {UCT_C}, random play-outs, 1 thread, "
          f"median of {args.repeats}\n")
    rows = []
    for n in args.players:
        ok, why = cpp_works(n)
        which, fn = ("C++ pyspiel.ISMCTSBot", openspiel_cpp) if ok else ("Python ismcts.ISMCTSBot", openspiel_python)
        a = statistics.median(ours(n, args.iterations, s) for s in range(args.repeats))
        b = statistics.median(fn(n, args.iterations, s) for s in range(args.repeats))
        rows.append((n, a, b, which, why))
    print("| players | metro-ai ismcts (it/s) | OpenSpiel ISMCTS (it/s) | ratio | OpenSpiel bot used | C++ bot probe |")
    print("|---|---|---|---|---|---|")
    for n, a, b, which, why in rows:
        print(f"| {n} | {a:,.0f} | {b:,.0f} | {a / b:,.0f}x | {which} | {why} |")


if __name__ == "__main__":
    main()
