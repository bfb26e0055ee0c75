"""The tree's shape a search reports (bots/search.pyx counters, `Analysis.shape`, `metro-ai analyse`):
how deep the iterations went in the tree, how many added a node, how many play-outs reached the
end of the game rather than the play-out depth."""
import json
import random

import pytest

import metro_ai
from metro_ai import Limit
from metro_ai.bots.search import RandomPlayout, SearchCore
from metro_ai.cli import main


def _metro(players=2, seed=4):
    return metro_ai.load_game("metro", players=players).new_state(seed)


def _metro_near_end(left=4, seed=3):
    """A Metro 2p game `left` actions before its end (M8: when every tile is placed; random
    actions, seeded)."""
    rng = random.Random(seed)
    s = _metro(seed=seed)
    actions = []
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        actions.append(a)
        s.apply(a)
    s = _metro(seed=seed)
    for a in actions[:-left]:
        s.apply(a)
    assert not s.is_terminal()
    return s


def _leduc():
    return metro_ai.load_game("leduc").new_state(1)


def _depth(nodes, i):
    d = 0
    while nodes[i][1] >= 0:
        i, d = nodes[i][1], d + 1
    return d


@pytest.mark.parametrize("make,playout", [(_leduc, None), (_metro, RandomPlayout(depth=3)),
                                          (_metro, RandomPlayout(depth=0))])
def test_the_counters_agree_with_the_tree(make, playout):
    """One tree (SO-ISMCTS): each expansion adds one node, each tree step of an iteration is a
    visit of a non-root node, and the deepest step is the deepest node."""
    state = make()
    core = SearchCore(state, state.current_player, 7, rollout=playout)
    core.run(iterations=600)
    nodes = core.tree_nodes()
    s = core.summary()
    assert s["iterations"] == 600
    assert s["expanded"] == len(nodes) - 1 == core.node_count - 1
    assert s["depth_sum"] == sum(row[4] for row in nodes[1:])
    assert s["depth_max"] == max(_depth(nodes, i) for i in range(len(nodes)))
    assert 0 <= s["expanded"] <= s["iterations"] and 0 <= s["terminal"] <= s["iterations"]
    assert s["depth_max"] >= s["depth_sum"] / s["iterations"] >= 1


def test_counters_accumulate_over_runs():
    state = _metro()
    one = SearchCore(state, 0, 3, rollout=RandomPlayout(depth=2))
    one.run(iterations=300)
    two = SearchCore(state, 0, 3, rollout=RandomPlayout(depth=2))
    two.run(iterations=100)
    two.run(iterations=200)
    assert one.summary() == two.summary()


def test_leduc_play_outs_to_the_end_all_reach_it():
    """Leduc with play-outs to the end: every play-out ends the game (terminal share 1)."""
    a = metro_ai.make_bot("ismcts", seed=2, rollout_depth=-1).analyse(_leduc(), Limit(iterations=500))
    assert a.terminal == a.iterations == 500 and a.terminal_share == 1.0
    assert 0 < a.expanded <= a.iterations and a.depth_max >= a.depth_mean >= 1


def test_metro_start_with_no_play_out_never_reaches_the_end():
    """At the start of Metro with play-out depth 0 every leaf is scored by the heuristic: the tree
    is nowhere near the end of the game (M8: it ends when every tile is placed)."""
    for depth in (0, 2):
        a = metro_ai.make_bot("ismcts", seed=1, rollout_depth=depth).analyse(_metro(), Limit(iterations=400))
        assert a.terminal == 0 and a.terminal_share == 0.0
        assert a.iterations == 400 and 0 < a.expanded <= 400 and a.depth_max >= a.depth_mean >= 1


def test_metro_near_the_end_play_outs_reach_it():
    a = metro_ai.make_bot("ismcts", seed=1, rollout_depth=10).analyse(_metro_near_end(), Limit(iterations=400))
    assert a.terminal_share >= 0.9 and a.terminal <= a.iterations
    # a few actions from the end, the tree itself reaches the end: few iterations add a node
    assert a.expanded < a.iterations


def test_workers_sum_their_cores():
    state = _metro()
    a = metro_ai.make_bot("ismcts", seed=5, workers=3, rollout_depth=2).analyse(state, Limit(iterations=300))
    assert a.iterations == 300 and a.nodes == a.expanded + 3       # each core: a root and one node per expansion
    mo = metro_ai.make_bot("mo-ismcts", seed=5, workers=2, rollout_depth=2).analyse(state, Limit(iterations=300))
    assert 0 < mo.expanded <= mo.iterations and mo.depth_max >= mo.depth_mean >= 1
    flat = metro_ai.make_bot("flat-mc", seed=5, rollout_depth=2).analyse(state, Limit(iterations=300))
    assert flat.depth_max == 1 and flat.depth_mean == 1.0     # flat Monte Carlo: the root's children only
    pimc = metro_ai.make_bot("pimc", seed=5, worlds=3, rollout_depth=2).analyse(state, Limit(iterations=300))
    assert pimc.nodes == pimc.expanded + 3 and pimc.terminal == 0


def test_background_search_reports_the_same_shape():
    state = _metro()
    bot = lambda: metro_ai.make_bot("ismcts", seed=6, workers=2, rollout_depth=2)   # noqa: E731
    blocking = bot().analyse(state, Limit(iterations=400)).to_dict()["tree"]
    handle = bot().start(state, Limit(iterations=400), analyse=True, chunk=37)
    handle.result()
    assert handle.analysis().to_dict()["tree"] == blocking


def test_analyse_json_and_text_show_the_shape(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text(_metro().to_json())
    assert main(["analyse", str(path), "--bot", "ismcts:rollout_depth=0", "--iterations", "300", "--json"]) == 0
    tree = json.loads(capsys.readouterr().out)["tree"]
    assert set(tree) == {"depth_max", "depth_mean", "expanded", "expanded_share", "terminal", "terminal_share",
                         "nodes"}
    assert tree["terminal"] == 0 and tree["terminal_share"] == 0.0 and tree["nodes"] == tree["expanded"] + 1
    assert tree["expanded_share"] == tree["expanded"] / 300 and tree["depth_max"] >= tree["depth_mean"] >= 1
    assert main(["analyse", str(path), "--bot", "ismcts:rollout_depth=0", "--iterations", "300"]) == 0
    out = capsys.readouterr().out
    assert f"tree: depth max {tree['depth_max']}, mean {tree['depth_mean']:.2f}" in out
