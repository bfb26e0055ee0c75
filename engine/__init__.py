"""metro_ai.engine: the game contract (core: Game and GameState; options) and one package per game.

Nothing here imports from `metro_ai.bots` or the `metro_ai` face above it.
"""
from .errors import DataError, IllegalActionError, MetroAIError, StateFormatError

__all__ = ["DataError", "IllegalActionError", "MetroAIError", "StateFormatError"]
