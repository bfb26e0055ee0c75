"""Metro, Dirk Henn's tile-laying game (base game, variants M9 and M10; the companies expansion;
the City Edition modules C1-C4).

* ``rules`` (Cython: ``rules.pyx``, ``rules.pxd``): the C data (the state's parts and the tables)
  and the C mechanics: board geometry, tiles and lines, central pieces, the companies' rules;
* ``state`` (Cython: ``state.pyx``, ``state.pxd``): the game and state on the contract,
  ``MetroGame`` and ``MetroState``;
* ``module``: ``MetroModule``, the base class of the modules, and ``MODULES``, the table of the
  modules the game composes (the rule of modules and subclasses is its docstring's);
* ``loader`` (Cython): rebuilding a state from JSON, every field checked;
* ``data``: the board, tile and station-chart files in ``data/``, loaded and validated;
* ``companies``, ``central``, ``cities`` (Cython): the modules (the companies M11-M20, the central
  stations and tracks C2-C3, the cities C5-C35, whose loader is ``city_loader``), each a
  ``MetroModule`` subclass with its deal, loader, actions' text and Python methods over its part of
  the state; ``solo`` (Cython): the solo game ``metro-solo`` (C4), a game of its own;
* ``reference`` (with ``reference_companies``, ``reference_city``, ``reference_solo``): independent
  pure-Python engines of the same rules, for differential tests and the engine benchmark.
"""
from .state import MetroGame, MetroState, square_name

__all__ = ["MetroGame", "MetroState", "square_name"]
