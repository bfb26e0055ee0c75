"""The sample client examples/node/play.js (Node's standard library only) plays a full game of
every registered game against ``metro-ai serve``; skipped where ``node`` is not installed."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import metro_ai

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "node" / "play.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH: the Node sample client is not run")
def test_the_node_client_plays_every_game_to_its_end():
    serve = f"{sys.executable} -m metro_ai serve"
    run = subprocess.run(["node", str(SCRIPT), "--serve", serve, "--bot", "ismcts:iterations=30", "--seed", "3"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    lines = run.stdout.strip().splitlines()
    assert lines[0].startswith("metro-ai ") and "protocol 1" in lines[0]
    for game in metro_ai.list_games():
        line = next((x for x in lines if x.startswith(f"{game}: ")), None)
        assert line is not None, f"no result for {game}:\n{run.stdout}"
        assert " moves; scores " in line and "record of " in line and "; places " in line
    # the same seed, the same games
    again = subprocess.run(["node", str(SCRIPT), "--serve", serve, "--bot", "ismcts:iterations=30", "--seed", "3"],
                           capture_output=True, text=True, timeout=600)
    assert again.stdout == run.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH: the Node sample client is not run")
def test_the_node_client_calls_a_tie_a_tie():
    """A Leduc hand that ends 0.50/0.50 is a tie (places =1 / =1), not "seat 0 wins"."""
    code = ("const p = require(process.argv[1]);"
            "console.log(JSON.stringify([p.places([0.5, 0.5]), p.verdict([0.5, 0.5], 0),"
            " p.places([1, 0.5, 0.5, 0]), p.verdict([0, 0.5, 0.5, 1], 1), p.verdict([1, 0], 0)]))")
    run = subprocess.run(["node", "-e", code, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    import json
    assert json.loads(run.stdout) == [["=1", "=1"], "ties for first with seat 1", ["1", "=2", "=2", "4"],
                                      "loses (place =2)", "wins"]
