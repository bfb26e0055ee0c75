"""The play-out's ``lead_weight`` (the search bots' option of the same name, issue #44): where a
play-out stops, each player's value is mixed with a utility of its lead (its heuristic less the
others' mean) over its lead at the root, steepest around the root's, so the search keeps telling
moves apart where the game is all but decided. 0 (every game's default) is the former search,
bit for bit."""
import math
import pickle
import random

import pytest

import metro_ai
from metro_ai.bots.search import HeuristicPlayout, MastPlayout, RandomPlayout, SearchCore

from tests.bots.test_end_scale import _one_from_the_end, _soft, _stats


def _lead(h, i):
    return h[i] - (sum(h) - h[i]) / (len(h) - 1)


def _utility(h, h0, i, scale):
    return 0.5 + math.atan((_lead(h, i) - _lead(h0, i)) / scale) / math.pi


def _children(s):
    out = {}
    for a in s.legal_actions():
        t = s.clone()
        t.apply(a)
        out[a] = t
    return out


@pytest.mark.parametrize("w", [0.25, 0.5])
def test_a_cut_off_mixes_the_soft_rank_with_the_utility_of_the_lead_over_the_roots(w):
    """A play-out of depth 0 scores the root child it starts from; one iteration a child, so
    each child's mean is exactly its score: (1 - w) * soft rank + w * (1/2 + atan(lead gained /
    scale) / pi), the lead gained against the root's (Breakthrough: public tokens and quests)."""
    game = metro_ai.load_game("breakthrough", players=3)
    rng = random.Random(4)
    s = game.new_state(4)
    for _ in range(150):
        s.apply(rng.choice(s.legal_actions()))
    while True:                                     # on to a position whose children differ in the lead
        me, h0 = s.current_player, list(s.heuristic())
        kids = _children(s)
        if len({round(_lead(list(t.heuristic()), me) - _lead(h0, me), 9) for t in kids.values()}) > 2:
            break
        s.apply(rng.choice(s.legal_actions()))
    for scale in (1.0, 2.0):
        core = SearchCore(s, me, 1, fixed_world=s.clone(),
                          rollout=HeuristicPlayout(depth=0, cutoff_scale=scale, lead_weight=w))
        core.run(iterations=len(kids))
        stats = core.root_stats()
        assert len(stats) == len(kids)
        for action, visits, value, _ in stats:
            h = list(kids[action].heuristic())
            want = (1 - w) * _soft(h, me, scale) + w * _utility(h, h0, me, scale)
            assert visits == 1 and value == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("players", [2, 3])
def test_the_end_of_a_game_mixes_its_returns_with_the_lead_too(players):
    """Every root action ends the game: its mean is (1 - w) * the return + w * the lead's
    utility by the heuristic at the end (scale 1: the play-out has no cut-off scale)."""
    s = _one_from_the_end(metro_ai.load_game("metro", players=players), 6)
    me, h0 = s.current_player, list(s.heuristic())
    kids = _children(s)
    core = SearchCore(s, me, 1, fixed_world=s.clone(), rollout=RandomPlayout(lead_weight=0.3))
    core.run(iterations=4 * len(kids))
    for action, visits, value, _ in core.root_stats():
        t = kids[action]
        want = 0.7 * t.returns()[me] + 0.3 * _utility(list(t.heuristic()), h0, me, 1.0)
        assert visits > 0 and value / visits == pytest.approx(want, rel=1e-9)


def test_zero_is_the_former_search_and_the_option_reaches_the_play_out():
    s = metro_ai.load_game("breakthrough", players=3).new_state(3)      # (off by default from 3 players)
    assert _stats("medium", s, 300) == _stats("medium:lead_weight=0", s, 300)
    assert _stats("medium:lead_weight=0.5", s, 300) != _stats("medium", s, 300)
    m33 = metro_ai.load_game("metro2033", players=2)
    assert metro_ai.make_bot("hard:lead_weight=0.2").settings_for(m33).playout.lead_weight == 0.2
    assert metro_ai.make_bot("hard").settings_for(m33).playout.lead_weight == 0.0


