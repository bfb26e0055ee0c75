# Type stub of engine/breakthrough/rules.pyx (metro_ai.engine.breakthrough.rules): the names it
# gives Python. The C state, tables and rules mechanics are in rules.pxd, for Cython only.
from typing import Sequence

CARD_TYPES: tuple[str, ...]
RESOURCE_TYPES: tuple[str, ...]
THREAT_TYPES: tuple[str, ...]
QUEST_CLASSES: tuple[str, ...]
CLASSES: tuple[str, ...]
LINES: tuple[str, ...]
LOSSES: tuple[str, ...]
PHASES: tuple[str, ...]
SURVIVAL_OPTIONS: tuple[str, ...]

def names_of_bits(tuple_: Sequence[str], mask: int) -> list[str]: ...
