"""Leduc poker, OpenSpiel's ``leduc_poker`` (2-8 players, rules L1-L8): a benchmark game.

Not of the Metro family (``LeducGame.family == "benchmark"``): it is here so that our search can
be timed and matched against OpenSpiel's on the same game (``metro-ai bench --sections
openspiel``), and so that the engine contract is shown on a game whose rules another library
defines.

* ``rules`` (Cython: ``rules.pyx``, ``rules.pxd``): the flat C state and the C rules helpers;
* ``state`` (Cython: ``state.pyx``, ``state.pxd``): ``LeducGame`` and ``LeducState`` on the
  contract (the JSON loader too: the state is small);
* ``reference``: an independent pure-Python engine of the same rules (the same seeds give the
  same hands), for tests without OpenSpiel and the engine benchmark.
"""
from .state import LeducGame, LeducState, card_name

__all__ = ["LeducGame", "LeducState", "card_name"]
