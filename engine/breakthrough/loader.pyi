# Type stub of engine/breakthrough/loader.pyx (metro_ai.engine.breakthrough.loader).
from typing import Any

from metro_ai.engine.breakthrough.state import BreakthroughGame, BreakthroughState

def load_state(game: BreakthroughGame, obj: dict[str, Any]) -> BreakthroughState: ...
