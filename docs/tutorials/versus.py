"""This build against another build of metro-ai with ``metro-ai bench --versus``, and what its
JSON result says.

    python docs/tutorials/versus.py                                 # an A/A check: this build against itself
    python docs/tutorials/versus.py --other ../last/.venv/bin/metro-ai --games 200
    python docs/tutorials/versus.py --other ../last/.venv/bin/metro-ai --sprt --elo1 30 --time 0.05

The other build is named by its ``metro-ai`` executable (``--other``); by default it is this
build's own, which makes an A/A check: the tool against itself, whose score should be 50% within
its interval. ``--metro-ai`` is this build's executable (default: the one beside the Python
running this script). ``python docs/tutorials/versus.py --help`` lists the options.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path


def this_metro_ai() -> str:
    """The metro-ai executable of the environment running this script, else the one on PATH."""
    beside = Path(sys.executable).parent / "metro-ai"
    return str(beside) if beside.exists() else shutil.which("metro-ai") or "metro-ai"


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark this build against another with metro-ai bench --versus.")
    parser.add_argument("--metro-ai", default=this_metro_ai(), metavar="PATH",
                        help="this build's metro-ai (default: the one beside this Python)")
    parser.add_argument("--other", metavar="PATH", help="the other build's metro-ai (default: this build's: an A/A check)")
    parser.add_argument("--game", default="metro", help="the game (default metro)")
    parser.add_argument("--bot", default="hard", help="both builds' bot spec (default hard)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, default=500, help="iterations a move, both sides (default 500)")
    budget.add_argument("--time", type=float, help="instead of --iterations: seconds a move (not reproducible)")
    parser.add_argument("--games", type=int, default=20, help="games of a fixed-length run (default 20)")
    parser.add_argument("--sprt", action="store_true", help="play until the SPRT decides instead (or --max-games)")
    parser.add_argument("--elo0", type=float, default=0.0, help="the SPRT's H0, in Elo (default 0)")
    parser.add_argument("--elo1", type=float, default=30.0, help="the SPRT's H1, in Elo (default 30)")
    parser.add_argument("--max-games", type=int, default=1000, help="the SPRT's cap on games (default 1000)")
    parser.add_argument("--jobs", type=int, default=1, help="pairs of games at a time (default 1)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed of the deals (default 2026)")
    parser.add_argument("--out", default="versus.json", help="the JSON result (default versus.json; "
                                                             "the Markdown summary goes beside it)")
    args = parser.parse_args()
    other = args.other or args.metro_ai
    if Path(other).exists():
        other = str(Path(other).absolute())     # the tool starts the other build's server in another folder

    command = [args.metro_ai, "bench", "--versus", other, "--game", args.game, "--bot", args.bot,
               "--seed", str(args.seed), "--jobs", str(args.jobs),
               "--out", args.out, "--markdown", str(Path(args.out).with_suffix(".md"))]
    command += ["--time", str(args.time)] if args.time else ["--iterations", str(args.iterations)]
    if args.sprt:
        command += ["--elo0", str(args.elo0), "--elo1", str(args.elo1), "--max-games", str(args.max_games)]
    else:
        command += ["--games", str(args.games)]
    print("$ " + shlex.join(command), flush=True)
    done = subprocess.run(command, stdout=subprocess.DEVNULL)   # progress lines on stderr; the table in the .md
    if done.returncode != 0:
        sys.exit(done.returncode)                               # its stderr said why

    report = json.loads(Path(args.out).read_text())
    s, settings = report["summary"], report["settings"]
    budget_text = f"{settings['iterations']} iterations" if settings["iterations"] else f"{settings['time']} s"
    print(f"this build {report['this']['version']} ({settings['bot']}) against {' '.join(report['other']['command'])} "
          f"{report['other']['version']} ({settings['other_bot']}): {settings['game']}, {settings['players']} players, "
          f"{budget_text} a move")
    print(f"{s['games']} games ({s['pairs']} deals, each played twice with the seats swapped): "
          f"{s['wins']} won, {s['draws']} drawn, {s['losses']} lost")
    print("pair scores (the mean of a deal's two games): "
          + ", ".join(f"{value} in {count} deal(s)" for value, count in s["pair_scores"].items()))
    print(f"score {s['score']:.1%}, 95% Wilson interval {s['wilson_low']:.1%} to {s['wilson_high']:.1%}")
    print(f"Elo {s['elo']:+.0f}, 95% interval {s['elo_low']:+.0f} to {s['elo_high']:+.0f} (from the pair scores)")
    low, high = s["llr_bounds"]
    print(f"SPRT (H0 {s['elo0']:g} Elo, H1 {s['elo1']:g} Elo): LLR {s['llr']:.2f} in [{low:.2f}, {high:.2f}], "
          f"verdict {s['verdict'] or 'none (a fixed number of games)'}")
    if Path(other).resolve() == Path(args.metro_ai).resolve():
        inside = s["wilson_low"] <= 0.5 <= s["wilson_high"]
        print("A/A check: 50% is " + ("inside the interval, as it should be" if inside else
                                      "outside the interval: look at the set-up before trusting a real run"))


if __name__ == "__main__":
    main()
