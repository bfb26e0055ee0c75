"""An SVG picture of a Metro 2033: Breakthrough table, drawn from the card set.

One row per player (faction card, tokens above / below / in the supply / held, and the cards in
play, a rotated card drawn turned with its protection icons), the market, the deck and the
discard pile, and, with ``player`` given, that player's hand; the other hands show only their
size (and the cards known to be in them, R20), so the picture of a seat shows what that seat
sees. Each card is a ``<g class="card">`` with ``data-card`` (its id), ``data-name`` (its full name,
as the action texts spell it) and ``data-where``; its face
shows the name, the cost (or the value of a threat or caravan), and per type: resource quantity
and type, station quest, hero doubling, threat icons and loss; protection icons in yellow.

With ``labels`` (the page's picture; the default drawing is unchanged without it) nothing on a
card is clipped: long names and lines wrap (a word too long for the card is shortened with "…"),
each card carries a ``<title>`` (its full name and summary, the tooltip), the protection types
are written out in words ("protects: epidemic, radiation") and the tokens on a card say what they
are in its tooltip.
"""
from __future__ import annotations

from typing import Optional
from xml.sax.saxutils import escape

W, H = 92, 124                          # a card
GAP = 8
TYPE_COLOURS = {"resource": "#cfe3f7", "station": "#f3e2b3", "threat": "#f4c2c2", "caravan": "#d5ecd0",
                "hero": "#e3d4f1", "faction": "#e0e0e0"}
HAND_ROW = 5                            # room for a hand, or the market, the deck and the discard pile
CLASS_COLOURS = {"peaceful": "#1f77b4", "military": "#d62728", "trade": "#2ca02c"}


PROTECTION_WORDS = {"biological": "biological", "epidemiological": "epidemic", "mental": "mental",
                    "physical": "physical", "radiative": "radiation", "unknown": "unknown"}


def _tokens_badge(x, y, tokens, attrs=""):
    """The round badge in a card's lower left corner with the tokens lying on it."""
    return (f'<circle{attrs} cx="{x + 14}" cy="{y + H - 12}" r="9" fill="#000"/>'
            f'<text x="{x + 14}" y="{y + H - 8}" font-size="10" fill="white" text-anchor="middle">{tokens}</text>')

def _wrap(text, width):
    """`text` in lines of at most `width` characters, broken between words; a word longer than a
    line is shortened with "…"."""
    lines: list = []
    for word in text.split():
        if len(word) > width:
            word = word[:width - 1] + "…"
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _card_labelled(game, c, x, y, where, rotated, tokens, lines, price, colour, turn):
    """A card's face with nothing clipped (see the module docstring, ``labels``)."""
    k = game.card(c).kind
    tip = k.name + (f": {k.summary}" if getattr(k, "summary", None) else "")
    if tokens:
        tip += f" ({tokens} token{'s' if tokens != 1 else ''} on it)"
    out = [f'<g class="card" data-card="{c}" data-name="{escape(k.name, {chr(34): "&quot;"})}" data-where="{where}" '
           f'data-rotated="{int(rotated)}"{turn}>',
           f'<title>{escape(tip)}</title>',
           f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="6" fill="{TYPE_COLOURS.get(k.type, "#eee")}" '
           f'stroke="{colour}" stroke-width="2"/>']
    name = _wrap(k.name, 14)[:2]
    for i, part in enumerate(name):
        out.append(f'<text x="{x + 5}" y="{y + 14 + 11 * i}" font-size="9" font-weight="bold">{escape(part)}</text>')
    base = [part for text in lines if text for part in _wrap(text, 16)]
    shield = _wrap("protects: " + ", ".join(PROTECTION_WORDS.get(p, p) for p in k.protection), 16) if k.protection else []
    top = y + 16 + 11 * len(name)
    for i, part in enumerate((base + shield)[:6]):
        fill = ' fill="#7a5f00"' if i >= len(base) else ""
        out.append(f'<text x="{x + 5}" y="{top + 11 * i}" font-size="9"{fill}>{escape(part)}</text>')
    if price is not None:
        out.append(f'<circle cx="{x + W - 12}" cy="{y + H - 12}" r="9" fill="#333"/>'
                   f'<text x="{x + W - 12}" y="{y + H - 8}" font-size="10" fill="white" '
                   f'text-anchor="middle">{price}</text>')
    if tokens:
        out.append(_tokens_badge(x, y, tokens, ' class="tokens"'))
    out.append("</g>")
    return "".join(out)


