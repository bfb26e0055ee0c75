"""An SVG picture of a Metro position, drawn from the game's data (M1, M2).

Every placed tile is one ``<g class="tile">`` element holding its kind's tracks as drawn in the
board's orientation, turned by ``transform="rotate(90 * rotation ...)"`` (rotating a tile 90
degrees clockwise maps port p to p + 2, as in ``data/metro_tiles.csv``); its ``data-square``,
``data-tile`` and ``data-rotation`` attributes say what it is. A track joins two ports with a cubic
curve whose control points lie on the ports' inward normals, so straights, curves and U-turns all
follow from the tile's ``exits``. Stations sit outside the edge in their owner's colour (a player,
or with companies a company, M11) with their number; the central block is grey; every line that
has scored is traced through the tiles in its owner's colour; ``lastmove`` (an action id) frames
its square. A city's pieces (C5-C10) are drawn from the observation (``_city_parts``). With
``player`` given, that player's hand (and drawn tile) is drawn below the board.
Every square of the grid outside the central block is a ``<rect class="square" data-square=..>``
under the tiles, so that a front end can tell which square was clicked (``metro-ai web``), and
the board names its squares on its edges (columns A-H above, rows 1-8 at both sides, as
``square_name`` writes them and the action texts read them, ``class="edge-label"``).

With ``labels`` (the page's picture) the board also traces every open line from its station to
its last tile in its owner's colour (``class="line open"``, thinner and lighter than a scored
line), writes each hand tile's id under it (``class="hand-id"``) and lists the players' colours
on the root element (``data-seat-colours``, absent with companies, whose colours are the
companies'). With companies (M11-M18) it also draws, from the observation, what a player may know
below the board: each company's profit and value (``class="company"``), the face-up shares
(``class="share face-up"``) and, with ``player``, that player's own shares (``class="share
own"``); the scores stay out until the end, as the observation leaves them out (M18).
"""
from __future__ import annotations

from typing import Optional
from xml.sax.saxutils import escape

CELL = 60                              # pixels per square
MARGIN = 34                            # room for the stations around the board
PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
COMPANY_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
# Port positions (x, y) in a unit square and their inward normals (metro_tiles.csv numbering).
PORTS = ((1 / 3, 0), (2 / 3, 0), (1, 1 / 3), (1, 2 / 3), (2 / 3, 1), (1 / 3, 1), (0, 2 / 3), (0, 1 / 3))
NORMALS = ((0, 1), (0, 1), (-1, 0), (-1, 0), (0, -1), (0, -1), (1, 0), (1, 0))
ENTER = (5, 4, 7, 6, 1, 0, 3, 2)       # leaving through port p enters the neighbour at ENTER[p]
STEP = ((-1, 0), (-1, 0), (0, 1), (0, 1), (1, 0), (1, 0), (0, -1), (0, -1))   # (drow, dcol) per port
CENTRE = {27, 28, 35, 36}
METRO_DRAW = 6144                      # the draw action; placements are kind << 8 | square << 2 | rot
TILE_KINDS = 24                        # kinds 24.. are the central-track pieces CT1.. (C3)
CENTRAL_STATION_BASE = 33              # central space j is departure 33 + j (C2, C12)


def kind_exits(game, kind):
    """The exits of a cell kind: a tile (M2) or a central-track piece (C3)."""
    return game.data.tiles[kind].exits if kind < TILE_KINDS else game.track_layouts[kind - TILE_KINDS]


def departure(game, number):
    """(row, col, port) where the line of departure `number` enters the board: an edge station
    (M1), or a central space's square, through the even port on its side towards the centre (C12)."""
    if number < CENTRAL_STATION_BASE:
        st = game.data.stations[number - 1]
        return st.row, st.col, st.depart_port
    from metro_ai.engine.metro.rules import CENTRAL_SPACE_SQUARES
    sq = CENTRAL_SPACE_SQUARES[number - CENTRAL_STATION_BASE]
    r, c = divmod(sq, 8)
    return r, c, 4 if r == 2 else 6 if c == 5 else 0 if r == 5 else 2


