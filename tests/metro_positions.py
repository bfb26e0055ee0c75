"""Hand-made Metro positions for rule tests, built through the public JSON format."""
import json

import metro_ai
from metro_ai.engine.core import STATE_FORMAT, STATE_VERSION

_GAMES = {}


def kind(game, tile_id):
    return game.tile_ids.index(tile_id)


def sq(name):
    """'A1' -> square index (column letter, row number from the top)."""
    return (int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0])


def place(game, tile_id, square, rot=0):
    return kind(game, tile_id) * 256 + sq(square) * 4 + rot


def position(game, board=None, hands=None, current=None, drawn=None, supply=None):
    """A state with `board` {"A1": "T19" or ("T19", rot)}, `hands` (lists of tile ids) and the
    current player (default: the one whose turn it is after that many tiles, as the loader
    requires, M3); every other tile goes to the supply in kind order (or `supply` first)."""
    board = board or {}
    n = game.num_players
    hands = hands if hands is not None else [[] for _ in range(n)]
    cells = [[None] * 8 for _ in range(8)]
    used = []
    for name, v in board.items():
        tid, rot = (v, 0) if isinstance(v, str) else v
        s = sq(name)
        cells[s // 8][s % 8] = {"tile": tid, "rotation": rot}
        used.append(tid)
    used += [t for h in hands for t in h] + ([drawn] if drawn else []) + list(supply or [])
    rest = []
    for k, info in enumerate(game.data.tiles):
        left = info.count - used.count(info.id)
        assert left >= 0, f"too many {info.id}"
        rest += [info.id] * left
    if current is None:
        current = len(board) % n
    obj = {"format": STATE_FORMAT, "version": STATE_VERSION, "game": "metro", "options": game.options,
           "current_player": current,
           "phase": "place_drawn" if drawn else "turn", "board": cells, "hands": hands,
           "supply": list(supply or []) + rest, "drawn": drawn}
    return game.state_from_json(json.dumps(obj))


def metro(players=2, **options):
    key = (players, tuple(sorted(options.items())))
    if key not in _GAMES:
        _GAMES[key] = metro_ai.load_game("metro", players=players, **options)
    return _GAMES[key]
