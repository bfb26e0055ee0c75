"""The registry of games: names, descriptions and how to load each one."""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    module: str            # module holding the game class
    cls: str
    options: dict          # option name -> (default, description)

    def load(self, **options):
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(f"{self.name}: unknown option(s) {', '.join(map(repr, unknown))}; "
                             f"options are {', '.join(sorted(self.options))}")
        game_cls = getattr(importlib.import_module(self.module), self.cls)
        return game_cls(**options)


GAMES = {
    "metro": GameInfo(
        "metro", "Metro (Dirk Henn's tile-laying game)", "metro_ai.engine.metro", "MetroGame",
        {
            "players": (4, "number of players, 2-6"),
            "orientation": (True, "keep every tile in the board's orientation; False is variant M9"),
            "hand_size": (1, "tiles held in hand, 1-3 (variant M10)"),
        },
    ),
}


def list_games():
    """Names of the games metro-ai plays."""
    return sorted(GAMES)


def game_info(name):
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; games are {', '.join(list_games())}") from None


def load_game(name, **options):
    """Load a game by name with its options, e.g. ``load_game("metro", players=4)``.

    Unknown names and bad options raise ValueError saying what is wrong.
    """
    if not isinstance(name, str):
        raise ValueError(f"game name must be a str, got {name!r}")
    return game_info(name).load(**options)


# ---- bots ----

from metro_ai.bots.baselines import Bot, RandomBot  # noqa: E402

BOTS = {
    "random": (RandomBot, "uniformly random legal actions"),
}


def list_bots():
    """Names of the available bots."""
    return sorted(BOTS)


def describe_bots():
    """Bot name -> one-line description."""
    return {name: desc for name, (_, desc) in sorted(BOTS.items())}


def make_bot(name, seed=0, **options) -> Bot:
    """Create a bot by name, e.g. ``make_bot("random", seed=3)``. Unknown names raise ValueError."""
    try:
        cls, _ = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; bots are {', '.join(list_bots())}") from None
    return cls(seed=seed, **options)