def _track(a, b, x0, y0, bend=0.42):
    """The path of a track from port a to port b of the square at (x0, y0)."""
    (ax, ay), (bx, by) = PORTS[a], PORTS[b]
    (anx, any_), (bnx, bny) = NORMALS[a], NORMALS[b]
    pts = [(ax, ay), (ax + bend * anx, ay + bend * any_), (bx + bend * bnx, by + bend * bny), (bx, by)]
    px = [(x0 + CELL * x, y0 + CELL * y) for x, y in pts]
    return "M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}".format(*[v for p in px for v in p])


def _tile_group(kind, exits, rot, x0, y0, attrs):
    c = CELL / 2
    paths = "".join(f'<path d="{_track(p, exits[p], x0, y0)}"/>' for p in range(8) if p < exits[p])
    return (f'<g {attrs} data-tile="{kind}" data-rotation="{rot}" '
            f'transform="rotate({90 * rot} {x0 + c:.1f} {y0 + c:.1f})">'
            f'<rect x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" fill="#f4f1e8" stroke="#b9b4a6"/>'
            f'<g fill="none" stroke="#444" stroke-width="4" stroke-linecap="round">{paths}</g></g>')


def _line_path(game, board, number):
    """The squares and ports the line of departure `number` passes: [(square, in, out), ...]
    (through central-track pieces too, C3)."""
    r, c, port = departure(game, number)
    out: list = []
    while 0 <= r < 8 and 0 <= c < 8 and len(out) < 200:
        cell = board[8 * r + c]
        if cell is None:
            break
        kind, rot = cell
        e = (kind_exits(game, kind)[(port - 2 * rot) % 8] + 2 * rot) % 8
        out.append((8 * r + c, port, e))
        dr, dc = STEP[e]
        r, c, port = r + dr, c + dc, ENTER[e]
    return out


TOURIST_COLOURS = ("#e41a1c", "#377eb8", "#4daf4a", "#ffd92f", "#984ea3", "#ff7f00", "#222222", "#f7f7f7")


def _dot(cls, x, y, colour, attrs="", r=6):
    return (f'<circle class="{cls}" {attrs} data-colour="{colour}" cx="{x:.1f}" cy="{y:.1f}" r="{r}" '
            f'fill="{TOURIST_COLOURS[colour]}" stroke="#333" stroke-width="1"/>')


