"""pytest-benchmark suite for the bots: one search of a fixed budget from fixed positions.

Run: ``pytest benches --benchmark-enable``. The side-by-side figures (iterations per second next to
play-outs per second, time margin, scaling, memory) come from ``python benches/search_speed.py``.
"""
import random

import pytest

import metro_ai

BUDGET = metro_ai.Limit(iterations=2000)


def position(players, tiles):
    s = metro_ai.load_game("metro", players=players).new_state(11)
    rng = random.Random(11)
    while s.tiles_placed < tiles or len(s.legal_actions()) < 2:
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("bot", ["ismcts", "flat-mc", "pimc"])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("stage,tiles", [("opening", 0), ("middle", 30), ("end", 50)])
def test_search(benchmark, bot, players, stage, tiles):
    s = position(players, tiles)
    b = metro_ai.make_bot(bot, seed=1)
    benchmark(b.analyse, s, BUDGET)


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_choice(benchmark, players):
    s = position(players, 20)
    b = metro_ai.make_bot("greedy", seed=1)
    benchmark(b.choose, s)
