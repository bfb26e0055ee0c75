# Metro (Dirk Henn's tile-laying game): flat C state, rule tables and the rules helpers.
# Rules: docs/rules/metro.md (M1-M10; the modules M11-M20, C2-C35). The state's data and tables
# are state.pxd's, cimported here whole, so a module cimports what it needs from here, e.g.
#     from metro_ai.engine.metro.rules cimport MetroData, MetroTables, place_tile, legal_placements
# A module adds a part to MetroState (switched on by a table flag) or, with rules of its own
# over a part of its own (the cities, the solo game), a subclass of it.
from libc.stdint cimport uint64_t
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.rng cimport rng_t

from metro_ai.engine.metro.state cimport *

cdef class MetroGame(Game):
    cdef MetroTables tables
    cdef readonly bint orientation       # False: variant M9 (tiles may be rotated)
    cdef readonly int hand_size          # tiles held in hand (M10)
    cdef readonly object data            # metro_ai.engine.metro.data.MetroData
    cdef readonly tuple tile_ids         # "T01" .. "T24", kind index order
    cdef readonly dict owners            # player (with companies: company) -> tuple of station numbers
    cdef readonly bint companies         # the companies expansion (M11-M14)
    cdef readonly object company_chart   # None (the shipped, reconstructed chart) or a file path (M11)
    cdef readonly object exchange_limit  # exchanges each player may make (M17); None: no cap (M20)
    cdef readonly object turn_limit      # with exchange_limit=None: the turn limit (M20); else None
    cdef readonly tuple chart            # company -> tuple of its 4 station numbers (companies only)
    cdef readonly bint central_stations  # City Edition module 2 (C2)
    cdef readonly bint central_tracks    # City Edition module 3 (C3)
    cdef readonly object central_track_layouts   # None (shipped, reconstructed) or a file path (C13)
    cdef readonly tuple track_layouts    # the 8 central-track pieces' exits (C3 only)
    cdef readonly str edition            # "classic" or "city" (C1 setup frames)
    cdef readonly object city            # None or a City Edition city (C5-C10)
    cdef readonly object city_data       # None (the shipped, reconstructed numbers) or a file path (C26)
    cdef readonly object city_rules      # the city's tables (cities.CityRules), cities only
    cdef readonly tuple modules          # the active modules (rules.pyx MODULES), in dispatch order
    cdef object state_maker              # an active module's blank_state (a state class of its own), or None
    cdef _build_tables(self)
    cdef MetroState _blank(self)


cdef class MetroState(GameState):
    # The base game's part, then the optional parts, each switched on by a table flag:
    # `cd` (central stations, C2) with t.ncentral > 0; `co` (the companies' shares, M11-M18)
    # with t.companies.
    cdef MetroData d
    cdef const MetroTables* t
    cdef CentralData cd
    cdef CompanyData co


# ---- the rules helpers (C level, no GIL) ----
# Board geometry: the square entered by leaving `square` through `port` (or METRO_OFF_BOARD,
# METRO_CENTRE), and the port it is entered at.
cdef int next_square(int square, int port) noexcept nogil
cdef int entry_port(int port) noexcept nogil
# Squares a tile may go on (M5): empty, not central, on the edge or next to a tile.
cdef uint64_t candidate_squares(uint64_t placed) noexcept nogil
# Squares where (kind, rot) may go now: M5 candidates less M6 breaches (with M6's exception).
# `central`: MetroData.central (0 without C2), whose pieces M6 guards too.
cdef uint64_t allowed_squares(const MetroTables* t, uint64_t cand, int kind, int rot, uint64_t central) noexcept nogil
# Every legal placement of `kind` on `cand` into out (sorted by square then rotation); the count.
cdef int legal_placements(const MetroTables* t, uint64_t cand, int kind, int* out, uint64_t central) noexcept nogil
# Empty board, empty hands, every owned line open and waiting on its station's square.
cdef void clear_state(MetroData* d, const MetroTables* t) noexcept nogil
# A new deal from rng: supply shuffled, hands dealt round by round, player 0 to move.
cdef void deal_tiles(MetroData* d, const MetroTables* t, rng_t* rng) noexcept nogil
cdef signed char draw_tile(MetroData* d) noexcept nogil           # the front supply tile
cdef void hand_add(MetroData* d, int player, signed char kind) noexcept nogil      # kept sorted
cdef void hand_remove(MetroData* d, int player, signed char kind) noexcept nogil
# Follow open line l from its frontier until an empty square or an arrival; score it (M7).
cdef void advance_line(MetroData* d, const MetroTables* t, int l) noexcept nogil
# Put (kind, rot) on square and advance every line waiting there.
cdef void place_tile(MetroData* d, const MetroTables* t, int kind, int square, int rot) noexcept nogil
# After player p's turn: the next player (seat order) holding a tile, or the end (M8).
cdef void pass_turn(MetroData* d, const MetroTables* t, int p) noexcept nogil
# Recompute every line, the waiting lists and the scores from the board (and d.central) alone.
cdef void retrace_lines(MetroData* d, const MetroTables* t) noexcept nogil
# Every legal tile placement and the draw for the player to move (M4-M6), into out; the count.
cdef int tile_actions(const MetroData* d, const MetroTables* t, int* out) noexcept nogil
# The central part (C2): no piece placed; space free (no piece, no line reached it, C15); put a
# piece on a space and trace its line (C17); the free spaces as actions base + space.
cdef void clear_central(CentralData* cd) noexcept nogil
cdef bint space_free(const MetroData* d, const CentralData* cd, int space) noexcept nogil
cdef void place_piece(MetroData* d, const MetroTables* t, CentralData* cd, int piece, int space) noexcept nogil
cdef int check_space(const MetroData* d, const CentralData* cd, int action, int maxshare) noexcept nogil
# Geometry of the 8 central spaces (C2), clockwise from the top-left: the square facing space j,
# the departure (even) port of that square, space of a square (-1 if it faces none).
cdef int central_square(int space) noexcept nogil
cdef int central_port(int space) noexcept nogil
cdef int central_space(int square) noexcept nogil