def _city_parts(city, game, o):
    """The cities' pieces (C5-C10): tourists on their squares (``class="tourist"``), New York's
    at their stations, Berlin's landmarks (``landmark``) and the tourists tiles carry
    (``carried``), London's row of landmarks with the taxi (``taxi``) under the board; with
    Berlin's tickets (C33) the landmark pieces' row under the board (``landmark``, each with its
    tourist, ``row-tourist``)."""
    out = []
    for name, colours in city.get("tourists", {}).items():
        sq = (int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0])
        for i, c in enumerate(colours):
            x, y = o + CELL * (sq % 8) + 12 + 12 * (i % 4), o + CELL * (sq // 8) + 12 + 12 * (i // 4)
            out.append(_dot("tourist", x, y, c, f'data-square="{sq}"'))
    for i, c in enumerate(city.get("stations", ())):
        if c is not None:
            st = game.data.stations[i]
            (px, py), (nx, ny) = PORTS[st.depart_port], NORMALS[st.depart_port]
            x, y = o + CELL * (st.col + px + 0.2 * nx), o + CELL * (st.row + py + 0.2 * ny)
            out.append(_dot("tourist", x, y, c, f'data-station="{st.number}"'))
    for key, cls in (("landmarks", "landmark"), ("carried", "carried")):
        if city["name"] != "berlin":
            break
        for name, v in city.get(key, {}).items():
            sq = (int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0])
            c = v if key == "landmarks" else v["colour"]
            x, y = o + CELL * (sq % 8) + CELL / 2, o + CELL * (sq // 8) + CELL / 2
            if key == "landmarks":
                out.append(f'<rect class="landmark" data-square="{sq}" data-colour="{c}" x="{x - 14:.1f}" '
                           f'y="{y - 14:.1f}" width="28" height="28" transform="rotate(45 {x:.1f} {y:.1f})" '
                           f'fill="{TOURIST_COLOURS[c]}" stroke="#333"/>')
            else:
                out.append(_dot("carried", x + 18, y - 18, c, f'data-square="{sq}"', r=7))
    if city["name"] == "berlin" and "row" in city:                # the ticket variant's row (C33)
        y = o + 8 * CELL + MARGIN - 4
        for i, c in enumerate(city["row"]):
            out.append(f'<rect class="landmark" data-place="{i}" x="{o + 40 + 26 * i}" y="{y}" width="22" '
                       f'height="16" fill="#ddd" stroke="#333"/>')
            out.append(_dot("row-tourist", o + 40 + 26 * i + 11, y + 8, c, f'data-place="{i}"', r=5))
    if city["name"] == "london":
        colours = [game.city_rules.data["landmarks"][lm]["colour"] for lm in city["row"]]
        y = o + 8 * CELL + MARGIN - 4
        for i, c in enumerate(colours):
            out.append(f'<rect class="landmark" data-place="{i}" data-colour="{c}" x="{o + 40 + 26 * i}" y="{y}" '
                       f'width="22" height="12" fill="{TOURIST_COLOURS[c]}" stroke="#333"/>')
        tx = o + 40 + 26 * city["taxi"] + 11 if city["taxi"] >= 0 else o + 26
        out.append(f'<text class="taxi" data-place="{city["taxi"]}" x="{tx}" y="{y + 24}" font-size="12" '
                   f'text-anchor="middle">taxi</text>')
    return out


COMPANY_ROWS = 84                      # with labels and companies: the rows of profits and shares


def _share(cls, share, x, y, colours):
    """A share (id ``4 * company + pct index``, M15) as a chip in its company's colour."""
    company, pct = share // 4, 10 * (share % 4 + 1)
    return (f'<g class="share {cls}" data-share="{share}" data-company="{company}">'
            f'<title>{pct}% of company {company}</title>'
            f'<rect x="{x}" y="{y}" width="52" height="18" rx="3" fill="{colours[company % len(colours)]}"/>'
            f'<text x="{x + 26}" y="{y + 13}" font-size="11" fill="white" text-anchor="middle">'
            f'C{company} {pct}%</text></g>')


def _company_parts(obs, player, x, y, colours):
    """What a player may know of the companies (M14, M18), from the observation: each company's
    profit and value, the face-up shares and, for `player`, their own shares."""
    out = [f'<text x="{x}" y="{y + 13}" font-size="12">profit (value)</text>']
    for k, (profit, value) in enumerate(zip(obs["profits"], obs["company_values"])):
        cx = x + 84 + 56 * k
        out.append(f'<g class="company" data-company="{k}" data-profit="{profit}" data-value="{value}">'
                   f'<title>company {k}: profit {profit}, value {value}</title>'
                   f'<rect x="{cx}" y="{y}" width="52" height="18" rx="3" fill="{colours[k % len(colours)]}"/>'
                   f'<text x="{cx + 26}" y="{y + 13}" font-size="11" fill="white" text-anchor="middle">'
                   f'C{k} {profit} ({value})</text></g>')
    rows = [("your shares", "own", obs["shares"])] if player is not None else []
    rows.append(("face up", "face-up", obs["face_up"]))
    for title, cls, shares in rows:
        y += 26
        out.append(f'<text x="{x}" y="{y + 13}" font-size="12">{title}</text>')
        out.extend(_share(cls, share, x + 84 + 56 * i, y, colours) for i, share in enumerate(shares))
    return out


LABEL_PAD = 18                         # room for the square names outside the stations


def _edge_labels(o):
    """The square names on the board's edges: columns A-H above, rows 1-8 left and right (row 1
    at the top, as ``square_name`` counts)."""
    out = []
    for c in range(8):
        out.append(f'<text class="edge-label" data-col="{c}" x="{o + CELL * c + CELL // 2}" y="{o - MARGIN - 4}" '
                   f'font-size="13" font-weight="bold" fill="#555" text-anchor="middle">{"ABCDEFGH"[c]}</text>')
    for r in range(8):
        y = o + CELL * r + CELL // 2 + 5
        for x in (o - MARGIN - LABEL_PAD // 2, o + 8 * CELL + MARGIN + LABEL_PAD // 2):
            out.append(f'<text class="edge-label" data-row="{r}" x="{x}" y="{y}" font-size="13" font-weight="bold" '
                       f'fill="#555" text-anchor="middle">{r + 1}</text>')
    return out


def board_svg(state, player: Optional[int] = None, lastmove: Optional[int] = None, labels: bool = False) -> str:
    """The SVG text of a Metro position (see the module docstring; `labels`: the page's extras)."""
    game = state.game
    if player is not None:
        state._check_player(player)
    obs = state.observation(0 if player is None else player)
    board = state.board()
    companies = bool(getattr(game, "companies", False))
    colours = COMPANY_COLOURS if companies else PLAYER_COLOURS
    if player is None:
        hand = []
    elif "hand" in obs:
        hand = obs["hand"] + ([obs["drawn"]] if obs.get("drawn") else [])
    else:                                          # the solo game: the two face-up tiles (C4)
        hand = [t for t in obs.get("face_up", []) if t is not None]
    pad = LABEL_PAD                                # room for the square names on the edges
    width = 8 * CELL + 2 * (MARGIN + pad)
    city = obs.get("city", {})
    row_h = 34 if city.get("name") == "london" or (city.get("name") == "berlin" and "row" in city) else 0
    # London's row under the board (C8), Berlin's with tickets (C33)
    extra = COMPANY_ROWS if labels and "company_values" in obs else 0        # the companies part (M11)
    height = width + 24 + row_h + (CELL + 30 if player is not None else 0) + extra
    o = MARGIN + pad
    seat_colours = f' data-seat-colours="{",".join(colours[:game.num_players])}"' if labels and not companies else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" font-family="sans-serif"{seat_colours}>',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             '<g class="grid" fill="none" stroke="#ddd">']
    for sq in range(64):
        if sq not in CENTRE:
            parts.append(f'<rect class="square" data-square="{sq}" x="{o + CELL * (sq % 8)}" y="{o + CELL * (sq // 8)}" '
                         f'width="{CELL}" height="{CELL}"/>')
    parts.append("</g>")
    parts.append(f'<rect class="centre" x="{o + 3 * CELL}" y="{o + 3 * CELL}" width="{2 * CELL}" '
                 f'height="{2 * CELL}" fill="#999" stroke="#666"/>')
    for sq, cell in enumerate(board):
        if cell is not None:
            kind, rot = cell
            cls = "tile" if kind < TILE_KINDS else "piece"
            parts.append(_tile_group(game.piece_name(kind), kind_exits(game, kind), rot,
                                     o + CELL * (sq % 8), o + CELL * (sq // 8),
                                     f'class="{cls}" data-square="{sq}"'))
    owner_of = {s: k for k, numbers in enumerate(obs["stations"]) for s in numbers}
    for j, k in enumerate(obs.get("central", {}).get("spaces", ())):
        if k is not None:                              # a central-station piece (C2)
            owner_of[CENTRAL_STATION_BASE + j] = k
            r, c, port = departure(game, CENTRAL_STATION_BASE + j)
            (px, py), (nx, ny) = PORTS[port], NORMALS[port]
            x, y = o + CELL * (c + px - 0.3 * nx), o + CELL * (r + py - 0.3 * ny)
            parts.append(f'<circle class="central-piece" data-space="{j}" data-owner="{k}" cx="{x:.1f}" '
                         f'cy="{y:.1f}" r="9" fill="{colours[k % len(colours)]}" stroke="white" stroke-width="2"/>')
    parts.extend(_edge_labels(o))                  # every drawing names its squares (A-H, 1-8)
    if labels:
        scored = {line["station"] for line in obs["lines"]}
        for number in sorted(set(owner_of) - scored):
            path = _line_path(game, board, number)
            if path:
                colour = colours[owner_of[number] % len(colours)]
                d = " ".join(_track(a, b, o + CELL * (sq % 8), o + CELL * (sq // 8)) for sq, a, b in path)
                parts.append(f'<path class="line open" data-station="{number}" data-owner="{owner_of[number]}" '
                             f'd="{d}" fill="none" stroke="{colour}" stroke-width="4" stroke-opacity="0.6" '
                             f'stroke-linecap="round"/>')
    for line in obs["lines"]:
        colour = colours[owner_of[line["station"]] % len(colours)]
        pts = []
        for sq, a, b in _line_path(game, board, line["station"]):
            x0, y0 = o + CELL * (sq % 8), o + CELL * (sq // 8)
            pts.append(_track(a, b, x0, y0))
        d = " ".join(pts)
        parts.append(f'<path class="line" data-station="{line["station"]}" data-points="{line["points"]}" '
                     f'd="{d}" fill="none" stroke="{colour}" stroke-width="6" stroke-opacity="0.75" '
                     f'stroke-linecap="round"/>')
    for st in game.data.stations:
        side = st.depart_port // 2
        x, y = o + CELL * st.col, o + CELL * st.row
        box = {0: (x + 12, y - 26), 1: (x + CELL + 4, y + 12), 2: (x + 12, y + CELL + 4), 3: (x - 26, y + 12)}[side]
        k = owner_of.get(st.number)
        fill = colours[k % len(colours)] if k is not None else "#ccc"
        parts.append(f'<g class="station" data-station="{st.number}" data-owner="{"" if k is None else k}">'
                     f'<rect x="{box[0]}" y="{box[1]}" width="{CELL - 24 if side in (0, 2) else 22}" '
                     f'height="{22 if side in (0, 2) else CELL - 24}" rx="4" fill="{fill}"/>'
                     f'<text x="{box[0] + (18 if side in (0, 2) else 11)}" y="{box[1] + (15 if side in (0, 2) else 22)}" '
                     f'font-size="11" fill="white" text-anchor="middle">{st.number}</text></g>')
    if "city" in obs:
        parts.extend(_city_parts(obs["city"], game, o))
    if lastmove is not None and 0 <= lastmove < METRO_DRAW:
        sq = (lastmove >> 2) & 63
        parts.append(f'<rect class="lastmove" x="{o + CELL * (sq % 8)}" y="{o + CELL * (sq // 8)}" '
                     f'width="{CELL}" height="{CELL}" fill="none" stroke="#e00" stroke-width="3"/>')
    if player is not None:
        y = o + 8 * CELL + MARGIN - 4 + row_h
        parts.append(f'<text x="{o}" y="{y + 14}" font-size="14">{escape(f"P{player} holds:")}</text>')
        for i, t in enumerate(hand):
            kind = game.kind_index(t)
            parts.append(_tile_group(t, game.data.tiles[kind].exits, 0, o + 90 + i * (CELL + 8), y - 6,
                                     'class="hand-tile"'))
            if labels:
                parts.append(f'<text class="hand-id" x="{o + 90 + i * (CELL + 8) + CELL // 2}" y="{y + CELL + 8}" '
                             f'font-size="13" text-anchor="middle">{escape(str(t))}</text>')
    if extra:
        parts.extend(_company_parts(obs, player, o, height - 24 - extra, colours))
    scores = " · ".join(f"P{p} {v}" for p, v in enumerate(obs["scores"])) if "scores" in obs else ""
    parts.append(f'<text x="{o}" y="{height - 8}" font-size="14">{escape(scores)}</text>')
    parts.append("</svg>")
    return "".join(parts)