def _card(game, c, x, y, where, rotated=False, tokens=0, labels=False):
    k = game.card(c).kind
    lines = []
    if k.type == "resource":
        lines.append(f"{k.quantity} {k.resource_type}")
    elif k.type in ("station", "faction") and k.quest is not None:
        lines.append(f"quest {k.quest.amount} {k.quest.cls}")
        if k.reward_types:
            lines.append("free: " + ", ".join(k.reward_types))
    elif k.type == "hero" and k.doubles:
        lines.append(f"doubles {k.doubles}")
    elif k.type == "threat":
        lines.append(", ".join(k.threats))
        lines.append(f"loss: {k.loss.replace('_', ' ')}" if k.loss else "")
    elif k.type == "caravan" and k.caravan_class:
        lines.append(f"{k.caravan_class} caravan")
    price = k.cost if k.cost is not None else k.value
    colour = CLASS_COLOURS.get(k.resource_class or (k.quest.cls if k.quest else None) or "", "#555")
    turn = f' transform="rotate(180 {x + W / 2} {y + H / 2})"' if rotated else ""
    if labels:
        return _card_labelled(game, c, x, y, where, rotated, tokens, lines, price, colour, turn)
    out = [f'<g class="card" data-card="{c}" data-name="{escape(k.name, {chr(34): "&quot;"})}" data-where="{where}" '
           f'data-rotated="{int(rotated)}"{turn}>',
           f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="6" fill="{TYPE_COLOURS.get(k.type, "#eee")}" '
           f'stroke="{colour}" stroke-width="2"/>',
           f'<text x="{x + 5}" y="{y + 15}" font-size="10" font-weight="bold">{escape(k.name[:16])}</text>']
    if price is not None:
        out.append(f'<circle cx="{x + W - 12}" cy="{y + H - 12}" r="9" fill="#333"/>'
                   f'<text x="{x + W - 12}" y="{y + H - 8}" font-size="10" fill="white" '
                   f'text-anchor="middle">{price}</text>')
    for i, text in enumerate(t for t in lines if t):
        out.append(f'<text x="{x + 5}" y="{y + 32 + 13 * i}" font-size="9">{escape(text[:22])}</text>')
    if k.protection:
        out.append(f'<text x="{x + 5}" y="{y + H - 22}" font-size="8" fill="#9a7b00">'
                   f'{escape("shield: " + ", ".join(p[:4] for p in k.protection))}</text>')
    if tokens:
        out.append(_tokens_badge(x, y, tokens))
    out.append("</g>")
    return "".join(out)


def table_svg(state, player: Optional[int] = None, lastmove: Optional[int] = None, labels: bool = False) -> str:
    """The SVG text of a Breakthrough table (see the module docstring); ``lastmove`` is shown as
    its text; `labels`: the page's cards, nothing clipped."""
    game = state.game
    if player is not None:
        state._check_player(player)
    obs = state.observation(0 if player is None else player)
    n = obs["num_players"]
    most = max([len(t) for t in obs["tableaux"]] + [HAND_ROW])
    width = 150 + (W + GAP) * most + GAP
    row = H + 2 * GAP
    height = 40 + row * (n + 2)
    header = f"Turn {obs['turn']}, active P{obs['active']}, phase {obs['phase']}"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" font-family="sans-serif">', f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="8" y="22" font-size="14">{escape(header)}</text>']
    if lastmove is not None:
        parts.append(f'<text x="{width - 8}" y="22" font-size="12" text-anchor="end">last: '
                     f'{escape(state.action_to_string(lastmove))}</text>')
    for p in range(n):
        y = 40 + row * p
        parts.append(f'<g class="seat" data-player="{p}">')
        parts.append(_card(game, obs["factions"][p], 8, y, f"faction-{p}", labels=labels) if not obs["faction_done"][p] else
                     f'<rect x="8" y="{y}" width="{W}" height="{H}" rx="6" fill="#777"/>'
                     f'<text x="{8 + W / 2}" y="{y + H / 2}" font-size="10" fill="white" text-anchor="middle">'
                     f'{escape(game.card(obs["factions"][p]).name)}</text>')
        mark = " *" if obs["current_player"] == p else ""
        parts.append(f'<text x="{W + 14}" y="{y + 14}" font-size="11">P{p}{mark}</text>'
                     f'<text x="{W + 14}" y="{y + 30}" font-size="10">tokens {obs["tokens"][p]}</text>'
                     f'<text x="{W + 14}" y="{y + 44}" font-size="10">above {obs["above"][p]}</text>'
                     f'<text x="{W + 14}" y="{y + 58}" font-size="10">below {obs["below"][p]}</text>'
                     f'<text x="{W + 14}" y="{y + 72}" font-size="10">supply {obs["supply"][p]}</text>'
                     f'<text x="{W + 14}" y="{y + 86}" font-size="10">hand {obs["hand_sizes"][p]}</text>')
        for i, e in enumerate(obs["tableaux"][p]):
            parts.append(_card(game, e["card"], 150 + i * (W + GAP), y, f"tableau-{p}", e["rotated"], e["tokens"],
                               labels))
        parts.append("</g>")
    y = 40 + row * n
    parts.append(f'<text x="8" y="{y + 14}" font-size="11">market</text>'
                 f'<text x="8" y="{y + 30}" font-size="10">deck {obs["deck_size"]}</text>'
                 f'<text x="8" y="{y + 44}" font-size="10">discard {len(obs["discard"])}</text>')
    for i, c in enumerate(obs["market"]):
        if c is not None:
            parts.append(_card(game, c, 150 + i * (W + GAP), y, "market", labels=labels))
    if obs["discard"]:
        parts.append(_card(game, obs["discard"][-1], 150 + 4 * (W + GAP), y, "discard", labels=labels))
    if player is not None:
        y += row
        parts.append(f'<text x="8" y="{y + 14}" font-size="11">P{player} hand</text>')
        for i, c in enumerate(obs["hand"]):
            parts.append(_card(game, c, 150 + i * (W + GAP), y, "hand", labels=labels))
    parts.append("</svg>")
    return "".join(parts)

