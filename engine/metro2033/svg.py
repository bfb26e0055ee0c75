"""An SVG map view of a Metro 2033 position: the stations where the Moscow metro map has them
(``data/metro2033_positions.csv``: the Ring as a circle, the radial lines in their directions and
order; schematic, see the file's header), each station's name beside it, every tunnel (solid,
thick) and transfer (dashed, thin) of the map, each station in its kind's colour with its owner's
ring, the heroes where they stand, and a panel per player (VP, army, resources).

Elements: each station is a ``<g class="station">`` with ``data-station`` (its index),
``data-name``, ``data-kind`` and ``data-owner`` (the player, or empty; the web page's clicks
read ``data-name``) holding its dot and its name (``<text class="label">``); each link a
``<line class="link">`` with ``data-a``, ``data-b`` and ``data-kind``; each hero a
``<g class="hero">`` with ``data-player`` and ``data-station``. Drawn from
``observation(player)`` (player 0's when no seat is given, with nothing private shown), so the
picture holds nothing the viewer may not see."""
from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.sax.saxutils import escape

from metro_ai.engine.datafile import read_csv

from .board import BOARD, DATA, Board
from .text import readable, station_label

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
KIND_FILL = {"pigs": "#f3c6c6", "mushrooms": "#d9ecd0", "bullets": "#f5e3b3", "hansa": "#c9c9c9",
             "abandoned": "#777777", "polis": "#ffffff"}
SIZE = 860          # the map's side in pixels; the positions file's 0..1000 box is scaled into it
PANEL = 190
BOX = 1000
MARGIN = 14
DOT = 6             # a station's radius
FONT = 9            # a label's font size


def load_positions(path: Path = DATA / "metro2033_positions.csv", board: Board = BOARD) -> list:
    """The drawn position ``(x, y)`` of every station of `board` (by index), read from `path`: a
    CSV ``station,x,y`` with x and y in 0..1000, every station of the map exactly once."""
    f = read_csv(path, what="station positions")
    if f.columns != ["station", "x", "y"]:
        raise f.error("the header must be station,x,y", f.header_line)
    pos: list = [None] * board.n
    for line, row in f.rows:
        i = board.index.get(row["station"])
        if i is None:
            raise f.error("not a station of the map", line, "station")
        if pos[i] is not None:
            raise f.error("a station given twice", line, "station")
        xy = []
        for col in ("x", "y"):
            try:
                v = float(row[col])
            except ValueError:
                raise f.error("not a number", line, col) from None
            if not 0 <= v <= BOX:
                raise f.error(f"not in 0..{BOX}", line, col)
            xy.append(v)
        pos[i] = (xy[0], xy[1])
    missing = [board.names[i] for i in range(board.n) if pos[i] is None]
    if missing:
        raise f.error(f"no position for {len(missing)} station(s) of the map: {', '.join(missing)}")
    return pos


POSITIONS = load_positions()
_K = (SIZE - 2 * MARGIN) / BOX
POS = [(MARGIN + x * _K, MARGIN + y * _K) for x, y in POSITIONS]
LABELS = [station_label(n) for n in BOARD.names]


def _seg_hits_box(p, q, box) -> bool:
    """Whether the segment p-q meets the rectangle box = (x0, y0, x1, y1) (sampled)."""
    x0, y0, x1, y1 = box
    for k in range(21):
        t = k / 20
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if x0 <= x <= x1 and y0 <= y <= y1:
            return True
    return False


def _place_labels() -> list:
    """Each label's anchor point and text-anchor: of eight places around its dot, the one whose
    box covers the fewest dots, labels already placed and links (ties: right, left, above, ...)."""
    offs = [(DOT + 2, FONT / 3, "start"), (-DOT - 2, FONT / 3, "end"), (0, -DOT - 3, "middle"),
            (0, DOT + FONT + 1, "middle"), (DOT, -DOT, "start"), (-DOT, -DOT, "end"),
            (DOT, DOT + FONT - 2, "start"), (-DOT, DOT + FONT - 2, "end")]
    segs = [(POS[a], POS[b]) for a, b, _ in BOARD.link_list]
    boxes: list = []
    out = []
    for s in range(BOARD.n):
        x, y = POS[s]
        w = 0.6 * FONT * len(LABELS[s])      # about the width of a sans-serif face
        best = None
        for k, (dx, dy, anchor) in enumerate(offs):
            ax, ay = x + dx, y + dy
            x0 = ax if anchor == "start" else ax - w if anchor == "end" else ax - w / 2
            box = (x0, ay - FONT * 0.8, x0 + w, ay + FONT * 0.2)
            cost = 0.1 * k
            if box[0] < 0 or box[2] > SIZE or box[1] < 0 or box[3] > SIZE:
                cost += 100
            for t, (px, py) in enumerate(POS):        # another dot near the box, or its own under it
                m = DOT if t != s else 0
                if box[0] - m <= px <= box[2] + m and box[1] - m <= py <= box[3] + m:
                    cost += 10
            cost += sum(8 for b in boxes if box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3])
            cost += sum(2 for p, q in segs if _seg_hits_box(p, q, box))
            if best is None or cost < best[0]:
                best = (cost, ax, ay, anchor, box)
        boxes.append(best[4])
        out.append(best[1:4])
    return out


