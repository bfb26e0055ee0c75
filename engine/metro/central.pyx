# cython: language_level=3
"""Metro: City Edition modules 2 and 3 (rules C2, C3; decisions C12-C18 of ``docs/rules/metro.md``).

Module 2, central stations (``central_stations=True``): state subclasses of the base game's
``MetroState`` (``CentralState``) and of the companies' ``CompaniesState``
(``CentralCompaniesState``). The board's geometry for them lives in ``rules.pyx``: the 8 spaces
round the centre (space j, clockwise from the top-left, faces square D3 E3 F4 F5 E6 D6 C5 C4;
the facing square's even port towards the centre is the departure, the odd one the arrival, C12);
``MetroData.central`` marks the squares whose space holds a piece (a line arriving there ends at
that station and scores single, C15), ``MetroData.reached`` those whose space a line reached
while free (doubled, M7; the space is then used and takes no piece, C15). Piece j's line is line
``nlines + j`` (owner: player j; with companies, company j).

* Actions (C16): ``6209 + 8 * share + space``; without companies ``share`` is 0 (the mover's own
  piece). Text: "central station at D3" / "central station at D3 showing 20% (company 3)".
* A piece goes down instead of a tile, as the whole turn (not after drawing, M4), on a space with
  no piece that no line has reached (C15); its line is traced at once and scores the moment it
  reaches an arrival (M7), even at once (C17). M6 guards its line like a station's (C14).
* With companies (C18): the player shows one share they hold of the company, not shown before;
  it stays held and scores as before, is public from then on and can no longer be exchanged.

Module 3, central tracks (``central_tracks=True``, no subclass): ``new_state`` deals as the base
game (or the companies) and then lays 4 of the 8 pieces (C3, C13): a splitmix64 stream seeded
with ``seed ^ 0x43454E5452414C33`` shuffles pieces 0..7 (Fisher-Yates from the end); the first
four go on D4, E4, D5, E5 in that order, each then turned ``bounded(4)`` quarter turns, in the
same order. They are cells of kind 24 + piece ("CT1".."CT8").
"""
import re

from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport GameState
from metro_ai.engine.rng cimport rng_t, rng_shuffle, rng_bounded
from metro_ai.engine.metro.rules cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_DRAW, METRO_KINDS, METRO_CENTRAL_ACTION, PHASE_TURN,
    PHASE_OVER, deal_tiles, pass_turn, advance_line, central_square, central_port)
from metro_ai.engine.metro.companies cimport CompaniesState, CO_EXCHANGE, CO_PCTS
from metro_ai.engine.core import as_seed
from metro_ai.engine.errors import StateFormatError

from .rules import _load_state, square_name, CENTRAL_SPACE_SQUARES, CENTRAL_STATION_BASE
from . import companies as _companies
from .loader import brief, int_in as _int_in

cdef uint64_t TRACKS_SALT = 0x43454E5452414C33ULL
cdef int CENTRE[4]
CENTRE[:] = [27, 28, 35, 36]

cdef enum:
    R_CE_PHASE = 30
    R_CE_PIECE = 31
    R_CE_SPACE = 32
    R_CE_RANGE = 33
    R_CE_SHARE = 34
    R_CE_SHOWN = 35

_REASONS = {
    R_CE_PHASE: "a tile was drawn this turn and must be placed; a central station is a whole turn instead (C2)",
    R_CE_PIECE: "that central-station piece is already on the board (C2)",
    R_CE_SPACE: "that central space holds a piece or a line has already reached it (C15)",
    R_CE_RANGE: "not a central-station action (6209 + 8 * share + space; share 0 without companies, C16)",
    R_CE_SHARE: "the player does not hold that share, or has shown it already (C18)",
    R_CE_SHOWN: "that share was shown for a central station and can no longer be exchanged (C2, C18)",
}
_CE_RE = re.compile(r"^\s*central\s+station\s+at\s+([a-h][1-8])(?:\s+showing\s+(10|20|30|40)\s*%\s*\(\s*company\s+([0-7])\s*\))?\s*$",
                    re.I)


def space_name(int space):
    """Text of a central space: the square it faces (space 0 faces D3, clockwise)."""
    return square_name(CENTRAL_SPACE_SQUARES[space])


