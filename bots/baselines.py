"""Baseline bots that do not search: random and greedy. They see only what their player may see."""
from __future__ import annotations

import math
import random as _random

from metro_ai.engine.options import Option

from .base import Bot
from .seeding import derive


class RandomBot(Bot):
    """Picks uniformly among the legal actions. The floor every other bot must clear."""
    name = "random"

    def __init__(self, seed=0, **options):
        super().__init__(seed, **options)
        self._rng = _random.Random(self.seed)

    def choose(self, state, limit=None):
        """A legal action, uniformly at random (`limit` is ignored)."""
        actions = state.legal_actions()
        if not actions:
            raise ValueError("no legal action: the game is over")
        return actions[self._rng.randrange(len(actions))]


class GreedyBot(Bot):
    """One-ply look-ahead on the game's one-ply evaluation (``state.greedy_values()``, public
    information only; the heuristic where a game declares none): picks the action maximising its
    own value minus the opponents' mean, averaged over ``worlds`` determinisations (so actions
    whose outcome is hidden are judged by expectation); when the same player moves again it takes
    the best follow-up. Ties are broken by the seeded generator."""
    name = "greedy"
    options = (
        Option.integer("worlds", 4, "determinisations each action is averaged over", low=1),
    )

    def __init__(self, seed=0, **options):
        super().__init__(seed, **options)
        self._calls = 0

    @staticmethod
    def _value(s, me):
        values = getattr(s, "greedy_values", s.heuristic)()
        # the lead over the opponents' mean; alone (a one-player game) the value itself
        others = [v for p, v in enumerate(values) if p != me]
        return values[me] - (sum(others) / len(others) if others else 0.0)

    @classmethod
    def _best(cls, s, me, depth):
        if s.is_terminal() or s.current_player != me or depth == 0:
            return cls._value(s, me)
        best = -math.inf
        for a in s.legal_actions():
            t = s.clone()
            t.apply(a)
            best = max(best, cls._best(t, me, depth - 1))
        return best

    @classmethod
    def scores(cls, state, seed, worlds, model=False):
        """(value, action) for each legal action of `state`'s player to move: the one-ply margin
        after it (and the best follow-up if the same player moves again), averaged over
        `worlds` determinisations drawn from `seed`, with `model` drawing the others' secret
        choices from the game's model of them (``determinize(..., model=True)``). Also the
        search bots' root prior."""
        me = state.current_player
        extra = {"model": True} if model else {}
        drawn = [state.determinize(me, derive(seed, i), **extra) for i in range(worlds)]
        scored = []
        for a in state.legal_actions():
            total = 0.0
            for w in drawn:
                t = w.clone()
                t.apply(a)
                total += cls._best(t, me, 1)
            scored.append((total / len(drawn), a))
        return scored

    def choose(self, state, limit=None):
        """The action with the best expected heuristic margin (`limit` is ignored)."""
        if not state.legal_actions():
            raise ValueError("the game is over: there is nothing to choose")
        seed = derive(self.seed, self._calls)
        self._calls += 1
        scored = self.scores(state, seed, self.worlds)
        top = max(v for v, _ in scored)
        best = [a for v, a in scored if v >= top - 1e-9]
        return best[_random.Random(seed).randrange(len(best))]


class GreedyClassicBot(GreedyBot):
    """The greedy bot as it was before the game-declared evaluation: one-ply on the game's
    heuristic (``state.heuristic()``), its value minus the best opponent's. Kept to measure the
    greedy bot against (benches/results/greedy.md)."""
    name = "greedy-classic"

    @staticmethod
    def _value(s, me):
        h = s.heuristic()
        # the lead over the best opponent; alone (a one-player game) the heuristic itself
        return h[me] - max((v for p, v in enumerate(h) if p != me), default=0.0)
