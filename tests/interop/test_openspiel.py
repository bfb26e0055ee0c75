"""The OpenSpiel bridge (metro_ai.interop.openspiel): OpenSpiel's own checks and algorithms on our
engines. Skipped where open_spiel is not installed (optional extra ``openspiel``)."""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import metro_ai  # noqa: E402
from metro_ai.interop import openspiel as bridge  # noqa: E402


@pytest.mark.parametrize("name, params, sims, serialize", [
    ("metro", {"players": 2}, 3, True),
    ("metro", {"players": 4}, 3, False),
    ("metro", {"players": 3, "hand_size": 2, "orientation": False}, 2, False),
    ("breakthrough", {"players": 2, "turn_limit": 60}, 2, True),
])
def test_random_sim_test(name, params, sims, serialize):
    game = bridge.load(name, **params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=serialize, verbose=False)


@pytest.mark.slow          # a whole Breakthrough game through OpenSpiel's API
def test_breakthrough_full_length_game():
    pyspiel.random_sim_test(bridge.load("breakthrough", players=2), num_sims=1, serialize=False, verbose=False)


def test_game_description():
    game = pyspiel.load_game("metro_ai_metro", {"players": 4})
    t, info = game.get_type(), game
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert info.num_players() == 4 and info.utility_sum() == 2.0
    assert info.min_utility() == 0.0 and info.max_utility() == 1.0
    assert info.num_distinct_actions() == 6145
    assert bridge.load("breakthrough").num_distinct_actions() == 1339
    with pytest.raises(Exception):
        bridge.load("metro", colour="red")


def _play(game, seed, moves):
    state = game.new_initial_state()
    assert state.is_chance_node()
    state.apply_action(seed % game.max_chance_outcomes())
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_deal_matches_engine_and_play_matches():
    game = bridge.load("metro", players=3)
    state = _play(game, 7, 0)
    ours = metro_ai.load_game("metro", players=3).new_state(seed=7)
    assert state.metro_state.to_json() == ours.to_json()
    rng = random.Random(1)
    while not state.is_terminal():
        a = rng.choice(state.legal_actions())
        assert state.legal_actions() == ours.legal_actions()
        assert state.action_to_string(state.current_player(), a) == ours.action_to_string(a)
        state.apply_action(a)
        ours.apply(a)
    assert state.returns() == pytest.approx(ours.returns())
    assert sum(state.returns()) == pytest.approx(1.5)


@pytest.mark.parametrize("name, players, moves", [("metro", 2, 10), ("metro", 4, 25), ("breakthrough", 3, 40)])
def test_resample_keeps_information_state(name, players, moves):
    game = bridge.load(name, players=players)
    sampler = pyspiel.UniformProbabilitySampler(0., 1.)
    for seed in range(3):
        state = _play(game, seed, moves)
        for player in range(players):
            key = state.information_state_string(player)
            assert key == state.observation_string(player)
            worlds = set()
            for _ in range(4):
                world = state.resample_from_infostate(player, sampler)
                assert world.information_state_string(player) == key
                assert world.current_player() == state.current_player()
                assert world.legal_actions() == state.legal_actions() or player != state.current_player()
                worlds.add(str(world))
            if name == "metro":          # other players' hands and the supply are hidden
                assert len(worlds) > 1


def test_resample_without_sampler_and_at_the_deal():
    game = bridge.load("metro", players=2)
    root = game.new_initial_state()
    assert str(root.resample_from_infostate(0, None)) == str(root)
    state = _play(game, 3, 5)
    a = state.resample_from_infostate(1, None)
    b = state.resample_from_infostate(1, None)
    assert a.information_state_string(1) == b.information_state_string(1) == state.information_state_string(1)


def test_clone_is_independent():
    state = _play(bridge.load("metro", players=2), 4, 3)
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert str(copy) != str(state) and copy.history()[:-1] == state.history()


def test_openspiel_python_ismcts_plays_metro():
    from open_spiel.python.algorithms import ismcts, mcts
    game = bridge.load("metro", players=2)
    rng = np.random.RandomState(0)
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=1.4, max_simulations=20,
                             random_state=np.random.RandomState(p)) for p in range(2)]
    state = _play(game, 5, 0)
    for _ in range(6):
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.move_number() == 7