def central_to_string(MetroGame game, action):
    """Text of a central-station action (C16); ValueError for anything else."""
    hi = METRO_CENTRAL_ACTION + (256 if game.companies else 8)
    if isinstance(action, bool) or not isinstance(action, int) or not METRO_CENTRAL_ACTION <= action < hi:
        raise ValueError(f"not a Metro central-station action: {action!r} ({METRO_CENTRAL_ACTION}..{hi - 1})")
    share, space = (action - METRO_CENTRAL_ACTION) >> 3, (action - METRO_CENTRAL_ACTION) & 7
    text = f"central station at {space_name(space)}"
    return text + (f" showing {_companies.share_name(share)}" if game.companies else "")


def string_to_central(MetroGame game, text):
    """The central-station action written as `text` (see ``central_to_string``)."""
    m = _CE_RE.match(text)
    if not m or bool(m.group(2)) != bool(game.companies):
        raise ValueError(f"cannot read Metro action {text!r}: expected 'central station at D3'"
                         + (" showing 20% (company 3)'" if game.companies else "'"))
    sq = (int(m.group(1)[1]) - 1) * 8 + "abcdefgh".index(m.group(1)[0].lower())
    if sq not in CENTRAL_SPACE_SQUARES:
        raise ValueError(f"{m.group(1)} faces no central space; they face {', '.join(map(square_name, CENTRAL_SPACE_SQUARES))}")
    share = 4 * int(m.group(3)) + (10, 20, 30, 40).index(int(m.group(2))) if m.group(2) else 0
    return METRO_CENTRAL_ACTION + 8 * share + CENTRAL_SPACE_SQUARES.index(sq)


# ---- shared C helpers (both state classes) ----

cdef void clear_central(CentralData* cd) noexcept nogil:
    cdef int i
    for i in range(8):
        cd.piece_space[i] = -1
        cd.space_piece[i] = -1
    for i in range(6):
        cd.shown[i] = 0


cdef bint space_free(const MetroData* d, const CentralData* cd, int space) noexcept nogil:
    """No piece on it and no line has reached it (C15)."""
    return cd.space_piece[space] < 0 and not (d.reached >> central_square(space)) & 1


cdef void place_piece(MetroData* d, const MetroTables* t, CentralData* cd, int piece, int space) noexcept nogil:
    """Put `piece` on `space` and start its line (C2): traced at once (C17)."""
    cdef int sq = central_square(space), l = t.nlines + piece
    cd.piece_space[piece] = space
    cd.space_piece[space] = piece
    d.central |= (<uint64_t>1) << sq
    d.line_sq[l] = sq
    d.line_port[l] = central_port(space)
    d.line_len[l] = 0
    d.line_arr[l] = -1
    advance_line(d, t, l)


cdef int check_space(const MetroData* d, const CentralData* cd, int action, int maxshare) noexcept nogil:
    if d.phase == PHASE_OVER:
        return 1
    if action >= METRO_CENTRAL_ACTION + 8 * maxshare:
        return R_CE_RANGE
    if d.phase != PHASE_TURN:
        return R_CE_PHASE
    if not space_free(d, cd, (action - METRO_CENTRAL_ACTION) & 7):
        return R_CE_SPACE
    return 0


def new_state(MetroGame game, seed):
    """A new game with central stations (C2) or central tracks (C3) dealt from `seed`."""
    cdef rng_t rng = as_seed(seed)
    cdef MetroState st
    cdef CentralState cs
    cdef CentralCompaniesState ccs
    if game.central_stations and game.companies:
        ccs = CentralCompaniesState.__new__(CentralCompaniesState)
        ccs.game = game
        ccs.t = &game.tables
        clear_central(&ccs.cd)
        return _companies.new_state(game, seed, ccs)
    if game.central_stations:
        cs = CentralState.__new__(CentralState)
        cs.game = game
        cs.t = &game.tables
        clear_central(&cs.cd)
        deal_tiles(&cs.d, cs.t, &rng)
        return cs
    # central tracks (C3, C13): the deal as without them, then the 4 pieces from a salted stream
    st = _companies.new_state(game, seed) if game.companies else _base_state(game, seed)
    lay_central_tracks(st, seed)
    return st


