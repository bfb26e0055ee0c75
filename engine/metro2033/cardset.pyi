# Type stub of engine/metro2033/cardset.pyx (metro_ai.engine.metro2033.cardset): the card compiler
# and its strength rule (G35).
from typing import Any, Optional

class CardTables:
    def __init__(self, card_set: Any) -> None: ...
    def strength(self, card: int, who: Optional[str] = ..., when: Optional[str] = ...,
                 vs: Optional[str] = ...) -> int: ...
