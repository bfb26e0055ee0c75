"""The PettingZoo bridge (metro_ai.interop.pettingzoo) passes PettingZoo's own API and seed tests
for every registered game, and shows each agent only what its seat sees."""
import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed")
from pettingzoo.test import api_test, seed_test  # noqa: E402

import metro_ai  # noqa: E402
from metro_ai.interop.pettingzoo import env, raw_env  # noqa: E402
from tiers import tiered

CASES = [("metro", dict(players=2)), ("metro", dict(players=4, hand_size=2)),
         ("metro", dict(players=3, companies=True)), ("breakthrough", dict(players=2)),
         ("breakthrough", dict(players=3, turn_limit=30)),
         ("metro", dict(players=3, companies=True, central_stations=True)),
         ("metro", dict(players=2, central_tracks=True)), ("metro-solo", dict())]


def test_every_registered_game_has_an_environment():
    for name in metro_ai.list_games():
        e = raw_env(name)
        e.reset(seed=0)
        assert e.observation_space(e.agent_selection)["observation"].shape == e.features.shape


# A Dict observation with an action mask is PettingZoo's own convention for board games
# (connect_four, chess); api_test still warns that it is not a plain Box.
@pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize("game,options", CASES)
def test_pettingzoo_api_test(game, options):
    api_test(env(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", CASES[::2])
def test_pettingzoo_seed_test(game, options):
    seed_test(lambda: env(game, **options), num_cycles=50)


@pytest.mark.parametrize("game,options", tiered(CASES, fast=lambda game, options: game != "breakthrough"
                                                or "turn_limit" in options))
def test_a_full_episode_matches_the_engine(game, options):
    """Observations are the engine's tensors and dicts of each seat; masks the legal actions; the
    final rewards the game's returns; the same seed replays the same episode."""
    def episode(seed):
        e = raw_env(game, **options)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        moves, total = [], {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            total[agent] += reward
            s, seat = e.state, e.possible_agents.index(agent)
            assert not trunc
            if term:
                e.step(None)
                continue
            assert seat == s.current_player
            assert np.array_equal(obs["observation"], s.observation_tensor(seat))
            assert info["observation"] == s.observation(seat)
            assert list(np.flatnonzero(obs["action_mask"])) == s.legal_actions()
            if len(e.possible_agents) > 1:
                other = e.possible_agents[(seat + 1) % len(e.possible_agents)]
                assert not e.observe(other)["action_mask"].any()
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            moves.append(a)
            e.step(a)
        assert [total[a] for a in e.possible_agents] == s.returns()
        return moves

    assert episode(7) == episode(7)
    assert episode(7) != episode(8)


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = raw_env("metro", players=2)
    e.reset(seed=1)
    before = e.state.to_json()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(metro_ai.IllegalActionError):
        e.step(illegal)
    with pytest.raises(metro_ai.IllegalActionError, match="an action is an int"):
        e.step("north")
    assert e.state.to_json() == before
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("metro", render_mode="pixels")


def test_the_tensor_holds_only_what_the_seat_sees():
    """Two states that differ only in what seat 0 cannot see (another world drawn for seat 0 by
    determinize) give seat 0 the same tensor."""
    for game, options in CASES:
        g = metro_ai.load_game(game, **options)
        s = g.new_state(5)
        rng = np.random.default_rng(5)
        for _ in range(12):
            s.apply(int(rng.choice(s.legal_actions())))
        world = s.determinize(0, 99)
        assert np.array_equal(world.observation_tensor(0), s.observation_tensor(0))
        assert world.to_json() != s.to_json()
