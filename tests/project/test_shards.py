"""METRO_AI_TEST_SHARD (tests/conftest.py): N processes side by side run a suite between them,
each test exactly once; a malformed value is a usage error, not a silent full run."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests/bots/test_versus.py"


def collect(shard):
    env = {k: v for k, v in os.environ.items() if k != "METRO_AI_TEST_SHARD"}
    if shard is not None:
        env["METRO_AI_TEST_SHARD"] = shard
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", TARGET],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    return run.returncode, [line for line in run.stdout.splitlines() if "::" in line], run.stdout + run.stderr


def test_shards_split_a_suite_into_disjoint_parts_that_cover_it():
    code, everything, out = collect(None)
    assert code == 0 and len(everything) > 10, out
    parts = []
    for i in range(3):
        code, part, out = collect(f"{i}/3")
        assert code == 0 and part, out
        parts.append(part)
    assert sorted(sum(parts, [])) == sorted(everything)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_a_malformed_shard_is_a_usage_error():
    for bad in ("3/3", "a/b"):
        code, _, out = collect(bad)
        assert code == 4 and "METRO_AI_TEST_SHARD must be I/N" in out, (bad, out)