def lay_central_tracks(MetroState st, seed):
    """Lay 4 of the 8 central-track pieces on the centre of `st` (C3, C13), from the stream
    ``seed ^ TRACKS_SALT`` (the cities use it too, C35)."""
    cdef rng_t rng = as_seed(seed) ^ TRACKS_SALT
    cdef int i, j
    cdef signed char pieces[8]
    for i in range(8):
        pieces[i] = i
    rng_shuffle(&rng, pieces, 8)
    for i in range(4):
        st.d.cell[CENTRE[i]] = <unsigned char>((METRO_KINDS + pieces[i]) * 4)
    for i in range(4):
        j = rng_bounded(&rng, 4)
        st.d.cell[CENTRE[i]] += j


def _base_state(MetroGame game, seed):
    cdef rng_t rng = as_seed(seed)
    cdef MetroState st = MetroState.__new__(MetroState)
    st.game = game
    st.t = &game.tables
    deal_tiles(&st.d, st.t, &rng)
    return st


cdef list _central_lines(int nlines, list pieces, const MetroData* d):
    out = []
    for piece in range(len(pieces)):
        space = pieces[piece]
        l = nlines + piece
        if space >= 0 and d.line_arr[l] >= 0:
            doubled = d.line_arr[l] == 0
            out.append({"station": CENTRAL_STATION_BASE + space, "owner": piece, "tiles": d.line_len[l],
                        "arrival": d.line_arr[l], "central": doubled,
                        "points": d.line_len[l] * (2 if doubled else 1)})
    return out


cdef class CentralState(MetroState):
    """A base-game position with central stations (C2): each player holds one piece."""

    cdef int c_max_actions(self) noexcept nogil:
        return MetroState.c_max_actions(self) + 8

    cdef int c_num_actions(self) noexcept nogil:
        return METRO_CENTRAL_ACTION + 8

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int n = MetroState.c_legal_actions(self, out), j, p = self.d.current
        if self.d.phase == PHASE_TURN and self.cd.piece_space[p] < 0:
            for j in range(8):
                if space_free(&self.d, &self.cd, j):
                    out[n] = METRO_CENTRAL_ACTION + j
                    n += 1
        return n

    cdef int c_check(self, int action) noexcept nogil:
        cdef int code
        if action < METRO_CENTRAL_ACTION:
            return MetroState.c_check(self, action)
        code = check_space(&self.d, &self.cd, action, 1)
        if code == 0 and self.cd.piece_space[self.d.current] >= 0:
            return R_CE_PIECE
        return code

    cdef void c_apply(self, int action) noexcept nogil:
        cdef int p = self.d.current
        if action < METRO_CENTRAL_ACTION:
            MetroState.c_apply(self, action)
            return
        place_piece(&self.d, self.t, &self.cd, p, (action - METRO_CENTRAL_ACTION) & 7)
        pass_turn(&self.d, self.t, p)

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<CentralState>other).d
        self.cd = (<CentralState>other).cd

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        MetroState.c_determinize_from(self, source, player, seed)      # the pieces are public
        self.cd = (<CentralState>source).cd

    cdef GameState c_new_blank(self):
        cdef CentralState st = CentralState.__new__(CentralState)
        st.game = self.game
        st.t = self.t
        clear_central(&st.cd)
        return st

    def _reason(self, int code):
        return _REASONS[code] if code in _REASONS else MetroState._reason(self, code)

    def central_pieces(self):
        """The piece on each central space (the player who placed it), or None (C2)."""
        return [None if self.cd.space_piece[j] < 0 else self.cd.space_piece[j] for j in range(8)]

    def lines(self):
        """The base game's scored lines, then the central pieces' (station 33 + space, C2)."""
        return MetroState.lines(self) + _central_lines(self.t.nlines,
                                                       [self.cd.piece_space[i] for i in range(self.t.ncentral)], &self.d)

    def _public(self):
        obj = MetroState._public(self)
        obj["central"] = {"spaces": self.central_pieces()}
        return obj

    def render(self, player=None):
        return MetroState.render(self, player) + "\n" + _render_central(self.central_pieces(), "P")


