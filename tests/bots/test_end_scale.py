"""The play-out's ``end_scale`` (the search bots' option of the same name, issue #26): the end of
a play-out scored by a logistic soft rank of the final scores instead of the game's returns, so a
wide win counts more than a narrow one. 0 (every game's default) is the former search, bit for
bit."""
import math
import pickle
import random

import pytest

import metro_ai
from metro_ai.bots.search import HeuristicPlayout, MastPlayout, RandomPlayout, SearchCore


def _one_from_the_end(game, seed):
    """A state of `game` whose every legal action ends the game."""
    rng = random.Random(seed)
    s = game.new_state(seed)
    while True:
        legal = s.legal_actions()
        ends = []
        for a in legal:
            t = s.clone()
            t.apply(a)
            ends.append(t.is_terminal())
        if all(ends):
            return s
        s.apply(rng.choice(legal))


def _soft(scores, i, scale):
    others = [j for j in range(len(scores)) if j != i]
    return sum(1 / (1 + math.exp((scores[j] - scores[i]) / scale)) for j in others) / len(others)


@pytest.mark.parametrize("players", [2, 3])
def test_the_end_is_scored_by_the_soft_rank_of_the_final_scores(players):
    """Every root action ends the game, so each root child's mean is exactly the mover's return
    of the end it reaches: the game's returns by default, the soft rank of the scores with
    ``end_scale``."""
    s = _one_from_the_end(metro_ai.load_game("metro", players=players), 5)
    me = s.current_player
    ends = {}
    for a in s.legal_actions():
        t = s.clone()
        t.apply(a)
        ends[a] = (list(t.returns()), list(t.scores()))
    assert all(_soft(sc, me, 3.0) != r[me] for r, sc in ends.values())   # the two scorings differ here
    for scale in (0.0, 3.0):
        core = SearchCore(s, me, 1, fixed_world=s.clone(), rollout=RandomPlayout(end_scale=scale))
        core.run(iterations=4 * len(ends))
        for action, visits, value, _ in core.root_stats():
            assert visits > 0
            returns, scores = ends[action]
            want = returns[me] if scale == 0 else _soft(scores, me, scale)
            assert value / visits == pytest.approx(want, rel=1e-6)


def _stats(spec, state, iterations):
    """Each root action's visits and mean in a seeded search of `state` by the bot `spec`."""
    a = metro_ai.make_bot(spec, seed=2).analyse(state, metro_ai.Limit(iterations=iterations))
    return [(x.action, x.visits, x.mean) for x in a.actions]


def test_zero_is_the_former_search_and_the_option_reaches_the_play_out():
    s = metro_ai.load_game("metro", players=2).new_state(3)
    assert _stats("ismcts", s, 400) == _stats("ismcts:end_scale=0", s, 400)
    assert _stats("ismcts:end_scale=5", s, 400) != _stats("ismcts", s, 400)
    bot = metro_ai.make_bot("ismcts:end_scale=5", seed=1)
    assert bot.settings_for(s.game).playout == RandomPlayout(end_scale=5.0)
    m33 = metro_ai.load_game("metro2033", players=2).new_state(1)
    assert bot.settings_for(m33.game).playout == MastPlayout(depth=60, epsilon=0.35, cutoff_scale=1.0, end_scale=5.0)
    assert metro_ai.make_bot("ismcts:rollout=heuristic,end_scale=2", seed=1).settings_for(s.game).playout == HeuristicPlayout(end_scale=2.0)


@pytest.mark.parametrize("bad", [-1, float("inf"), float("nan"), True, "1"])
def test_a_bad_end_scale_is_refused(bad):
    with pytest.raises(ValueError, match="end_scale"):
        RandomPlayout(end_scale=bad)
    with pytest.raises(ValueError, match="end_scale"):
        metro_ai.make_bot("ismcts", end_scale=bad)


def test_it_pickles_and_replaces():
    p = MastPlayout(depth=60, cutoff_scale=1.0, end_scale=4.0)
    assert pickle.loads(pickle.dumps(p)) == p
    assert p.replace(end_scale=0.0).end_scale == 0.0 and p.end_scale == 4.0
