"""Two builds of metro-ai side by side by the instructions their engines execute (valgrind).

    python benches/compare_instructions.py OLD_PYTHON NEW_PYTHON [--playouts 2000 | --search 3000]
        [--games SPEC ...]

The companion of `compare_builds.py` for a machine too noisy to resolve a few per cent of time:
each interpreter plays the same random play-outs (``random_playouts``, the engine's C loop) from
the same positions (the opening, and after 40 random actions) under valgrind's callgrind, which
counts only what runs inside ``random_playouts``; the count repeats to within about a hundred instructions in
millions (a build against itself: 1.000), so one run per build is enough. Instructions are not time (caches, branch prediction and code layout
are not counted), so they tell whether an engine does more work, not how fast it runs; quote both.
Needs ``valgrind`` on the PATH. ``--games`` as in `compare_builds.py` (default: Metro 2 and 4
players, Metro's modules, the solo game, Breakthrough and Leduc). ``--search N`` counts N
iterations of the search core instead (``SearchCore.run``, random play-outs to the end, the
settings every build has), for its share of the "iterations per second" question.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from compare_builds import POSITION, parse_games

CHILD = POSITION + r"""
import json, sys
import metro_ai
from metro_ai.engine.core import random_playouts

name, options, moves, n = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
state = position(metro_ai.load_game(name, **options), moves)
if sys.argv[5] == "search":
    from metro_ai.bots.search import SearchCore
    SearchCore(state, state.current_player, 7).run(iterations=n)
else:
    random_playouts(state, n, 7)
"""

DEFAULT_GAMES = ["metro:players=2", "metro:players=4", "metro:players=4,companies=true",
                 "metro:players=4,central_stations=true", "metro:players=4,city=london", "metro-solo",
                 "breakthrough:players=2", "leduc:players=2"]
# play-outs per measurement, scaled by how long a game's play-out is (Metro's is about 1/50 of
# Breakthrough's, a tenth of Metro 2033's; a Leduc hand a few actions)
SCALE = {"breakthrough": 0.05, "metro2033": 0.1, "leduc": 20.0}


def instructions(python, name, options, moves, n, search=False):
    """Instructions executed inside random_playouts for `n` play-outs from the position, or
    with `search` inside ``SearchCore.run`` for `n` iterations of the search core as built with
    its defaults (SO-ISMCTS, random play-outs to the end: the settings every build has)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        collect = "*SearchCore_*run" if search else "*random_playouts*"
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--toggle-collect={collect}",
                            f"--callgrind-out-file={out}", python, "-c", CHILD, name, json.dumps(options),
                            str(moves), str(n), "search" if search else "playouts"],
                           capture_output=True, text=True, cwd=tmp, env=env, check=False)
        if p.returncode != 0:
            raise SystemExit(f"{python}: the measurement failed:\n{p.stderr[-2000:]}")
        with open(out) as f:
            for line in f:
                m = re.match(r"(?:summary|totals):\s*(\d+)", line)
                if m:
                    return int(m.group(1))
    raise SystemExit(f"{python}: callgrind wrote no total")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--playouts", type=int, default=2000, help="Metro play-outs a measurement (others scaled)")
    ap.add_argument("--games", nargs="+", default=DEFAULT_GAMES, help="name[:option=value,...] per game")
    ap.add_argument("--search", type=int, metavar="ITERATIONS",
                    help="count a search of this many iterations (Metro; others scaled) instead of play-outs")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    search = args.search is not None
    print(f"| position | {'iterations' if search else 'play-outs'} | old | new | new / old |")
    print("|---|---:|---:|---:|---:|")
    for label, name, options in parse_games(args.games):
        n = max(1, round((args.search if search else args.playouts) * SCALE.get(name, 1.0)))
        for stage, moves in (("opening", 0), ("middle", 40)):
            old = instructions(args.old, name, options, moves, n, search)
            new = instructions(args.new, name, options, moves, n, search)
            print(f"| {label} {stage} | {n:,} | {old:,} | {new:,} | {new / old:.3f} |", flush=True)
            print(f"{label} {stage} done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