cdef class CentralCompaniesState(CompaniesState):
    """A companies position with central stations (C2, C18): 8 company pieces by the board."""

    cdef int c_max_actions(self) noexcept nogil:
        return CompaniesState.c_max_actions(self) + 32

    cdef int c_num_actions(self) noexcept nogil:
        return METRO_CENTRAL_ACTION + 256

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int n = CompaniesState.c_legal_actions(self, out), m = 0, i, j, a, s, k, p = self.d.current
        cdef int held[4]
        for i in range(n):                 # shown shares cannot be exchanged (C18)
            a = out[i]
            if a >= CO_EXCHANGE and (self.cd.shown[p] >> (((a - CO_EXCHANGE) >> 1) & 3)) & 1:
                continue
            out[m] = a
            m += 1
        if self.d.phase != PHASE_TURN:
            return m
        for i in range(CO_PCTS):           # the shares held, ascending
            s = self.c.hold[p][i]
            j = i
            while j > 0 and held[j - 1] > s:
                held[j] = held[j - 1]
                j -= 1
            held[j] = s
        for i in range(CO_PCTS):
            s = held[i]
            k = s >> 2
            if (self.cd.shown[p] >> (s & 3)) & 1 or self.cd.piece_space[k] >= 0:
                continue
            for j in range(8):
                if space_free(&self.d, &self.cd, j):
                    out[m] = METRO_CENTRAL_ACTION + 8 * s + j
                    m += 1
        return m

    cdef int c_check(self, int action) noexcept nogil:
        cdef int code, s, p = self.d.current
        if action < METRO_CENTRAL_ACTION:
            code = CompaniesState.c_check(self, action)
            if code == 0 and action >= CO_EXCHANGE and (self.cd.shown[p] >> (((action - CO_EXCHANGE) >> 1) & 3)) & 1:
                return R_CE_SHOWN
            return code
        code = check_space(&self.d, &self.cd, action, 32)
        if code:
            return code
        s = (action - METRO_CENTRAL_ACTION) >> 3
        if self.c.hold[p][s & 3] != s or (self.cd.shown[p] >> (s & 3)) & 1:
            return R_CE_SHARE
        if self.cd.piece_space[s >> 2] >= 0:
            return R_CE_PIECE
        return 0

    cdef void c_apply(self, int action) noexcept nogil:
        cdef int p = self.d.current, s
        if action < METRO_CENTRAL_ACTION:
            CompaniesState.c_apply(self, action)
            return
        s = (action - METRO_CENTRAL_ACTION) >> 3
        self.cd.shown[p] |= <unsigned char>(1 << (s & 3))
        self.c.hold_known[p][s & 3] = <unsigned char>((1 << self.t.players) - 1)    # public now (C18)
        place_piece(&self.d, self.t, &self.cd, s >> 2, (action - METRO_CENTRAL_ACTION) & 7)
        pass_turn(&self.d, self.t, p)
        self.c_end_at_turn_limit()            # a piece is a turn (M20)

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        CompaniesState.c_copy_from(self, other)
        self.cd = (<CentralCompaniesState>other).cd

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        CompaniesState.c_determinize_from(self, source, player, seed)   # shown shares are known to all
        self.cd = (<CentralCompaniesState>source).cd

    cdef GameState c_new_blank(self):
        cdef CentralCompaniesState st = CentralCompaniesState.__new__(CentralCompaniesState)
        st.game = self.game
        st.t = self.t
        clear_central(&st.cd)
        return st

    def _reason(self, int code):
        return _REASONS[code] if code in _REASONS else CompaniesState._reason(self, code)

    def central_pieces(self):
        """The company whose piece is on each central space, or None (C2)."""
        return [None if self.cd.space_piece[j] < 0 else self.cd.space_piece[j] for j in range(8)]

    def shown(self, int player):
        """Pct indices (0..3 for 10%..40%) of the shares `player` has shown (C18), ascending."""
        self._check_player(player)
        return [i for i in range(CO_PCTS) if (self.cd.shown[player] >> i) & 1]

    def lines(self):
        return CompaniesState.lines(self) + _central_lines(self.t.nlines,
                                                           [self.cd.piece_space[i] for i in range(8)], &self.d)

    def _public(self):
        obj = CompaniesState._public(self)
        obj["central"] = {"spaces": self.central_pieces(),
                          "shown": [self.shown(p) for p in range(self.t.players)]}
        return obj

    def render(self, player=None):
        return CompaniesState.render(self, player) + "\n" + _render_central(self.central_pieces(), "C")


