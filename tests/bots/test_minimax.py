"""Implicit minimax back-ups (SearchCore ``minimax``, the search bots' option of the same name,
issue #26; Lanctot, Winands, Pepels & Sturtevant 2014): each node keeps per-player values, a new
leaf's the play-out's evaluation of its world before the play-out, each node on an iteration's
path the values of its best child by that child's mover; selection reads (1 - w) * mean + w *
the child's value. Off (0) by default, where the search is the one it was, except in Metro 2033,
whose ``search_settings()`` sets weight 0.15 (measured H1 against the search without it at 0.3,
then 0.15 H1 against 0.3)."""
import math
import random

import numpy as np
import pytest

import metro_ai
from metro_ai.bots.search import HeuristicPlayout, RandomPlayout, SearchCore


def _position(game, steps, seed=3, players=2, **options):
    s = metro_ai.load_game(game, players=players, **options).new_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    assert not s.is_terminal()
    return s


def _evaluate(state, scale):
    """The play-out's evaluation of `state` (Playout.evaluate), in Python: the returns at the end,
    else each player's mean over opponents of logistic((h_self - h_other) / scale)."""
    if state.is_terminal():
        return list(state.returns())
    h = list(state.heuristic())
    n = len(h)
    return [sum(1 / (1 + math.exp((h[j] - h[i]) / scale)) for j in range(n) if j != i) / (n - 1)
            for i in range(n)]


@pytest.mark.parametrize("game,steps,playout", [
    ("breakthrough", 6, HeuristicPlayout(depth=10, cutoff_scale=1.0)),
    ("metro", 10, RandomPlayout(depth=4, cutoff_scale=2.0)),
    ("metro2033", 30, RandomPlayout(depth=20, cutoff_scale=1.0)),
])
def test_in_one_world_the_values_are_the_max_n_of_the_leaves_evaluations(game, steps, playout):
    """Searching one fixed world (every node one state), each node's values are, computed again
    in Python from the states its path reaches: a node without children its state's evaluation,
    one with children the values of the child best for that child's mover."""
    s = _position(game, steps)
    world = s.determinize(s.current_player, 7)
    core = SearchCore(s, s.current_player, 11, rollout=playout, fixed_world=world, minimax=0.4)
    core.run(iterations=2500)                   # past the first growth of the node arrays (1,024)
    nodes = core.tree_nodes()
    values = core.minimax_values()
    assert values[0] is None and all(v is not None for v in values[1:])
    children = {}
    for row in nodes[1:]:
        children.setdefault(row[1], []).append(row)
    states = {0: world}
    for row in nodes[1:]:                       # parents come before children
        st = states[row[1]].clone()
        assert st.current_player == row[3]
        st.apply(row[2])
        states[row[0]] = st

    def expected(i):
        if i not in children:
            return np.array(_evaluate(states[i], playout.cutoff_scale))
        options = [(expected(ch[0]), ch[3]) for ch in children[i]]
        best = max(v[m] for v, m in options)
        return next(v for v, m in options if v[m] == best)

    checked = 0
    for row in nodes[1:]:
        want = expected(row[0])
        assert np.allclose(values[row[0]], want, atol=1e-6), (row, values[row[0]], want)
        checked += row[0] in children
    assert checked > 20                         # internal nodes, not only leaves


def test_the_values_cover_every_node_of_an_information_set_tree():
    """SO-ISMCTS over determinisations (Metro 2033: movers differ between worlds): every node but
    the root has values, each in [0, 1], and a node with children holds the values of one of them."""
    s = _position("metro2033", 37, seed=2)
    core = SearchCore(s, s.current_player, 5, rollout=RandomPlayout(depth=30, cutoff_scale=1.0), minimax=0.3)
    core.run(iterations=1500)
    nodes, values = core.tree_nodes(), core.minimax_values()
    assert all(v is not None and all(0 <= x <= 1 for x in v) for v in values[1:])
    kids = {}
    for row in nodes[1:]:
        kids.setdefault(row[1], []).append(row[0])
    for parent, ch in kids.items():
        if parent:
            assert any(values[parent] == values[c] for c in ch)


