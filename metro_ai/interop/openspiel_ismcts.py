"""OpenSpiel's ISMCTS on metro-ai games, seeded, with an iteration or a wall-clock budget.

The opponent the benchmarks measure our ``ismcts`` against (``metro-ai bench``, sections
``openspiel`` and ``strength``).  Needs the optional extra ``openspiel``.

* :func:`python_bot` builds OpenSpiel's Python ``open_spiel.python.algorithms.ismcts.ISMCTSBot``
  with a random play-out evaluator, every random draw (tree policy ties, play-outs, and the seeds
  of the worlds its ``resample_from_infostate`` samples through our ``determinize``) from one
  seeded ``numpy.random.RandomState``; with ``seconds`` it searches for that long per move
  instead of a fixed number of simulations (:class:`TimedISMCTSBot`).
* :func:`cpp_bot` builds OpenSpiel's C++ ``pyspiel.ISMCTSBot``.  On a game registered from
  Python it crashed (segmentation fault) in open-spiel 2.0.2, so call it only in a child process
  that may die (see :func:`metro_ai.bench.openspiel.openspiel_cpp_accepts`).
* :func:`choose` asks an OpenSpiel bot for its move in a metro-ai state (the bot is handed the
  bridge state of the true position; it samples worlds from its player's information state).
"""
from __future__ import annotations

import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as _ismcts
from open_spiel.python.algorithms import mcts as _mcts

from metro_ai.interop import openspiel as bridge

__all__ = ["TimedISMCTSBot", "python_bot", "cpp_bot", "choose"]


class TimedISMCTSBot(_ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS searching for ``seconds`` of wall clock per move instead of a
    fixed number of simulations (at least two: its first only expands the root);
    ``last_simulations`` says how many it ran."""

    def __init__(self, game, evaluator, uct_c, seconds, **kwargs):
        super().__init__(game, evaluator, uct_c, max_simulations=1, **kwargs)
        self.seconds = float(seconds)
        self.last_simulations = 0

    def run_search(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_simulations = 0
            return [(legal[0], 1.0)]
        self.reset()
        self._root_node = self.create_new_node(state)
        deadline = time.perf_counter() + self.seconds
        n = 0
        while n < 2 or time.perf_counter() < deadline:
            self.run_simulation(self.sample_root_state(state))
            n += 1
        self.last_simulations = n
        return self.get_final_policy(state, self._root_node)


def python_bot(game, seed, uct_c, iterations=None, seconds=None):
    """OpenSpiel's Python ISMCTS on bridge ``game`` (``bridge.load(...)``), seeded by ``seed``,
    with ``iterations`` simulations or ``seconds`` per move (exactly one of them)."""
    if (iterations is None) == (seconds is None):
        raise ValueError("python_bot: give exactly one of iterations and seconds")
    rs = np.random.RandomState(int(seed) % 2 ** 32)
    evaluator = _mcts.RandomRolloutEvaluator(1, rs)
    if seconds is not None:
        bot = TimedISMCTSBot(game, evaluator, uct_c, seconds, random_state=rs)
    else:
        bot = _ismcts.ISMCTSBot(game, evaluator, uct_c=uct_c, max_simulations=int(iterations), random_state=rs)
    # The worlds it samples are seeded from the same stream (OpenSpiel's default sampler is not).
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.uniform))
    return bot


def cpp_bot(seed, uct_c, iterations):
    """OpenSpiel's C++ ISMCTS (may crash on bridge games: see the module docstring)."""
    return pyspiel.ISMCTSBot(int(seed), pyspiel.RandomRolloutEvaluator(1, int(seed)), uct_c, int(iterations))


def choose(bot, game, state):
    """The action OpenSpiel ``bot`` picks in metro-ai ``state`` of bridge ``game``."""
    return int(bot.step(bridge.from_state(game, state)))
