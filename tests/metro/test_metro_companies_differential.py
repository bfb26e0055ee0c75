"""Differential test of the companies expansion (M11-M19): the Cython engine (companies.pyx)
against the independent pure-Python reference (reference_companies.py).

Same seed and same actions must give the same legal actions, player to move, profits, shares
held, face-up shares, piles, exchanges, scores, end and returns, after every action, over 1,020
random games across every player count and both variants (M9, M10). Random play picks an
exchange half the time it may, so that games exchange often (and the limit, M17, is reached).
The default tier plays five configurations that take every value of each; the slow tier the
rest (tests/tiers.py).
"""
import os

import pytest

import metro_ai
from differential import favour, lockstep
from tiers import each_value, tiered
from metro_ai.engine.metro import reference_companies as ref
from test_metro_differential import _same_hidden   # board, hands, supply, drawn tile, lines

CONFIGS = [(p, o, h) for p in range(2, 7) for o in (True, False) for h in (1, 2, 3)]   # 30 configs
GAMES_PER_CONFIG = 34                                                                   # 1,020 games
EXCHANGE = ref.EXCHANGE


def _same(fast, slow, ctx):
    assert fast.profits() == slow.profits(), ctx
    assert fast.scores() == slow.scores(), ctx
    assert fast.exchanges_open == slow.exchanges_open(), ctx
    assert [fast.shares(p) for p in range(fast.num_players)] == slow.held, ctx
    assert fast.face_up() == slow.face_up, ctx
    assert fast.piles() == slow.piles, ctx
    assert fast.exchanges_made() == slow.exchanges, ctx
    assert fast.phase == slow.phase, ctx


def play_pair(game, rgame, seed):
    """One random game on both engines, compared after every action; the final fast state."""
    fast, _, _ = lockstep(game, seed, rgame=rgame, pick=favour(lambda a: a >= EXCHANGE, 0.5),
                          same=_same, hidden=_same_hidden)
    assert fast.tiles_placed == 60
    return fast


@pytest.mark.parametrize("players,orientation,hand_size", tiered(CONFIGS, fast=each_value(CONFIGS)))
def test_companies_cython_matches_reference(players, orientation, hand_size):
    game = metro_ai.load_game("metro", players=players, orientation=orientation, hand_size=hand_size,
                              companies=True)
    rgame = game.reference_game()
    assert isinstance(rgame, ref.RefCompaniesGame)
    exchanged = 0
    for g in range(GAMES_PER_CONFIG):
        last = play_pair(game, rgame, 7000 + 1000 * players + 100 * hand_size + 10 * orientation + g)
        exchanged += sum(last.exchanges_made())
    assert exchanged > 0          # the exchanges were exercised


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("METRO_AI_SLOW"), reason="long run: set METRO_AI_SLOW=1")
@pytest.mark.parametrize("players", range(2, 7))
def test_companies_cython_matches_reference_long(players):
    """The same over 2,000 more games per player count, with a short exchange limit too."""
    for limit in (8, 1, 30):
        game = metro_ai.load_game("metro", players=players, companies=True, exchange_limit=limit)
        rgame = game.reference_game()
        for g in range(700):
            play_pair(game, rgame, 90000 + 1000 * players + g)
