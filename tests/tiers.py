"""The suite's two tiers (docs/dev/testing.md, issue #42).

The default run (the README's test command, ``pytest -n auto``) leaves out the tests marked
``slow`` (``addopts`` in pyproject.toml): it checks every idea of the library once, each sweep
on a sample that reaches every kind of case, in a few minutes. The ``slow`` tier is the rest of
the breadth: the other player counts and option sets of a differential run or a mutation sweep,
the other games of a whole game in a browser, the other ways to kill a tournament. Run it with
``pytest -n auto -m slow``, or everything with ``pytest -n auto -m ""``; CI runs it too.

A sweep marks its cases here rather than one by one:

    @pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p in (2, 4)))

keeps the test ids of the plain parametrisation, so a case is named the same in both tiers. For a
sweep over several dimensions, ``each_value(cases)`` keeps a few cases that between them take
every value of every dimension (every player count, both orientations, every hand size).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import pytest

SLOW = pytest.mark.slow


def tiered(values: Iterable[Any], fast: Callable[..., bool]) -> list[Any]:
    """``values`` for ``pytest.mark.parametrize``, each for which ``fast(value)`` is false
    (``fast(*value)`` for a tuple, a case of several arguments) marked slow. ``pytest.param``
    entries keep their id and marks."""
    out = []
    for value in values:
        if isinstance(value, type(pytest.param(None))):
            args, marks, case_id = value.values, tuple(value.marks), value.id
        else:
            args, marks, case_id = (value if isinstance(value, tuple) else (value,)), (), None
        out.append(value if fast(*args) else pytest.param(*args, marks=(*marks, SLOW), id=case_id))
    return out


def each_value(cases: Iterable[tuple]) -> Callable[..., bool]:
    """A ``fast`` test for ``tiered`` keeping few of ``cases`` (tuples of one length) that between
    them take every value of every position: greedily, the case adding the most values not yet
    taken, the first such in the list's order on a tie."""
    cases = list(cases)
    values = [set(enumerate(case)) for case in cases]
    missing = set().union(*values)
    kept = set()
    while missing:
        best = max(range(len(cases)), key=lambda k: (len(missing & values[k]), -k))
        kept.add(cases[best])
        missing -= values[best]
    return lambda *case: case in kept
