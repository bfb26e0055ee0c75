"""Metro's tracks in a terminal: every square a 5 x 5 grid of nodes drawn with box-drawing
characters (two characters a node, so squares look square), from the tiles' data (M2).

A square's ports (``data/metro_tiles.csv``) are nodes on its border: 0, 1 on the top row, 2, 3 on
the right column, 4, 5 on the bottom row, 6, 7 on the left column; the other nodes route the
tracks between them. For each tile kind and rotation the routes are found
once by a small search: each track a path of grid steps from one port to the other, no node
shared by two tracks unless one runs straight across it vertically and the other horizontally
(drawn ``┼``, a crossing), shortest total length first, so every drawing reads one way only.
One kind has no such drawing: T15, whose four tracks all cross one another; it is drawn as its
eight port stubs with its id in the middle.
A port node is drawn with its stub to the square's edge, so a track continues into the next square
the way the train does. Square corners are dotted, the central station is shaded, stations
stand around the board with their numbers and a legend says whose they are.
"""
from __future__ import annotations

from functools import lru_cache

N = 5                                   # nodes per side of a square
PORT_NODES = ((0, 1), (0, 3), (1, 4), (3, 4), (4, 3), (4, 1), (3, 0), (1, 0))
OUT = ("U", "U", "R", "R", "D", "D", "L", "L")          # the side each port opens onto
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
BACK = {"U": "D", "D": "U", "L": "R", "R": "L"}
GLYPH = {frozenset("UD"): "│", frozenset("LR"): "─", frozenset("UR"): "└", frozenset("UL"): "┘",
         frozenset("DR"): "┌", frozenset("DL"): "┐", frozenset("UDLR"): "┼", frozenset("UDR"): "├",
         frozenset("UDL"): "┤", frozenset("ULR"): "┴", frozenset("DLR"): "┬"}
CENTRE = {27, 28, 35, 36}
MAX_STEPS = 10


def _paths(a, b, banned):
    """Simple grid paths from node a to node b (lists of nodes), shortest first, avoiding
    `banned` nodes (the other tracks' ports)."""
    out = []
    stack = [[a]]
    while stack:
        path = stack.pop()
        node = path[-1]
        if node == b:
            out.append(path)
            continue
        if len(path) > MAX_STEPS:
            continue
        for d, (dr, dc) in STEP.items():
            nxt = (node[0] + dr, node[1] + dc)
            if 0 <= nxt[0] < N and 0 <= nxt[1] < N and nxt not in path and nxt not in banned:
                stack.append(path + [nxt])
    return sorted(out, key=len)


def _dirs(path, i):
    """The directions node path[i] joins (towards the previous and the next node)."""
    out = set()
    for j in (i - 1, i + 1):
        if 0 <= j < len(path):
            dr, dc = path[j][0] - path[i][0], path[j][1] - path[i][1]
            out.add(next(d for d, s in STEP.items() if s == (dr, dc)))
    return out


@lru_cache(maxsize=None)
def routes(exits: tuple, rot: int) -> dict:
    """{node: set of directions} of a tile (its `exits` turned by `rot`), port stubs included."""
    pairs = []
    for p in range(8):
        q = (exits[(p - 2 * rot) % 8] + 2 * rot) % 8
        if p < q:
            pairs.append((p, q))
    ports = {PORT_NODES[p] for p in range(8)}
    options = [_paths(PORT_NODES[p], PORT_NODES[q], ports - {PORT_NODES[p], PORT_NODES[q]}) for p, q in pairs]
    best: list = [None, None]

    def fits(used, path):
        for i, node in enumerate(path):
            if node in used:
                mine, theirs = frozenset(_dirs(path, i)), used[node]
                if {mine, theirs} != {frozenset("UD"), frozenset("LR")}:
                    return False
        return True

    def search(k, used, chosen, length):
        if best[0] is not None and length >= best[0]:
            return
        if k == len(pairs):
            best[0], best[1] = length, list(chosen)
            return
        for path in options[k]:
            if length + len(path) >= (best[0] or 10 ** 9):
                break
            if fits(used, path):
                new = dict(used)
                for i, node in enumerate(path):
                    new[node] = frozenset(_dirs(path, i)) | new.get(node, frozenset())
                search(k + 1, new, chosen + [path], length + len(path))

    search(0, {}, [], 0)
    if best[1] is None:                    # T15, whose four tracks all cross one another
        return None
    nodes: dict = {}
    for (p, q), path in zip(pairs, best[1]):
        for i, node in enumerate(path):
            d = _dirs(path, i) | ({OUT[p]} if i == 0 else set()) | ({OUT[q]} if i == len(path) - 1 else set())
            nodes.setdefault(node, set()).update(d)
    return nodes


