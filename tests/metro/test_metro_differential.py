"""Differential test: the Cython Metro engine against the independent pure-Python reference.

Same seed and same actions must give the same state, legal actions, scores and end, after every
action, over 1,000+ random games across every player count and both variants (M9, M10), in both tiers (the default
tier: five configurations that take every player count, variant and hand size, tests/tiers.py).
"""

import pytest

import metro_ai
from differential import lockstep
from tiers import each_value, tiered
from metro_ai.engine.metro import reference as ref

CONFIGS = [(p, o, h) for p in range(2, 7) for o in (True, False) for h in (1, 2, 3)]   # 30 configs
GAMES_PER_CONFIG = 34                                                                   # 1,020 games


def _same(fast, slow, ctx):
    assert fast.scores() == slow.scores(), ctx
    assert fast.phase == slow.phase, ctx


def _same_hidden(fast, slow, ctx):
    assert fast.board() == [None if c is None else tuple(c) for c in slow.board], ctx
    assert [fast.hand(p) for p in range(fast.num_players)] == [list(h) for h in slow.hands], ctx
    assert fast.supply() == list(slow.supply), ctx
    assert fast.drawn_tile() == slow.drawn, ctx
    lines = {ln["station"]: (ln["tiles"], ln["arrival"], ln["central"], ln["points"]) for ln in fast.lines()}
    assert lines == dict(slow.lines), ctx


@pytest.mark.parametrize("players,orientation,hand_size", tiered(CONFIGS, fast=each_value(CONFIGS)))
def test_cython_matches_reference(players, orientation, hand_size):
    game = metro_ai.load_game("metro", players=players, orientation=orientation, hand_size=hand_size)
    rgame = ref.RefMetroGame(players=players, orientation=orientation, hand_size=hand_size)
    for g in range(GAMES_PER_CONFIG):
        seed = 1000 * players + 100 * hand_size + 10 * orientation + g
        fast, _, _ = lockstep(game, seed, rgame=rgame, same=_same, hidden=_same_hidden)
        assert fast.tiles_placed == 60
