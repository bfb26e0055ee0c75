# cython: language_level=3
"""Metro: City Edition cities (rules C5-C10; decisions C26-C35 of ``docs/rules/metro.md``):
``MetroGame(city="paris" | "stockholm" | "london" | "new_york" | "berlin")``. St. Petersburg
(C11) is refused by ``MetroGame`` itself: its rules are not available.

A state subclass of the base game's ``MetroState`` (``CityState``, New York with the companies
too: the base state's companies part, C35): the tiles, turn, lines and actions are the base game's (with ``central_tracks``, C3, the variants M9, M10, and the frames C1); a placement
then applies the city's rule. Only Paris adds actions: when a taken tourist has two places or
more to go, its player chooses (``6465 + landmark id``, ``6481 + square``, C28); meanwhile that
player is to move. The numbers (landmarks, points, VP pieces) come from ``data/cities.json``
(RECONSTRUCTED) or the user's file (option ``city_data``).

A module (``CitiesModule``, ``module.py``) whose state is a subclass: the cities change the turn
itself (after every placement the city's rule; Paris's choices move another player), which the
base state's flag-tested parts do not, so its ``blank_state`` hook makes a ``CityState``. The five
cities share one state layout, one set-up stream and the base game's placement hook; each city's
rule is a short function over that shared state. The loader that checks a city state's JSON is
``city_loader.pyx``.

* Set-up (C27): after the base game's deal, a splitmix64 stream seeded with
  ``seed ^ 0x4349544945533035`` deals the city. Paris, Stockholm, London: the 32 tourists (4 of
  each colour, listed by colour ascending) are shuffled (Fisher-Yates from the end) onto the 32
  inner squares in ascending order; New York: onto stations 1..32 (C9). Then Paris shuffles its
  12 landmark ids and deals them, 12 // players each, player 0 first (C28); Stockholm shuffles
  its landmark ids into the row, then the 8 colour markers, dealt 3/2/2/1/1 each by player count
  (C7, C29); London shuffles its landmark ids into the row (C30). Berlin (C32) shuffles the
  colours onto the 8 diagonal squares (ascending), draws each colour's side with ``bounded(2)``
  when sides are mixed, and shuffles each colour's pile; with tickets (C33) the first shuffle
  gives instead the colours of the tourists on the landmark pieces in their row beside the board
  (no landmark is on a square), then the 16 tourists: the list 0, 0, 1, 1, ..., 7, 7 shuffled,
  from ascending again until no four of it (the groups) repeats a colour, and group g on 4 of
  quarter g's 8 inner squares (A1-D4, E1-H4, A5-D8, E5-H8; a shuffle of them, ascending).
* Placing a tile on a square with tourists (C6-C8, C10) or a landmark (C10), or closing a line at
  a station (C9) or through tiles with tourists (C10): see ``c_apply`` and the decisions.
* Scores (C34): line points plus the city's public points during play; at the end the hidden
  points (Stockholm's markers, Berlin's VP pieces) are added.
* Hidden information (C34): Stockholm's markers and Berlin's VP pieces (and the piles' order).
  ``determinize(player, seed)`` redeals the tiles as the base game, then, from a stream seeded
  with ``seed ^ 0x4349545944455445``: the markers the player does not hold (colours ascending)
  to the other players, as many as each holds, in seat order; Berlin, per colour: the values of
  that colour's face-down pile and of the pieces the other players hold, ascending, shuffled and
  dealt to the other players' pieces in seat order, then to the pile.
"""
import re

from libc.string cimport memset
from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport GameState, listed_random_action
from metro_ai.engine.rng cimport rng_t, rng_shuffle, rng_bounded
from metro_ai.engine.metro.state cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_DRAW, METRO_EMPTY, PHASE_OVER, deal_tiles, next_square,
    entry_port, has_companies, has_centre_tracks)
from metro_ai.engine.core import as_seed

from .state import _load_state, square_name, CENTRE_SQUARES
from .module import MetroModule

cdef uint64_t CITY_SALT = 0x4349544945533035ULL
cdef uint64_t CITY_DET_SALT = 0x4349545944455445ULL

