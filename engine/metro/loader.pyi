# Type stub of engine/metro/loader.pyx (metro_ai.engine.metro.loader): the base game's state loader.
from typing import Any, Optional

from metro_ai.engine.metro.rules import MetroGame, MetroState

def load_state(game: MetroGame, obj: dict[str, Any], st: Optional[MetroState] = None, exchanges: Optional[int] = None,
               central: Any = (), turn_checks: bool = True) -> MetroState: ...
