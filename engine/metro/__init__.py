"""Metro, Dirk Henn's tile-laying game (base game, variants M9 and M10; the companies expansion;
the City Edition modules C1-C4).

* ``rules`` (Cython: ``rules.pyx``, ``rules.pxd``): the engine, ``MetroGame`` and ``MetroState``,
  and the C-level rules helpers an expansion may ``cimport``;
* ``data``: the board, tile and station-chart files in ``data/``, loaded and validated;
* ``companies``, ``central`` (Cython): the companies expansion's and the central stations' (C2)
  state subclasses; ``solo`` (Cython): the solo game ``metro-solo`` (C4);
* ``reference`` (with ``reference_companies``, ``reference_city``, ``reference_solo``): independent
  pure-Python engines of the same rules, for differential tests and the engine benchmark.
"""
from .rules import MetroGame, MetroState, square_name

__all__ = ["MetroGame", "MetroState", "square_name"]