def _render_central(pieces, letter):
    return "central: " + "  ".join(f"{space_name(j)}={'-' if v is None else letter + str(v)}"
                                   for j, v in enumerate(pieces))




def load_state(MetroGame game, obj):
    """The central-stations state `obj` describes (C2): the pieces (and, with companies, the
    shown shares) are checked before anything else is read, then the base game's or the
    companies' loader fills a new state with the pieces placed, then the shown shares are
    checked against the shares held and the pieces, and the scores and lines against the board."""
    def bad(msg):
        raise StateFormatError(f"metro state: {msg}")
    cdef const MetroTables* t = &game.tables
    cdef int n = t.players, j
    if "central" not in obj:
        bad("missing field 'central' (central stations, C2)")
    c = obj["central"]
    keys = {"spaces", "shown"} if game.companies else {"spaces"}
    if not isinstance(c, dict) or set(c) != keys:
        bad(f"central must be an object with {' and '.join(repr(k) for k in sorted(keys))}")
    spaces = c["spaces"]
    if not isinstance(spaces, list) or len(spaces) != 8:
        bad("central.spaces must list the 8 central spaces (null or a piece)")
    who = "company 0..7" if game.companies else f"player 0..{n - 1}"
    seen = {}
    for j, v in enumerate(spaces):
        if v is None:
            continue
        if not _int_in(v, 0, t.ncentral - 1):
            bad(f"central.spaces[{j}]: a piece is a {who}, got {brief(v)} (C2)")
        if v in seen:
            bad(f"central.spaces[{j}]: piece {v} is also on space {seen[v]}: each piece is placed once (C2)")
        seen[v] = j
    pieces = [(v, j) for j, v in enumerate(spaces) if v is not None]
    if game.companies:
        shown = c["shown"]
        if not isinstance(shown, list) or len(shown) != n or any(
                not isinstance(s, list) or any(not _int_in(i, 0, 3) for i in s) or s != sorted(set(s)) for s in shown):
            bad(f"central.shown must be {n} ascending lists of distinct pct indices 0..3 (C18)")
    cdef CentralState cs
    cdef CentralCompaniesState ccs
    if not game.companies:
        cs = CentralState.__new__(CentralState)
        cs.game = game
        cs.t = t
        clear_central(&cs.cd)
        for v, j in pieces:
            cs.cd.piece_space[v] = j
            cs.cd.space_piece[j] = v
        _load_state(game, obj, cs, exchanges=len(pieces), central=pieces)
        for key, value in (("scores", cs.scores()), ("lines", cs.lines())):
            if key in obj and obj[key] != value:
                bad(f"{key} {brief(obj[key])} do not match the board and pieces, which give {brief(value)}")
        return cs
    ccs = CentralCompaniesState.__new__(CentralCompaniesState)
    ccs.game = game
    ccs.t = t
    clear_central(&ccs.cd)
    for v, j in pieces:
        ccs.cd.piece_space[v] = j
        ccs.cd.space_piece[j] = v
    for p in range(n):
        for i in shown[p]:
            ccs.cd.shown[p] |= 1 << i
    _companies.load_state(game, obj, ccs, central=pieces)
    held = obj["shares"]["held"]
    shown_companies = sorted(held[p][i] >> 2 for p in range(n) for i in shown[p])
    if shown_companies != sorted(v for v, _ in pieces):
        bad(f"central: the companies of the shown shares {shown_companies} must be those of the pieces placed "
            f"{sorted(v for v, _ in pieces)}: every piece is placed by showing one share of its company (C18)")
    for p in range(n):
        for i in shown[p]:
            if sorted(obj["known"]["held"][p][i]) != list(range(n)):
                bad(f"known.held[{p}][{i}]: a shown share is known to every player (C18)")
    return ccs
