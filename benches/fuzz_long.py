"""A long fuzzing run: tests/fuzz_inputs.py again and again, a new seed each time, for a while.

    python benches/fuzz_long.py --minutes 60 [--examples 5000] [--first-seed 1]

Each run is a child process (a crash fails it, and is reported with its seed); the totals of
every outcome are printed at the end. The exit code is 1 if any run failed.
"""
import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "tests" / "fuzz_inputs.py"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--examples", type=int, default=5000, help="examples per target per run")
    ap.add_argument("--first-seed", type=int, default=1)
    args = ap.parse_args(argv)
    totals, failures, runs = collections.Counter(), [], 0
    t0 = time.time()
    seed = args.first_seed
    while time.time() - t0 < args.minutes * 60:
        run = subprocess.run([sys.executable, str(SCRIPT), "--examples", str(args.examples), "--seed", str(seed)],
                             capture_output=True, text=True, cwd=tempfile.gettempdir())
        runs += 1
        last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
        for what, n in re.findall(r"([a-z ]+?) (\d+)(?:,|$)", last.removeprefix("fuzz: ")):
            totals[what.strip()] += int(n)
        if run.returncode != 0:
            failures.append((seed, run.returncode, (run.stdout + run.stderr)[-2000:]))
            print(f"seed {seed}: FAILED (exit {run.returncode})\n{failures[-1][2]}", file=sys.stderr, flush=True)
        else:
            print(f"seed {seed}: {last}", file=sys.stderr, flush=True)
        seed += 1
    minutes = (time.time() - t0) / 60
    print(f"{runs} runs (seeds {args.first_seed}-{seed - 1}), {minutes:.1f} minutes, {len(failures)} failed: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(totals.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
