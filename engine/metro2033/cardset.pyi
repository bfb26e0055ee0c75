# Type stub of engine/metro2033/cardset.pyx (metro_ai.engine.metro2033.cardset): the card compiler.
from typing import Any

class CardTables:
    def __init__(self, card_set: Any) -> None: ...
