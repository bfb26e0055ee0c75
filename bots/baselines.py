"""Honest baseline bots: they see only what their player may see."""
from __future__ import annotations

import random as _random

from metro_ai.engine.core import as_seed

from .limit import Limit


class Bot:
    """A bot chooses an action for the player to move. Subclasses implement ``choose``.

    Every bot takes a ``seed``; the same seed and the same calls give the same choices.
    """
    name = "bot"

    def __init__(self, seed=0):
        self.seed = as_seed(seed)

    def choose(self, state, limit: Limit | None = None) -> int:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(Bot):
    """Picks uniformly among the legal actions. The floor every other bot must clear."""
    name = "random"

    def __init__(self, seed=0):
        super().__init__(seed)
        self._rng = _random.Random(self.seed)

    def choose(self, state, limit=None):
        actions = state.legal_actions()
        if not actions:
            raise ValueError("no legal action: the game is over")
        return actions[self._rng.randrange(len(actions))]
