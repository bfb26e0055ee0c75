"""A short fuzzing run in CI: saved states of every game, card-set files and bot specs, mutated by
Hypothesis (tests/fuzz_inputs.py), in a child process so that a crash fails this test instead of
killing the test run. Long runs: ``python tests/fuzz_inputs.py --examples 20000 --seed S``."""
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "fuzz_inputs.py"


@pytest.mark.parametrize("target", ["states", "cards", "specs"])
def test_fuzzed_inputs_are_refused_cleanly_or_play_safely(target):
    run = subprocess.run([sys.executable, str(SCRIPT), "--examples", "150", "--target", target],
                         capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir())
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    counts = run.stdout.strip().splitlines()[-1]
    assert counts.startswith("fuzz: ") and "accepted" in counts and "refused" in counts, counts
