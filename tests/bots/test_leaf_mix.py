"""The leaf value mixed into each iteration's return (SearchCore ``leaf_mix``, the search bots'
option of the same name, issue #44): ``leaf_mix * the evaluation of the world where the tree
steps ended + (1 - leaf_mix) * the play-out's``, the evaluation the one a cut-off there gets (the
hand-written soft rank, or the learned evaluator with ``eval=learned``), as AlphaGo mixed its value
network's estimate at the leaf with a roll-out's result. Off (0) by default, bar Breakthrough at 2
players on the rules its evaluator was trained on (0.5, measured: engine/breakthrough/state.pyx)."""
import pytest

import metro_ai
from metro_ai.bots.search import RandomPlayout, SearchCore
from metro_ai.bots.settings import SearchSettings
from tests.bots.test_minimax import _evaluate, _position


def _root_children(state, mix, playout, iterations, **options):
    """The root's children (action -> (mover, visits, value)) after `iterations` iterations, each
    of which adds a root child (fewer than the root's actions), searching ``state.determinize``'s
    worlds with `mix`."""
    core = SearchCore(state, state.current_player, 5, rollout=playout, leaf_mix=mix, **options)
    core.run(iterations=iterations)
    rows = [r for r in core.tree_nodes() if r[1] == 0]
    assert len(rows) == iterations and all(r[4] == 1 for r in rows)     # one iteration each
    return {r[2]: (r[3], r[4], r[5]) for r in rows}


@pytest.mark.parametrize("game,players,steps,playout,minimax", [
    ("metro2033", 3, 20, RandomPlayout(depth=20, cutoff_scale=1.0), 0.0),
    ("metro2033", 2, 10, RandomPlayout(depth=30, cutoff_scale=1.0), 0.3),
    ("breakthrough", 2, 10, RandomPlayout(depth=10, cutoff_scale=1.0), 0.0),
])
def test_each_return_is_the_mix_of_the_leafs_evaluation_and_the_play_outs(game, players, steps, playout, minimax):
    """The same seed deals the same worlds and plays the same play-outs whatever the mix (the
    leaf's evaluation draws nothing): so each root child's one return with mix 1/2 is the mean of
    its return with mix 0 (the play-out's alone) and with mix 1 (the leaf's evaluation alone),
    and the two differ (the play-out moves the value)."""
    s = _position(game, steps, players=players)
    n = min(len(s.legal_actions()) - 1, 6)
    assert n >= 3
    alone, leaf, half = (_root_children(s, m, playout, n, minimax=minimax) for m in (0.0, 1.0, 0.5))
    assert alone.keys() == leaf.keys() == half.keys()
    for a, (_, _, v) in half.items():
        assert v == pytest.approx(0.5 * alone[a][2] + 0.5 * leaf[a][2], abs=1e-12), a
    assert any(abs(alone[a][2] - leaf[a][2]) > 1e-6 for a in alone)


def test_with_the_mix_at_1_a_value_is_the_leafs_evaluation():
    """Searching one fixed world with mix 1, each root child's one value is its state's evaluation
    as a cut-off scores it, computed again in Python, whatever the play-out did after it."""
    s = _position("metro2033", 20, players=3)
    world = s.determinize(s.current_player, 7)
    playout = RandomPlayout(depth=20, cutoff_scale=1.0)
    core = SearchCore(s, s.current_player, 11, rollout=playout, fixed_world=world, leaf_mix=1.0)
    n = min(len(s.legal_actions()) - 1, 6)
    core.run(iterations=n)
    rows = [r for r in core.tree_nodes() if r[1] == 0]
    assert len(rows) == n
    for _, _, action, mover, visits, value, _, _ in rows:
        child = world.clone()
        child.apply(action)
        assert visits == 1
        assert value == pytest.approx(_evaluate(child, 1.0)[mover], abs=1e-9)


def test_the_option_is_checked_and_off_by_default():
    """A search option of every search bot: 0 by default (the search as it was), refused outside
    [0, 1] with what is wrong; a bot with it plays from the same seed as itself."""
    assert SearchSettings().leaf_mix == 0.0
    assert SearchSettings.for_game(metro_ai.load_game("metro2033", players=3)).leaf_mix == 0.0
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(ValueError, match="leaf_mix"):
            SearchSettings(leaf_mix=bad)
    s = _position("metro2033", 20, players=3)                 # 16 legal actions
    limit = metro_ai.Limit(iterations=300)
    same = {metro_ai.make_bot("hard:leaf_mix=0.5", seed=4).choose(s, limit) for _ in range(2)}
    assert len(same) == 1
    plain = metro_ai.make_bot("hard", seed=4)
    zero = metro_ai.make_bot("hard:leaf_mix=0", seed=4)
    assert plain.choose(s, limit) == zero.choose(s, limit)
    with pytest.raises(metro_ai.BotSpecError, match="leaf_mix"):
        metro_ai.make_bot("hard:leaf_mix=2")


@pytest.mark.parametrize("players, mix", [(2, 0.5), (3, 0.0), (4, 0.0), (5, 0.0)])
def test_breakthrough_mixes_half_the_leaf_at_2_players_with_its_learned_evaluator(players, mix):
    """Breakthrough's default, set by measurement (#44, engine/breakthrough/state.pyx): 0.5 at 2
    players, off from 3 up. It was measured with the learned evaluator, so it goes with it: in a
    variant (whose cut-offs are scored by hand) the game's mix is off, a bot's own stays; a bot's
    own 0 turns it off."""
    game = metro_ai.load_game("breakthrough", players=players)
    assert SearchSettings.for_game(game).leaf_mix == mix
    assert SearchSettings.for_game(game, leaf_mix=0.0).leaf_mix == 0.0
    assert metro_ai.make_bot("hard", seed=1).settings_for(game).leaf_mix == mix
    variant = metro_ai.load_game("breakthrough", players=players, full_protection_required=True)
    assert SearchSettings.for_game(variant).leaf_mix == 0.0
    assert SearchSettings.for_game(variant).eval is None
    assert SearchSettings.for_game(variant, leaf_mix=0.5).leaf_mix == 0.5
