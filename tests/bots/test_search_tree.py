"""The search tree itself (bots/search.pyx): how children are keyed, how availability is counted,
and how the node budget bounds every tree (Cowling, Powley & Whitehouse 2012, SO- and MO-ISMCTS).
"""
import random
from collections import Counter, defaultdict

import pytest

import metro_ai
from metro_ai.bots.search import SearchCore


def _children(nodes):
    """parent node -> its children's rows, in creation order."""
    out = defaultdict(list)
    for row in nodes:
        if row[1] >= 0:
            out[row[1]].append(row)
    return out


def _metro2033_split():
    """Metro 2033, 2 players, seed 2 after 37 seeded random actions: player 0 to move. After
    'station beregovaya' the player to move is player 0 in some worlds player 0 cannot tell apart
    and player 1 in others, and both then choose among 'count' actions with the same ids. Returns
    the state, the action, and per mover the share of 1,000 worlds and the actions legal there."""
    s = metro_ai.load_game("metro2033", players=2).new_state(2)
    rng = random.Random(2)
    for _ in range(37):
        s.apply(rng.choice(s.legal_actions()))
    a = s.string_to_action("station beregovaya")
    movers, legal = Counter(), defaultdict(set)
    for k in range(1000):
        w = s.determinize(s.current_player, k)
        w.apply(a)
        movers[w.current_player] += 1
        legal[w.current_player].update(w.legal_actions())
    return s, a, {m: movers[m] / 1000 for m in movers}, legal


def test_the_position_has_two_movers_after_one_action_with_shared_action_ids():
    s, a, share, legal = _metro2033_split()
    assert s.current_player == 0 and a in s.legal_actions()
    assert set(share) == {0, 1} and min(share.values()) > 0.1
    assert legal[0] & legal[1], "both movers must share action ids for the test to mean anything"


@pytest.mark.parametrize("multi", [False, True])
def test_children_are_keyed_by_action_and_mover(multi):
    """After the same action path, each player to move has their own children: a child's
    statistics are only ever its own mover's (the tree used to key children by action alone, so
    player 1's 'count 0' shared a node, visits and value with player 0's)."""
    s, a, share, legal = _metro2033_split()
    core = SearchCore(s, 0, 3, multi_observer=multi)
    core.run(iterations=3000)
    nodes = core.tree_nodes()
    assert nodes[0][:4] == (0, -1, -1, -1) and nodes[0][4] == 3000
    keys = [(parent, action, mover) for _, parent, action, mover, *_ in nodes[1:]]
    assert len(keys) == len(set(keys))                          # one node per (parent, action, mover)
    kids = _children(nodes)
    (node_a,) = [row for row in kids[0] if row[2] == a]
    below = kids[node_a[0]]
    assert {row[3] for row in below} == {0, 1}
    for row in below:                                           # each child is its mover's action
        assert row[2] in legal[row[3]]
    if not multi:
        # The same action id, once per mover: the case that used to share one node.
        by_action = defaultdict(set)
        for row in below:
            by_action[row[2]].add(row[3])
        assert any(m == {0, 1} for m in by_action.values())
        # Each iteration through the node goes on in a child of the world's mover: the children's
        # visits split as the worlds do (a few iterations stop at the node to expand it).
        visits = Counter()
        for row in below:
            visits[row[3]] += row[4]
        assert node_a[4] - len(below) <= sum(visits.values()) <= node_a[4]
        assert abs(visits[1] / sum(visits.values()) - share[1]) < 0.08


def test_selection_considers_only_the_movers_children():
    """UCB selection counts availability for the mover's own children only: in a search of the
    position above, no child's availability falls below its visits and every child of the
    split node counts availability from its own mover's worlds alone (at most the iterations
    through the node in which that mover moved)."""
    s, a, share, legal = _metro2033_split()
    core = SearchCore(s, 0, 5)
    core.run(iterations=2000)
    nodes = core.tree_nodes()
    kids = _children(nodes)
    for row in nodes[1:]:
        assert row[6] >= row[4] >= 0
    (node_a,) = [row for row in kids[0] if row[2] == a]
    through = Counter()
    for row in kids[node_a[0]]:
        through[row[3]] += row[4]
    for row in kids[node_a[0]]:
        assert row[6] <= through[row[3]] + 1


def test_availability_counts_every_legal_sibling_at_expansion_as_at_selection():
    """Cowling, Powley & Whitehouse (2012): each iteration adds one availability to every
    sibling legal in its world of each node on its path, expansion steps included. In one fixed
    world every action stays legal, so a node's j-th child (creation order) was available at
    every visit of its parent from the one that made it on: visits(parent) - j, and N - j + 1
    at the root after N iterations. (Expansion used to leave the siblings uncounted.)"""
    g = metro_ai.load_game("leduc", players=2)
    root = g.new_state(1)
    n = 400
    core = SearchCore(root, 0, 7, fixed_world=g.new_state(1))
    core.run(iterations=n)
    nodes = core.tree_nodes()
    kids = _children(nodes)
    checked = 0
    for parent, children in kids.items():
        base = n + 1 if parent == 0 else nodes[parent][4]
        for j, row in enumerate(children, start=1):
            assert row[6] == base - j, (parent, j, row)
            checked += 1
    assert checked > 20 and len(kids[0]) == len(root.legal_actions())


@pytest.mark.parametrize("game,options", [("metro", dict(players=3)), ("leduc", dict(players=3)),
                                          ("metro2033", dict(players=2))])
def test_max_nodes_bounds_every_tree_of_mo_ismcts(game, options):
    """MO-ISMCTS: the node budget counts the observers' trees too (they used to follow every move
    past it), and a tree that cannot follow a move stops there for the iteration: every tree
    still counts each iteration at its root, and no node holds more visits than its parent."""
    g = metro_ai.load_game(game, **options)
    s = g.new_state(4)
    for cap in (g.num_players + 1, 60, 500):
        core = SearchCore(s, s.current_player, 1, multi_observer=True, max_nodes=cap)
        core.run(iterations=800)
        assert core.node_count <= cap
        sizes = 0
        for t in range(g.num_players):
            nodes = core.tree_nodes(t)
            sizes += len(nodes)
            assert nodes[0][4] == 800
            kids = _children(nodes)
            for parent, children in kids.items():
                assert sum(row[4] for row in children) <= nodes[parent][4]
        assert sizes == core.node_count
    assert core.root_stats() and sum(v for _, v, _, _ in core.root_stats()) <= 800


def test_tree_nodes_names_a_bad_tree():
    s = metro_ai.load_game("leduc", players=2).new_state(1)
    with pytest.raises(ValueError, match="tree must be a player in"):
        SearchCore(s, 0, 1, multi_observer=True).tree_nodes(2)
    with pytest.raises(ValueError, match="single-tree search has the tree of player 0 only"):
        SearchCore(s, 0, 1).tree_nodes(1)
    assert SearchCore(s, 0, 1).tree_nodes() == [(0, -1, -1, -1, 0, 0.0, 0)]
