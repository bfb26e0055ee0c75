# Metro (Dirk Henn's tile-laying game): the C data and the C mechanics (rules.pyx), below the game
# and state (state.pxd/.pyx) and every module. Rules: docs/rules/metro.md (M1-M10; the modules
# M11-M20, C2-C35). The base game's part (MetroData), each optional part (CentralData, C2;
# CompanyData, M11-M18), the per-game tables whose flags switch the parts on (MetroTables), and
# the nogil rules helpers over them. state.pxd cimports all of it, so a module may cimport these
# names from state as well, e.g.
#     from metro_ai.engine.metro.state cimport MetroGame, MetroState, MetroData, place_tile
from libc.stdint cimport uint64_t
from metro_ai.engine.rng cimport rng_t, rng_bounded

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

# Reason codes of the base game's c_check (MetroState and the rules helpers, e.g. check_space).
cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_PHASE_DRAW = 3
    R_EMPTY_SUPPLY = 4
    R_NOT_DRAWN = 5
    R_NOT_IN_HAND = 6
    R_ROTATION = 7
    R_SQUARE = 8
    R_ONE_TILE = 9

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
    int companies                          # 1: the companies' shares part (MetroState.co, M11-M18); 0 in
                                           # metro-solo, which plays the companies' board without it
    int exchange_limit                     # exchanges each player may make (companies, M17); with
                                           # exchange_limit=None the turn limit, which no player's
                                           # exchanges reach before the game ends (M20)
    int ncentral                           # central-station pieces (C2): players, 8 with companies, or 0
    int centre_tracks                      # 1: central tracks cover the centre (C3)
    int turn_limit                         # turns after which the game ends (M20), 0: none
    int max_actions                        # the most legal actions a position has (c_max_actions) and
    int num_actions                        # the end of the action ids (c_num_actions): the base game's
                                           # and what each module's part adds (MetroModule.action_bounds)

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


cdef enum:
    CO_COMPANIES = 8
    CO_PCTS = 4                # 10%, 20%, 30%, 40%: pct index 0..3
    CO_SHARES = 32             # share id = 4 * company + pct index (M12)
    CO_PILE = 8                # shares of one percentage
    CO_EXCHANGE = 6145         # first exchange action: CO_EXCHANGE + 2 * share + src (M13)
    CO_CUTOFF = 25             # exchanges end once a company has this much profit (M13)

cdef struct CompanyData:                  # the companies' shares (M12-M18): the state's companies part
    signed char hold[6][4]              # hold[p][i]: the share of pct index i player p holds (M12)
    unsigned char hold_known[6][4]      # players (bitmask) who know which share that is (M18)
    signed char face_up[4]              # the face-up share of each pile
    signed char pile[4][8]              # face-down shares, top first; -1 past pile_n
    unsigned char pile_known[4][8]      # players (bitmask) who know each face-down share (M18)
    signed char pile_n[4]               # face-down shares in each pile (always 7 - players, M16)
    short exchanges[6]                  # exchanges each player has made (M17; up to the turn limit, M20)

# Reason codes of the companies part's checks (M13, M17).
cdef enum:
    R_EX_PHASE = 20
    R_EX_CLOSED = 21
    R_EX_LIMIT = 22
    R_EX_NOT_HELD = 23
    R_EX_RANGE = 24


# ---- one test per module's C part (issue #42): the state's C methods ask these, not the tables'
# fields; inline, so a test costs what the field's did. The modules' Python side: module.py.
cdef inline bint has_companies(const MetroTables* t) noexcept nogil:
    """The companies' shares part (MetroState.co, M11-M18)."""
    return t.companies != 0

cdef inline bint has_central(const MetroTables* t) noexcept nogil:
    """The central-station pieces part (MetroState.cd, C2)."""
    return t.ncentral != 0

cdef inline bint has_centre_tracks(const MetroTables* t) noexcept nogil:
    """The central tracks on the centre's squares (C3): a table flag, no part."""
    return t.centre_tracks != 0


# ---- the companies part's rules (rules.pyx; MetroState calls them where has_companies) ----
# With MetroData.score[0..7] as the eight companies' profits (M14):
cdef bint co_exchanges_open(const MetroData* d) noexcept nogil      # no company has reached 25 (M13)
# Turns taken (M13, C2): tiles placed, exchanges made, central-station pieces placed.
cdef int co_turns(const MetroData* d, const MetroTables* t, const CompanyData* c) noexcept nogil
# M20: once a turn ends with t.turn_limit turns taken, the game is over there.
cdef void co_end_at_turn_limit(MetroData* d, const MetroTables* t, const CompanyData* c) noexcept nogil
# The mover's exchanges and (with central stations) the pieces they may place by showing a share,
# sorted, into out; `free`: the central spaces (bitmask) that may take a piece (C15). The count.
cdef int co_actions(const MetroData* d, const MetroTables* t, const CompanyData* c, const CentralData* cd,
                    unsigned int free, int* out) noexcept nogil
