# Type stub of engine/metro2033/loader.pyx (metro_ai.engine.metro2033.loader): the checked JSON
# loader of a Metro 2033 state.
from typing import Any

from metro_ai.engine.metro2033.state import Metro2033Game, Metro2033State

MAX_AGENDA: int

def load_state(game: Metro2033Game, obj: dict[str, Any]) -> Metro2033State: ...
