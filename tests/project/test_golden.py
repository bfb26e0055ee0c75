"""Behaviour kept bit for bit: the same seeds give the same states, texts and bot choices as the
recorded build (tests/golden/behaviour.py says what is recorded and how to record it)."""
import json

import pytest

from golden import behaviour

RECORDED = json.loads(behaviour.FILE.read_text())


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_recorded_behaviour_is_unchanged(key):
    now = behaviour.compute(select=lambda k: k == key)
    assert now[key] == RECORDED[key]


def test_every_registered_option_set_family_is_recorded():
    games = {k.split(":")[0] for k in RECORDED if k != "matches"}
    assert games == set(behaviour.OPTION_SETS)