def _stats(a):
    return [(x.action, x.visits, x.mean) for x in a.actions]


def test_the_games_defaults_and_reproducible():
    """Unset, the weight is the game's ``search_settings()`` one: 0.15 in Metro 2033, 0 in the
    other games; a set weight searches otherwise, the same way twice."""
    limit = metro_ai.Limit(iterations=300)
    s = _position("metro2033", 20)
    assert s.game.search_settings()["minimax"] == 0.15
    unset = metro_ai.make_bot("ismcts", seed=4).analyse(s, limit)
    assert _stats(unset) == _stats(metro_ai.make_bot("ismcts:minimax=0.15", seed=4).analyse(s, limit))
    assert _stats(unset) != _stats(metro_ai.make_bot("ismcts:minimax=0.3", seed=4).analyse(s, limit))
    off = metro_ai.make_bot("ismcts:minimax=0", seed=4).analyse(s, limit)
    assert _stats(off) != _stats(unset)
    b = _position("breakthrough", 6)
    assert "minimax" not in b.game.search_settings()
    assert _stats(metro_ai.make_bot("ismcts", seed=4).analyse(b, limit)) == _stats(
        metro_ai.make_bot("ismcts:minimax=0", seed=4).analyse(b, limit))
    on = [metro_ai.make_bot("ismcts:minimax=0.5", seed=4).analyse(s, limit) for _ in range(2)]
    assert _stats(on[0]) == _stats(on[1])
    assert _stats(on[0]) != _stats(off) and _stats(on[0]) != _stats(unset)
    core = SearchCore(s, s.current_player, 1)
    core.run(iterations=50)
    assert core.minimax_values() is None


def test_the_weight_steers_selection():
    """With weight 1 and no exploration, selection follows the minimax values alone: at the root
    the most visited child is one whose value for the searcher is the best."""
    s = _position("breakthrough", 6)
    world = s.determinize(s.current_player, 1)
    core = SearchCore(s, s.current_player, 2, c=0.0, fixed_world=world, minimax=1.0,
                      rollout=HeuristicPlayout(depth=10, cutoff_scale=1.0))
    core.run(iterations=600)
    nodes, values = core.tree_nodes(), core.minimax_values()
    root = [row for row in nodes if row[1] == 0]
    top = max(root, key=lambda r: r[4])
    assert values[top[0]][top[3]] == max(values[r[0]][r[3]] for r in root)


def test_it_works_with_every_search_bot_and_both_backends():
    s = _position("metro2033", 25)
    for spec in ("mo-ismcts", "pimc", "flat-mc", "ismcts:workers=2,backend=processes"):
        a = metro_ai.make_bot(f"{spec}:minimax=0.3" if ":" not in spec else spec + ",minimax=0.3", seed=2)
        assert a.analyse(s, metro_ai.Limit(iterations=200)).iterations == 200
    threads = metro_ai.make_bot("ismcts:workers=2,minimax=0.3", seed=3).analyse(s, metro_ai.Limit(iterations=200))
    procs = metro_ai.make_bot("ismcts:workers=2,backend=processes,minimax=0.3", seed=3).analyse(
        s, metro_ai.Limit(iterations=200))
    assert [(x.action, x.visits, x.mean) for x in threads.actions] == [(x.action, x.visits, x.mean) for x in procs.actions]


def test_memory_counts_the_values():
    s = _position("breakthrough", 2)
    off, on = SearchCore(s, 0, 1), SearchCore(s, 0, 1, minimax=0.5)
    assert on.memory_bytes == off.memory_bytes * (on.bytes_per_node + 2 * 4) // on.bytes_per_node


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_bad_weights_are_refused(bad):
    s = _position("breakthrough", 2)
    with pytest.raises(ValueError, match="minimax"):
        SearchCore(s, 0, 1, minimax=bad)
    with pytest.raises(ValueError, match="minimax"):
        metro_ai.make_bot(f"ismcts:minimax={bad}")
