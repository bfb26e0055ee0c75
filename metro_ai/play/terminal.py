"""What a person sees of a game in the terminal (``metro-ai play``): colour, Metro's board and
tiles, readable action labels.

* Colour: ANSI escape codes when the output is a terminal, none when it is not, when ``NO_COLOR``
  is set to anything non-empty (the no-color.org convention) or when ``TERM`` is ``dumb``;
  ``FORCE_COLOR`` (non-empty) turns them on anyway. :func:`color_enabled` decides, :class:`Paint`
  writes them; lines and stations take their owner's colour.
* Metro: a *compact* board of one text line per row of squares (8 rows, 7 characters a square,
  station numbers on the edges: 11 lines of 65 columns, and its legend), so that the board, the
  scores, the tiles in hand and the prompt fit 80 x 24; a tile there is its four tracks, each the
  character of the sides it joins, and the owners of the lines on them (:func:`compact_tile`);
  the *full* drawing (every square's tracks, ``engine/metro/text.py``) when the terminal has room
  for it. Each tile the player may place is
  drawn as a picture of its tracks, one per legal rotation, lettered ``a``, ``b``, ...; on the
  board each empty square where a tile fits shows those letters, so a person types a square
  (``C1``, or ``b C1`` when several tiles fit there). Squares changed since the player's last
  turn are marked ``*`` (compact) or ``◆`` at the corners (full). At 80 columns the tiles stand
  right of the compact board; a variant's extra status lines (shares, profits, a city's pieces)
  are summarised (:func:`summary`) in the lines left when they would not fit, ``info`` naming
  the rest (:meth:`MetroView.info` gives everything).
* Other games (Breakthrough): :func:`compact_text` folds the text's card lists onto one line each
  when the turn would not fit the terminal.
* Long lines wrap at words to the terminal's width, colours kept (:func:`wrap`).
* What a seat may see: its scores and other seats' moves come from :mod:`metro_ai.play.seatview`
  (its observation only); Metro's own drawing for a seat says the scores are hidden until the end
  with companies (M18).
* Labels: :func:`describe` says what an action does (Metro 2033: ``hero defends Kievskaya
  (blue)``, ``hire 2 soldiers``; ``engine/metro2033/text.py``), :func:`prompt` what the decision
  is; other games' labels are their action texts; :func:`analysis_in_words` says a search's
  analysis so. ``action_to_string`` is left as it is (records and the protocol keep its texts).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap

RESET = "\x1b[0m"
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
# Owner colours (ANSI SGR), the SVG pictures' order: red, blue, green, orange, purple, brown;
# companies add pink and cyan.
OWNER_CODES = ("1;31", "1;34", "1;32", "1;33", "1;35", "33", "95", "1;36")
LAST_CODE = "1;7"                  # reverse video: the squares just played
DIM_CODE = "2"
# Lines under a view that are not its own: the blank line before a turn, the line that says how
# to type a move, and the prompt.
RESERVED = 3
BOARD_WIDTH = 65                   # the compact board's columns, its legend's beside tile pictures


def color_enabled(stream=None, env=None) -> bool:
    """Whether to write ANSI colours to `stream` (default: standard output): not when
    ``NO_COLOR`` is set and non-empty, yes when ``FORCE_COLOR`` is, else only on a terminal
    whose ``TERM`` is not ``dumb``."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):                 # a closed stream
        tty = False
    return tty and env.get("TERM", "") != "dumb"


class Paint:
    """Colours text by owner (an int), ``"last"``, ``"dim"`` or ``"bold"``; with `on` false
    every call returns the text unchanged."""

    def __init__(self, on: bool):
        self.on = bool(on)

    def code(self, who):
        if who is None:
            return None
        if who == "last":
            return LAST_CODE
        if who == "dim":
            return DIM_CODE
        if who == "bold":
            return "1"
        if isinstance(who, int):
            return OWNER_CODES[who % len(OWNER_CODES)]
        return None

    def __call__(self, who, text):
        code = self.code(who) if self.on else None
        return f"\x1b[{code}m{text}{RESET}" if code and text else text


