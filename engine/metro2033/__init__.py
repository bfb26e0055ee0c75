"""Metro 2033, the board game (2nd edition), 2-6 players (rules: docs/rules/metro2033.md).

* ``fast`` (Cython: ``fast.pyx``): ``Metro2033Game`` and ``Metro2033State``, the game on the
  contract (``load_game("metro2033")``), over ``FastMetro2033``, the whole state machine in C;
* ``rules`` (Cython): the map as C tables and the army/hero path rules;
* ``reference``: the pure-Python reference engine, the rules authority of the differential test;
* ``board``, ``cards``: the map and the card set (data, with a validator and a user card file);
* ``features``, ``svg``: observation tensors and the map view.
"""
from .fast import FastMetro2033, Metro2033Game, Metro2033State

__all__ = ["FastMetro2033", "Metro2033Game", "Metro2033State"]
