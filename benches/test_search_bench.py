"""pytest-benchmark suite for the bots: one move of every bot from fixed positions (opening,
middle and end game) of every game at 2 and 4 players; the search bots with a fixed budget of
iterations, so the benchmark's mean gives iterations per second (``extra_info``).

Run: ``pytest benches --benchmark-enable``. The side-by-side figures (iterations per second next
to play-outs per second, scaling, memory, OpenSpiel) come from ``metro-ai bench``.
"""
import pytest

import metro_ai
from metro_ai.bench.common import position
from metro_ai.engine.core import STAGES

ITERATIONS = 2000
SEARCH_BOTS = ["ismcts", "mo-ismcts", "flat-mc", "pimc"]
GAMES = ["metro", "breakthrough"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", SEARCH_BOTS)
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("stage", list(STAGES))
def test_search(benchmark, game, bot, players, stage):
    s = position(game, players, stage)
    b = metro_ai.make_bot(bot, seed=1)
    r = benchmark(b.analyse, s, metro_ai.Limit(iterations=ITERATIONS))
    assert r.iterations == ITERATIONS and r.chosen in s.legal_actions()
    if benchmark.stats:                     # None with --benchmark-disable
        benchmark.extra_info["iterations_per_second"] = ITERATIONS / benchmark.stats.stats.mean


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", ["greedy", "random"])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("stage", list(STAGES))
def test_choice(benchmark, game, bot, players, stage):
    s = position(game, players, stage)
    b = metro_ai.make_bot(bot, seed=1)
    assert benchmark(b.choose, s) in s.legal_actions()