def test_breakthrough_has_the_term_at_2_players_only():
    """Breakthrough's 2-player default (its search_settings; off from 3 players up): the
    bots read weight 0.5 there unless told otherwise, and 0 from 3 players up."""
    two, three = (metro_ai.load_game("breakthrough", players=n) for n in (2, 3))
    assert two.search_settings()["lead_weight"] == 0.5 and "lead_weight" not in three.search_settings()
    for preset in ("easy", "medium", "hard"):
        assert metro_ai.make_bot(f"{preset}:eval=hand-written").settings_for(two).playout == HeuristicPlayout(
            depth=15, cutoff_scale=1.0, samples=8, lead_weight=0.5)
        assert metro_ai.make_bot(preset).settings_for(two).playout.lead_weight == 0.5
        assert metro_ai.make_bot(preset).settings_for(three).playout.lead_weight == 0.0
    assert metro_ai.make_bot("hard:lead_weight=0,eval=hand-written").settings_for(two).playout == HeuristicPlayout(
        depth=15, cutoff_scale=1.0, samples=8)


def test_the_setting_is_checked_kept_and_shown_only_where_on():
    p = HeuristicPlayout(depth=10, cutoff_scale=1.0, lead_weight=0.4)
    assert p.lead_weight == 0.4 and p.settings()["lead_weight"] == 0.4
    assert pickle.loads(pickle.dumps(p)) == p != p.replace(lead_weight=0.0)
    assert "lead_weight" not in HeuristicPlayout(depth=10, cutoff_scale=1.0).settings()
    assert repr(RandomPlayout()) == "RandomPlayout(depth=None, cutoff_scale=0.0, end_scale=0.0)"
    assert MastPlayout(depth=60, lead_weight=0.1).replace(depth=5) == MastPlayout(depth=5, lead_weight=0.1)
    for bad in (1.0, -0.1, True, "0.5", float("nan")):
        with pytest.raises(ValueError, match=r"lead_weight must be a number in \[0, 1\)"):
            RandomPlayout(lead_weight=bad)
    with pytest.raises(ValueError, match="option 'lead_weight' must be"):
        metro_ai.make_bot("ismcts:lead_weight=1")


def test_a_game_written_in_python_reads_the_term_too():
    """Pick (tests/pick_game.py) one move from the end, its coin fixed: each action's mean is
    (1 - w) * the return + w * the lead's utility, the heuristic being the game's scores."""
    from tests.pick_game import PickGame
    s = PickGame().new_state(1)
    for a in (0, 0, 1):
        s.apply(a)
    me, h0 = s.current_player, list(s.heuristic())
    kids = _children(s)
    core = SearchCore(s, me, 1, fixed_world=s.clone(), rollout=RandomPlayout(lead_weight=0.3))
    core.run(iterations=3 * len(kids))
    stats = core.root_stats()
    assert len(stats) == len(kids) == 3
    for action, visits, value, _ in stats:
        t = kids[action]
        want = 0.7 * t.returns()[me] + 0.3 * _utility(list(t.heuristic()), h0, me, 1.0)
        assert visits > 0 and value / visits == pytest.approx(want, rel=1e-9)


def test_one_player_gains_on_its_own_heuristic():
    """Alone, the lead is the heuristic itself (Metro solo: the score so far): one move from the
    end, each action's mean is (1 - w) * the return + w * (1/2 + atan(heuristic gained) / pi)."""
    s = _one_from_the_end(metro_ai.load_game("metro-solo"), 3)
    h0 = s.heuristic()[0]
    kids = _children(s)
    core = SearchCore(s, 0, 1, fixed_world=s.clone(), rollout=RandomPlayout(lead_weight=0.5))
    core.run(iterations=4 * len(kids))
    for action, visits, value, _ in core.root_stats():
        t = kids[action]
        want = 0.5 * t.returns()[0] + 0.5 * (0.5 + math.atan(t.heuristic()[0] - h0) / math.pi)
        assert visits > 0 and value / visits == pytest.approx(want, rel=1e-9)


def test_a_one_player_cut_off_is_a_half_and_the_term_orders_it():
    """A cut-off of a one-player game has no rank: it scores 1/2 (before, the rank's 0/0 gave
    NaN to every action of a search of Metro solo with a play-out depth), and the lead term
    orders the actions by the heuristic they gain."""
    s = metro_ai.load_game("metro-solo").new_state(2)
    h0 = s.heuristic()[0]
    kids = _children(s)
    for w in (0.0, 0.4):
        core = SearchCore(s, 0, 1, fixed_world=s.clone(), rollout=RandomPlayout(depth=0, lead_weight=w))
        core.run(iterations=len(kids))
        for action, visits, value, _ in core.root_stats():
            gain = kids[action].heuristic()[0] - h0
            assert visits == 1 and value == pytest.approx((1 - w) * 0.5 + w * (0.5 + math.atan(gain) / math.pi))