LABEL_AT = _place_labels()


def map_svg(state, player: Optional[int] = None, lastmove: Optional[int] = None) -> str:
    """The SVG text of `state` as `player` sees it (no seat: the public view); `lastmove`, an
    action id, is written out under the title."""
    if player is not None:
        state._check_player(player)
    obs = state.observation(0 if player is None else player)
    names = state.game.card_names
    n = len(obs["vp"])
    width = SIZE + PANEL
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {SIZE}" width="{width}" '
             f'height="{SIZE}" font-family="sans-serif">', f'<rect width="{width}" height="{SIZE}" fill="#1b1b1b"/>',
             f'<text x="10" y="20" font-size="14" fill="white">Metro 2033, round {obs["round"]}, stage '
             f'{obs["stage"]}, {escape(state.phase.replace("_", " "))} (stations after the Moscow metro map)</text>']
    if lastmove is not None:
        parts.append(f'<text x="10" y="38" font-size="12" fill="#ddd" class="lastmove">last: '
                     f'{escape(readable(state.action_to_string(lastmove)))}</text>')
    for a, b, kind in BOARD.link_list:
        (x1, y1), (x2, y2) = POS[a], POS[b]
        if kind == "transfer":
            style = 'stroke="#a0a0a0" stroke-width="1.2" stroke-dasharray="3 2"'
        else:                       # the Ring's tunnels in its brown, the others blue-grey
            ring_line = BOARD.kind[a] == BOARD.kind[b] == "hansa"
            style = f'stroke="{"#a0703c" if ring_line else "#6b8fb5"}" stroke-width="3"'
        parts.append(f'<line class="link" data-a="{a}" data-b="{b}" data-kind="{kind}" x1="{x1:.1f}" '
                     f'y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" {style}/>')
    for s in range(BOARD.n):
        x, y = POS[s]
        lx, ly, anchor = LABEL_AT[s]
        owner = obs["owner"][s]
        ring = COLOURS[owner] if owner is not None else "#444"
        parts.append(f'<g class="station" data-station="{s}" data-name="{escape(BOARD.names[s], {chr(34): "&quot;"})}" '
                     f'data-kind="{BOARD.kind[s]}" '
                     f'data-owner="{"" if owner is None else owner}"><circle cx="{x:.1f}" cy="{y:.1f}" r="{DOT}" '
                     f'fill="{KIND_FILL[BOARD.kind[s]]}" stroke="{ring}" stroke-width="{3 if owner is not None else 1}"/>'
                     f'<text class="label" x="{lx:.1f}" y="{ly:.1f}" font-size="{FONT}" fill="#e8e8e8" '
                     f'text-anchor="{anchor}">{escape(LABELS[s])}</text>'
                     f'<title>{escape(BOARD.names[s])} ({BOARD.kind[s]}, {BOARD.zone[s]})</title></g>')
    for p in range(n):
        at = obs["hero_at"][p]
        if at is None:
            continue
        x, y = POS[at]
        dx = -10 + 4 * p
        parts.append(f'<g class="hero" data-player="{p}" data-station="{at}"><rect x="{x + dx:.1f}" y="{y - 17:.1f}" '
                     f'width="7" height="7" fill="{COLOURS[p]}" stroke="white"/></g>')
    for p in range(n):
        y = 50 + 110 * p
        r = obs["res"][p]
        fac = names[obs["faction"][p]] if obs["faction"][p] is not None else "-"
        hero = names[obs["hero"][p]] if obs["hero"][p] is not None else "-"
        mark = " (to move)" if obs["current_player"] == p else ""
        parts.append(f'<g class="player" data-player="{p}"><rect x="{SIZE}" y="{y}" width="{PANEL - 8}" height="100" '
                     f'fill="#2a2a2a" stroke="{COLOURS[p]}"/>'
                     f'<text x="{SIZE + 6}" y="{y + 16}" font-size="12" fill="{COLOURS[p]}">P{p}{mark}</text>'
                     f'<text x="{SIZE + 6}" y="{y + 32}" font-size="11" fill="white">{escape(fac)}</text>'
                     f'<text x="{SIZE + 6}" y="{y + 48}" font-size="11" fill="white">hero {escape(hero)}'
                     f'{" (wounded)" if obs["wounded"][p] else ""}</text>'
                     f'<text x="{SIZE + 6}" y="{y + 64}" font-size="11" fill="white">VP {obs["vp"][p]}, army '
                     f'{obs["army"][p]}</text><text x="{SIZE + 6}" y="{y + 80}" font-size="11" fill="white">pigs '
                     f'{r[0]} mushrooms {r[1]} bullets {r[2]}</text>'
                     f'<text x="{SIZE + 6}" y="{y + 95}" font-size="10" fill="#bbb">equipment '
                     f'{len(obs["equipment"][p])}, quests {obs["quest_counts"][p]} + done '
                     f'{len(obs["done_quests"][p])}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
