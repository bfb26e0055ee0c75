"""Differential test of the City Edition modules C1-C3 (central stations, central tracks, setup
frames): the Cython engine (rules.pyx, central.pyx) against the independent pure-Python
reference (reference_city.py).

Same seed and same actions must give the same legal actions, player to move, scores (with
companies: profits, shares held, shown shares), pieces, board (central tracks included), end and
returns, after every action: 1,080 random games over every player count, both variants of M9,
with and without companies. Random play picks a central-station action half the time it may,
so that pieces go down early and often (and lines arrive at them). The default tier plays the
configurations that take every module with and without companies, every player count and both
orientations (five); the slow tier the rest (tests/tiers.py).
"""

import pytest

import metro_ai
from differential import favour, lockstep
from tiers import each_value, tiered
from metro_ai.engine.metro import reference_city as ref

CENTRAL = ref.CENTRAL
MODULES = [dict(central_stations=True), dict(central_tracks=True), dict(edition="city")]
CONFIGS = [(p, o, c, i) for i in range(3) for p in range(2, 7) for o in (True, False) for c in (False, True)
           if not (i == 2 and c)]                                                   # 50 configs
GAMES = {0: 24, 1: 24, 2: 12}                                                       # 1,080 games
# the default tier: every module with and without companies, every player count and orientation
_EACH = each_value([(p, o, (c, i)) for p, o, c, i in CONFIGS])


def _same(fast, slow, ctx, companies):
    assert fast.scores() == slow.scores(), ctx
    assert fast.phase == slow.phase, ctx
    if companies:
        assert fast.profits() == slow.profits(), ctx
        assert [fast.shares(p) for p in range(fast.num_players)] == slow.held, ctx
        assert fast.exchanges_made() == slow.exchanges, ctx


def _same_board(fast, slow, ctx):
    assert fast.board() == [None if c is None else tuple(c) for c in slow.full_board()], ctx
    assert [fast.hand(p) for p in range(fast.num_players)] == [list(h) for h in slow.hands], ctx
    assert fast.supply() == list(slow.supply), ctx
    if fast.game.central_stations:          # the state's central part (C2)
        assert fast.central_pieces() == [slow.pieces.get(j) for j in range(8)], ctx
        if fast.game.companies:
            assert [fast.shown(p) for p in range(fast.num_players)] == [sorted(s) for s in slow.shown], ctx


def play_pair(game, rgame, seed, companies):
    return lockstep(game, seed, rgame=rgame, pick=favour(lambda a: a >= CENTRAL, 0.5),
                    same=lambda f, s, ctx: _same(f, s, ctx, companies), hidden=_same_board, hidden_every=4)[0]


@pytest.mark.parametrize("players,orientation,companies,module",
                         tiered(CONFIGS, fast=lambda p, o, c, i: _EACH(p, o, (c, i))))
def test_city_cython_matches_reference(players, orientation, companies, module):
    game = metro_ai.load_game("metro", players=players, orientation=orientation, companies=companies,
                              **MODULES[module])
    rgame = game.reference_game()
    assert isinstance(rgame, (ref.RefCityGame, ref.RefCityCompaniesGame))
    pieces = 0
    for g in range(GAMES[module]):
        last = play_pair(game, rgame, 31000 + 1000 * players + 100 * module + 10 * companies + 2 * g + orientation,
                         companies)
        pieces += sum(v is not None for v in (last.central_pieces() if game.central_stations else []))
    if module == 0:
        assert pieces > 0          # central stations were placed
