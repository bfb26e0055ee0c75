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
    "breakthrough": GameInfo(
        "breakthrough", "Metro 2033: Breakthrough (card game)", "metro_ai.engine.breakthrough",
        "BreakthroughGame",
        {
            "players": (2, "number of players, 2-5"),
            "full_protection_required": (False, "survival mode 1: repel a monster only with protection against all its icons (B9, R13)"),
            "failed_defence_tokens_down": (False, "survival mode 2: a failed defence puts all tokens above below the faction card (B9, R14)"),
            "quest_tokens_stay_down": (False, "survival mode 3: completing a quest does not move the tokens below up (B9, R15)"),
            "factions": ("random", "'random' or one faction name per player, e.g. ['Hansa', 'Polis'] (R22)"),
            "turn_limit": (1000, "turns after which a game without winner ends, ranked by tokens (B8, R18)"),
            "card_set": (None, "path of a card-set JSON file (schema in engine/cards.py); default the shipped reconstructed set"),
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

from metro_ai.bots.base import Bot, check_options  # noqa: E402
from metro_ai.bots.baselines import GreedyBot, RandomBot  # noqa: E402
from metro_ai.bots.limit import Limit  # noqa: E402
from metro_ai.bots.mcts import FlatMCBot, ISMCTSBot, MOISMCTSBot, PIMCBot  # noqa: E402

BOTS = {
    "random": (RandomBot, "uniformly random legal actions"),
    "greedy": (GreedyBot, "one-ply look-ahead on the game's public heuristic, hidden outcomes averaged over determinisations"),
    "flat-mc": (FlatMCBot, "flat Monte Carlo: root actions in turn, a fresh determinisation and random play-out each"),
    "pimc": (PIMCBot, "determinised UCT: a UCT tree per sampled world (worlds=8), votes combined"),
    "ismcts": (ISMCTSBot, "single-observer ISMCTS: one tree over information sets, a new world every iteration"),
    "mo-ismcts": (MOISMCTSBot, "multi-observer ISMCTS: one tree per player, each following the moves as that player sees them"),
}

# Difficulty presets for people embedding opponents: an ISMCTS budget in iterations (so strength
# does not depend on the machine) and a choice temperature (visits^(1/T); 0 = always the best).
PRESETS = {
    "easy": (dict(temperature=1.0), Limit(iterations=50), "ismcts, 50 iterations, temperature 1"),
    "medium": (dict(temperature=0.3), Limit(iterations=500), "ismcts, 500 iterations, temperature 0.3"),
    "hard": (dict(), Limit(iterations=5_000), "ismcts, 5,000 iterations, best action"),
    "max": (dict(workers=2), Limit(iterations=50_000), "ismcts, 50,000 iterations on 2 threads, best action"),
}


def list_bots():
    """Names of the available bots and presets."""
    return sorted(BOTS) + sorted(PRESETS)


def describe_bots():
    """Bot or preset name -> one-line description."""
    out = {name: desc for name, (_, desc) in sorted(BOTS.items())}
    out.update({name: f"preset: {desc}" for name, (_, _, desc) in sorted(PRESETS.items())})
    return out


def make_bot(name, seed=0, **options) -> Bot:
    """Create a bot by name with its options, e.g. ``make_bot("ismcts", seed=3, c=1.0)`` or a
    preset ``make_bot("hard")``. Unknown names or options, and values out of range, raise
    ValueError (checked against the bot class's ``options``; see `metro_ai.bots.base.Option`)."""
    if name in PRESETS:
        preset, limit, _ = PRESETS[name]
        options = {**preset, **options}
        check_options(name, ISMCTSBot.options, options)
        bot = ISMCTSBot(seed=seed, **options)
        bot.default_limit = limit
        bot.preset = name
        return bot
    try:
        cls, _ = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; bots are {', '.join(list_bots())}") from None
    check_options(name, cls.options, options)
    return cls(seed=seed, **options)
