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
from typing import Optional

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
def routes(exits: tuple, rot: int) -> Optional[dict]:
    """{node: set of directions} of a tile (its `exits` turned by `rot`), port stubs included."""
    tracks = track_nodes(exits, rot)
    if tracks is None:
        return None
    nodes: dict = {}
    for pair, path in tracks.items():
        for node, d in path.items():
            nodes.setdefault(node, set()).update(d)
    return nodes


@lru_cache(maxsize=None)
def track_nodes(exits: tuple, rot: int):
    """Per track of a tile (its `exits` turned by `rot`): {(p, q): {node: set of directions}},
    ports p < q in the board's orientation, port stubs included; None for T15 (no drawing)."""
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
    tracks: dict = {}
    for (p, q), path in zip(pairs, best[1]):
        nodes = tracks.setdefault((p, q), {})
        for i, node in enumerate(path):
            d = _dirs(path, i) | ({OUT[p]} if i == 0 else set()) | ({OUT[q]} if i == len(path) - 1 else set())
            nodes.setdefault(node, set()).update(d)
    return tracks


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


def line_owners(state, player=None):
    """Who owns each track on the board and where the open lines wait: ``(tracks, waiting)``,
    ``tracks`` {(square, (p, q)): owner} for every track a line of an owned station (M1, or a
    company's, M11; a central station's, C2) runs along, ports in the board's orientation;
    ``waiting`` {square: set of owners} for the empty squares (not the centre) where a line
    that has not arrived ends, the square a tile placed would extend it into."""
    from metro_ai.engine.metro import svg
    game = state.game
    obs = state.observation(0 if player is None else player)
    board = state.board()
    owner_of = {s: k for k, numbers in enumerate(obs["stations"]) for s in numbers}
    for j, k in enumerate(obs.get("central", {}).get("spaces", ())):
        if k is not None:
            owner_of[svg.CENTRAL_STATION_BASE + j] = k
    tracks: dict = {}
    waiting: dict = {}
    for number, k in sorted(owner_of.items()):
        r, c, port = svg.departure(game, number)
        for _ in range(200):
            if not (0 <= r < 8 and 0 <= c < 8):
                break
            sq = 8 * r + c
            if board[sq] is None:
                if sq not in CENTRE:
                    waiting.setdefault(sq, set()).add(k)
                break
            kind, rot = board[sq]
            e = (svg.kind_exits(game, kind)[(port - 2 * rot) % 8] + 2 * rot) % 8
            tracks.setdefault((sq, (min(port, e), max(port, e))), k)
            dr, dc = svg.STEP[e]
            r, c, port = r + dr, c + dc, svg.ENTER[e]
    return tracks, waiting


def _plain(owner, text):
    return text


def board_text(state, player=None, paint=None, last=(), notes=None) -> str:
    """The board with its tracks, column letters and row numbers (squares are named like C1),
    the stations and a legend saying whose they are (``MetroState.render``'s drawing).

    For terminals (all optional; without them the drawing is ``render``'s, unchanged):
    ``paint(owner, text)`` colours a line's tracks and a station's number by owner (owner None:
    a track no owned line runs along); the squares in `last` have their corners marked ``◆``;
    ``notes`` {square: text of up to 4 characters} writes in the middle of empty squares."""
    game = state.game
    obs = state.observation(0 if player is None else player)
    from metro_ai.engine.metro.svg import kind_exits
    board = state.board()
    owner_of = {s: k for k, numbers in enumerate(obs["stations"]) for s in numbers}
    tinted = paint is not None
    paint = paint or _plain
    notes = notes or {}
    owners = line_owners(state, player)[0] if tinted else {}
    by_side: dict = {0: {}, 1: {}, 2: {}, 3: {}}
    for st in game.data.stations:
        by_side[st.depart_port // 2][st.col if st.depart_port // 2 in (0, 2) else st.row] = st.number
    rows = []

    def label(n, width=2 * N, align="^"):
        if n is None:
            return " " * width
        text = f"{n:{align}{width}}"
        return paint(owner_of.get(n), text) if isinstance(n, int) else text

    def cell(sq, nodes, tracks, i, j):
        text = _cell(nodes, i, j)
        if sq in last and i in (0, N - 1) and j in (0, N - 1) and text == "· ":
            return paint("last", "◆") + " "
        if tinted and text.strip():
            node = (i, j)
            who = next((owners[(sq, pq)] for pq, path in tracks.items()
                        if node in path and (sq, pq) in owners), None)
            return paint(who, text)
        return text

    rows.append("     " + "".join(label(by_side[0].get(c)) for c in range(8)))
    rows.append("     " + "".join(label("ABCDEFGH"[c]) for c in range(8)))
    for r in range(8):
        for i in range(N):
            left = (label(by_side[3][r], 2, ">") + f" {r + 1}") if i == N // 2 else "    "
            right = (" " + label(by_side[1][r], 3, "<")) if i == N // 2 else ""
            line = []
            for c in range(8):
                sq = 8 * r + c
                if sq in CENTRE and board[sq] is None:
                    line.append("▓" * (2 * N))
                elif board[sq] is None:
                    text = "".join(cell(sq, {}, {}, i, j) for j in range(N))
                    if sq in notes and i == N // 2:
                        text = f"{notes[sq]:^{2 * N}}"
                    line.append(text)
                else:
                    kind, rot = board[sq]
                    exits = tuple(kind_exits(game, kind))
                    nodes = routes(exits, rot)     # a tile, or a C3 piece
                    tracks = track_nodes(exits, rot) or {}
                    text = ""
                    if nodes is None:
                        nodes, text = _stubs(game.piece_name(kind))
                    if text and i == N // 2:
                        full = "".join(_cell(nodes, i, j) for j in range(N))
                        line.append(full[:3] + text + "·" + full[7:])
                    else:
                        line.append("".join(cell(sq, nodes, tracks, i, j) for j in range(N)))
            rows.append(left + " " + "".join(line) + right)
    rows.append("     " + "".join(label(by_side[2].get(c)) for c in range(8)))
    who = "company" if getattr(game, "companies", False) else "P"
    legend = []
    for k, numbers in enumerate(obs["stations"]):
        legend.append(paint(k, f"{who}{' ' if who == 'company' else ''}{k}") + ": "
                      + " ".join(str(n) for n in sorted(numbers)))
    unused = sorted(n for n in range(1, 33) if n not in owner_of)
    rows.append("stations  " + " | ".join(legend) + (f" | unused: {' '.join(map(str, unused))}" if unused else ""))
    return "\n".join(rows)
