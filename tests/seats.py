"""The table size the tests play a registered game at: `want` players (two by default) where the
game allows it, else the nearest count it allows (the solo game plays alone)."""
from metro_ai.registry import game_class


def seats(name: str, want: int = 2) -> int:
    cls = game_class(name)
    return min(max(want, cls.min_players), cls.max_players)
