# Type stub of engine/metro2033/machine.pyx (metro_ai.engine.metro2033.machine): the names of the
# state machine's phases and agenda tasks and the map's tables. The machine itself (a C struct and
# nogil functions) has no Python face: play through metro_ai.engine.metro2033.state.
from metro_ai.engine.metro2033.rules import Metro2033Map

PHASES: tuple[str, ...]
TASK_NAMES: tuple[str, ...]
TASK_ARGS: tuple[str, ...]
HIDDEN_PENDING: tuple[int, ...]
TRACK_EVENTS: tuple[int, ...]
THE_MAP: Metro2033Map
DECK_KEYS: tuple[str, ...]
