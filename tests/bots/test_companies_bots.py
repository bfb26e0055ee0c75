"""The bots' defaults on the Metro companies expansion (M11-M19): what greedy and the search
bots' play-outs and cut-offs read, checked on the engine (no timings, no strength figures: those
are in benches/results/companies*.md)."""
import random

import pytest

import metro_ai


def positions(players, games=6, seed=3):
    """Positions of random companies games, exchanges included, every few actions."""
    game = metro_ai.load_game("metro", players=players, companies=True)
    rng = random.Random(seed)
    for g in range(games):
        s = game.new_state(g)
        k = 0
        while not s.is_terminal():
            if k % 7 == 3:
                yield s.clone()
            s.apply(rng.choice(s.legal_actions()))
            k += 1


@pytest.mark.parametrize("players", [2, 4])
def test_each_players_heuristic_depends_only_on_what_they_know(players):
    # greedy's value and a play-out's cut-off read a player's entry of the heuristic: the expected
    # share value from that player's knowledge (M18), the same in every world they cannot tell apart
    seen_exchange = False
    for s in positions(players):
        seen_exchange |= any(e > 0 for e in s.exchanges_made())
        for p in range(players):
            h = s.heuristic()[p]
            for k in (1, 2):
                twin = s.determinize(p, k)
                assert twin.observation(p) == s.observation(p)
                assert twin.heuristic()[p] == pytest.approx(h)
    assert seen_exchange


def test_heuristic_counts_share_values_not_profits():
    # the base game's heuristic is points plus open lines; with companies a player's points are
    # their shares' values (M14): at the deal every company is worth 8, so 8 x (1 + 2 + 3 + 4)
    s = metro_ai.load_game("metro", players=3, companies=True).new_state(5)
    assert s.heuristic() == [80.0, 80.0, 80.0] and s.profits() == [0] * 8


def test_search_bots_play_companies_out_to_the_end_by_default():
    # random play-outs to the end score the final scoring itself (M14, M19): cut-offs scored by the
    # heuristic were weaker at equal iterations (benches/results/companies_tuning.md)
    game = metro_ai.load_game("metro", players=2, companies=True)
    assert game.search_settings() == {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0, "prior": 0.0}
    bot = metro_ai.make_bot("ismcts", seed=1)
    playout = bot.settings_for(game).playout
    assert playout.depth == -1 and type(playout).__name__ == "RandomPlayout"
