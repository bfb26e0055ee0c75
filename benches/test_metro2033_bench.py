"""pytest-benchmark suite for the Metro 2033 engine: random full games, the Cython engine's C loop
and the pure-Python reference side by side, at every player count (2-6).

Run: ``pytest benches/test_metro2033_bench.py --benchmark-enable``. The ratios against the
reference in one run, and two builds side by side, come from ``benches/metro2033_speed.py``.
"""
import random

import pytest

import metro_ai
from metro_ai.engine.core import random_playouts
from metro_ai.engine.metro2033.reference import RefMetro2033Game

PLAYERS = [2, 3, 4, 5, 6]


@pytest.mark.parametrize("players", PLAYERS)
def test_cython_random_games_c_loop(benchmark, players):
    """20 uniformly random full games per round (fresh deals) through the contract's C loop."""
    game = metro_ai.load_game("metro2033", players=players)

    def run():
        for seed in range(20):
            random_playouts(game.new_state(seed), 1, seed)
    benchmark(run)


@pytest.mark.parametrize("players", PLAYERS)
def test_reference_random_game(benchmark, players):
    """One uniformly random full game per round on the pure-Python reference engine."""
    game = RefMetro2033Game(players=players)

    def run():
        s = game.new_state(1)
        rng = random.Random(2)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
    benchmark(run)
