# cython: language_level=3
"""The base game's state loader (``MetroGame.state_from_json``, rules M1-M8; with the hooks the
companies expansion, the central stations (C2), the central tracks (C3) and the solo game (C4)
use): every field is checked before the state is returned; a state it accepts is one the engine
can play safely to the end.

Every Metro loader (this one, ``companies``, ``central``, ``solo``, ``city_loader``) follows one
discipline, with the checkers below:

1. *Check in Python first.* Each value from outside is checked for its type (``int_in`` refuses
   bools, floats and huge ints), its range and, for a list, its length, before it is used as an
   index, compared in order (``sorted``) or copied anywhere; the invariants between fields that
   need no rules (counts of pieces, players against seats, lengths against the fixed arrays'
   sizes) are checked on these plain Python values too.
2. *Copy in.* Only checked values are written into the C struct, each at an index bounded by a
   length checked in step 1 against the array's size; no C integer narrower than the value holds
   an outside length or count.
3. *Check what the rules derive* (lines, scores, legal moves) on the state just built, which is
   thrown away if it is refused.

A refusal is a ``StateFormatError`` naming the field; it quotes a value only cut short (``brief``)."""
from libc.stdint cimport uint64_t

from metro_ai.engine.metro.state cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_KINDS, METRO_TILES, METRO_EMPTY, clear_state, hand_add,
    retrace_lines, advance_line, central_square, central_port, has_centre_tracks)
from metro_ai.engine.errors import BRIEF, StateFormatError, brief

from .state import CENTRE_SQUARES, square_name, _PHASES

def int_in(v, lo, hi):
    """True if `v` is an int (not a bool) in lo..hi."""
    return not isinstance(v, bool) and isinstance(v, int) and lo <= v <= hi


