"""The registry: the games metro-ai plays and the bots that play them.

A game is registered by one line in ``GAME_CLASSES`` ("module:Class" of its ``Game`` subclass);
everything else about it (title, options, player range, action space, benchmark positions) is
read from the class, so the CLI, ``metro-ai bench``, the OpenSpiel bridge and the docs need no
edit for a new game.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
        from metro_ai.usergames import env_specs
        for entry in env_specs():                  # $METRO_AI_GAMES: the user's games
            register_game(entry)
    return _GAMES


def register_game(spec: Any) -> type[Game]:
    """Register a game of your own beside the built-in ones: `spec` is "package.module:Class",
    "path/to/file.py:Class" or the class (a ``Game`` subclass, e.g. a
    ``metro_ai.engine.python_game.PythonGame``); returns the class. ValueError if it is not a
    game or its name is taken by another class. See metro_ai/usergames.py."""
    from metro_ai.usergames import load_class, remember
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


# ---- bots ----

from metro_ai.bots.base import Bot  # noqa: E402
from metro_ai.engine.options import check_options  # noqa: E402
from metro_ai.bots.baselines import GreedyBot, GreedyClassicBot, RandomBot  # noqa: E402
from metro_ai.bots.limit import Limit  # noqa: E402
from metro_ai.bots.mcts import FlatMCBot, ISMCTSBot, MOISMCTSBot, PIMCBot  # noqa: E402

BOTS = {
    "random": (RandomBot, "uniformly random legal actions"),
    "greedy": (GreedyBot, "one-ply look-ahead on the game's one-ply evaluation (greedy_values), hidden outcomes averaged over determinisations"),
    "greedy-classic": (GreedyClassicBot, "the former greedy: one-ply on the game's heuristic, lead over the best opponent"),
    "flat-mc": (FlatMCBot, "flat Monte Carlo: root actions in turn, a fresh determinisation and random play-out each"),
    "pimc": (PIMCBot, "determinised UCT: a UCT tree per sampled world (worlds=8), votes combined"),
    "ismcts": (ISMCTSBot, "single-observer ISMCTS: one tree over information sets, a new world every iteration"),
    "mo-ismcts": (MOISMCTSBot, "multi-observer ISMCTS: one tree per player, each following the moves as that player sees them"),
}

# Difficulty presets for people embedding opponents: an ISMCTS budget in iterations (so strength
# does not depend on the machine), a choice temperature (visits^(1/T); 0 = always the best) and,
# for the weak ones, a margin: they sample only among the moves the search found within 0.03 of
# its best (by mean value), so they play worse moves, not blunders (issue #17; README, "Difficulty
# in Elo").
PRESETS: dict[str, tuple[dict[str, Any], Limit, str]] = {
    "easy": (dict(temperature=1.0, margin=0.03), Limit(iterations=150),
             "ismcts, 150 iterations, temperature 1 among the moves within 0.03 of the best"),
    "medium": (dict(temperature=0.3, margin=0.03), Limit(iterations=500),
               "ismcts, 500 iterations, temperature 0.3 among the moves within 0.03 of the best"),
    "hard": (dict(), Limit(iterations=5_000), "ismcts, 5,000 iterations, best action"),
    "max": (dict(workers=2), Limit(iterations=50_000), "ismcts, 50,000 iterations on 2 threads, best action"),
}


def list_bots() -> list[str]:
    """Names of the available bots and presets."""
    return sorted(BOTS) + sorted(PRESETS)


def describe_bots() -> dict[str, str]:
    """Bot or preset name -> one-line description."""
    out = {name: desc for name, (_, desc) in sorted(BOTS.items())}
    out.update({name: f"preset: {desc}" for name, (_, _, desc) in sorted(PRESETS.items())})
    return out


def make_bot(name, seed=0, **options) -> Bot:
    """Create a bot by name with its options, e.g. ``make_bot("ismcts", seed=3, c=1.0)``, a
    preset ``make_bot("hard")``, or a bot spec ``make_bot("ismcts:c=1.0,iterations=500")`` (its
    options join `options`, its budget becomes the bot's default). Unknown names or options, and
    values out of range, raise ValueError (checked against the bot class's ``options``; see
    `metro_ai.engine.options.Option`).

    ``make_bot("ismcts", elo=1400)`` is ISMCTS at that Elo rating: the budget, temperature and margin
    come from the game's calibrated ladder (`metro_ai.ladder`: the package's, or
    ``ladder="file.json"``), read at its first search, or at once with ``game=`` (a loaded game);
    a game without a ladder, or a rating outside it, raises ValueError."""
    if isinstance(name, str) and ":" in name:
        from metro_ai.play.botspec import BotSpec
        spec = BotSpec.parse(name)             # BotSpecError (a ValueError) says what is wrong
        bot = make_bot(spec.name, seed=seed, **{**spec.options, **options})
        if spec.limit is not None:              # (parse refuses a budget for a bot that does not search)
            bot.default_limit = spec.limit      # type: ignore[attr-defined]
        return bot
    if "elo" in options or "ladder" in options:
        if name != "ismcts":
            raise ValueError(f"elo= sets the budget, temperature and margin of ismcts from a calibrated ladder; bot {name!r} "
                             "has no ladder (use ismcts:elo=...)")
        if "elo" not in options:
            raise ValueError("ladder= names the ladder file for elo=; give elo too")
        from metro_ai.ladder import EloBot
        rest = {k: v for k, v in options.items() if k not in ("elo", "ladder", "game")}
        check_options(f"bot {name!r}", ISMCTSBot.options, rest)
        return EloBot(seed=seed, **options)
    if name in PRESETS:
        preset, limit, _ = PRESETS[name]
        options = {**preset, **options}
        check_options(f"bot {name!r}", ISMCTSBot.options, options)
        bot = ISMCTSBot(seed=seed, **options)
        bot.default_limit = limit
        bot.preset = name
        return bot
    try:
        cls, _ = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; bots are {', '.join(list_bots())}") from None
    check_options(f"bot {name!r}", cls.options, options)
    return cls(seed=seed, **options)


def bot_catalogue() -> dict[str, Any]:
    """Every bot and preset, JSON-ready (``metro-ai bots --json`` and the protocol's ``hello``):
    ``{"bots": {name: {description, options, option_help, searches, default_budget}},
    "presets": {name: {description, bot, options, budget}}, "ladders": ...}``, read from the bot
    classes; ``ladders``: the shipped Elo ladders (`metro_ai.ladder.ladder_catalogue`)."""
    from metro_ai.bots.mcts import SearchBot
    bots = {}
    for name, (cls, desc) in sorted(BOTS.items()):
        searches = issubclass(cls, SearchBot)
        default = getattr(cls, "default_limit", None) if searches else None
        bots[name] = {"description": desc, "options": {o.name: o.default for o in cls.options},
                      "option_help": {o.name: {"allowed": o.allowed, "description": o.description} for o in cls.options},
                      "searches": searches,
                      "default_budget": None if default is None else {"iterations": default.iterations, "time": default.time}}
    presets = {name: {"description": desc, "bot": "ismcts", "options": opts,
                      "budget": {"iterations": lim.iterations, "time": lim.time}}
               for name, (opts, lim, desc) in sorted(PRESETS.items())}
    from metro_ai.ladder import ladder_catalogue
    return {"bots": bots, "presets": presets, "ladders": ladder_catalogue()}
