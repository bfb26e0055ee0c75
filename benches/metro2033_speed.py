"""Metro 2033's random full games per second against its pure-Python reference, at every player
count, for one build or two builds side by side in one run.

    python benches/metro2033_speed.py [OLD_PYTHON] NEW_PYTHON [--rounds 5] [--games 10]
        [--players 2 3 4 5 6]

Each round runs, per player count, in child processes of the given interpreters (virtual
environments with one build installed each): the reference engine (``reference.py``, uniformly
random play, `--games` games from seeds 0..) and the contract's C loop (``random_playouts`` on a
fresh ``load_game("metro2033")`` deal a game, 50 x `--games` games); the rounds alternate old,
new, so a drift in the machine's speed hits both. Printed: the medians over the rounds of games
per second and of each round's C loop / reference ratio (the reference is timed in the round's
first interpreter; it is pure Python and the same in every build).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, random, sys, time
import metro_ai
from metro_ai.engine.core import random_playouts
from metro_ai.engine.metro2033.reference import RefMetro2033Game

players, games, with_ref = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
out = {}
if with_ref:
    game = RefMetro2033Game(players=players)
    t0 = time.perf_counter()
    for seed in range(games):
        s = game.new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
    out["ref"] = games / (time.perf_counter() - t0)
game = metro_ai.load_game("metro2033", players=players)
n = 50 * games
t0 = time.perf_counter()
for seed in range(n):
    random_playouts(game.new_state(seed), 1, seed)
out["fast"] = n / (time.perf_counter() - t0)
print(json.dumps(out))
"""


def measure(python, players, games, with_ref):
    # Run outside the checkout, so that its metro_ai/ folder does not shadow the installed build.
    p = subprocess.run([python, "-c", CHILD, str(players), str(games), "1" if with_ref else "0"],
                       capture_output=True, text=True, cwd=tempfile.gettempdir(), check=False)
    if p.returncode != 0:
        raise SystemExit(f"{python}: the measurement failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pythons", nargs="+", metavar="PYTHON", help="one interpreter, or OLD and NEW")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    args = ap.parse_args(argv)
    if len(args.pythons) > 2:
        ap.error("give one interpreter, or two (OLD NEW)")
    builds = ["old", "new"] if len(args.pythons) == 2 else ["new"]
    rows = {}
    for r in range(args.rounds):
        for n in args.players:
            got = {}
            for i, (name, python) in enumerate(zip(builds, args.pythons)):
                m = measure(python, n, args.games, with_ref=i == 0)
                got.setdefault("ref", m.get("ref"))
                got[name] = m["fast"]
            rows.setdefault(n, []).append(got)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    med = statistics.median
    head = "| players | reference games/s |"
    for b in builds:
        head += f" {b}: C loop games/s | {b} / reference |"
    if len(builds) == 2:
        head += " new / old |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for n, rs in rows.items():
        line = f"| {n} | {med(x['ref'] for x in rs):.1f} |"
        for b in builds:
            line += f" {med(x[b] for x in rs):,.0f} | {med(x[b] / x['ref'] for x in rs):.0f}x |"
        if len(builds) == 2:
            line += f" {med(x['new'] / x['old'] for x in rs):.2f} |"
        print(line)


if __name__ == "__main__":
    main()
