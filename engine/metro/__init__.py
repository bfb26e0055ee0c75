"""Metro, Dirk Henn's tile-laying game (base game, variants M9 and M10).

* ``rules`` (Cython: ``rules.pyx``, ``rules.pxd``): the engine, ``MetroGame`` and ``MetroState``,
  and the C-level rules helpers an expansion may ``cimport``;
* ``data``: the board, tile and station-chart files in ``data/``, loaded and validated;
* ``reference``: an independent pure-Python engine of the same rules, for differential tests and
  the engine benchmark.
"""
from .rules import MetroGame, MetroState, square_name

__all__ = ["MetroGame", "MetroState", "square_name"]
