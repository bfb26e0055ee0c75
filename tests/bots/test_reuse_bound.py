"""benches/reuse_bound.py: the bound on what tree reuse between moves could inherit (issue #26)
follows the path since a search down that search's tree, as the searcher observes it."""
import json
import sys
from pathlib import Path

import pytest

import metro_ai
from metro_ai.bots.search import SearchCore

BENCHES = Path(__file__).resolve().parents[2] / "benches"


@pytest.fixture(scope="module")
def bound():
    sys.path.insert(0, str(BENCHES))
    try:
        import reuse_bound
        yield reuse_bound
    finally:
        sys.path.remove(str(BENCHES))


def _searched(game, iterations=3000, seed=5):
    state = game.new_state(1)
    core = SearchCore(state, state.current_player, seed)
    core.run(iterations=iterations)
    return state, core.tree_nodes()


def _most_visited(nodes, parent, mover):
    kids = [n for n in nodes if n[1] == parent and n[3] == mover]
    return max(kids, key=lambda n: (n[4], -n[2]))


def test_follows_own_then_opponent_action_to_that_node(bound):
    game = metro_ai.load_game("metro", players=2)
    state, nodes = _searched(game)
    me = state.current_player
    mine = _most_visited(nodes, 0, me)
    after = state.clone()
    after.apply(mine[2])
    reply = _most_visited(nodes, mine[0], after.current_player)
    assert reply[4] > 0
    path = [(state.clone(), mine[2], me), (after.clone(), reply[2], after.current_player)]
    assert bound.inherited(nodes, path, me, chance_keys=False) == (reply[4], 1)
    # one step: the subtree under the searcher's own action
    assert bound.inherited(nodes, path[:1], me, chance_keys=False) == (mine[4], 1)
    # an action the search never tried leads nowhere: nothing to inherit
    tried = {n[2] for n in nodes if n[1] == 0}
    untried = next(a for a in state.legal_actions() if a not in tried) if len(tried) < len(state.legal_actions()) \
        else None
    if untried is not None:
        assert bound.inherited(nodes, [(state.clone(), untried, me)], me, chance_keys=False) == (0, 0)
    # another player's node is not the searcher's: a step by the wrong mover finds nothing
    assert bound.inherited(nodes, [(state.clone(), mine[2], 1 - me)], me, chance_keys=False) == (0, 0)


def test_a_hidden_action_counts_every_child_the_searcher_cannot_tell_apart(bound):
    # Metro with companies: another player's share exchange reads as company 0's exchange of the
    # same percentage and source (M18), so every child that reads the same counts
    class Fake:
        def __init__(self, seen):
            self.seen = seen

        def observed_action(self, action, player):
            return self.seen.get(action, action)

        def chance_key(self, player):
            return 0

    # root 0 -> my action 10 (node 1) -> the opponent's 20 (node 2), 21 (node 3), 22 (node 4)
    nodes = [(0, -1, -1, -1, 9, 0.0, 0, 0), (1, 0, 10, 0, 9, 0.0, 9, 0),
             (2, 1, 20, 1, 4, 0.0, 4, 0), (3, 1, 21, 1, 3, 0.0, 3, 0), (4, 1, 22, 1, 2, 0.0, 2, 0)]
    hidden = Fake({20: 20, 21: 20})          # 20 and 21 look alike to player 0; 22 is seen as itself
    path = [(hidden, 10, 0), (hidden, 21, 1)]
    assert bound.inherited(nodes, path, 0, chance_keys=False) == (7, 2)
    path = [(hidden, 10, 0), (hidden, 22, 1)]
    assert bound.inherited(nodes, path, 0, chance_keys=False) == (2, 1)


def test_the_script_reports_shares_within_the_searches(bound, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert bound.main(["--game", "leduc", "--iterations", "200", "--games", "3", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["searches"] > 0
    assert 0 <= result["share"]["median"] <= result["share"]["max"] <= 1
    assert "inherited share" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bound.main(["--bot", "greedy", "--games", "1"])
