"""Progressive bias at the root (SearchCore ``set_prior``, the search bots' ``prior`` and
``prior_worlds`` options, issue #26): the searcher's root children score ``w * P / (visits + 1)``
more, P the greedy bot's one-ply value of the action scaled to [0, 1], and untried root actions
are expanded best P first. On (1) by default in Metro without companies and in Breakthrough,
where it measured stronger; off (0) elsewhere, where the search is the one it was."""
import pytest

import metro_ai
from metro_ai.bots.baselines import GreedyBot
from metro_ai.bots.mcts import root_prior
from metro_ai.bots.search import SearchCore


def _position(game="metro", moves=12, **options):
    """A position some moves in, where the greedy values of the root actions differ."""
    s = metro_ai.load_game(game, players=2, **options).new_state(5)
    bot = metro_ai.make_bot("random", seed=2)
    for _ in range(moves):
        s.apply(bot.choose(s))
    return s


def _root_children(core):
    return [n for n in core.tree_nodes() if n[1] == 0]


def test_the_root_prior_is_the_greedy_value_scaled_to_0_1():
    s = _position()
    prior = root_prior(s, 7, 2)
    scored = GreedyBot.scores(s, 7, 2)
    assert sorted(prior) == sorted(s.legal_actions())
    assert min(prior.values()) == 0.0 and max(prior.values()) == 1.0
    best = max(scored)[0]
    assert {a for v, a in scored if v == best} == {a for a, p in prior.items() if p == 1.0}
    # the same order as the greedy values
    by_value = dict((a, v) for v, a in scored)
    for a in prior:
        for b in prior:
            assert (by_value[a] < by_value[b]) == (prior[a] < prior[b])


def test_untried_root_actions_are_expanded_best_prior_first():
    s = _position()
    legal = s.legal_actions()
    order = legal[::-1]                      # any order the uniform choice would not give
    prior = {a: 1.0 - i / len(order) for i, a in enumerate(order)}
    core = SearchCore(s, s.current_player, 3)
    core.set_prior(prior, 1.0)
    core.run(iterations=len(legal))
    expanded = [n[2] for n in _root_children(core)]
    assert expanded == order


def test_a_heavy_prior_draws_the_visits_to_its_action():
    s = _position()
    legal = s.legal_actions()
    plain = SearchCore(s, s.current_player, 3)
    plain.run(iterations=2000)
    least = min(plain.root_stats(), key=lambda x: (x[1], x[0]))[0]   # the search's own least visited
    core = SearchCore(s, s.current_player, 3)
    core.set_prior({a: 1.0 if a == least else 0.0 for a in legal}, 50.0)
    core.run(iterations=2000)
    visits = {a: v for a, v, _, _ in core.root_stats()}
    assert max(visits, key=visits.get) == least


def test_off_where_the_game_sets_none_and_reproducible():
    s = _position(companies=True)
    limit = metro_ai.Limit(iterations=400)
    off = metro_ai.make_bot("ismcts", seed=4).analyse(s, limit)
    zero = metro_ai.make_bot("ismcts:prior=0", seed=4).analyse(s, limit)
    assert [(a.action, a.visits, a.mean) for a in off.actions] == [(a.action, a.visits, a.mean) for a in zero.actions]
    on = [metro_ai.make_bot("ismcts:prior=2,prior_worlds=2", seed=4).analyse(s, limit) for _ in range(2)]
    assert [(x.action, x.visits, x.mean) for x in on[0].actions] == [(x.action, x.visits, x.mean) for x in on[1].actions]
    assert [(x.action, x.visits) for x in on[0].actions] != [(x.action, x.visits) for x in off.actions]


def test_worker_processes_search_as_threads_do_with_a_prior():
    s = _position("breakthrough", moves=4)
    limit = metro_ai.Limit(iterations=300)
    threads = metro_ai.make_bot("ismcts:prior=1,workers=2", seed=6).analyse(s, limit)
    processes = metro_ai.make_bot("ismcts:prior=1,workers=2,backend=processes", seed=6).analyse(s, limit)
    assert [(a.action, a.visits, a.mean) for a in threads.actions] == \
        [(a.action, a.visits, a.mean) for a in processes.actions]


def test_set_prior_checks_what_it_is_given_and_none_turns_it_off():
    s = _position()
    core = SearchCore(s, s.current_player, 1)
    with pytest.raises(ValueError, match="out of range"):
        core.set_prior({10 ** 6: 0.5})
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        core.set_prior({s.legal_actions()[0]: 1.5})
    with pytest.raises(ValueError, match="weight"):
        core.set_prior({}, -1.0)
    core.set_prior(None)
    core.run(iterations=50)
    plain = SearchCore(s, s.current_player, 1)
    plain.run(iterations=50)
    assert core.root_stats() == plain.root_stats()


@pytest.mark.parametrize("spec", ["ismcts:prior=-1", "ismcts:prior=inf", "ismcts:prior_worlds=0"])
def test_bad_bot_options_are_refused(spec):
    with pytest.raises(ValueError, match="prior"):
        metro_ai.make_bot(spec)


def test_left_unset_the_prior_is_the_games_default(monkeypatch):
    s = _position()
    limit = metro_ai.Limit(iterations=400)
    explicit = metro_ai.make_bot("ismcts:prior=1.5", seed=4).analyse(s, limit)
    monkeypatch.setitem(s.game.search_defaults, "prior", 1.5)
    unset = metro_ai.make_bot("ismcts", seed=4).analyse(s, limit)
    assert [(a.action, a.visits, a.mean) for a in unset.actions] == \
        [(a.action, a.visits, a.mean) for a in explicit.actions]
    off = metro_ai.make_bot("ismcts:prior=0", seed=4).analyse(s, limit)
    assert [(a.action, a.visits) for a in off.actions] != [(a.action, a.visits) for a in unset.actions]


def test_metro_and_breakthrough_search_with_the_prior_by_default_except_with_companies():
    """Metro's and Breakthrough's ``search_defaults`` set prior 1 (it won, SPRT H1: Metro at 2 and
    4 players, Breakthrough at 2); with companies Metro's ``search_settings()`` turns it off (no
    gain measured); the other games set none."""
    limit = metro_ai.Limit(iterations=400)
    for options, weight in (({}, 1.0), ({"companies": True}, 0.0), ({"city": "london"}, 1.0)):
        s = _position(**options)
        assert s.game.search_settings()["prior"] == weight
        unset = metro_ai.make_bot("ismcts", seed=4).analyse(s, limit)
        explicit = metro_ai.make_bot(f"ismcts:prior={weight}", seed=4).analyse(s, limit)
        assert [(a.action, a.visits, a.mean) for a in unset.actions] == \
            [(a.action, a.visits, a.mean) for a in explicit.actions]
    assert metro_ai.load_game("metro", players=2).search_defaults["prior"] == 1.0
    assert metro_ai.load_game("breakthrough").search_settings()["prior"] == 1.0
    for name in ("leduc", "metro2033", "metro-solo"):
        assert metro_ai.load_game(name).search_settings().get("prior", 0.0) == 0.0


def test_a_refused_prior_leaves_the_one_set_before():
    s = _position()
    legal = s.legal_actions()
    good = {a: i / len(legal) for i, a in enumerate(legal)}
    core = SearchCore(s, s.current_player, 2)
    core.set_prior(good, 2.0)
    with pytest.raises(ValueError):
        core.set_prior({legal[0]: 7.0}, 2.0)
    core.run(iterations=200)
    same = SearchCore(s, s.current_player, 2)
    same.set_prior(good, 2.0)
    same.run(iterations=200)
    assert core.root_stats() == same.root_stats()
