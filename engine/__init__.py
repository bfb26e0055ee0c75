"""metro_ai.engine: the state contract (core) and the game engines.

Nothing here imports from `metro_ai.bots` or the `metro_ai` face above it.
"""
from .errors import DataError, IllegalActionError, MetroAIError, StateFormatError

__all__ = ["DataError", "IllegalActionError", "MetroAIError", "StateFormatError"]
