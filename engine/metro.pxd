# Metro (Dirk Henn's tile-laying game): flat C state and rule tables. Rules: shared/rules/metro.md.
from libc.stdint cimport uint64_t
from .core cimport GameState

cdef enum:
    METRO_KINDS = 24
    METRO_SQUARES = 64
    METRO_TILES = 60
    METRO_MAX_PLAYERS = 6
    METRO_MAX_HAND = 3
    METRO_MAX_LINES = 32
    METRO_DRAW = 6144          # action: draw the top supply tile (M4)
    METRO_EMPTY = 255          # cell value of an empty square

cdef enum MetroPhase:
    PHASE_TURN = 0             # place a hand tile or draw
    PHASE_PLACE_DRAWN = 1      # place the tile just drawn
    PHASE_OVER = 2

cdef struct MetroTables:                   # per game configuration, shared by all its states
    signed char exits[24][4][8]            # exits[kind][rot][port]
    signed char nrot[24]                   # rotations listed for a kind (1 with orientation on)
    signed char rots[24][4]                # the listed rotations, ascending (one per layout)
    uint64_t viol[24][4]                   # squares where (kind, rot) breaks the one-tile rule (M6)
    signed char count[24]                  # tiles of each kind
    signed char line_station[32]           # line id -> station number (owned stations only)
    signed char line_owner[32]             # line id -> player
    signed char line_square[32]            # the station's square
    signed char line_port[32]              # the station's departure port
    signed char arrival[64][8]             # odd boundary port -> station number, else 0
    int players
    int hand_size
    int nlines

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
    int score[6]
    signed char line_sq[32]                # open line: square its frontier waits on; -1 closed
    signed char line_port[32]              # open line: port it enters that square at
    short line_len[32]                     # tile passes so far (a tile passed twice counts twice)
    signed char line_arr[32]               # closed line: arrival station, 0 = centre; -1 open
    unsigned int waiting[64]               # bitmask of open lines waiting on each empty square

cdef class MetroState(GameState):
    cdef MetroData d
    cdef const MetroTables* t
