"""pytest-benchmark suite for the Metro engine, Cython and pure-Python reference side by side.

Run: ``pytest benches --benchmark-enable`` (add ``--benchmark-only`` to skip nothing else).
The side-by-side ratios in one run come from ``metro-ai bench --sections engine``.
"""
import random

import pytest

import metro_ai
from metro_ai.engine.core import random_playouts
from metro_ai.engine.metro import reference as ref

PLAYERS = [2, 4]


def _midgame(state, steps=30, seed=0):
    rng = random.Random(seed)
    for _ in range(steps):
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_cython_random_games_c_loop(benchmark, players):
    """100 random full games per round through the C-level contract (no Python per move)."""
    s = metro_ai.load_game("metro", players=players).new_state(seed=1)
    benchmark(random_playouts, s, 100, 7)


@pytest.mark.parametrize("players", PLAYERS)
def test_cython_random_game_python_loop(benchmark, players):
    """One random full game per round driven from Python (legal_actions + apply per move)."""
    game = metro_ai.load_game("metro", players=players)

    def run():
        s = game.new_state(seed=1)
        rng = random.Random(2)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
    benchmark(run)


@pytest.mark.parametrize("players", PLAYERS)
def test_reference_random_game(benchmark, players):
    game = ref.RefMetroGame(players=players)
    benchmark(ref.random_game, game, 1, 2)


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_legal_actions(benchmark, engine):
    game = metro_ai.load_game("metro", players=4) if engine == "cython" else ref.RefMetroGame(players=4)
    s = _midgame(game.new_state(3))
    benchmark(s.legal_actions)


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_apply(benchmark, engine):
    game = metro_ai.load_game("metro", players=4) if engine == "cython" else ref.RefMetroGame(players=4)
    s = _midgame(game.new_state(3))
    action = s.legal_actions()[0]
    benchmark(lambda: s.clone().apply(action))


@pytest.mark.parametrize("engine", ["cython", "reference"])
def test_clone(benchmark, engine):
    game = metro_ai.load_game("metro", players=4) if engine == "cython" else ref.RefMetroGame(players=4)
    s = _midgame(game.new_state(3))
    benchmark(s.clone)


def test_determinize(benchmark):
    s = _midgame(metro_ai.load_game("metro", players=4).new_state(3))
    benchmark(s.determinize, 0, 5)