cdef int co_check_exchange(const MetroData* d, const MetroTables* t, const CompanyData* c, const CentralData* cd,
                           int action) noexcept nogil
# A central-station action whose space is free (C18): the share shown, its company's piece.
cdef int co_check_piece(const MetroData* d, const CompanyData* c, const CentralData* cd, int action) noexcept nogil
# Show `share` for a central station (C18): public from now on; its company (the piece placed).
cdef int co_show(CompanyData* c, CentralData* cd, const MetroTables* t, int p, int share) noexcept nogil
cdef void co_exchange(CompanyData* c, const MetroTables* t, int p, int action) noexcept nogil   # M13, M16
cdef void co_company_values(const double* profit, int* value) noexcept nogil                     # M14
cdef void co_scores(const MetroData* d, const MetroTables* t, const CompanyData* c, double* out) noexcept nogil
# Expected final scores from what each player knows (M19), an open line's profit projected as
# `weight` times its tiles so far plus `bonus`.
cdef void co_expected(const MetroData* d, const MetroTables* t, const CompanyData* c, double weight, double bonus,
                      double* out) noexcept nogil
cdef int co_observed(const MetroData* d, int action, int player) noexcept nogil                  # M18
# Deal the shares `player` does not know anew (M18), from `seed` (salted).
cdef void co_determinize(CompanyData* c, const MetroTables* t, int player, uint64_t seed) noexcept nogil


# ---- the rules helpers (C level, no GIL) ----
# Board geometry: the square entered by leaving `square` through `port` (or METRO_OFF_BOARD,
# METRO_CENTRE), and the port it is entered at.
cdef int next_square(int square, int port) noexcept nogil
cdef int entry_port(int port) noexcept nogil
# Empty board, empty hands, every owned line open and waiting on its station's square.
cdef void clear_state(MetroData* d, const MetroTables* t) noexcept nogil
# A new deal from rng: supply shuffled, hands dealt round by round, player 0 to move.
cdef void deal_tiles(MetroData* d, const MetroTables* t, rng_t* rng) noexcept nogil
# Follow open line l from its frontier until an empty square or an arrival; score it (M7).
cdef void advance_line(MetroData* d, const MetroTables* t, int l) noexcept nogil
# Recompute every line, the waiting lists and the scores from the board (and d.central) alone.
cdef void retrace_lines(MetroData* d, const MetroTables* t) noexcept nogil
# The central part (C2): no piece placed; put a piece on a space and trace its line (C17); the
# free spaces as actions base + space (space_free, inline below).
cdef void clear_central(CentralData* cd) noexcept nogil
cdef void place_piece(MetroData* d, const MetroTables* t, CentralData* cd, int piece, int space) noexcept nogil
cdef int check_space(const MetroData* d, const CentralData* cd, int action, int maxshare) noexcept nogil
# Geometry of the 8 central spaces (C2), clockwise from the top-left: the square facing space j,
# the departure (even) port of that square, space of a square (-1 if it faces none).
cdef int central_square(int space) noexcept nogil
cdef int central_port(int space) noexcept nogil
cdef int central_space(int square) noexcept nogil


# ---- the hot helpers, inline: each module that cimports them compiles its own copy, so the
# state's legal actions and moves make no call across a module boundary (the Metro state's
# c_legal_actions and c_apply run them once an action in every play-out).
cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

cdef inline uint64_t candidate_squares(uint64_t placed) noexcept nogil:
    """Squares a tile may go on (M5): empty, not central, on the edge or next to a tile. The masks
    (squares row * 8 + col): columns A (0x01..) and H (0x80..), the edge (0xFF8181..), the centre
    D4 E4 D5 E5 (0x1818000000)."""
    cdef uint64_t nb = ((placed << 8) | (placed >> 8) | ((placed << 1) & ~0x0101010101010101ULL)
                        | ((placed >> 1) & ~0x8080808080808080ULL))
    return (0xFF818181818181FFULL | nb) & ~placed & ~0x0000001818000000ULL


