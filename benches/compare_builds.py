"""Two builds of metro-ai side by side: engine and search speed, timed in one run.

    python benches/compare_builds.py OLD_PYTHON NEW_PYTHON [--rounds 5] [--seconds 1] [--games SPEC]

Each interpreter (a virtual environment with one build installed) runs the same measurements in
a child process; the rounds alternate old, new, old, new ... so a drift in the machine's speed
hits both. Measured, per game (2 and 4 players) and stage (opening, and after 40 random actions):
random play-outs to the end per second from the position through the engine's C loop
(``random_playouts``), full random games per second driven from Python, and ismcts iterations per
second (the game's default play-outs). Printed: the medians of each build and of the rounds'
new/old ratios. ``--games`` names other games or option sets than the default (Metro and
Breakthrough, 2 and 4 players): e.g. ``--games 'metro:companies=true' 'metro:city=paris'
'metro-solo'``, each ``name[:option=value,...]`` (values read as JSON, else as text). ``--clock
cpu`` times by the child's CPU time instead of the wall clock, for a machine that other work loads. Only API present in every build is used (``load_game``, ``new_state``,
``random_playouts``, ``make_bot``, ``Limit``). Used for the "speed within 5%" check of the game
contract redesign.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# The measured positions (compare_instructions.py's child program uses it too).
POSITION = r"""
import random

def position(game, moves):
    # after up to `moves` random actions, stopping before the game would end (a short game such as
    # a Leduc hand), and past forced moves
    s = game.new_state(11)
    rng = random.Random(11)
    for _ in range(moves):
        nxt = s.clone()
        nxt.apply(rng.choice(nxt.legal_actions()))
        if nxt.is_terminal():
            break
        s = nxt
    while not s.is_terminal() and len(s.legal_actions()) < 2:
        s.apply(s.legal_actions()[0])
    return s
"""

CHILD = POSITION + r"""
import json, random, sys, time
import metro_ai
from metro_ai.engine.core import random_playouts

seconds = float(sys.argv[1])
games = json.loads(sys.argv[2])
clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter

def rate(fn):
    n, done, spent = 1, 0, 0.0
    while spent < seconds:
        t0 = clock(); fn(n); spent += clock() - t0; done += n; n *= 2
    return done / spent

def python_games(game, n):
    rng = random.Random(2)
    for i in range(n):
        s = game.new_state(i)
        k = 0
        while not s.is_terminal() and k < 5000:
            s.apply(rng.choice(s.legal_actions())); k += 1

out = {}
for label, name, options in games:
    game = metro_ai.load_game(name, **options)
    for stage, moves in (("opening", 0), ("middle", 40)):
        s = position(game, moves)
        key = f"{label} {stage}"
        out[key + " playouts/s"] = rate(lambda n: random_playouts(s, n, 7))
        bot = metro_ai.make_bot("ismcts", seed=1)
        def search(n):
            bot.analyse(s, metro_ai.Limit(iterations=200 * n))
        out[key + " ismcts it/s"] = 200 * rate(search)
    out[f"{label} python games/s"] = rate(lambda n: python_games(game, n))
print(json.dumps(out))
"""


DEFAULT_GAMES = [f"{name}:players={p}" for name in ("metro", "breakthrough") for p in (2, 4)]


def parse_games(specs):
    """[label, game name, options] for each ``name[:option=value,...]``."""
    out = []
    for spec in specs:
        name, _, rest = spec.partition(":")
        options = {}
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq:
                raise SystemExit(f"--games: {item!r} in {spec!r} is not option=value")
            try:
                options[key] = json.loads(value)
            except ValueError:
                options[key] = value
        label = name + "".join(f" {k}={v}" for k, v in options.items())
        out.append([label, name, options])
    return out


def measure(python, seconds, games, clock="wall"):
    # Run outside the checkout: `python -c` puts the working directory first on sys.path, and the
    # checkout's metro_ai/ folder would shadow the build installed in `python`'s environment.
    # One BLAS thread: numpy's OpenBLAS threads otherwise spin after a call (a tenth of the CPU
    # samples in a profile of Metro play-outs), competing with the timed work on a small machine.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    p = subprocess.run([python, "-c", CHILD, str(seconds), json.dumps(games), clock], capture_output=True, text=True,
                       cwd=tempfile.gettempdir(), env=env, check=False)
    if p.returncode != 0:
        raise SystemExit(f"{python}: the measurement failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--games", nargs="+", default=DEFAULT_GAMES,
                    help="name[:option=value,...] per game (default: metro and breakthrough, 2 and 4 players)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time the work by the wall clock (default) or by the child's CPU time, which a loaded "
                         "machine disturbs less (other processes' time is not counted, their cache traffic is)")
    args = ap.parse_args(argv)
    games = parse_games(args.games)
    old, new = [], []
    for r in range(args.rounds):
        old.append(measure(args.old, args.seconds, games, args.clock))
        new.append(measure(args.new, args.seconds, games, args.clock))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(f"| measure | old | new | new / old (median of {args.rounds} rounds) |")
    print("|---|---:|---:|---:|")
    ratios = []
    for key in old[0]:
        o = statistics.median(x[key] for x in old)
        n = statistics.median(x[key] for x in new)
        ratio = statistics.median(b[key] / a[key] for a, b in zip(old, new))
        ratios.append(ratio)
        print(f"| {key} | {o:,.0f} | {n:,.0f} | {ratio:.3f} |")
    print(f"| **median of all ratios** | | | **{statistics.median(ratios):.3f}** |")


if __name__ == "__main__":
    main()
