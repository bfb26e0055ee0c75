# Type stub of engine/breakthrough/loader.pyx (metro_ai.engine.breakthrough.loader).
from typing import Any, Callable

from metro_ai.engine.breakthrough.state import BreakthroughGame, BreakthroughState

def load_state(game: BreakthroughGame, obj: dict[str, Any]) -> BreakthroughState: ...
def check_shapes(game: BreakthroughGame, obj: dict[str, Any], bad: Callable[[str], Any]) -> None: ...
