# Type stub of engine/metro2033/machine.pyx (metro_ai.engine.metro2033.machine): the names of the
# state machine's phases and agenda tasks and the map's tables. The machine itself (a C struct and
# nogil functions) has no Python face: play through metro_ai.engine.metro2033.state.
from typing import Any

PHASES: tuple[str, ...]
TASK_NAMES: tuple[str, ...]
TASK_ARGS: tuple[str, ...]
HIDDEN_PENDING: tuple[int, ...]
TRACK_EVENTS: tuple[int, ...]
THE_MAP: Any                 # a Metro2033Map (rules.pyx: a Cython class, no stub)
DECK_KEYS: tuple[str, ...]