#: The cities, in the order of their codes (1..5).
CITIES = ("paris", "stockholm", "london", "new_york", "berlin")
#: The 32 inner squares (C5): the 60 tile squares less the 28 on the edge, ascending.
INNER_SQUARES = tuple(s for s in range(64) if 1 <= s // 8 <= 6 and 1 <= s % 8 <= 6 and s not in CENTRE_SQUARES)
#: Berlin's landmark squares (C10): the 8 inner diagonal squares from the centre, ascending.
BERLIN_SQUARES = (9, 14, 18, 21, 42, 45, 49, 54)
#: The board's quarters, each a group of Berlin's ticket tourists (C33), by number 0-3.
QUARTER_NAMES = ("A1-D4", "E1-H4", "A5-D8", "E5-H8")


def quarter_of(sq):
    """The board's quarter holding square `sq` (C33: Berlin's ticket groups): 0 A1-D4, 1 E1-H4,
    2 A5-D8, 3 E5-H8."""
    return 2 * (sq // 32) + (sq % 8) // 4


#: Stockholm: the markers each player holds by player count (C7).
STOCKHOLM_MARKERS = {2: 3, 3: 2, 4: 2, 5: 1, 6: 1}
cdef enum:
    C_TAXI_REACH = 4            # London: the farthest the taxi goes (C8)
TAXI_REACH = C_TAXI_REACH
SIDES = ("A", "B")

#: Paris's choice actions (C28): 6465 + landmark id, 6481 + square; the action space's end.
CHOICE_LANDMARK, CHOICE_SQUARE, CHOICE_END = CITY_CHOICE_LANDMARK, CITY_CHOICE_SQUARE, CITY_CHOICE_END
_CHOICE_RE = re.compile(r"^\s*tourist\s+to\s+(?:landmark\s+(\d{1,2})|([a-h])([1-8]))\s*$", re.I)


def choice_to_string(MetroGame game, action):
    """Text of a Paris choice (C28): "tourist to landmark 3", "tourist to B2"; ValueError else."""
    n = len(game.city_rules.data["landmarks"])
    if isinstance(action, bool) or not isinstance(action, int) or not (
            CITY_CHOICE_LANDMARK <= action < CITY_CHOICE_LANDMARK + n or CITY_CHOICE_SQUARE <= action < CITY_CHOICE_END):
        raise ValueError(f"not a Metro action: {action!r} (Paris choices are {CITY_CHOICE_LANDMARK} + landmark "
                         f"0..{n - 1} and {CITY_CHOICE_SQUARE} + square)")
    if action < CITY_CHOICE_SQUARE:
        return f"tourist to landmark {action - CITY_CHOICE_LANDMARK}"
    return f"tourist to {square_name(action - CITY_CHOICE_SQUARE)}"


def string_to_choice(MetroGame game, text):
    """The Paris choice written as `text` (see ``choice_to_string``)."""
    m = _CHOICE_RE.match(text)
    if not m:
        raise ValueError(f"cannot read Metro action {text!r}: expected 'tourist to landmark 3' or 'tourist to B2'")
    if m.group(1) is not None:
        action = CITY_CHOICE_LANDMARK + int(m.group(1))
    else:
        action = CITY_CHOICE_SQUARE + (int(m.group(3)) - 1) * 8 + "abcdefgh".index(m.group(2).lower())
    try:
        choice_to_string(game, action)
    except ValueError:
        raise ValueError(f"cannot read Metro action {text!r}: there is no landmark {m.group(1)}") from None
    return action


cdef int INNER[32]
cdef int BERLIN_SQ[8]
cdef int MARKERS_EACH[7]            # STOCKHOLM_MARKERS, by player count
for _i, _s in STOCKHOLM_MARKERS.items():
    MARKERS_EACH[_i] = _s
cdef signed char QUARTER[4][8]      # Berlin's ticket groups (C33): quarter g's 8 inner squares, ascending
for _i in range(32):
    INNER[_i] = INNER_SQUARES[_i]
for _i in range(8):
    BERLIN_SQ[_i] = BERLIN_SQUARES[_i]
for _i in range(4):
    for _j, _s in enumerate(s for s in INNER_SQUARES if quarter_of(s) == _i):
        QUARTER[_i][_j] = _s
cdef int DROW[4]
cdef int DCOL[4]
DROW[:] = [-1, 0, 1, 0]
DCOL[:] = [0, 1, 0, -1]


cdef class CityRules:
    """One game's city tables (``CityTables``), made from the checked data (``city_data.py``)."""

    def __init__(self, str city, dict data, str side="A", bint tickets=False):
        cdef CityTables* ct = &self.ct
        cdef int i, j
        memset(ct, 0, sizeof(CityTables))
        ct.city = CITIES.index(city) + 1
        self.data = data[city]
        self.colours = tuple(data["colours"])
        d = self.data
        # The fixed arrays' sizes, checked before the copy (city_data.py checks the file the same way).
        lms = d.get("landmarks", ())
        if len(lms) > CITY_MAX_LANDMARKS or any(
                (len(lm["spaces"]) if isinstance(lm.get("spaces"), list) else lm.get("spaces", 1)) > CITY_MAX_SPACES
                for lm in lms) or len(d.get("colour_bonus", ())) not in (0, 9) or any(
                len(v) > CITY_MAX_PIECES for v in d.get("vp_pieces", {}).values()):
            raise ValueError(f"city data for {city}: more landmarks, spaces or pieces than the tables hold")
        if city == "paris":
            ct.tourist_points = d["tourist_points"]
            lms = d["landmarks"]
            for i, lm in enumerate(lms):
                ct.lm_spaces[i] = len(lm["spaces"])
                for j, c in enumerate(lm["spaces"]):
                    ct.lm_colour[i][j] = c
                ct.lm_points[i] = lm["bonus"]
        elif city == "stockholm":
            lms = d["landmarks"]
            for i, lm in enumerate(lms):
                ct.lm_spaces[i] = lm["spaces"]
                ct.lm_points[i] = lm["points"]
        elif city == "london":
            lms = d["landmarks"]
            for i, lm in enumerate(lms):
                ct.lm_spaces[i] = 1
                ct.lm_colour[i][0] = lm["colour"]
        elif city == "new_york":
            lms = ()
            ct.tourist_points = d["tourist_points"]
            for i in range(9):
                ct.set_bonus[i] = d["colour_bonus"][i]
        else:
            lms = ()
            ct.tourist_points = d["ticket_points"]
            for i in range(9):
                ct.set_bonus[i] = d["colour_bonus"][i]
            ct.npieces = len(d["vp_pieces"]["A"])
            for i in range(2):
                for j in range(ct.npieces):
                    ct.side_values[i][j] = d["vp_pieces"][SIDES[i]][j]
            ct.side_mode = ("A", "B", "mixed").index(side)
            ct.tickets = tickets
        ct.nlm = len(lms)

    cdef const CityTables* ct_ptr(self):
        return &self.ct


# ---- the city rules (C level) ----

cdef void clear_city(CityData* cd) noexcept nogil:
    memset(cd, 0, sizeof(CityData))
    memset(cd.station_tourist, -1, sizeof(cd.station_tourist))
    memset(cd.lm_owner, -1, sizeof(cd.lm_owner))
    memset(cd.row, -1, sizeof(cd.row))
    memset(cd.fill, -1, sizeof(cd.fill))
    memset(cd.marker, -1, sizeof(cd.marker))
    memset(cd.landmark, -1, sizeof(cd.landmark))
    memset(cd.carried, -1, sizeof(cd.carried))
    memset(cd.pile, -1, sizeof(cd.pile))
    memset(cd.vp, -1, sizeof(cd.vp))
    cd.taxi = -1
    cd.pend_player = -1
    cd.pend_square = -1


cdef void deal_city(CityData* cd, const CityTables* ct, int players, rng_t* rng) noexcept nogil:
    """The city's set-up (C27-C33), from `rng` (see the module docstring for the order)."""
    cdef signed char a[32]
    cdef signed char b[16]
    cdef int i, j, k, c
    clear_city(cd)
    if ct.city != CITY_BERLIN:
        for i in range(32):
            a[i] = i // 4
        rng_shuffle(rng, a, 32)
        for i in range(32):
            if ct.city == CITY_NEW_YORK:
                cd.station_tourist[i + 1] = a[i]
            else:
                cd.tour[INNER[i]][a[i]] += 1
    if ct.city == CITY_PARIS or ct.city == CITY_STOCKHOLM or ct.city == CITY_LONDON:
        for i in range(ct.nlm):
            b[i] = i
        rng_shuffle(rng, b, ct.nlm)
        k = ct.nlm // players if ct.city == CITY_PARIS else ct.nlm
        for i in range(players * k if ct.city == CITY_PARIS else ct.nlm):
            cd.row[i] = b[i]
            if ct.city == CITY_PARIS:
                cd.lm_owner[b[i]] = i // k
    if ct.city == CITY_STOCKHOLM:
        for i in range(8):
            b[i] = i
        rng_shuffle(rng, b, 8)
        k = MARKERS_EACH[players]
        for i in range(players * k):
            cd.marker[b[i]] = i // k
    if ct.city == CITY_BERLIN:
        for i in range(8):
            b[i] = i
        rng_shuffle(rng, b, 8)
        for i in range(8):
            if ct.tickets:                  # the row beside the board: its pieces' tourists (C33)
                cd.row[i] = b[i]
            else:
                cd.landmark[BERLIN_SQ[i]] = b[i]
        for c in range(8):
            cd.side[c] = <signed char>(rng_bounded(rng, 2) if ct.side_mode == 2 else ct.side_mode)
        for c in range(8):
            for j in range(ct.npieces):
                cd.pile[c][j] = ct.side_values[cd.side[c]][j]
            rng_shuffle(rng, &cd.pile[c][0], ct.npieces)
            cd.pile_n[c] = ct.npieces
        if ct.tickets:
            _deal_tickets(cd, rng)


cdef void _deal_tickets(CityData* cd, rng_t* rng) noexcept nogil:
    """Berlin's ticket tourists (C33): the 16 colours 0, 0, 1, 1, ..., 7, 7 shuffled until no
    four (group) repeats a colour, each try from the ascending list (uniform among the valid
    groupings); group g on the first 4 of quarter g's 8 inner squares, shuffled."""
    cdef signed char a[16]
    cdef signed char sq[8]
    cdef int i, j, g, ok = 0
    while not ok:
        for i in range(16):
            a[i] = <signed char>(i // 2)
        rng_shuffle(rng, a, 16)
        ok = 1
        for g in range(4):
            for i in range(4 * g, 4 * g + 4):
                for j in range(i + 1, 4 * g + 4):
                    if a[i] == a[j]:
                        ok = 0
    for g in range(4):
        for j in range(8):
            sq[j] = QUARTER[g][j]
        rng_shuffle(rng, sq, 8)
        for j in range(4):
            cd.tour[sq[j]][a[4 * g + j]] += 1


cdef int set_points(const CityTables* ct, const unsigned char* held) noexcept nogil:
    """New York's board, Berlin's tickets (C31, C33): points per piece, plus the bonus for the
    number of distinct colours."""
    cdef int c, n = 0, k = 0
    for c in range(8):
        n += held[c]
        k += held[c] > 0
    return n * ct.tourist_points + ct.set_bonus[k]


cdef int paris_options(const CityData* cd, const CityTables* ct, int* out) noexcept nogil:
    """Where the pending tourist (the lowest pending colour) may go (C6, C28), as choice actions,
    ascending: the mover's landmarks with a free space of its colour; else the adjacent squares
    (sharing an edge) with tourists; else every square with tourists; else none (it leaves)."""
    cdef int i, j, lm, n = 0, c = 0, p = cd.pend_player, r = cd.pend_square // 8, col = cd.pend_square % 8, s
    while c < 8 and cd.pend[c] == 0:
        c += 1
    for lm in range(ct.nlm):
        if cd.lm_owner[lm] == p:
            for j in range(ct.lm_spaces[lm]):
                if ct.lm_colour[lm][j] == c and cd.fill[lm][j] < 0:
                    out[n] = CITY_CHOICE_LANDMARK + lm
                    n += 1
                    break
    if n:
        return n
    for s in range(64):
        if has_tourist(cd, s) and abs(s // 8 - r) + abs(s % 8 - col) == 1:
            out[n] = CITY_CHOICE_SQUARE + s
            n += 1
    if n:
        return n
    for s in range(64):
        if has_tourist(cd, s):
            out[n] = CITY_CHOICE_SQUARE + s
            n += 1
    return n


cdef void paris_place(CityData* cd, const CityTables* ct, int action) noexcept nogil:
    """The pending tourist (lowest colour) goes where `action` says (a choice action) (C28)."""
    cdef int c = 0, j, lm, full, p = cd.pend_player
    while cd.pend[c] == 0:
        c += 1
    cd.pend[c] -= 1
    if action >= CITY_CHOICE_SQUARE:
        cd.tour[action - CITY_CHOICE_SQUARE][c] += 1
        return
    lm = action - CITY_CHOICE_LANDMARK
    for j in range(ct.lm_spaces[lm]):
        if ct.lm_colour[lm][j] == c and cd.fill[lm][j] < 0:
            cd.fill[lm][j] = c
            break
    cd.pts[p] += ct.tourist_points
    full = 1
    for j in range(ct.lm_spaces[lm]):
        full = full and cd.fill[lm][j] >= 0
    if full:
        cd.pts[p] += ct.lm_points[lm]


cdef void paris_resolve(CityData* cd, const CityTables* ct) noexcept nogil:
    """Place the pending tourists while each has one place at most (none: out of the game); stop
    at the first with a choice of two or more, which the player then makes (C6, C28)."""
    cdef int opts[80]
    cdef int n, c, left
    while True:
        left = 0
        for c in range(8):
            left += cd.pend[c]
        if left == 0:
            cd.pend_player = -1
            cd.pend_square = -1
            return
        n = paris_options(cd, ct, opts)
        if n >= 2:
            return
        if n == 1:
            paris_place(cd, ct, opts[0])
        else:
            c = 0
            while cd.pend[c] == 0:
                c += 1
            cd.pend[c] -= 1
            cd.removed += 1


cdef void collect(CityData* cd, const CityTables* ct, int p, int sq) noexcept nogil:
    """The tourists on square sq, taken by player p's tile (C6-C8), colours ascending."""
    cdef int c, i, j, k, lm, done
    cdef unsigned char taken[8]
    for c in range(8):                  # the square is emptied first: nothing goes back onto it
        taken[c] = cd.tour[sq][c]
        cd.tour[sq][c] = 0
    if ct.city == CITY_PARIS:                # each tourist in turn, the player choosing (C28)
        for c in range(8):
            cd.pend[c] = taken[c]
        cd.pend_player = p
        cd.pend_square = sq
        paris_resolve(cd, ct)
        return
    for c in range(8):
        for i in range(taken[c]):
            if ct.city == CITY_STOCKHOLM:            # the leftmost free space (C7), else aside
                done = 0
                for k in range(ct.nlm):
                    lm = cd.row[k]
                    for j in range(ct.lm_spaces[lm]):
                        if not done and cd.fill[lm][j] < 0:
                            cd.fill[lm][j] = c
                            done = 1
                if not done:
                    cd.removed += 1
            else:                                       # London: the taxi (C8, C30)
                for k in range(1, C_TAXI_REACH + 1):
                    if ct.lm_colour[cd.row[(cd.taxi + k) % ct.nlm]][0] == c:
                        cd.taxi = <signed char>((cd.taxi + k) % ct.nlm)
                        cd.pts[p] += k
                        break
                cd.removed += 1


cdef void line_closed(CityData* cd, const CityTables* ct, const MetroData* d, const MetroTables* t,
                      int l) noexcept nogil:
    """Line l has just reached an arrival: New York's tourist at that station (C9, C31); Berlin's
    pieces and tickets for each pass through a tile with a tourist (C10, C32, C33)."""
    cdef int owner = t.line_owner[l], arr = d.line_arr[l], sq, port, i, cell, q, nx, c
    if ct.city == CITY_NEW_YORK:
        if 1 <= arr <= 32 and cd.station_tourist[arr] >= 0:
            cd.pts[owner] -= set_points(ct, cd.held[owner])
            cd.held[owner][cd.station_tourist[arr]] += 1
            cd.pts[owner] += set_points(ct, cd.held[owner])
            cd.station_tourist[arr] = -1
        return
    sq = t.line_square[l]
    port = t.line_port[l]
    for i in range(d.line_len[l]):
        c = cd.carried[sq]
        if c >= 0 and (cd.carried_vp >> sq) & 1:
            if cd.pile_n[c] > 0:
                cd.pile_n[c] -= 1
                cd.vp[owner][c][cd.vp_n[owner][c]] = cd.pile[c][cd.pile_n[c]]
                cd.vp_n[owner][c] += 1
                cd.pile[c][cd.pile_n[c]] = -1
        elif c >= 0:
            cd.pts[owner] -= set_points(ct, cd.held[owner])
            cd.held[owner][c] += 1
            cd.pts[owner] += set_points(ct, cd.held[owner])
        cell = d.cell[sq]
        q = t.exits[cell >> 2][cell & 3][port]
        nx = next_square(sq, q)
        if nx == -2 and has_centre_tracks(t):            # C3: the centre's squares are tiles
            nx = sq + 8 * DROW[q >> 1] + DCOL[q >> 1]
        if nx < 0:
            return
        sq = nx
        port = entry_port(q)


cdef int hidden_points(const CityData* cd, const CityTables* ct, int p) noexcept nogil:
    """Points revealed at the end (C29, C32): Stockholm's markers, Berlin's VP pieces."""
    cdef int out = 0, i, j, lm, c
    if ct.city == CITY_STOCKHOLM:
        for i in range(ct.nlm):
            lm = cd.row[i]
            for j in range(ct.lm_spaces[lm]):
                if cd.fill[lm][j] >= 0 and cd.marker[cd.fill[lm][j]] == p:
                    out += ct.lm_points[lm]
    elif ct.city == CITY_BERLIN:
        for c in range(8):
            for j in range(cd.vp_n[p][c]):
                out += cd.vp[p][c][j]
    return out


def new_state(MetroGame game, seed):
    """A new city game dealt from `seed`: the base game's deal (with companies, theirs, M15; and
    central tracks, C3), then the city's from a salted stream (C27)."""
    cdef rng_t rng = as_seed(seed)
    cdef MetroState st = blank_state(game)
    if game.companies:
        from .companies import new_state as companies_state
        companies_state(game, seed, st)
    else:
        deal_tiles(&st.d, st.t, &rng)
    if game.central_tracks:
        from .central import lay_central_tracks
        lay_central_tracks(st, seed)
    rng = as_seed(seed) ^ CITY_SALT
    deal_city(_data_of(st), (<CityRules>game.city_rules).ct_ptr(), st.t.players, &rng)
    return st


cdef CityData* _data_of(MetroState st):
    return &(<CityState>st).city


def blank_state(MetroGame game):
    """An empty city state of `game` (with companies, C35, its companies part on: the tables'
    flag)."""
    cdef CityState st = CityState.__new__(CityState)
    st.game = game
    st.t = &game.tables
    st.rules = game.city_rules
    st.ct = (<CityRules>st.rules).ct_ptr()
    clear_city(&st.city)
    return st


cdef enum:
    R_CITY_CHOICE = 40
    R_CITY_NO_CHOICE = 41

_REASONS = {
    R_CITY_CHOICE: "a tourist taken in Paris is waiting: the player must choose where it goes, one of the "
                   "listed landmarks or squares (C6, C28)",
    R_CITY_NO_CHOICE: "no tourist is waiting to be placed (Paris choices are 6465 + landmark, 6481 + square, C28)",
}


cdef class CityState(MetroState):
    """A position of a City Edition city (C5-C10): the base game's, plus the city's pieces.
    While a Paris tourist waits for its player's choice (C28), that player is to move and the
    legal actions are the choices; the base game's turn (``phase``, the JSON's
    ``current_player``) is then the one that follows."""

    cdef int c_current_player(self) noexcept nogil:
        return self.city.pend_player if self.city.pend_player >= 0 else self.d.current

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.d.phase == PHASE_OVER and self.city.pend_player < 0

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        if self.city.pend_player >= 0:
            return paris_options(&self.city, self.ct, out)
        return MetroState.c_legal_actions(self, out)

    cdef int c_random_action(self, rng_t* rng, int* scratch) noexcept nogil:
        if self.city.pend_player >= 0:
            return listed_random_action(self, rng, scratch)
        return MetroState.c_random_action(self, rng, scratch)

    cdef int c_check(self, int action) noexcept nogil:
        cdef int opts[80]
        cdef int n, i
        if self.city.pend_player >= 0:
            n = paris_options(&self.city, self.ct, opts)
            for i in range(n):
                if opts[i] == action:
                    return 0
            return R_CITY_CHOICE
        if self.ct.city == CITY_PARIS and action >= CITY_CHOICE_LANDMARK and self.d.phase != PHASE_OVER:
            return R_CITY_NO_CHOICE
        return MetroState.c_check(self, action)

    cdef void c_apply(self, int action) noexcept nogil:
        cdef int p = self.d.current, sq, l, c
        cdef uint64_t was_open = 0
        cdef int before[8]
        if self.city.pend_player >= 0:
            paris_place(&self.city, self.ct, action)
            paris_resolve(&self.city, self.ct)
            return
        if action >= METRO_DRAW:
            MetroState.c_apply(self, action)
            return
        sq = (action >> 2) & 63
        if self.ct.city == CITY_BERLIN:              # the tourist goes onto the tile first (C32)
            if self.city.landmark[sq] >= 0:
                self.city.carried[sq] = self.city.landmark[sq]
                self.city.carried_vp |= (<uint64_t>1) << sq
                self.city.landmark[sq] = -1
            for c in range(8):                       # ticket variant (C33)
                if self.city.tour[sq][c]:
                    self.city.carried[sq] = c
                    self.city.tour[sq][c] = 0
        if self.ct.city == CITY_NEW_YORK or self.ct.city == CITY_BERLIN:
            for l in range(self.t.nlines):
                if self.d.line_arr[l] < 0:
                    was_open |= (<uint64_t>1) << l
        if has_companies(self.t):
            for c in range(8):
                before[c] = self.city.pts[c]
        MetroState.c_apply(self, action)
        if self.ct.city == CITY_NEW_YORK or self.ct.city == CITY_BERLIN:
            for l in range(self.t.nlines):
                if (was_open >> l) & 1 and self.d.line_arr[l] >= 0:
                    line_closed(&self.city, self.ct, &self.d, self.t, l)
        else:
            collect(&self.city, self.ct, p, sq)
        if has_companies(self.t):                # New York's boards are their companies' profit points (C35)
            for c in range(8):
                self.d.score[c] += self.city.pts[c] - before[c]

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int i
        if has_companies(self.t):                # the boards' points are in the profits (C35): the final scoring
            MetroState.c_scores(self, out)
            return
        for i in range(self.t.players):
            out[i] = self.d.score[i] + self.city.pts[i]
            if self.c_is_terminal():
                out[i] += hidden_points(&self.city, self.ct, i)

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        MetroState.c_copy_from(self, other)
        self.city = (<CityState>other).city

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        cdef CityData* cd = &self.city
        cdef rng_t rng = seed ^ CITY_DET_SALT
        cdef signed char pool[64]
        cdef int n, i, j, c, q, k, tmp
        cdef int count[6]
        MetroState.c_determinize_from(self, source, player, seed)
        self.city = (<CityState>source).city
        if self.c_is_terminal():                      # everything is shown at the end (C34)
            return
        if self.ct.city == CITY_STOCKHOLM:
            n = 0
            for q in range(self.t.players):
                count[q] = 0
            for c in range(8):
                if cd.marker[c] != player:
                    if cd.marker[c] >= 0:
                        count[cd.marker[c]] += 1
                    cd.marker[c] = -1
                    pool[n] = c
                    n += 1
            rng_shuffle(&rng, pool, n)
            n = 0
            for q in range(self.t.players):
                for i in range(count[q] if q != player else 0):
                    cd.marker[pool[n]] = q
                    n += 1
        elif self.ct.city == CITY_BERLIN:
            for c in range(8):
                n = 0
                for q in range(self.t.players):
                    if q != player:
                        for j in range(cd.vp_n[q][c]):
                            pool[n] = cd.vp[q][c][j]
                            n += 1
                for j in range(cd.pile_n[c]):
                    pool[n] = cd.pile[c][j]
                    n += 1
                for i in range(1, n):                 # ascending: depends on the values only
                    tmp = pool[i]
                    k = i
                    while k > 0 and pool[k - 1] > tmp:
                        pool[k] = pool[k - 1]
                        k -= 1
                    pool[k] = <signed char>tmp
                rng_shuffle(&rng, pool, n)
                n = 0
                for q in range(self.t.players):
                    if q != player:
                        for j in range(cd.vp_n[q][c]):
                            cd.vp[q][c][j] = pool[n]
                            n += 1
                for j in range(cd.pile_n[c]):
                    cd.pile[c][j] = pool[n]
                    n += 1

    cdef GameState c_new_blank(self):
        return blank_state(self.game)

    def _reason(self, int code):
        return _REASONS[code] if code in _REASONS else MetroState._reason(self, code)

    # ---- Python face ----
    @property
    def city(self):
        return CITIES[self.ct.city - 1]

    def tourists(self):
        """{square: [colours, ascending]} of the tourists waiting on the board (C5; Berlin: the
        ticket variant's, C33)."""
        return tourist_map(&self.city)

    def city_points(self):
        """The city's public points per player (C34): Paris's landmarks, London's taxi, New York's
        boards, Berlin's tickets. With companies per company (C35), included in its profit."""
        return [self.city.pts[p] for p in range(8 if has_companies(self.t) else self.t.players)]

    def hidden_points(self):
        """Points shown at the end only (Stockholm's markers, Berlin's VP pieces), per player."""
        return [hidden_points(&self.city, self.ct, p) for p in range(self.t.players)]

    def pending(self):
        """Paris (C28): None, or the tourists waiting for their player's choice: the player, the
        square they were taken from and their colours (the lowest is placed next)."""
        return pending_of(&self.city)

    def _city_hidden(self):
        """The hidden part (C34): Stockholm's markers (holder per colour, None: in the box);
        Berlin's VP pieces held (per player, per colour, in the order won) and piles (face down,
        the next drawn last)."""
        if self.ct.city == CITY_STOCKHOLM:
            return {"markers": [None if self.city.marker[c] < 0 else self.city.marker[c] for c in range(8)]}
        if self.ct.city == CITY_BERLIN:
            return {"vp": [[[self.city.vp[p][c][j] for j in range(self.city.vp_n[p][c])] for c in range(8)]
                           for p in range(self.t.players)],
                    "piles": [[self.city.pile[c][j] for j in range(self.city.pile_n[c])] for c in range(8)]}
        return {}

    def _public(self):
        obj = MetroState._public(self)
        obj["city"] = city_public(&self.city, self.ct, self.t.players, 8 if has_companies(self.t) else self.t.players)
        if self.c_is_terminal():                      # shown at the end (C34)
            obj["city"].update(self._city_hidden())
        return obj

    def observation(self, player):
        """The base game's observation and the city's public part; Stockholm: the player's own
        markers ("my_markers"); Berlin: their own VP pieces ("my_vp"). At the end, all (C34)."""
        obs = MetroState.observation(self, player)
        obs["current_player"] = self.c_current_player()     # the chooser while a Paris tourist waits (C28)
        if self.ct.city == CITY_STOCKHOLM:
            obs["city"]["my_markers"] = [c for c in range(8) if self.city.marker[c] == player]
        elif self.ct.city == CITY_BERLIN:
            obs["city"]["my_vp"] = [[self.city.vp[player][c][j] for j in range(self.city.vp_n[player][c])]
                                    for c in range(8)]
        return obs

    def _state_fields(self):
        obj = MetroState._state_fields(self)
        obj["city"].update(self._city_hidden())
        return obj

    def render(self, player=None):
        return MetroState.render(self, player) + "\n" + city_text(self._public()["city"], self.rules.colours)


cdef object tourist_map(const CityData* cd):
    return {sq: [c for c in range(8) for _ in range(cd.tour[sq][c])] for sq in range(64) if has_tourist(cd, sq)}


cdef object pending_of(const CityData* cd):
    if cd.pend_player < 0:
        return None
    return {"player": cd.pend_player, "square": square_name(cd.pend_square),
            "colours": [c for c in range(8) for _ in range(cd.pend[c])]}


cdef object landmark_of(const CityData* cd, const CityTables* ct, int lm):
    return {"id": lm, "filled": [None if cd.fill[lm][j] < 0 else cd.fill[lm][j] for j in range(ct.lm_spaces[lm])]}


cdef object city_public(const CityData* cd, const CityTables* ct, int n, int owners):
    """The public city part of a state's JSON (C34); `owners`: the boards and points (players, or
    with companies the 8 companies)."""
    out = {"name": CITIES[ct.city - 1], "points": [cd.pts[p] for p in range(owners)]}
    if ct.city != CITY_NEW_YORK:
        out["tourists"] = {square_name(sq): v for sq, v in tourist_map(cd).items()}
    if ct.city == CITY_PARIS:
        k = ct.nlm // n
        out["landmarks"] = [[landmark_of(cd, ct, cd.row[p * k + i]) for i in range(k)] for p in range(n)]
        out["out"] = cd.removed
        out["pending"] = pending_of(cd)
    elif ct.city == CITY_STOCKHOLM:
        out["row"] = [landmark_of(cd, ct, cd.row[i]) for i in range(ct.nlm)]
        out["set_aside"] = cd.removed
        out["marker_counts"] = [sum(cd.marker[c] == p for c in range(8)) for p in range(n)]
    elif ct.city == CITY_LONDON:
        out["row"] = [cd.row[i] for i in range(ct.nlm)]
        out["taxi"] = cd.taxi
        out["set_aside"] = cd.removed
    elif ct.city == CITY_NEW_YORK:
        out["stations"] = [None if cd.station_tourist[i] < 0 else cd.station_tourist[i] for i in range(1, 33)]
        out["boards"] = [[cd.held[p][c] for c in range(8)] for p in range(owners)]
    else:
        out["landmarks"] = {square_name(sq): cd.landmark[sq] for sq in BERLIN_SQUARES if cd.landmark[sq] >= 0}
        if ct.tickets:                # the landmark pieces' row beside the board: its tourists' colours (C33)
            out["row"] = [cd.row[i] for i in range(8)]
        out["carried"] = {square_name(sq): {"colour": cd.carried[sq],
                                            "from": "landmark" if (cd.carried_vp >> sq) & 1 else "tourist"}
                          for sq in range(64) if cd.carried[sq] >= 0}
        out["sides"] = [SIDES[cd.side[c]] for c in range(8)]
        out["pile_sizes"] = [cd.pile_n[c] for c in range(8)]
        out["vp_counts"] = [[cd.vp_n[p][c] for c in range(8)] for p in range(n)]
        out["tickets"] = [[cd.held[p][c] for c in range(8)] for p in range(n)]
    return out


def city_text(c, colours):
    """Text lines of a city's JSON part `c` for ``render`` (colour names from the data)."""
    rows = [f"city: {c['name']}   city points: " + "  ".join(f"{i}={v}" for i, v in enumerate(c["points"]))]
    if "tourists" in c:
        rows.append("tourists: " + " ".join(f"{sq}:{'+'.join(colours[x] for x in v)}" for sq, v in c["tourists"].items()))
    if c["name"] == "london":
        rows.append(f"row: {c['row']}   taxi: {'start' if c['taxi'] < 0 else c['taxi']}")
    elif c["name"] == "berlin":
        rows.append("landmarks: " + " ".join(f"{sq}:{colours[v]}" for sq, v in c["landmarks"].items()))
        if "row" in c:                # the ticket variant (C33)
            rows.append("landmark row (tourists): " + " ".join(colours[v] for v in c["row"]))
    elif c["name"] == "new_york":
        rows.append("stations: " + " ".join(f"{i + 1}:{colours[v]}" for i, v in enumerate(c["stations"]) if v is not None))
    return "\n".join(rows)



class CitiesModule(MetroModule):
    """The City Edition's cities (C5-C10, C26-C35): a state subclass (``CityState``), the city's
    deal after the base game's (or the companies', C35), Paris's choices as actions (C28)."""
    name = "cities"
    rules = "C5-C10, C26-C35"
    reasons = _REASONS

    def active(self, MetroGame game):
        return game.city is not None

    def new_state(self, MetroGame game, seed):
        return new_state(game, seed)

    def load_state(self, MetroGame game, obj):
        from .city_loader import load_state
        return load_state(game, obj)

    def blank_state(self, MetroGame game):
        return blank_state(game)

    def reference_game(self, MetroGame game):
        """The city game on ``reference_cities.py``."""
        from .reference_cities import RefCitiesGame
        return RefCitiesGame(game.city, city_data=game.city_data, berlin_sides=game.options["berlin_sides"],
                             berlin_tickets=game.options["berlin_tickets"], **game.reference_options())

    def owns_action(self, MetroGame game, action):
        """A Paris choice's id (C28)."""
        return game.city == "paris" and not isinstance(action, bool) and isinstance(action, int) \
            and action > METRO_DRAW

    def action_to_string(self, MetroGame game, action):
        return choice_to_string(game, action)

    def owns_text(self, MetroGame game, text):
        return game.city == "paris" and text.strip().lower().startswith("tourist")

    def string_to_action(self, MetroGame game, text):
        return string_to_choice(game, text)

    def action_bounds(self, MetroGame game):
        """The cities' choices (C26-C35): up to 64 more legal actions a position; Paris's choices
        (C28) end the action ids at ``CITY_CHOICE_END``."""
        return 64, CITY_CHOICE_END if game.city == "paris" else 0

    def game_length(self, MetroGame game):
        """Paris's choices (C28): each of 32 tiles on tourists, 32 at most."""
        return 32 * 32 if game.city == "paris" else 0


MODULE = CitiesModule()