cdef inline void pass_turn(MetroData* d, const MetroTables* t, int p) noexcept nogil:
    """After player p's turn: the next player in seat order who holds a tile moves (M4), or, if
    nobody holds one, every tile is placed and the game is over (M8)."""
    cdef int i, n = t.players
    for i in range(1, n + 1):
        if d.hand_n[(p + i) % n] > 0:
            d.current = (p + i) % n
            return
    d.current = -1
    d.phase = PHASE_OVER


cdef inline signed char draw_tile(MetroData* d) noexcept nogil:
    cdef signed char k = d.supply[d.top]
    d.supply[d.top] = -1          # drawn entries are wiped: a state holds no trace of past draws
    d.top += 1
    return k


cdef inline void hand_add(MetroData* d, int p, signed char k) noexcept nogil:
    cdef int i = d.hand_n[p]
    while i > 0 and d.hand[p][i - 1] > k:
        d.hand[p][i] = d.hand[p][i - 1]
        i -= 1
    d.hand[p][i] = k
    d.hand_n[p] += 1


cdef inline void hand_remove(MetroData* d, int p, signed char k) noexcept nogil:
    cdef int i, j
    for i in range(d.hand_n[p]):
        if d.hand[p][i] == k:
            for j in range(i, d.hand_n[p] - 1):
                d.hand[p][j] = d.hand[p][j + 1]
            d.hand_n[p] -= 1
            d.hand[p][d.hand_n[p]] = -1
            return


cdef inline void place_tile(MetroData* d, const MetroTables* t, int k, int sq, int r) noexcept nogil:
    """Put (kind k, rotation r) on square sq and advance every line waiting there (M7)."""
    d.cell[sq] = <unsigned char>(k * 4 + r)
    d.placed |= (<uint64_t>1) << sq
    d.nplaced += 1
    cdef uint64_t m = d.waiting[sq]
    cdef int l
    d.waiting[sq] = 0
    while m:
        l = __builtin_ctzll(m)
        m &= m - 1
        advance_line(d, t, l)


cdef inline uint64_t breaches(const MetroTables* t, int k, int r, uint64_t central) noexcept nogil:
    """Squares where (k, r) breaks M6: the stations' (viol), and with central-station pieces
    (C14) theirs; the branch keeps the pieces' table out of games without them."""
    if central:
        return t.viol[k][r] | (t.uturn[k][r] & central)
    return t.viol[k][r]


cdef inline uint64_t allowed_squares(const MetroTables* t, uint64_t cand, int k, int r, uint64_t central) noexcept nogil:
    """Squares where (k, r) may go now: M5 candidates minus M6 breaches (with central-station
    pieces on the squares of `central`, C14, theirs too), unless every placement of kind k
    breaches M6, in which case all candidates are allowed (the M6 exception)."""
    cdef int i
    for i in range(t.nrot[k]):
        if cand & ~breaches(t, k, t.rots[k][i], central):
            return cand & ~breaches(t, k, r, central)
    return cand


cdef inline uint64_t placement_masks(const MetroTables* t, uint64_t cand, int k, uint64_t central,
                                     uint64_t* masks) noexcept nogil:
    """masks[i] (i < t.nrot[k]): the squares of `cand` where kind k may go in rotation t.rots[k][i],
    M6's breaches left out unless every placement of k breaches (then all of cand, the M6
    exception). Returns their union."""
    cdef uint64_t any_ok = 0
    cdef int i, nr = t.nrot[k]
    for i in range(nr):
        masks[i] = cand & ~breaches(t, k, t.rots[k][i], central)
        any_ok |= masks[i]
    if any_ok == 0:
        for i in range(nr):
            masks[i] = cand
        any_ok = cand
    return any_ok


cdef inline int legal_placements(const MetroTables* t, uint64_t cand, int k, int* out, uint64_t central) noexcept nogil:
    """Kind k's legal placements (placement_masks) into out, by square, then rotation; their count."""
    cdef uint64_t masks[4]
    cdef int ids[4]                    # the action id of (k, rotation i) on square 0
    cdef uint64_t m = placement_masks(t, cand, k, central, masks)
    cdef int i, n = 0, sq, nr = t.nrot[k]
    for i in range(nr):
        ids[i] = k * 256 + t.rots[k][i]
    while m:
        sq = __builtin_ctzll(m)
        m &= m - 1
        for i in range(nr):
            if (masks[i] >> sq) & 1:
                out[n] = ids[i] + sq * 4
                n += 1
    return n


