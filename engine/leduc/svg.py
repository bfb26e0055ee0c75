"""An SVG picture of a Leduc poker hand: one row per player (their card if the viewer may see it,
chips put in, folded), the public card, the pot and the betting of each round. Each card is a
``<g class="card">`` with ``data-card`` (its text, or ``hidden``) and ``data-where``."""
from __future__ import annotations

from typing import Optional
from xml.sax.saxutils import escape

SUITS = {"h": "#c0392b", "s": "#222"}


def _card(text, x, y, where):
    if text is None:
        return (f'<g class="card" data-card="hidden" data-where="{where}"><rect x="{x}" y="{y}" width="44" '
                f'height="62" rx="5" fill="#2c5f8a" stroke="#123"/></g>')
    colour = SUITS.get(text[-1], "#222")
    return (f'<g class="card" data-card="{escape(text)}" data-where="{where}"><rect x="{x}" y="{y}" width="44" '
            f'height="62" rx="5" fill="white" stroke="#555"/><text x="{x + 22}" y="{y + 38}" font-size="20" '
            f'text-anchor="middle" fill="{colour}">{escape(text)}</text></g>')


def table_svg(state, player: Optional[int] = None, lastmove: Optional[int] = None) -> str:
    """The SVG text of a hand as `player` sees it (no private card shown without a seat, but the
    cards shown down at a showdown); `lastmove` is written out."""
    if player is not None:
        state._check_player(player)
    obs = state.observation(0 if player is None else player)
    n = len(obs["spent"])
    cards = obs["cards"] if player is not None else [None] * n
    if player is None and state.is_terminal():
        cards = state.observation(0)["cards"]
        cards = [c if i != 0 or not obs["folded"][0] else None for i, c in enumerate(cards)]
    width, row = 420, 74
    height = 70 + row * n + 60
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" font-family="sans-serif">', f'<rect width="{width}" height="{height}" fill="#0b6623"/>',
             f'<text x="10" y="24" font-size="15" fill="white">Leduc poker, round {obs["round"]}, pot {obs["pot"]}</text>']
    if lastmove is not None:
        parts.append(f'<text x="{width - 10}" y="24" font-size="12" fill="white" text-anchor="end">last: '
                     f'{escape(state.action_to_string(lastmove))}</text>')
    for p in range(n):
        y = 40 + row * p
        mark = " (to move)" if obs["current_player"] == p else ""
        fold = ", folded" if obs["folded"][p] else ""
        parts.append(f'<g class="seat" data-player="{p}">' + _card(cards[p], 10, y, f"player-{p}")
                     + f'<text x="66" y="{y + 26}" font-size="13" fill="white">P{p}{mark}</text>'
                     + f'<text x="66" y="{y + 46}" font-size="12" fill="white">in {obs["spent"][p]}{fold}</text></g>')
    y = 40 + row * n
    parts.append(_card(obs["public_card"], 10, y, "public"))
    for r, bets in enumerate(obs["history"]):
        parts.append(f'<text x="66" y="{y + 20 + 18 * r}" font-size="12" fill="white">round {r + 1}: '
                     f'{escape(", ".join(bets) if bets else "-")}</text>')
    parts.append("</svg>")
    return "".join(parts)
