"""pytest-benchmark suite for the Breakthrough engine, Cython and pure-Python reference side by side.

Run: ``pytest benches/test_breakthrough_bench.py --benchmark-enable``.
The side-by-side ratios in one run come from ``python benches/compare_breakthrough.py``.
Full games are uniformly random with ``turn_limit=200`` here (uniform play reaches the limit) so
that a reference round stays short; the comparison script uses the default limit of 1000.
"""
import random

import pytest

import metro_ai
from metro_ai.engine.core import random_playouts
from metro_ai.engine.breakthrough import reference as ref

PLAYERS = [2, 4]
TURN_LIMIT = 200


def _game(engine, players, **kw):
    if engine == "cython":
        return metro_ai.load_game("breakthrough", players=players, **kw)
    return ref.RefBreakthroughGame(players=players, **kw)


def _midgame(state, steps=120, seed=0):
    rng = random.Random(seed)
    for _ in range(steps):
        la = state.legal_actions()
        quests = [a for a in la if 5 * 133 <= a < 6 * 133]
        state.apply(quests[0] if quests else rng.choice(la))
    while state.phase != "main":
        state.apply(rng.choice(state.legal_actions()))
    return state


def _random_game(game, seed):
    s = game.new_state(seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("players", PLAYERS)
def test_cython_random_games_c_loop(benchmark, players):
    """10 random full games per round through the C-level contract (no Python per move)."""
    s = _game("cython", players, turn_limit=TURN_LIMIT).new_state(seed=1)
    benchmark(random_playouts, s, 10, 7)


@pytest.mark.parametrize("engine", ["cython", "reference"])
@pytest.mark.parametrize("players", PLAYERS)
def test_random_game_python_loop(benchmark, engine, players):
    """One random full game per round driven from Python (legal_actions + apply per move)."""
    game = _game(engine, players, turn_limit=TURN_LIMIT)
    benchmark(_random_game, game, 3)


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_legal_actions(benchmark, engine):
    s = _midgame(_game(engine, 4).new_state(3))
    benchmark(s.legal_actions)


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_apply(benchmark, engine):
    s = _midgame(_game(engine, 4).new_state(3))
    action = s.legal_actions()[-1]
    benchmark(lambda: s.clone().apply(action))


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_clone(benchmark, engine):
    s = _midgame(_game(engine, 4).new_state(3))
    benchmark(s.clone)


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_determinize(benchmark, engine):
    s = _midgame(_game(engine, 4).new_state(3))
    benchmark(s.determinize, 0, 5)