def ints_in(v, lo, hi, length=None, most=None):
    """True if `v` is a list of ints in lo..hi, of `length` entries (or at most `most`); the length
    is checked first, so a long list costs nothing."""
    return isinstance(v, list) and (length is None or len(v) == length) and (most is None or len(v) <= most) \
        and all(int_in(x, lo, hi) for x in v)


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
    cdef const MetroTables* t = &game.tables
    cdef int sq, k, i, p
    counts = [0] * METRO_KINDS

    def kind(v, where):
        if not isinstance(v, str) or v not in ids:
            bad(f"{where}: unknown tile {brief(v)} (kinds are T01..T24)")
        k = ids.index(v)
        counts[k] += 1
        return k

    # 1. Every field checked into plain Python values; nothing is written into the state yet.
    board = obj["board"]
    if not isinstance(board, list) or len(board) != 8 or any(not isinstance(r, list) or len(r) != 8 for r in board):
        bad("board must be 8 rows of 8 cells")
    track_ids = [f"CT{i + 1}" for i in range(len(game.track_layouts))]
    tracks = {}
    cells = []                        # (square, kind * 4 + rotation, a tile (not a central track))
    if has_centre_tracks(t) and any(board[sq // 8][sq % 8] is None for sq in CENTRE_SQUARES):
        bad("with central_tracks the 4 central squares each hold a central-track piece (C3)")
    for sq in range(64):
        cell = board[sq // 8][sq % 8]
        if cell is None:
            continue
        where = f"board cell {square_name(sq)}"
        if sq in CENTRE_SQUARES and has_centre_tracks(t):
            if not isinstance(cell, dict) or set(cell) != {"tile", "rotation"} \
                    or not isinstance(cell["tile"], str) or cell["tile"] not in track_ids \
                    or not int_in(cell["rotation"], 0, 3):
                bad(f"{where} must hold a central-track piece CT1..CT{len(track_ids)} in rotation 0..3 (C3)")
            if cell["tile"] in tracks:
                bad(f"{where}: central-track piece {cell['tile']} is also at {tracks[cell['tile']]} (C3)")
            tracks[cell["tile"]] = where
            cells.append((sq, (METRO_KINDS + track_ids.index(cell["tile"])) * 4 + cell["rotation"], False))
            continue
        if sq in CENTRE_SQUARES:
            bad(f"{where} is part of the central station and cannot hold a tile")
        if not isinstance(cell, dict) or set(cell) != {"tile", "rotation"}:
            bad(f"{where} must be null or {{\"tile\": ..., \"rotation\": ...}}")
        k = kind(cell["tile"], where)
        rot = cell["rotation"]
        if not int_in(rot, 0, 3) or rot not in [t.rots[k][i] for i in range(t.nrot[k])]:
            bad(f"{where}: rotation {brief(rot)} is not allowed for {ids[k]} under these options")
        cells.append((sq, k * 4 + rot, True))
    nplaced = sum(tile for _, _, tile in cells)
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != t.players:
        bad(f"hands must be a list of {t.players} lists")
    for p, hand in enumerate(hands):     # (length first: hand[6][3] holds at most METRO_MAX_HAND)
        if not isinstance(hand, list) or len(hand) > t.hand_size:
            bad(f"hand of player {p} must be a list of at most {t.hand_size} tiles")
    hand_kinds = [[kind(v, f"hand of player {p}") for v in hand] for p, hand in enumerate(hands)]
    hand_n = [len(h) for h in hand_kinds]
    supply = obj["supply"]
    if not isinstance(supply, list):
        bad("supply must be a list")
    if len(supply) > METRO_TILES:        # checked before any write: d.top is a narrow int
        bad(f"supply has {len(supply)} tiles; the game has {METRO_TILES}")
    supply_kinds = [kind(v, f"supply[{i}]") for i, v in enumerate(supply)]
    drawn = -1 if obj["drawn"] is None else kind(obj["drawn"], "drawn")
    for k in range(METRO_KINDS):
        if counts[k] != t.count[k]:
            bad(f"{counts[k]} tiles of {ids[k]} across board, hands, drawn and supply; the game has {t.count[k]}")
    if supply and any(hand_n[p] != t.hand_size for p in range(t.players)):
        bad(f"while the supply lasts every hand holds {t.hand_size} tile(s)")
    phase, cur = obj["phase"], obj["current_player"]
    if not isinstance(phase, str) or phase not in _PHASES:
        bad(f"phase must be one of {_PHASES}, got {brief(phase)}")
    if not int_in(cur, -1, t.players - 1):
        bad(f"current_player must be -1..{t.players - 1}, got {brief(cur)}")
    # M20 (exchange_limit=None): the game ends once turn_limit turns are taken, tiles left or not.
    turns = nplaced + (exchanges or 0)
    at_limit = t.turn_limit > 0 and turns == t.turn_limit
    if t.turn_limit > 0 and turns > t.turn_limit:
        bad(f"{nplaced} tiles placed and {exchanges} exchanges and central-station pieces make {turns} turns; "
            f"the game ends at the turn limit {t.turn_limit} (M20)")
    if not turn_checks:
        pass
    elif phase == "over":
        if at_limit and nplaced != METRO_TILES:
            if cur != -1 or drawn >= 0:
                bad(f"phase 'over' at the turn limit {t.turn_limit} (M20) needs current_player -1 and no drawn tile")
        elif nplaced != METRO_TILES or cur != -1:
            bad("phase 'over' needs all 60 tiles placed and current_player -1"
                + (f" (or the turn limit {t.turn_limit} reached, M20)" if t.turn_limit > 0 else ""))
    else:
        if at_limit:
            bad(f"{turns} turns taken: the game is over at the turn limit {t.turn_limit} (M20), "
                f"but phase is {phase!r}")
        if cur < 0:
            bad("current_player is -1 but the game is not over")
        if phase == "place_drawn" and drawn < 0:
            bad("phase 'place_drawn' needs a drawn tile")
        if phase == "turn" and drawn >= 0:
            bad("a drawn tile is only held in phase 'place_drawn'")
        if phase == "turn" and hand_n[cur] == 0:
            bad(f"player {cur} is to move but holds no tile")
        # Turns go round the table (M3) and every turn places exactly one tile (M4); hands stay
        # full while the supply lasts, so nobody is ever skipped: the player to move is the
        # number of tiles placed modulo the players, and once the supply is out the hands,
        # read in seat order from that player, hold a, ..., a, a - 1, ..., a - 1 tiles.
        # With companies a turn is a placement or an exchange (M13): nobody is skipped while the
        # supply lasts, so the player to move is the turns taken modulo the players; once it is
        # out, exchanges can break the hand-size pattern: the player to move holds a tile.
        if (exchanges is None or supply) and cur != turns % t.players:
            bad(f"current_player {cur} is not the player to move after {nplaced} tiles placed"
                + (f" and {exchanges} exchanges" if exchanges is not None else "")
                + f" (player {turns % t.players}: turns go round the table, M3)")
        order = [hand_n[(cur + i) % t.players] for i in range(t.players)]
        if exchanges is None and (order != sorted(order, reverse=True) or max(order) - min(order) > 1):
            bad(f"hand sizes {hand_n} cannot arise with player {cur} to move "
                "(every player places one tile a turn, in seat order)")

    # 2. The checked values copied in, every index bounded by a length checked above.
    if st is None:
        st = game._blank()
    cdef MetroData* d = &st.d
    clear_state(d, t)
    for sq, code, tile in cells:
        d.cell[sq] = code
        if tile:
            d.placed |= (<uint64_t>1) << sq
            d.nplaced += 1
    for p in range(t.players):
        for k in hand_kinds[p]:
            hand_add(d, p, k)
    d.top = METRO_TILES - len(supply_kinds)
    for i, k in enumerate(supply_kinds):
        d.supply[d.top + i] = k
    d.drawn = drawn
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
    # 3. What the rules derive from the board, against the fields that repeat it.
    if "scores" in obj and obj["scores"] != st.scores():
        bad(f"scores {brief(obj['scores'])} do not match the board, which gives {st.scores()!r}")
    if "lines" in obj and obj["lines"] != st.lines():
        bad("the scored lines listed do not match the board")
    return st
