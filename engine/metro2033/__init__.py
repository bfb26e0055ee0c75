"""Metro 2033, the board game (2nd edition), 2-6 players (rules: docs/rules/metro2033.md).

The engine is split by what a reader looks for (each file says more at its top), in the shape of
``engine/breakthrough``:

* ``rules`` (``rules.pyx``, ``rules.pxd``): the map as C tables and the army/hero path rules, and
  the C declarations of the state (action blocks, phases, tasks, the ``Tables`` and ``Data``
  structs) that the other modules ``cimport``;
* ``cardset`` (``cardset.pyx``): the card compiler, a card set into ``Tables``;
* ``machine`` (``machine.pyx``, ``machine.pxd``): the whole state machine in C, ``nogil`` functions
  over a ``Machine`` struct (no Python face of its own);
* ``state`` (``state.pyx``, ``state.pxd``): ``Metro2033Game`` and ``Metro2033State``, the game on
  the contract (``load_game("metro2033")``), with the JSON layout, observation and text view;
* ``loader`` (``loader.pyx``): rebuilding a state from JSON, with every invariant checked;
* ``reference``: the pure-Python reference engine, the rules authority of the differential test;
* ``board``, ``cards``: the map and the card set (data, with a validator and a user card file);
* ``features``, ``svg``, ``text``: observation tensors, the map view and the text of actions.
"""
from .state import Metro2033Game, Metro2033State

__all__ = ["Metro2033Game", "Metro2033State"]
