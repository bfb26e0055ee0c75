"""The search tree itself (bots/search.pyx): how children are keyed, how availability is counted,
and how the node budget bounds every tree (Cowling, Powley & Whitehouse 2012, SO- and MO-ISMCTS).
"""
import json
import random
import zlib
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
    player 1's 'count 0' shared a node, visits and value with player 0's). MO-ISMCTS keeps a tree
    per player: each of them is keyed so (issue #42: a key without the mover failed no test of
    the multi-observer trees)."""
    s, a, share, legal = _metro2033_split()
    core = SearchCore(s, 0, 3, multi_observer=multi)
    core.run(iterations=3000)
    for tree in (0, 1) if multi else (0,):
        nodes = core.tree_nodes(tree)
        assert nodes[0][:4] == (0, -1, -1, -1) and nodes[0][4] == 3000
        keys = [(parent, action, mover, chance) for _, parent, action, mover, *_, chance in nodes[1:]]
        assert len(keys) == len(set(keys))              # one node per (parent, action, mover, chance)
        kids = _children(nodes)
        (node_a,) = [row for row in kids[0] if row[2] == s.observed_action(a, tree)]
        below = kids[node_a[0]]
        assert {row[3] for row in below} == {0, 1}
        for row in below:                                       # each child is its mover's action
            assert row[2] in legal[row[3]]
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
    assert SearchCore(s, 0, 1).tree_nodes() == [(0, -1, -1, -1, 0, 0.0, 0, 0)]


# ---- chance the observer sees: Leduc's public card, Metro 2033's draws and threats ----

def _leduc_before_the_flop():
    """Leduc, 2 players, player 0 to move in the first round: a check and a check end it and
    turn up the public card, one of the five cards player 0 has not seen."""
    s = metro_ai.load_game("leduc", players=2).new_state(3)
    return s, s.string_to_action("call")


@pytest.mark.parametrize("multi", [False, True])
def test_leduc_second_rounds_after_different_public_cards_are_distinct_nodes(multi):
    """After check, check the public card is shown: the searcher's children there are keyed by
    it too, one set of children per public card (they used to share one node per action, so the
    statistics of a second round with a pair mixed with those without). Every tree sees the
    card, so MO-ISMCTS splits each tree the same way."""
    s, call = _leduc_before_the_flop()
    core = SearchCore(s, 0, 11, multi_observer=multi, chance_keys=True)
    core.run(iterations=4000)
    for tree in (range(2) if multi else [None]):
        nodes = core.tree_nodes(tree)
        kids = _children(nodes)
        (first,) = [row for row in kids[0] if row[2] == call]
        (second,) = [row for row in kids[first[0]] if row[2] == call]
        below = kids[second[0]]
        assert all(row[3] == 0 for row in below)               # player 0 opens the second round
        seen = {row[7] - 1 for row in below}
        mine = s.card(0)
        assert seen == set(range(6)) - {mine}                  # one set of children per public card
        assert len({(row[2], row[7]) for row in below}) == len(below)
        # the first round's children were taken before any card was shown
        assert all(row[7] == 0 for row in kids[0] + kids[first[0]])
        # each public card's children count availability only in the worlds with that card:
        # together no more than the iterations through the node
        for card in seen:
            group = [row for row in below if row[7] == card + 1]
            assert sum(row[4] for row in group) <= second[4]
            assert max(row[6] for row in group) <= second[4]


def test_without_chance_keys_the_tree_is_keyed_by_action_and_mover_alone():
    """``chance_keys`` is off by default: every key is 0 and the second rounds after different
    public cards share their nodes, as before the key."""
    s, call = _leduc_before_the_flop()
    core = SearchCore(s, 0, 11)
    core.run(iterations=4000)
    nodes = core.tree_nodes()
    assert all(row[7] == 0 for row in nodes)
    keys = [(row[1], row[2], row[3]) for row in nodes[1:]]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("game,steps", [("metro2033", 40), ("leduc", 0)])
def test_chance_keys_split_the_searchers_nodes_only_below_the_root(game, steps):
    """With chance keys, the root's children are one per legal action still (every world of the
    root shows the searcher the same chance), and below them children carry several keys: the
    worlds the searcher tells apart. Without, every key is 0."""
    s = metro_ai.load_game(game, players=2).new_state(2)
    rng = random.Random(2)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    sizes = []
    for keyed in (False, True):
        core = SearchCore(s, s.current_player, 4, chance_keys=keyed)
        core.run(iterations=1500)
        nodes = core.tree_nodes()
        root_kids = [row for row in nodes if row[1] == 0]
        assert sorted(row[2] for row in root_kids) == s.legal_actions()
        assert len({row[7] for row in root_kids}) == 1
        sizes.append(len({row[7] for row in nodes[1:]}))
    assert sizes[0] == 1 and sizes[1] > 1


def _merged_share(game, seeds, steps, key, worlds=120, depth=10):
    """The share of the searcher's decision nodes, as SO-ISMCTS keys them (the observed action
    path, the mover and, with `key`, the searcher's chance key), that hold worlds the searcher
    could tell apart (different observations). Worlds from determinisations of seeded positions
    follow a few paths chosen by a hash of the node, as iterations through one tree do."""
    merged = total = 0
    g = metro_ai.load_game(game, players=2)
    for seed in seeds:
        s = g.new_state(seed)
        rng = random.Random(seed)
        for _ in range(steps):
            if not s.is_terminal():
                s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        p = s.current_player
        nodes = defaultdict(set)
        for k in range(worlds):
            w = s.determinize(p, k)
            node = ()
            for _ in range(depth):
                if w.is_terminal():
                    break
                here = (node, w.current_player, w.chance_key(p) if key else 0)
                nodes[here].add(json.dumps(w.observation(p), sort_keys=True))
                legal = w.legal_actions()
                a = legal[zlib.crc32(repr((here, k % 3)).encode()) % len(legal)]
                seen = w.observed_action(a, p) if hasattr(w, "observed_action") else a
                node = here + (seen,)
                w.apply(a)
        total += len(nodes)
        merged += sum(len(obs) > 1 for obs in nodes.values())
    return merged / total


@pytest.mark.parametrize("game,steps,seeds", [("leduc", 0, range(12)), ("metro2033", 40, range(3))])
def test_the_chance_key_leaves_no_node_holding_worlds_the_searcher_tells_apart(game, steps, seeds):
    """Keyed by action and mover alone, many of the searcher's nodes hold worlds it could tell
    apart (Leduc: the public card; Metro 2033: threats, draws, fights); with its chance key, none."""
    assert _merged_share(game, seeds, steps, key=False) > 0.2
    assert _merged_share(game, seeds, steps, key=True) == 0


def test_chance_keys_of_leduc_name_the_public_card_once_shown():
    s, call = _leduc_before_the_flop()
    assert [s.chance_key(p) for p in range(2)] == [0, 0]
    s.apply(call)
    s.apply(call)
    assert [s.chance_key(p) for p in range(2)] == [s.public_card + 1] * 2
    assert metro_ai.load_game("metro", players=2).new_state(1).chance_key(0) == 0   # no chance key


def test_the_bots_chance_keys_option_keys_their_trees_and_is_off_by_default():
    """``chance_keys=True`` on a search bot gives its cores the chance keys (Leduc before the
    flop: the second round splits by public card, so the tree has more nodes at the same
    iterations); left out, the bot searches exactly as ``chance_keys=False``."""
    s, _ = _leduc_before_the_flop()
    limit = metro_ai.Limit(iterations=3000)
    plain, off, on = (metro_ai.make_bot(spec, seed=5).analyse(s, limit)
                      for spec in ("ismcts", "ismcts:chance_keys=False", "ismcts:chance_keys=True"))
    def same(a):
        return {k: v for k, v in a.to_dict().items() if k != "seconds"}
    assert same(plain) == same(off)
    assert on.nodes > off.nodes
    for spec in ("mo-ismcts:chance_keys=True", "pimc:chance_keys=True", "flat-mc:chance_keys=True"):
        assert metro_ai.make_bot(spec, seed=5).analyse(s, limit).iterations == 3000


def _position(game, players, steps, seed=1):
    s = metro_ai.load_game(game, players=players).new_state(4)
    rng = random.Random(seed)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("game, players, steps, options, multi, iterations", [
    ("metro", 2, 40, {}, False, 6000),            # an opponent's hidden tile: hundreds of children
    ("metro", 4, 30, {}, True, 3000),             # MO-ISMCTS: an index per tree
    ("metro", 2, 40, {"minimax": 0.2, "chance_keys": True}, False, 3000),
    ("metro2033", 2, 37, {}, False, 3000),        # two movers after one action path, shared action ids
    ("breakthrough", 3, 20, {}, False, 2000),
    ("leduc", 2, 1, {"chance_keys": True}, False, 4000),
])
def test_the_child_index_finds_the_children_the_sibling_walk_does(game, players, steps, options, multi,
                                                                 iterations):
    """A node with many children has them in its tree's child index, and selection looks up
    the world's legal actions there instead of walking the siblings: the same children, so the
    same tree, statistics and choice bit for bit whether every node is indexed, none is, or
    those past the default threshold (16 children) are."""
    from metro_ai.bots.search import _set_index_from
    from metro_ai.bots.settings import SearchSettings
    s = _position(game, players, steps)
    settings = SearchSettings.for_game(s.game, **options)

    def search(children):
        old = _set_index_from(children)
        try:
            core = SearchCore(s, s.current_player, 7, settings, multi_observer=multi)
        finally:
            _set_index_from(old)
        core.run(iterations=iterations)
        trees = [core.tree_nodes(t if multi else None) for t in (range(players) if multi else (None,))]
        return trees, core.summary(), core.child_index()

    walked, indexed, default = search(10 ** 9), search(0), search(16)
    assert walked[:2] == indexed[:2] == default[:2]
    assert walked[2] == [0] * len(walked[2])
    assert all(n > 0 for n in indexed[2]) and sum(indexed[2]) == sum(len(t) - 1 for t in indexed[0])
    if game == "metro":
        assert sum(default[2]) > 0               # the opponents' nodes pass the threshold


def test_the_child_index_threshold_is_checked_and_kept_per_core():
    from metro_ai.bots.search import _set_index_from
    with pytest.raises(ValueError, match="children must be >= 0"):
        _set_index_from(-1)
    s = _position("metro", 2, 40)
    old = _set_index_from(10 ** 9)
    try:
        core = SearchCore(s, s.current_player, 7)
    finally:
        assert _set_index_from(old) == 10 ** 9
    core.run(iterations=3000)                     # made while indexing was off: stays walked
    assert core.child_index() == [0]
