"""metro-ai: AI opponents for the Metro family of board and card games.

>>> import metro_ai
>>> game = metro_ai.load_game("metro", players=4)
>>> state = game.new_state(seed=7)
>>> bot = metro_ai.make_bot("random", seed=3)
>>> state.apply(bot.choose(state))

Users import from here only; ``metro_ai.engine`` and ``metro_ai.bots`` are the floors below.
"""
from metro_ai.bots.limit import Limit
from metro_ai.engine.errors import DataError, IllegalActionError, MetroAIError, StateFormatError
from metro_ai.match import play_match
from metro_ai.registry import describe_bots, list_bots, list_games, load_game, make_bot

__version__ = "0.1.0"

__all__ = [
    "DataError", "IllegalActionError", "Limit", "MetroAIError", "StateFormatError",
    "describe_bots", "list_bots", "list_games", "load_game", "make_bot", "play_match",
]
