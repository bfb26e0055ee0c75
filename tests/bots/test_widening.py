"""Progressive widening (SearchCore ``widen``/``widen_power``, the search bots' options of the same
names, issue #26): a node of n visits grows a new child only while it has fewer than
``widen * (n + 1) ** widen_power`` children for its mover and chance key; off (0) by default,
where the search is the one it was."""
import math

import pytest

import metro_ai
from metro_ai.bots.search import SearchCore


def _opening(game="metro", **options):
    return metro_ai.load_game(game, players=2, **options).new_state(3)


def _children_of_root(core):
    return [n for n in core.tree_nodes() if n[1] == 0]


def test_widening_bounds_the_roots_children_by_its_visits():
    s = _opening()
    legal = len(s.legal_actions())
    for iterations, widen, power in ((100, 1.0, 0.5), (400, 0.5, 0.5), (300, 2.0, 0.25)):
        core = SearchCore(s, 0, 5, widen=widen, widen_power=power)
        core.run(iterations=iterations)
        cap = widen * (iterations + 1) ** power
        children = _children_of_root(core)
        assert len(children) <= math.ceil(cap) < legal
        # children are only added while under the cap at their parent's visit count
        plain = SearchCore(s, 0, 5)
        plain.run(iterations=iterations)
        assert len(_children_of_root(plain)) == legal


def test_power_zero_keeps_at_most_widen_children_at_the_root():
    s = _opening()
    core = SearchCore(s, 0, 9, widen=3.0, widen_power=0.0)
    core.run(iterations=500)
    assert len(_children_of_root(core)) == 3
    assert sum(v for _, v, _, _ in core.root_stats()) == 500


def test_widening_deepens_the_tree_where_chance_makes_it_wide():
    """Metro: each opponent reply meets a new tile in each world; widening keeps revisiting the
    children it has, so iterations go deeper."""
    s = _opening()
    shallow = metro_ai.make_bot("ismcts", seed=1).analyse(s, metro_ai.Limit(iterations=3000))
    deep = metro_ai.make_bot("ismcts", seed=1, widen=1).analyse(s, metro_ai.Limit(iterations=3000))
    assert deep.depth_mean > shallow.depth_mean + 0.3


def test_off_by_default_and_reproducible():
    s = _opening("metro2033")
    off = metro_ai.make_bot("ismcts", seed=4).analyse(s, metro_ai.Limit(iterations=300))
    zero = metro_ai.make_bot("ismcts", seed=4, widen=0).analyse(s, metro_ai.Limit(iterations=300))
    assert [(a.action, a.visits, a.mean) for a in off.actions] == [(a.action, a.visits, a.mean) for a in zero.actions]
    a = metro_ai.make_bot("ismcts:widen=1.5,widen_power=0.4", seed=4).analyse(s, metro_ai.Limit(iterations=300))
    b = metro_ai.make_bot("ismcts:widen=1.5,widen_power=0.4", seed=4).analyse(s, metro_ai.Limit(iterations=300))
    assert [(x.action, x.visits, x.mean) for x in a.actions] == [(x.action, x.visits, x.mean) for x in b.actions]


@pytest.mark.parametrize("kwargs", [{"widen": -1.0}, {"widen": float("nan")}, {"widen": float("inf")},
                                    {"widen": 1.0, "widen_power": 1.5}, {"widen": 1.0, "widen_power": -0.1}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError, match="widen"):
        SearchCore(_opening(), 0, 1, **kwargs)


@pytest.mark.parametrize("spec", ["ismcts:widen=-1", "ismcts:widen_power=2", "ismcts:widen=nan"])
def test_bad_bot_options_are_refused(spec):
    with pytest.raises(ValueError, match="widen"):
        metro_ai.make_bot(spec)
