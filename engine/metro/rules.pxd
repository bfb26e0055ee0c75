# Metro (Dirk Henn's tile-laying game): flat C state, rule tables and the rules helpers.
# Rules: docs/rules/metro.md (M1-M10; the companies expansion M11-M14 extends it in companies.pxd). An expansion cimports what it needs from here, e.g.
#     from metro_ai.engine.metro.rules cimport MetroData, MetroTables, place_tile, legal_placements
# and extends the state (a subclass of MetroState) or wraps the helpers in its own rules.
from libc.stdint cimport uint64_t
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.rng cimport rng_t

cdef enum:
    METRO_KINDS = 24
    METRO_SQUARES = 64
    METRO_TILES = 60
    METRO_MAX_PLAYERS = 6
    METRO_MAX_HAND = 3
    METRO_MAX_LINES = 40       # 32 edge stations + 8 central-station pieces (C2)
    METRO_TRACK_KINDS = 32     # 24 tile kinds + 8 central-track pieces (C3: kinds 24..31)
    METRO_DRAW = 6144          # action: draw the top supply tile (M4)
    METRO_CENTRAL_ACTION = 6209  # first central-station action (C2): 6209 + 8 * share + space
    METRO_EMPTY = 255          # cell value of an empty square
    METRO_OFF_BOARD = -1       # next_square: leaving the board (an arrival station)
    METRO_CENTRE = -2          # next_square: entering the central station

cdef enum MetroPhase:
    PHASE_TURN = 0             # place a hand tile or draw
    PHASE_PLACE_DRAWN = 1      # place the tile just drawn
    PHASE_OVER = 2

cdef struct MetroTables:                   # per game configuration, shared by all its states
    signed char exits[32][4][8]            # exits[kind][rot][port]; kinds 24..31: central tracks (C3)
    signed char nrot[24]                   # rotations listed for a kind (1 with orientation on)
    signed char rots[24][4]                # the listed rotations, ascending (one per layout)
    uint64_t viol[24][4]                   # squares where (kind, rot) breaks the one-tile rule (M6)
    uint64_t uturn[24][4]                  # squares facing a central space where (kind, rot) turns the
                                           # space's departure back into it (M6 for C2 pieces)
    signed char count[24]                  # tiles of each kind
    signed char line_station[40]           # line id -> station number (owned stations only)
    signed char line_owner[40]             # line id -> player (with companies, M11: the company);
                                           # ids nlines.. are the central-station pieces (C2)
    signed char line_square[40]            # the station's square
    signed char line_port[40]              # the station's departure port
    signed char arrival[64][8]             # odd boundary port -> station number, else 0
    int players
    int hand_size
    int nlines
    int companies                          # 1: the companies expansion (M11-M14)
    int exchange_limit                     # exchanges each player may make (companies, M17); with
                                           # exchange_limit=None the turn limit, which no player's
                                           # exchanges reach before the game ends (M20)
    int ncentral                           # central-station pieces (C2): players, 8 with companies, or 0
    int centre_tracks                      # 1: central tracks cover the centre (C3)
    int turn_limit                         # turns after which the game ends (M20), 0: none

cdef struct MetroData:                     # the whole state, hidden parts included
    unsigned char cell[64]                 # METRO_EMPTY or kind * 4 + rot
    uint64_t placed                        # bitmask of occupied squares
    signed char hand[6][3]                 # sorted kinds; -1 past hand_n
    signed char hand_n[6]
    signed char supply[60]                 # supply[top:] is the face-down supply, front first
    signed char top                        # tiles drawn so far (dealt ones included)
    signed char drawn                      # kind drawn this turn, or -1
    signed char current                    # player to move, -1 once over
    signed char phase                      # MetroPhase
    signed char nplaced
    int score[8]                           # per player; with companies per company (profits, M14)
    signed char line_sq[40]                # open line: square its frontier waits on; -1 closed or
                                           # (a central piece, C2) not placed yet
    signed char line_port[40]              # open line: port it enters that square at
    short line_len[40]                     # tile passes so far (a tile passed twice counts twice)
    signed char line_arr[40]               # closed line: arrival station (33..40: a central-station
                                           # piece, C2), 0 = centre (doubled); -1 open
    uint64_t waiting[64]                   # bitmask of open lines waiting on each empty square
    uint64_t central                       # squares whose facing central space holds a piece (C2)
    uint64_t reached                       # squares whose facing central space a line reached (C2)


cdef struct CentralData:                  # the central-station pieces (C2): the state's central part
    signed char piece_space[8]             # piece (player; with companies: company) -> its space, -1 in reserve
    signed char space_piece[8]             # space -> the piece on it, -1 none
    unsigned char shown[6]                 # with companies: pct indices (bitmask) of the shares each player showed

# Reason codes of the central part's checks (C2, C15, C16, C18).
cdef enum:
    R_CE_PHASE = 30
    R_CE_PIECE = 31
    R_CE_SPACE = 32
    R_CE_RANGE = 33
    R_CE_SHARE = 34
    R_CE_SHOWN = 35


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
    cdef _build_tables(self)
    cdef MetroState _blank(self)


cdef class MetroState(GameState):
    # The base game's part, then the optional parts, each switched on by a table flag:
    # `cd` (central stations, C2) with t.ncentral > 0. The companies part is CompaniesState's.
    cdef MetroData d
    cdef const MetroTables* t
    cdef CentralData cd


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