def visible_len(text: str) -> int:
    """The width of `text` on screen: its length without the ANSI codes."""
    return len(strip_ansi(text))


def screen_rows(lines, width) -> int:
    """The rows `lines` take on a terminal `width` columns wide (a longer line wraps)."""
    return sum(max(1, -(-visible_len(x) // width)) for x in lines)


def strip_ansi(text: str) -> str:
    return ANSI_CODE.sub("", text)


def wrap(text: str, width: int, indent: str | None = None) -> list[str]:
    """`text` (one line, colours kept) wrapped at words to lines of at most `width` visible
    characters (``textwrap``; a word longer than a line, a path say, stays whole on a line of
    its own, so that it can be copied); the lines after the first
    start with `indent` (default: the text's own indentation and two spaces more)."""
    plain = strip_ansi(text)
    if len(plain) <= width:
        return [text]
    if indent is None:
        indent = " " * (len(plain) - len(plain.lstrip(" ")) + 2)
    lines = textwrap.wrap(plain, width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False,
                          replace_whitespace=False) or [""]
    if plain == text:
        return lines
    at = _visible_at(text)
    out, pos = [], 0
    for n, line in enumerate(lines):
        body = line[len(indent):] if n else line
        start = plain.find(body, pos)
        end = start + len(body)
        # the codes before a line's first character open its colours; those before the blank
        # after its last character close them; a colour that runs on past a line's end is
        # closed there and opened again on the next line
        a = at[start - 1] + 1 if n else 0
        piece = _colour_at(text[:a]) + text[a:at[end] if end < len(at) else len(text)]
        out.append((indent if n else "") + piece + (RESET if _colour_at(piece) else ""))
        pos = end
    return out


def _colour_at(text) -> str:
    """The ANSI code in force at the end of `text` (``""`` where none is, or the last was reset)."""
    codes = ANSI_CODE.findall(text)
    return "" if not codes or codes[-1] == RESET else codes[-1]


def _visible_at(text) -> list[int]:
    """Where each character of `text` that is not in an ANSI code stands in it."""
    out: list[int] = []
    i = 0
    for m in ANSI_CODE.finditer(text):
        out += range(i, m.start())
        i = m.end()
    return out + list(range(i, len(text)))


def terminal_size(default=(80, 24)):
    """(columns, lines) of the terminal (``shutil.get_terminal_size``: ``COLUMNS``/``LINES``
    first), `default` when unknown."""
    size = shutil.get_terminal_size(default)
    return size.columns, size.lines


# ---------------------------------------------------------------- labels

def _is_metro2033(state):
    return getattr(state.game, "name", "") == "metro2033"


def describe(state, action) -> str:
    """What `action` does, in words, if the player to move plays it now."""
    if _is_metro2033(state):
        from metro_ai.engine.metro2033.text import describe as d
        return d(state, action)
    return state.action_to_string(action)


def prompt(state) -> str | None:
    """The decision the player to move faces, in a sentence; None where the actions say it."""
    if _is_metro2033(state):
        from metro_ai.engine.metro2033.text import prompt as p
        return p(state)
    return None


def readable(state, text: str) -> str:
    """An engine's text (its ``render``, an action text) with ids made readable."""
    if _is_metro2033(state):
        from metro_ai.engine.metro2033.text import readable as r
        return r(text)
    return text


def analysis_in_words(state, analysis):
    """A copy of a search's `analysis` of `state` (:class:`~metro_ai.bots.mcts.Analysis`) whose
    texts are a person's words (:func:`describe`): each action's, the choice's, and the expected
    line's, each move said in the position the line reaches (where a move of the line is not
    legal in `state`'s own continuation, the search having imagined other hidden parts, that
    move and the rest are its text made :func:`readable`). For printing; ``to_dict`` of the
    original keeps the engine's texts."""
    from dataclasses import replace
    actions = [replace(a, text=describe(state, a.action)) for a in analysis.actions]
    line, at = [], state.clone()
    for player, action, text in analysis.line:
        if at is not None and not at.is_terminal() and action in at.legal_actions():
            line.append((player, action, describe(at, action)))
            at.apply(action)
        else:
            at = None
            line.append((player, action, readable(state, text)))
    return replace(analysis, actions=actions, chosen_text=describe(state, analysis.chosen), line=line)


# ---------------------------------------------------------------- other games, compact

PAREN = re.compile(r" \([^()]*\)")


def clip(text: str, width: int) -> str:
    """`text` (plain) within `width` characters: its bracketed details dropped from the first
    on while it is too wide, then cut with ``…``."""
    while len(text) > width and PAREN.search(text):
        text = PAREN.sub("", text, count=1)
    return text if len(text) <= width else text[:width - 1] + "…"


def compact_text(lines, width) -> list[str]:
    """A game's text view (``render``'s lines) in fewer lines, none wider than `width`: each
    indented block (a player's cards in play, the market, the hand) folded onto one line of
    names (the cards' details, in brackets, left out; on the line above when that one ends in
    ``:`` or has room, after `` | ``), every line cut to `width` (:func:`clip`). Its full text is the ``info`` command's."""
    out: list[str] = []
    block: list[str] = []

    def flush():
        if not block:
            return
        names = " · ".join(PAREN.sub("", x.strip()) for x in block)
        if out and out[-1].endswith(":"):
            out[-1] = clip(out[-1] + " " + names, width)
        elif out and len(out[-1]) + 3 + len(names) <= width:
            out[-1] += " | " + names
        else:
            out.append(clip("    " + names, width))
        block.clear()

    for line in lines:
        if line.startswith("    "):
            block.append(line)
            continue
        flush()
        out.append(line if line.endswith(":") else clip(line, width))
    flush()
    return [x if x.endswith(":") and len(x) <= width else clip(x, width) for x in out]


# ---------------------------------------------------------------- Metro

def is_metro(state) -> bool:
    return callable(getattr(state, "board", None)) and hasattr(getattr(state.game, "data", None), "stations")


PLACE_LIMIT = 6144                 # Metro's draw action; placements are kind << 8 | square << 2 | rot
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def square_name(sq: int) -> str:
    return "ABCDEFGH"[sq % 8] + str(sq // 8 + 1)


def placements(state, actions):
    """Metro's legal placements grouped by tile and rotation: [(kind, rot, {square: action})],
    in the order of the actions (hand first). Other actions (draw, a city's choices) are left
    out."""
    groups: dict = {}
    for a in actions:
        if isinstance(a, int) and 0 <= a < PLACE_LIMIT and state.action_to_string(a).startswith("place "):
            kind, sq, rot = a >> 8, (a >> 2) & 63, a & 3
            groups.setdefault((kind, rot), {})[sq] = a
    return [(k, r, squares) for (k, r), squares in groups.items()]


def tile_picture(game, kind, rot=0) -> list[str]:
    """A tile's tracks (kind index `kind`, turned `rot` quarter turns clockwise) as 5 lines of
    10 characters, the drawing of the full board (M2)."""
    from metro_ai.engine.metro import text
    from metro_ai.engine.metro.svg import kind_exits
    nodes = text.routes(tuple(kind_exits(game, kind)), rot)
    label = ""
    if nodes is None:                                   # T15: four tracks all crossing
        nodes, label = text._stubs(game.piece_name(kind))
    rows = []
    for i in range(text.N):
        row = "".join(text._cell(nodes, i, j) for j in range(text.N))
        if label and i == text.N // 2:
            row = row[:3] + label + "·" + row[7:]
        rows.append(row)
    return rows


def tile_options(state, actions):
    """The placements grouped as lettered options: [(letter, kind, rot, {square: action})]."""
    return [(LETTERS[i % 26], k, r, squares) for i, (k, r, squares) in enumerate(placements(state, actions))]


def option_title(game, kind, rot, drawn=None):
    name = game.piece_name(kind)
    return name + (f" rot {rot}" if rot else "") + (" (drawn)" if drawn == name else "")


def _title(letter, game, kind, rot, drawn, width):
    """``a: T17 rot 1 (drawn)``, without ``(drawn)`` where that is wider than `width` (the
    status line says the drawn tile)."""
    title = f"{letter}: " + option_title(game, kind, rot, drawn)
    return title if len(title) <= width else f"{letter}: " + option_title(game, kind, rot)


def tiles_block(state, options, width, drawn=None) -> list[str]:
    """The options' pictures side by side (wrapped to `width`), each titled ``a: T17``."""
    game = state.game
    cell = 2 * 5 + 4
    per = max(1, width // cell)
    out = []
    for start in range(0, len(options), per):
        chunk = options[start:start + per]
        out.append("".join(f"{_title(l, game, k, r, drawn, cell - 1):<{cell}}" for l, k, r, _ in chunk).rstrip())
        pics = [tile_picture(game, k, r) for _, k, r, _ in chunk]
        for i in range(5):
            out.append("".join(f"{pic[i]:<{cell}}" for pic in pics).rstrip())
    return out


SIDES = "UURRDDLL"                 # the side of each port (0, 1 top; 2, 3 right; 4, 5 bottom; 6, 7 left)
# A track on the compact board: the box-drawing character whose arms point to the two sides it
# joins (the full drawing's, engine/metro/text.py), or for a track that turns back to its own
# side the curve open towards it.
TURN_BACK = {"U": "∪", "R": "⊂", "D": "∩", "L": "⊃"}


def track_glyph(p, q) -> str:
    """The character of a track from port `p` to port `q`: ``└`` joins the top and the right
    side, ``│`` top and bottom, ``∪`` leaves the top and comes back to it."""
    from metro_ai.engine.metro.text import GLYPH
    a, b = SIDES[p], SIDES[q]
    return TURN_BACK[a] if a == b else GLYPH[frozenset(a + b)]


def tile_tracks(game, kind, rot):
    """A placed tile's tracks as pairs of ports (p, q), p < q, in the board's orientation (its
    exits turned `rot` quarter turns clockwise, M2), in the order of p."""
    from metro_ai.engine.metro.svg import kind_exits
    exits = kind_exits(game, kind)
    ends = [(exits[(p - 2 * rot) % 8] + 2 * rot) % 8 for p in range(8)]
    return [(p, q) for p, q in enumerate(ends) if p < q]


def compact_tile(game, sq, kind, rot, tracks, paint, last=False) -> str:
    """A tile on the compact board in 6 characters: its four tracks (:func:`track_glyph`), the
    lines' first, by owner, then the free ones; then the owners of the first two (``+``: more
    lines on it). ``┘│└┌01``: a line of P0's joins the top and the left side, one of P1's the
    top and the bottom; two tracks are free. In colour each track is its owner's colour (a free
    one dim), in reverse video on a square just played. `tracks` is
    :func:`~metro_ai.engine.metro.text.line_owners`' first part."""
    owned: list[tuple] = []
    free: list[tuple] = []
    for p, q in tile_tracks(game, kind, rot):
        k = tracks.get((sq, (p, q)))
        (free if k is None else owned).append((k, p, q))
    owned.sort()
    glyphs = "".join(paint("last" if last else (k if k is not None else "dim"), track_glyph(p, q))
                     for k, p, q in owned + free)
    ks = [k for k, _, _ in owned]
    digits = "".join(paint(k, str(k)) for k in (ks if len(ks) <= 2 else ks[:1]))
    return glyphs + digits + ("+" if len(ks) > 2 else "") + " " * (2 - min(2, len(ks)))


def compact_board(state, player, paint, last=(), notes=None) -> list[str]:
    """Metro's board in one line per row: a square is 7 characters, ``*`` in front if it
    changed since the player's last turn; a tile shows its tracks and the owners of the lines on
    them (:func:`compact_tile`), an empty square the letters of the tiles that fit there and
    the owners of the lines waiting to enter it; ``▓▓`` is the centre. Station numbers stand on
    the edges in their owner's colour, the legend under it."""
    from metro_ai.engine.metro.text import CENTRE, line_owners
    game = state.game
    obs = state.observation(player)
    board = state.board()
    owner_of = {s: k for k, numbers in enumerate(obs["stations"]) for s in numbers}
    tracks, waiting = line_owners(state, player)
    notes = notes or {}
    by_side: dict = {0: {}, 1: {}, 2: {}, 3: {}}
    for st in game.data.stations:
        by_side[st.depart_port // 2][st.col if st.depart_port // 2 in (0, 2) else st.row] = st.number
    W = 7

    def station(n, width, align):
        if n is None:
            return " " * width
        return paint(owner_of.get(n), f"{n:{align}{width}}")

    def owners_text(ks):
        ks = sorted(ks)
        shown = ks if len(ks) <= 2 else ks[:1]
        text = "".join(paint(k, str(k)) for k in shown) + ("+" if len(ks) > 2 else "")
        return text + " " * (2 - min(2, len(ks)))

    rows = ["     " + "".join(station(by_side[0].get(c), W, "^") for c in range(8)),
            "     " + "".join(f"{'ABCDEFGH'[c]:^{W}}" for c in range(8))]
    for r in range(8):
        cells = []
        for c in range(8):
            sq = 8 * r + c
            mark = "*" if sq in last else " "
            if board[sq] is None and sq in CENTRE:
                body = paint("dim", " ▓▓ ") + "  "
            elif board[sq] is None:
                note = notes.get(sq, "")
                core = f"{note:>3}" if note else "  ·"
                body = core + " " + owners_text(waiting.get(sq, ()))
            else:
                kind, rot = board[sq]
                body = compact_tile(game, sq, kind, rot, tracks, paint, last=sq in last)
            cells.append(mark + body)
        rows.append(station(by_side[3].get(r), 2, ">") + f" {r + 1} " + "".join(cells)
                    + " " + station(by_side[1].get(r), 2, "<"))
    rows.append("     " + "".join(station(by_side[2].get(c), W, "^") for c in range(8)))
    return rows


def stations_legend(state, player, paint, width, short=False, narrow=0) -> list[str]:
    """Whose stations are whose, wrapped to `width` (its first `narrow` lines to the board's
    width); `short`: companies as ``C3``, the unused stations left out."""
    obs = state.observation(player)
    who = ("C" if short else "company ") if getattr(state.game, "companies", False) else "P"
    owned = {s for numbers in obs["stations"] for s in numbers}
    parts = [paint(k, f"{who}{k}") + ("(you)" if k == player and who == "P" else "") + ": "
             + " ".join(str(n) for n in sorted(numbers)) for k, numbers in enumerate(obs["stations"])]
    unused = sorted(n for n in range(1, 33) if n not in owned)
    if unused and not short:
        parts.append("unused: " + " ".join(map(str, unused)))
    return _wrap_coloured("stations " + " | ".join(parts), width, narrow)


def _wrap_coloured(text, width, narrow=0):
    """Wrap `text` at spaces to `width` visible characters (ANSI codes kept), the first
    `narrow` lines to :data:`BOARD_WIDTH`."""
    lines = wrap(text, min(width, BOARD_WIDTH) if narrow else width)
    if not narrow or len(lines) <= narrow:
        return lines
    rest = " ".join(x.strip() for x in lines[narrow:])
    return lines[:narrow] + wrap("  " + rest, width)


class MetroView:
    """How Metro looks in the terminal for `player`, with `paint` and a `size` (columns, lines)."""

    def __init__(self, state, player, paint, size, last=(), last_text=""):
        self.state, self.player, self.paint = state, player, paint
        self.columns, self.lines = size
        self.last, self.last_text = set(last), last_text

    def engine_rest(self):
        """The lines of ``render`` after the board, as this seat sees them (the scores hidden
        until the end with companies, M18), whose turn, the hand (a city's extras too)."""
        from metro_ai.engine.metro.text import board_text
        full = self.state.render(player=self.player)
        board = board_text(self.state, self.player)
        if full.startswith(board):
            return full[len(board):].strip("\n").splitlines()
        return None

    def status(self, rest, room=None, drop_hand=False):
        """The engine's lines under the board, with the scores in colour and ``(you)`` said, the
        last move beside whose turn it is; `drop_hand`: without the hand line unless it says a
        drawn tile (the tiles' pictures say the hand).

        With `room` (a number of lines) and more lines than that, the compact form: the hand
        beside whose turn it is, a variant's extra lines (shares, profits, a city's pieces) one
        summary line each (:func:`summary`) packed together, and what still does not fit cut,
        with ``info`` named for the rest (:meth:`info` gives it all)."""
        p, width = self.player, self.columns
        n_core = 0
        while n_core < len(rest) and (rest[n_core].startswith(("scores:", "to move:"))
                                      or re.match(r"P\d+ hand:", rest[n_core])):
            n_core += 1
        scores, turn, hand = [], [], []
        for line in rest[:n_core]:
            if line.startswith("scores:"):
                for k in range(8):
                    line = line.replace(f"P{k}=", self.paint(k, f"P{k}") + "=", 1)
                scores.append(line)
            elif line.startswith("to move: P"):
                mover = self.state.current_player
                turn.append(line.replace(f"P{mover}", self.paint(mover, f"P{mover}"), 1)
                            + (" - " + self.paint("bold", "you") if mover == p else ""))
                if self.last_text:
                    turn += wrap(f"last: {self.last_text}", width)
            elif not (drop_hand and line.startswith(f"P{p} hand:") and "drawn" not in line):
                hand.append(line)
        extra = rest[n_core:]
        wrapped = []
        for line in extra:                                # a variant's long lines (shares, a city)
            wrapped += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False,
                                     break_long_words=False) or [""]
        out = scores + _pack(turn, width) + hand + wrapped
        if room is None or len(out) <= room:
            return out
        core = scores + _pack(turn + hand, width)
        if len(core) > room:                              # scores and turn on one line if they go
            core = _pack([re.sub(" {2,}", " ", x) for x in scores + turn + hand], width)
        if len(core) > room:                              # the last move is the line above the view
            core = _pack([re.sub(" {2,}", " ", x) for x in scores + turn[:1] + hand], width)
        parts = [s for s in (summary(x, width) for x in extra) if s]
        lines = _pack(parts, width, sep=" · ")
        left = max(0, room - len(core))
        if len(lines) > left:
            lines = lines[:left]
            more = " · more: type 'info'"
            if lines:
                last = lines[-1]
                lines[-1] = (last if len(last) + len(more) <= width else last[:width - len(more) - 1] + "…") + more
        return core + lines

    def info(self) -> list[str]:
        """Every status line in full (wrapped to the terminal): the ``info`` command."""
        rest = self.engine_rest()
        if rest is None:
            return self.state.render(player=self.player).splitlines()
        return self.status(rest)

    def full_fits(self, extra):
        from metro_ai.engine.metro.text import N
        return self.columns >= 5 + 8 * 2 * N + 4 and self.lines >= 2 + 8 * N + 2 + extra

    def render(self, actions=None, full=None) -> list[str]:
        """The view's lines: the board (compact, or full when it fits or `full`), the status
        lines, and with `actions` (the player's legal actions) the tiles that may be placed."""
        state, p, paint = self.state, self.player, self.paint
        rest = self.engine_rest()
        if rest is None:                                  # a variant drawn its own way
            return [state.render(player=p)]
        options = tile_options(state, actions) if actions else []
        notes: dict = {}
        for letter, _, _, squares in options:
            for sq in squares:
                notes[sq] = notes.get(sq, "") + letter
        notes = {sq: (t if len(t) <= 3 else t[:2] + "+") for sq, t in notes.items()}
        obs = state.observation(p)
        drawn = obs.get("drawn")
        tiles = tiles_block(state, options, self.columns, drawn) if options else []
        use_full = full if full is not None else self.full_fits(len(rest) + len(tiles) + 3)
        if use_full:
            from metro_ai.engine.metro.text import board_text
            board = board_text(state, p, paint=lambda who, text: paint("last" if who == "last" else who, text),
                               last=self.last, notes={sq: t for sq, t in notes.items()}).splitlines()
            board = board[:-1] + stations_legend(state, p, paint, self.columns)
        else:
            board = compact_board(state, p, paint, self.last, notes)
            beside = options and self.columns >= BOARD_WIDTH + 1 + 14
            per = min(len(options), 2) if beside else 0    # tiles drawn right of the board
            narrow = max(0, 6 * per - len(board))            # legend lines beside a picture
            legend = stations_legend(state, p, paint, self.columns, narrow=narrow)
            natural = self.status(rest, drop_hand=bool(options))
            if len(board) + len(legend) + len(natural) + len(tiles) + RESERVED > self.lines:
                legend = stations_legend(state, p, paint, self.columns, short=True, narrow=narrow)
            board += legend
            if beside:
                per = min(per, len(board) // 6)
                side = tiles_block(state, options[:per], 14, drawn)
                board = [row + " " * (BOARD_WIDTH + 1 - visible_len(row)) + pic if pic else row
                         for row, pic in zip(board, side + [""] * len(board))]
                tiles = tiles_block(state, options[per:], self.columns, drawn) if options[per:] else []
        room = self.lines - RESERVED - len(board) - len(tiles)
        status = self.status(rest, room=None if use_full and full else room, drop_hand=bool(options))
        return board + status + tiles


COLOUR_SHORT = {"green": "grn", "orange": "org", "red": "red", "blue": "blu", "yellow": "yel",
                "black": "blk", "white": "wht", "purple": "pur", "pink": "pnk", "brown": "brn", "grey": "gry"}


def _short_colours(text):
    return re.sub(r"\b(" + "|".join(COLOUR_SHORT) + r")\b", lambda m: COLOUR_SHORT[m.group(1)], text)


def summary(line, width=80) -> str:
    """One of a variant's status lines (``render``'s lines under the hand: the companies'
    profits, shares and exchanges, a city's pieces, the central stations) shortened to one line
    of at most `width` characters: runs of spaces closed up, ``10% (company 3)`` as ``10%C3``,
    colours in three letters; a list of pieces still too long (a city's tourists, New York's
    station colours) is said as a count by colour. Empty lists say nothing (``""``)."""
    text = " ".join(line.split())
    head, _, body = text.partition(": ")
    if not body.strip() and text.endswith(":"):
        return ""
    text = re.sub(r"(\d+)% \(company (\d+)\)", r"\1%C\2", text)
    text = re.sub(r"\[([\d, ]+)\]", lambda m: "[" + m.group(1).replace(", ", ",") + "]", text)
    text = text.replace("exchanges open:", "exchanges:").replace("city points:", "points:")
    text = text.replace("company ", "C")
    text = _short_colours(text)
    if len(text) <= width:
        return text
    pieces = re.findall(r"\b([A-H]?\d+):([a-z+]+)", text)
    if len(pieces) >= 4 and head in ("tourists", "stations"):
        counts: dict = {}
        for _, colours in pieces:
            for c in colours.split("+"):
                counts[c] = counts.get(c, 0) + 1
        short = f"{head} ({sum(counts.values())}): " + " ".join(f"{n} {c}" for c, n in
                                                               sorted(counts.items(), key=lambda x: -x[1]))
        if len(short) <= width:
            return short
        text = short
    return text[:width - 1] + "…"


def _pack(parts, width, sep="; "):
    """`parts` joined by `sep` into as few lines of at most `width` visible characters as the
    order allows (a part wider than `width` keeps a line of its own)."""
    out: list[str] = []
    for part in parts:
        if out and visible_len(out[-1]) + len(sep) + visible_len(part) <= width:
            out[-1] += sep + part
        else:
            out.append(part)
    return out


def how_to_place(options, other_actions, width=80) -> str:
    """The line under Metro's board that says how to type a move: a square marked with a
    tile's letter (with an example), the other actions (``draw``), and that ``list`` numbers
    every move; within `width` where it can be, the example shortened first, then the other
    actions left to ``list``."""
    if not options:
        return ""
    letters = options[0][0] if len(options) == 1 else f"{options[0][0]}-{options[-1][0]}"
    first = square_name(next(iter(options[0][3])))
    example = f" on the board, e.g. {first}"
    examples = [example + (f" ({options[1][0]} {square_name(next(iter(options[1][3])))}: tile {options[1][0]} there)"
                           if len(options) > 1 else ""), example, f", e.g. {first}"]
    others = "; or " + ", ".join(other_actions) if other_actions else ""
    listing = "; 'list' numbers every move"
    tries = [e + others + listing for e in examples] + [examples[-1] + "; or 'list' (every move, numbered)"]
    lines = [f"type a square marked {letters}" + t for t in tries]
    return next((x for x in lines if len(x) <= width), lines[-1])


def parse_placement(text, options, game):
    """The action a typed placement names: a square (``C1``) and, where several tiles fit there,
    the option's letter or the tile's id (``b C1``, ``C1 T17``, ``T17 rot 1 C1``). Returns the
    action, None if `text` names no square, or raises ValueError saying what does not fit."""
    words = text.lower().replace(",", " ").split()
    if not words or not options:
        return None
    square = letter = tile = rot = None
    i = 0
    while i < len(words):
        w = words[i]
        if len(w) == 2 and w[0] in "abcdefgh" and w[1] in "12345678":
            square = (int(w[1]) - 1) * 8 + "abcdefgh".index(w[0])
        elif len(w) == 1 and any(l == w for l, *_ in options):
            letter = w
        elif w in ("rot", "r") and i + 1 < len(words) and words[i + 1].isdigit():
            rot = int(words[i + 1])
            i += 1
        elif w.startswith("rot") and w[3:].isdigit():
            rot = int(w[3:])
        elif w in ("place", "at"):
            pass
        else:
            tile = w.upper()
        i += 1
    if square is None:
        return None
    fits = [(l, kind, r, squares[square]) for l, kind, r, squares in options
            if square in squares and (letter is None or l == letter) and (rot is None or r == rot)
            and (tile is None or _same_tile(game.piece_name(kind), tile))]
    if not fits:
        raise ValueError(f"no tile you may place fits at {square_name(square)} so")
    if len(fits) > 1:
        raise ValueError(f"{len(fits)} tiles fit at {square_name(square)}: say which, e.g. "
                         + " or ".join(f"'{l} {square_name(square)}'" for l, *_ in fits))
    return fits[0][3]


def _same_tile(name, typed):
    """Whether `typed` names the tile `name` (``T07``, ``t7`` and ``7`` name T07)."""
    if typed == name:
        return True
    digits = typed.lstrip("T")
    return digits.isdigit() and name.startswith("T") and name[1:].isdigit() and int(name[1:]) == int(digits)
