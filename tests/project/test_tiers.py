"""The suite's two tiers and its parts (tests/tiers.py, tests/conftest.py; issue #42): the default
run leaves the slow tier out, ``-m slow`` runs it, ``--part K/N`` splits a selection into N fair,
disjoint shares whose union is the whole."""
import functools
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest

from tiers import each_value, tiered

ROOT = Path(__file__).resolve().parents[2]
SWEEP = "tests/metro/test_metro_differential.py"       # 30 cases: 5 in the default tier


@functools.lru_cache(maxsize=None)
def _collect(*args):
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    return run.returncode, [line for line in run.stdout.splitlines() if "::" in line], run.stdout + run.stderr


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


def test_the_default_run_leaves_the_slow_tier_out_and_m_slow_runs_it():
    code, default, out = _collect(SWEEP)
    assert code == 0, out
    _, slow, _ = _collect(SWEEP, "-m", "slow")
    _, every, _ = _collect(SWEEP, "-m", "")
    assert len(default) == 5 and len(every) == 30, out
    assert set(default) | set(slow) == set(every) and not set(default) & set(slow)


def test_parts_are_disjoint_fair_and_make_the_whole():
    _, every, _ = _collect(SWEEP, "-m", "")
    parts = [_collect(SWEEP, "-m", "", "--part", f"{k}/3")[1] for k in range(3)]
    assert sorted(sum(parts, [])) == sorted(every)
    assert all(len(p) == 10 for p in parts)
    assert parts[0] == every[0::3]


@pytest.mark.parametrize("bad", ["3/3", "-1/2", "1", "a/b"])
def test_a_bad_part_is_a_usage_error(bad):
    code, _, out = _collect(SWEEP, f"--part={bad}")
    assert code == 4 and "--part takes K/N" in out, out
