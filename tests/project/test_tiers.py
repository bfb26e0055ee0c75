"""The suite's two tiers and its parts (tests/tiers.py, tests/conftest.py; issue #42): the default
run leaves the slow tier out, ``-m slow`` runs it, ``--part K/N`` splits a selection into N fair,
disjoint shares whose union is the whole."""
import functools
import json
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest

from tiers import each_value, tiered

ROOT = Path(__file__).resolve().parents[2]
SWEEP = "tests/metro/test_metro_differential.py"       # 30 cases: 5 in the default tier


#: One child process collects for every selection below (pytest.main once per selection), so the
#: tests pay for one interpreter and one import of the sweep.
_CHILD = """
import json, sys
import pytest

class Items:
    def pytest_collection_finish(self, session):
        self.ids = [item.nodeid for item in session.items]

out = []
for args in json.loads(sys.argv[1]):
    items = Items()
    code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *args], plugins=[items])
    out.append([int(code), getattr(items, "ids", [])])
print("RESULT" + json.dumps(out))
"""
BAD_PARTS = ["3/3", "-1/2", "1", "a/b"]
SELECTIONS = {"default": [SWEEP], "slow": [SWEEP, "-m", "slow"], "every": [SWEEP, "-m", ""],
              **{f"part{k}": [SWEEP, "-m", "", f"--part={k}/3"] for k in range(3)},
              **{f"bad {bad}": [SWEEP, f"--part={bad}"] for bad in BAD_PARTS}}


@functools.lru_cache(maxsize=None)
def _collected():
    """Selection name -> (pytest's exit code, the test ids it collects), and the child's stderr."""
    run = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(list(SELECTIONS.values()))],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "RESULT" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads(run.stdout.rsplit("RESULT", 1)[1])
    return {name: (code, ids) for name, (code, ids) in zip(SELECTIONS, results)}, run.stderr


def test_each_value_keeps_few_cases_that_take_every_value():
    cases = list(product(range(2, 7), (True, False), (1, 2, 3)))
    fast = each_value(cases)
    kept = [c for c in cases if fast(*c)]
    assert len(kept) == 5                      # as few as the dimension with most values allows
    for i in range(3):
        assert {c[i] for c in kept} == {c[i] for c in cases}


def test_tiered_marks_the_others_slow_and_keeps_ids_and_marks():
    skip = pytest.mark.skip(reason="x")
    values = tiered([1, (2, 3), pytest.param(4, id="four", marks=skip)], fast=lambda *v: v == (1,))
    def names(case):
        return {m.name for m in case.marks}
    assert values[0] == 1                      # a kept value is left as it is
    assert values[1].values == (2, 3) and names(values[1]) == {"slow"}
    assert values[2].id == "four" and names(values[2]) == {"skip", "slow"}


def _ids():
    got, _ = _collected()
    assert all(code == 0 for name, (code, _) in got.items() if not name.startswith("bad")), got
    return {name: ids for name, (_, ids) in got.items()}


def test_the_default_run_leaves_the_slow_tier_out_and_m_slow_runs_it():
    got = _ids()
    default, slow, every = set(got["default"]), set(got["slow"]), set(got["every"])
    assert len(default) == 5 and len(every) == 30
    assert default | slow == every and not default & slow


def test_parts_are_disjoint_fair_and_make_the_whole():
    got = _ids()
    parts = [got[f"part{k}"] for k in range(3)]
    assert sorted(sum(parts, [])) == sorted(got["every"])
    assert all(len(p) == 10 for p in parts)
    assert parts[0] == got["every"][0::3]


def test_a_bad_part_is_a_usage_error():
    got, stderr = _collected()
    for bad in BAD_PARTS:
        assert got[f"bad {bad}"] == (4, []), got[f"bad {bad}"]
        assert f"--part takes K/N with 0 <= K < N, got {bad!r}" in stderr, stderr[-2000:]
