# Type stub of engine/metro/city_loader.pyx (metro_ai.engine.metro.city_loader): the City Edition
# cities' state loader (C5-C10, C34), the cities module's load_state hook.
from typing import Any

from metro_ai.engine.metro.state import MetroGame, MetroState

def load_state(game: MetroGame, obj: dict[str, Any]) -> MetroState: ...
