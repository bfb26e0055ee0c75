"""The registry: the games metro-ai plays.

A game is registered by one line in ``GAME_CLASSES`` ("module:Class" of its ``Game`` subclass);
everything else about it (title, options, player range, action space, benchmark positions) is
read from the class, so the CLI, ``metro-ai bench``, the OpenSpiel bridge and the docs need no
edit for a new game.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from metro_ai.usergames import env_specs, load_class, remember

if TYPE_CHECKING:
    from metro_ai.engine.core import Game

GAME_CLASSES = (
    "metro_ai.engine.metro:MetroGame",
    "metro_ai.engine.metro.solo:MetroSoloGame",
    "metro_ai.engine.breakthrough:BreakthroughGame",
    "metro_ai.engine.leduc:LeducGame",
    "metro_ai.engine.metro2033:Metro2033Game",
)

#: The game the command line plays when none is named.
DEFAULT_GAME = "metro"

_GAMES: dict[str, type[Game]] = {}


def _games() -> dict[str, type[Game]]:
    """Game name -> class, imported on first use."""
    if not _GAMES:
        for entry in GAME_CLASSES:
            module, cls_name = entry.split(":")
            cls = getattr(importlib.import_module(module), cls_name)
            if cls.name in _GAMES:
                raise RuntimeError(f"two registered games are called {cls.name!r}")
            _GAMES[cls.name] = cls
        for entry in env_specs():                  # $METRO_AI_GAMES: the user's games
            register_game(entry)
    return _GAMES


def register_game(spec: Any) -> type[Game]:
    """Register a game of your own beside the built-in ones: `spec` is "package.module:Class",
    "path/to/file.py:Class" or the class (a ``Game`` subclass, e.g. a
    ``metro_ai.engine.python_game.PythonGame``); returns the class. ValueError if it is not a
    game or its name is taken by another class. See metro_ai/usergames.py."""
    cls = load_class(spec)
    games = _games()
    if games.get(cls.name, cls) is not cls:
        raise ValueError(f"a game called {cls.name!r} is already registered ({games[cls.name].__module__})")
    games[cls.name] = cls
    remember(spec)
    return cls


def list_games(family: str | None = None) -> list[str]:
    """Names of the games metro-ai plays (of one ``family`` only if given: "metro",
    "benchmark")."""
    return sorted(name for name, cls in _games().items() if family is None or cls.family == family)


def game_class(name: str) -> type[Game]:
    """The ``Game`` subclass registered as `name`; ValueError naming the games if none."""
    if not isinstance(name, str):
        raise ValueError(f"game name must be a str, got {name!r}")
    try:
        return _games()[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; games are {', '.join(list_games())}") from None


def load_game(name: str, **options: Any) -> Game:
    """Load a game by name with its options, e.g. ``load_game("metro", players=4)``.

    Unknown names and bad options raise ValueError saying what is wrong.
    """
    return game_class(name)(**options)

