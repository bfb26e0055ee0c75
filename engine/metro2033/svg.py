"""An SVG map view of a Metro 2033 position: a *schematic* map (not the board's geography, which
the data files do not give): the four Polis stations in the centre, each faction zone a sector
around them (Hansa's Ring stations on the inner circle, the zone's other stations outside it),
every tunnel (solid) and transfer (dashed) of the map, each station in its owner's colour, the
heroes where they stand, and a panel per player (VP, army, resources).

Elements: each station is a ``<g class="station">`` with ``data-station`` (its index),
``data-name``, ``data-kind`` and ``data-owner`` (the player, or empty; the web page's clicks
read ``data-name``); each link a ``<line class="link">`` with
``data-a``, ``data-b`` and ``data-kind``; each hero a ``<g class="hero">`` with ``data-player``
and ``data-station``. Drawn from ``observation(player)`` (player 0's when no seat is given, with
nothing private shown), so the picture holds nothing the viewer may not see."""
from __future__ import annotations

import math
from typing import Optional
from xml.sax.saxutils import escape

from .board import BOARD

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
KIND_FILL = {"pigs": "#f3c6c6", "mushrooms": "#d9ecd0", "bullets": "#f5e3b3", "hansa": "#c9c9c9",
             "abandoned": "#777777", "polis": "#ffffff"}
SIZE = 720
PANEL = 190


def _layout() -> list[tuple[float, float]]:
    """Station positions: Polis at the centre, the other zones in equal sectors, Hansa inside."""
    cx = cy = SIZE / 2
    zones = [z for z in BOARD.zones if z != "polis"]
    pos: list[tuple[float, float]] = [(0.0, 0.0)] * BOARD.n
    polis = [i for i in range(BOARD.n) if BOARD.zone[i] == "polis"]
    for k, s in enumerate(polis):
        a = math.pi / 4 + k * math.pi / 2
        pos[s] = (cx + 34 * math.cos(a), cy + 34 * math.sin(a))
    for z, zone in enumerate(zones):
        a0, span = 2 * math.pi * z / len(zones), 2 * math.pi / len(zones)
        ring = [i for i in range(BOARD.n) if BOARD.zone[i] == zone and BOARD.kind[i] == "hansa"]
        rest = [i for i in range(BOARD.n) if BOARD.zone[i] == zone and BOARD.kind[i] != "hansa"]
        for k, s in enumerate(ring):
            a = a0 + span * (k + 0.5) / len(ring)
            pos[s] = (cx + 120 * math.cos(a), cy + 120 * math.sin(a))
        rows = 3
        per = (len(rest) + rows - 1) // rows
        for k, s in enumerate(rest):
            r, j = divmod(k, per)
            a = a0 + span * (j + 0.5) / per
            rad = 190 + 55 * r
            pos[s] = (cx + rad * math.cos(a), cy + rad * math.sin(a))
    return pos


POS = _layout()


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
             f'{obs["stage"]}, {escape(state.phase)} (schematic map)</text>']
    if lastmove is not None:
        parts.append(f'<text x="10" y="38" font-size="12" fill="#ddd" class="lastmove">last: '
                     f'{escape(state.action_to_string(lastmove))}</text>')
    for a, b, kind in BOARD.link_list:
        (x1, y1), (x2, y2) = POS[a], POS[b]
        dash = ' stroke-dasharray="4 3"' if kind == "transfer" else ""
        parts.append(f'<line class="link" data-a="{a}" data-b="{b}" data-kind="{kind}" x1="{x1:.1f}" '
                     f'y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#888" stroke-width="1.5"{dash}/>')
    for s in range(BOARD.n):
        x, y = POS[s]
        owner = obs["owner"][s]
        ring = COLOURS[owner] if owner is not None else "#444"
        parts.append(f'<g class="station" data-station="{s}" data-name="{escape(BOARD.names[s], {chr(34): "&quot;"})}" '
                     f'data-kind="{BOARD.kind[s]}" '
                     f'data-owner="{"" if owner is None else owner}"><circle cx="{x:.1f}" cy="{y:.1f}" r="8" '
                     f'fill="{KIND_FILL[BOARD.kind[s]]}" stroke="{ring}" stroke-width="{4 if owner is not None else 1}"/>'
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