INWARD = {"U": "D", "D": "U", "L": "R", "R": "L"}


def _stubs(kind_id):
    """A tile with no drawing in the grid: its port stubs and its kind in the middle."""
    nodes = {PORT_NODES[p]: {OUT[p], INWARD[OUT[p]]} for p in range(8)}
    return nodes, kind_id


def _cell(nodes, r, c):
    d = frozenset(nodes.get((r, c), ()))
    if not d:
        return "· " if r in (0, N - 1) and c in (0, N - 1) else "  "
    return GLYPH.get(d, "┼") + ("─" if "R" in d else " ")


def board_text(state, player=None) -> str:
    """The board with its tracks, column letters and row numbers (squares are named like C1),
    the stations and a legend saying whose they are (``MetroState.render``'s drawing)."""
    game = state.game
    obs = state.observation(0 if player is None else player)
    from metro_ai.engine.metro.svg import kind_exits
    board = state.board()
    owner_of = {s: k for k, numbers in enumerate(obs["stations"]) for s in numbers}
    by_side: dict = {0: {}, 1: {}, 2: {}, 3: {}}
    for st in game.data.stations:
        by_side[st.depart_port // 2][st.col if st.depart_port // 2 in (0, 2) else st.row] = st.number
    rows = []

    def label(n):
        return f"{n:^{2 * N}}" if n is not None else " " * (2 * N)


    rows.append("     " + "".join(label(by_side[0].get(c)) for c in range(8)))
    rows.append("     " + "".join(label("ABCDEFGH"[c]) for c in range(8)))
    for r in range(8):
        for i in range(N):
            left = f"{by_side[3][r]:>2} {r + 1}" if i == N // 2 else "    "
            right = f" {by_side[1][r]:<3}" if i == N // 2 else ""
            line = []
            for c in range(8):
                sq = 8 * r + c
                if sq in CENTRE and board[sq] is None:
                    line.append("▓" * (2 * N))
                elif board[sq] is None:
                    line.append("".join(_cell({}, i, j) for j in range(N)))
                else:
                    kind, rot = board[sq]
                    nodes = routes(tuple(kind_exits(game, kind)), rot)     # a tile, or a C3 piece
                    text = ""
                    if nodes is None:
                        nodes, text = _stubs(game.piece_name(kind))
                    cell = "".join(_cell(nodes, i, j) for j in range(N))
                    if text and i == N // 2:
                        cell = cell[:3] + text + "·" + cell[7:]
                    line.append(cell)
            rows.append(left + " " + "".join(line) + right)
    rows.append("     " + "".join(label(by_side[2].get(c)) for c in range(8)))
    who = "company" if getattr(game, "companies", False) else "P"
    legend = []
    for k, numbers in enumerate(obs["stations"]):
        legend.append(f"{who}{' ' if who == 'company' else ''}{k}: " + " ".join(str(n) for n in sorted(numbers)))
    unused = sorted(n for n in range(1, 33) if n not in owner_of)
    rows.append("stations  " + " | ".join(legend) + (f" | unused: {' '.join(map(str, unused))}" if unused else ""))
    return "\n".join(rows)
