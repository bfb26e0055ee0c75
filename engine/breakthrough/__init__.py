"""Metro 2033: Breakthrough, the card game (2-5 players, survival modes B9).

The engine is split by what a reader looks for (each file says more at its top):

* ``rules`` (``rules.pyx``, ``rules.pxd``): the C state and tables and the rules mechanics
  (dealing, costs, quests, monsters, the turn agenda, legal actions, applying an action), declared
  in the ``.pxd`` so an expansion can ``cimport`` and reuse them;
* ``state`` (``state.pyx``, ``state.pxd``): ``BreakthroughGame`` and ``BreakthroughState``, the
  contract's C-level methods (heuristic, determinisation) and the Python face (accessors,
  observation, action texts, the text drawing);
* ``loader`` (``loader.pyx``): rebuilding a state from JSON, with every invariant checked;
* ``cards``: the card-set schema, validator and loader (``data/breakthrough_cards.json`` is the
  shipped, reconstructed set);
* ``reference``: an independent pure-Python engine of the same rules, for differential tests and
  the engine benchmark.
"""
from .state import BreakthroughGame, BreakthroughState

__all__ = ["BreakthroughGame", "BreakthroughState"]
