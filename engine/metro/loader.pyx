# cython: language_level=3
"""The base game's state loader (``MetroGame.state_from_json``, rules M1-M8; with the hooks the
companies expansion, the central stations (C2), the central tracks (C3) and the solo game (C4)
use): every field is checked before the state is returned; a state it accepts is one the engine
can play safely to the end."""
from libc.stdint cimport uint64_t

from metro_ai.engine.metro.rules cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_KINDS, METRO_TILES, METRO_EMPTY, clear_state, hand_add,
    retrace_lines, advance_line, central_square, central_port)
from metro_ai.engine.errors import StateFormatError

from .rules import CENTRE_SQUARES, square_name, _PHASES


def load_state(MetroGame game, obj, MetroState st=None, exchanges=None, central=(), turn_checks=True):
    """The state `obj` describes (its envelope already checked by ``Game.state_from_json``): the
    board, hands, supply and turn, into `st` (a blank state; None: a new base-game one). With
    companies, `exchanges` is the number of exchange turns taken (already checked): turns are
    then placements plus exchanges, and the caller checks scores, which depend on the shares.
    `central` (C2): (piece, space) pairs already checked; they are placed before the lines are
    traced, and `exchanges` counts their turns too. With central tracks (C3) the 4 central
    squares hold 4 distinct pieces CT1..CT8 in any rotation. `turn_checks` False (the solo game,
    whose loader checks its own turn): the phase and player to move are taken as read."""
    def bad(msg):
        raise StateFormatError(f"metro state: {msg}")
    ids = game.tile_ids
    if st is None:
        st = game._blank()
    cdef MetroData* d = &st.d
    cdef const MetroTables* t = &game.tables
    clear_state(d, t)
    counts = [0] * METRO_KINDS

    def kind(v, where):
        if not isinstance(v, str) or v not in ids:
            bad(f"{where}: unknown tile {v!r} (kinds are T01..T24)")
        k = ids.index(v)
        counts[k] += 1
        return k

    board = obj["board"]
    if not isinstance(board, list) or len(board) != 8 or any(not isinstance(r, list) or len(r) != 8 for r in board):
        bad("board must be 8 rows of 8 cells")
    track_ids = [f"CT{i + 1}" for i in range(len(game.track_layouts))]
    tracks = {}
    if t.centre_tracks and any(board[sq // 8][sq % 8] is None for sq in CENTRE_SQUARES):
        bad("with central_tracks the 4 central squares each hold a central-track piece (C3)")
    for r in range(8):
        for c in range(8):
            cell = board[r][c]
            if cell is None:
                continue
            where = f"board cell {square_name(r * 8 + c)}"
            if r * 8 + c in CENTRE_SQUARES and t.centre_tracks:
                if not isinstance(cell, dict) or set(cell) != {"tile", "rotation"} \
                        or cell["tile"] not in track_ids or cell["rotation"] not in (0, 1, 2, 3) \
                        or isinstance(cell["rotation"], bool):
                    bad(f"{where} must hold a central-track piece CT1..CT{len(track_ids)} in rotation 0..3 (C3)")
                if cell["tile"] in tracks:
                    bad(f"{where}: central-track piece {cell['tile']} is also at {tracks[cell['tile']]} (C3)")
                tracks[cell["tile"]] = where
                d.cell[r * 8 + c] = (METRO_KINDS + track_ids.index(cell["tile"])) * 4 + cell["rotation"]
                continue
            if r * 8 + c in CENTRE_SQUARES:
                bad(f"{where} is part of the central station and cannot hold a tile")
            if not isinstance(cell, dict) or set(cell) != {"tile", "rotation"}:
                bad(f"{where} must be null or {{\"tile\": ..., \"rotation\": ...}}")
            k = kind(cell["tile"], where)
            rot = cell["rotation"]
            if isinstance(rot, bool) or not isinstance(rot, int) or rot not in [t.rots[k][i] for i in range(t.nrot[k])]:
                bad(f"{where}: rotation {rot!r} is not allowed for {ids[k]} under these options")
            d.cell[r * 8 + c] = k * 4 + rot
            d.placed |= (<uint64_t>1) << (r * 8 + c)
            d.nplaced += 1
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != t.players:
        bad(f"hands must be a list of {t.players} lists")
    for p, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) > t.hand_size:
            bad(f"hand of player {p} must be a list of at most {t.hand_size} tiles")
        for v in hand:
            hand_add(d, p, kind(v, f"hand of player {p}"))
    supply = obj["supply"]
    if not isinstance(supply, list):
        bad("supply must be a list")
    if len(supply) > METRO_TILES:        # checked before any write: d.top is a narrow int
        bad(f"supply has {len(supply)} tiles; the game has {METRO_TILES}")
    d.top = METRO_TILES - len(supply)
    for i, v in enumerate(supply):
        d.supply[d.top + i] = kind(v, f"supply[{i}]")
    if obj["drawn"] is not None:
        d.drawn = kind(obj["drawn"], "drawn")
    for k in range(METRO_KINDS):
        if counts[k] != t.count[k]:
            bad(f"{counts[k]} tiles of {ids[k]} across board, hands, drawn and supply; the game has {t.count[k]}")
    if supply and any(d.hand_n[p] != t.hand_size for p in range(t.players)):
        bad(f"while the supply lasts every hand holds {t.hand_size} tile(s)")
    phase, cur = obj["phase"], obj["current_player"]
    if phase not in _PHASES:
        bad(f"phase must be one of {_PHASES}, got {phase!r}")
    if isinstance(cur, bool) or not isinstance(cur, int) or not -1 <= cur < t.players:
        bad(f"current_player must be -1..{t.players - 1}, got {cur!r}")
    if not turn_checks:
        pass
    elif phase == "over":
        if d.nplaced != METRO_TILES or cur != -1:
            bad("phase 'over' needs all 60 tiles placed and current_player -1")
    else:
        if cur < 0:
            bad("current_player is -1 but the game is not over")
        if phase == "place_drawn" and d.drawn < 0:
            bad("phase 'place_drawn' needs a drawn tile")
        if phase == "turn" and d.drawn >= 0:
            bad("a drawn tile is only held in phase 'place_drawn'")
        if phase == "turn" and d.hand_n[cur] == 0:
            bad(f"player {cur} is to move but holds no tile")
        # Turns go round the table (M3) and every turn places exactly one tile (M4); hands stay
        # full while the supply lasts, so nobody is ever skipped: the player to move is the
        # number of tiles placed modulo the players, and once the supply is out the hands,
        # read in seat order from that player, hold a, ..., a, a - 1, ..., a - 1 tiles.
        # With companies a turn is a placement or an exchange (M13): nobody is skipped while the
        # supply lasts, so the player to move is the turns taken modulo the players; once it is
        # out, exchanges can break the hand-size pattern: the player to move holds a tile.
        turns = d.nplaced + (exchanges or 0)
        if (exchanges is None or supply) and cur != turns % t.players:
            bad(f"current_player {cur} is not the player to move after {d.nplaced} tiles placed"
                + (f" and {exchanges} exchanges" if exchanges is not None else "")
                + f" (player {turns % t.players}: turns go round the table, M3)")
        counts = [d.hand_n[(cur + i) % t.players] for i in range(t.players)]
        if exchanges is None and (counts != sorted(counts, reverse=True) or max(counts) - min(counts) > 1):
            bad(f"hand sizes {[d.hand_n[p] for p in range(t.players)]} cannot arise with player {cur} to move "
                "(every player places one tile a turn, in seat order)")   # (no [-1]: wraparound=False)
    d.current = cur
    d.phase = _PHASES.index(phase)
    for piece, space in central:          # C2: pieces first, so that lines arriving there stop there
        d.central |= (<uint64_t>1) << central_square(space)
    retrace_lines(d, t)
    for piece, space in central:
        d.line_sq[t.nlines + piece] = central_square(space)
        d.line_port[t.nlines + piece] = central_port(space)
        advance_line(d, t, t.nlines + piece)
    if exchanges is not None:
        return st
    if "scores" in obj and obj["scores"] != st.scores():
        bad(f"scores {obj['scores']!r} do not match the board, which gives {st.scores()!r}")
    if "lines" in obj and obj["lines"] != st.lines():
        bad("the scored lines listed do not match the board")
    return st
