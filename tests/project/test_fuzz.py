"""A short fuzzing run in CI (tests/fuzz_inputs.py): the saved states of every registered game and
option set, card-set files and bot specs, mutated by Hypothesis; and (tests/fuzz_user_games.py)
plain-Python games with faulty methods through every entry point. Each script is a child process and
runs each state input in a child of its own, so a crash (a signal, or a sanitizer's abort under
the ASan/UBSan build of ``.ci/run``, whose LD_PRELOAD and options the children inherit) is a
reported outcome with its input, and fails this test, instead of killing the test run.
Long runs: ``python tests/fuzz_inputs.py --target states --seconds 3600 --seed S --out DIR``."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import metro_ai
from tiers import tiered

SCRIPT = Path(__file__).resolve().parents[1] / "fuzz_inputs.py"
USER_GAMES = SCRIPT.parent / "fuzz_user_games.py"
#: A few examples (derandomized) in the default tier, more from a seed of their own in the slow
#: tier (tests/tiers.py): per option set for the states (a run over every game stays well under
#: two minutes), in all for the card sets and bot specs.
def _runs(few, more):
    return tiered([pytest.param(("--examples", str(few)), id="few"),
                   pytest.param(("--examples", str(more), "--seed", "1"), id="more")],
                  fast=lambda args: "--seed" not in args)


def _run(*args, timeout=900, script=SCRIPT):
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=tempfile.gettempdir(), env=os.environ.copy())


@pytest.mark.parametrize("game", metro_ai.list_games())
@pytest.mark.parametrize("run_args", _runs(3, 10))
def test_fuzzed_states_are_refused_cleanly_or_play_safely(game, run_args):
    run = _run("--target", "states", "--game", game, *run_args)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-6000:]}\n{run.stderr[-3000:]}"
    counts = run.stdout.strip().splitlines()[-1]
    assert counts.startswith("fuzz: ") and "states refused" in counts, counts
    assert "crashed" not in counts and "wrong exception" not in counts and "unsafe" not in counts, counts


@pytest.mark.parametrize("target", ["cards", "specs"])
@pytest.mark.parametrize("run_args", _runs(50, 100))
def test_fuzzed_inputs_are_refused_cleanly_or_play_safely(target, run_args):
    run = _run(*run_args, "--target", target)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    counts = run.stdout.strip().splitlines()[-1]
    assert counts.startswith("fuzz: ") and "accepted" in counts and "refused" in counts, counts


def test_a_crashing_input_is_reported_not_fatal(tmp_path):
    """The harness itself: a child killed by a signal (what a segfault or a sanitizer's abort
    does) is counted as crashed, with its input saved, and the run goes on."""
    code = (
        "import sys, os, signal; sys.path.insert(0, %r)\n"
        "import fuzz_inputs as f\n"
        "import metro_ai\n"
        "game = metro_ai.load_game('leduc')\n"
        "class Bomb:\n"
        "    def state_from_json(self, text): os.kill(os.getpid(), signal.SIGSEGV)\n"
        "print(f.run_in_child(Bomb(), '{}', 0, 30)[0])\n"
        "class Abort:\n"
        "    def state_from_json(self, text): os._exit(1)\n"
        "print(f.run_in_child(Abort(), '{}', 0, 30)[0])\n"
        "print(f.run_in_child(game, '{}', 0, 30)[0])\n" % str(SCRIPT.parent))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["crashed", "crashed", "refused"], run.stdout


def test_user_games_with_faulty_methods_are_refused_cleanly_at_every_entry_point():
    """tests/fuzz_user_games.py: plain-Python games with faulty methods (exceptions, values of the
    wrong kind, impure methods, shared copies, sys.exit, games that never end, bad limits) through
    every bot, a match, random_playouts, a timed search, stop() and the protocol: each ends in a
    result or a clear error, never a crash, a hang or a raw exception. Long runs: ``python
    tests/fuzz_user_games.py --seconds 3600 --seed S``."""
    run = _run("--examples", "200", "--timeout", "120", script=USER_GAMES)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-6000:]}\n{run.stderr[-3000:]}"
    counts = run.stdout.strip().splitlines()[-1]
    assert counts.startswith("fuzz: ") and "refused" in counts and "played" in counts, counts