cdef inline uint64_t row_counts(const uint64_t* masks, int nr) noexcept nogil:
    """Byte `row` of the result: the bits set in byte `row` (the squares of that board row) of
    masks[0..nr), summed (at most 32 a row). All eight rows at once, bit-parallel."""
    cdef uint64_t x, out = 0
    cdef int i
    for i in range(nr):
        x = masks[i] - ((masks[i] >> 1) & 0x5555555555555555ULL)
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
        out += (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return out


cdef inline int nth_placement(const MetroTables* t, int k, const uint64_t* masks, uint64_t m, uint64_t rows,
                              int r) noexcept nogil:
    """The r-th action (from 0) legal_placements writes for kind k, given its masks, their union
    `m` (placement_masks) and their row_counts `rows`: whole rows are skipped by their counts,
    then the row that holds it is walked. -1 past the last."""
    cdef int i, row, c, sq, nr = t.nrot[k]
    cdef uint64_t bits
    for row in range(8):
        c = <int>((rows >> (8 * row)) & 0xFF)
        if r >= c:
            r -= c
            continue
        bits = (m >> (8 * row)) & 0xFF
        while bits:
            sq = 8 * row + __builtin_ctzll(bits)
            bits &= bits - 1
            for i in range(nr):
                if (masks[i] >> sq) & 1:
                    if r == 0:
                        return k * 256 + t.rots[k][i] + sq * 4
                    r -= 1
        return -1
    return -1


cdef inline int tile_actions(const MetroData* d, const MetroTables* t, int* out) noexcept nogil:
    """Every legal tile placement (sorted by kind, square, rotation) and the draw (M4-M6)."""
    cdef int n = 0, i, p = d.current
    cdef uint64_t cand
    if d.phase == PHASE_OVER:
        return 0
    cand = candidate_squares(d.placed)
    if d.phase == PHASE_PLACE_DRAWN:
        return legal_placements(t, cand, d.drawn, out, d.central)
    for i in range(d.hand_n[p]):
        if i == 0 or d.hand[p][i] != d.hand[p][i - 1]:
            n += legal_placements(t, cand, d.hand[p][i], out + n, d.central)
    if d.top < METRO_TILES:
        out[n] = METRO_DRAW
        n += 1
    return n


cdef inline int random_tile_action(const MetroData* d, const MetroTables* t, rng_t* rng) noexcept nogil:
    """The action at index rng_bounded(rng, n) of tile_actions' list (n its length), found by
    counting instead of writing the list: the same draw, the same action, bit for bit (a random
    play-out's step, GameState.c_random_action). -1, drawing nothing, when the list is empty."""
    cdef uint64_t masks[3][4]
    cdef uint64_t reach[3]
    cdef uint64_t rows[3]
    cdef int kinds[3]
    cdef int counts[3]
    cdef int nk = 0, n = 0, i, j, r, p = d.current
    cdef uint64_t cand
    if d.phase == PHASE_OVER:
        return -1
    cand = candidate_squares(d.placed)
    if d.phase == PHASE_PLACE_DRAWN:
        kinds[0] = d.drawn
        nk = 1
    else:
        for i in range(d.hand_n[p]):
            if i == 0 or d.hand[p][i] != d.hand[p][i - 1]:
                kinds[nk] = d.hand[p][i]
                nk += 1
    for j in range(nk):
        reach[j] = placement_masks(t, cand, kinds[j], d.central, masks[j])
        rows[j] = row_counts(masks[j], t.nrot[kinds[j]])
        counts[j] = <int>((rows[j] * 0x0101010101010101ULL) >> 56)   # at most 60 squares x 4
        n += counts[j]
    if d.phase != PHASE_PLACE_DRAWN and d.top < METRO_TILES:
        n += 1                              # the draw, last in the list
    if n == 0:
        return -1
    r = <int>rng_bounded(rng, <uint64_t>n)
    for j in range(nk):
        if r < counts[j]:
            return nth_placement(t, kinds[j], masks[j], reach[j], rows[j], r)
        r -= counts[j]
    return METRO_DRAW


cdef inline bint space_free(const MetroData* d, const CentralData* cd, int space) noexcept nogil:
    """No piece on it and no line has reached it (C15). The squares facing the 8 spaces (D3 E3 F4
    F5 E6 D6 C5 C4: 19, 20, 29, 37, 44, 43, 34, 26, rules.pyx's CSPACE_SQ) packed a byte each."""
    return cd.space_piece[space] < 0 and not (d.reached >> ((0x1A222B2C251D1413ULL >> (8 * space)) & 0xFF)) & 1
