# cython: language_level=3
"""Metro (Dirk Henn's tile-laying game): the C mechanics, below the game and state (``state.pyx``)
and every module (rules M1-M10 and the companies part's M11-M20 of ``docs/rules/metro.md``).

Over the data of ``rules.pxd`` (the base game's part ``MetroData``, the optional parts
``CentralData``, C2, and ``CompanyData``, M11-M18, and the per-game ``MetroTables``): the board's
geometry, the tile rules (candidates M5, the one-tile rule M6, placements, following and scoring a
line M7, dealing and passing the turn M4, M8), the central-station pieces (C2, C14-C17) and the
companies part's rules (exchanges M13, company values and scoring M14, M19, what the others
observe, determinisation). All ``nogil`` C functions, declared in ``rules.pxd``; nothing here
imports the engine's Python face, so ``MetroState`` (``state.pyx``) and the modules ``cimport``
them without an import circle.

Conventions (the encoding is ``state.pyx``'s to document in full): squares ``row * 8 + col``;
ports 0-7 clockwise from the top-left; share id ``4 * company + pct index``; exchange action
``6145 + 2 * share + src`` (src 0 the face-up share, 1 the top face-down one); central-station
action with a share ``6209 + 8 * share + space`` (C16, C18); ``MetroData.score[0..7]`` holds the
companies' profits.
"""
from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t

from metro_ai.engine.rng cimport rng_t, rng_shuffle

# Board geometry: NEXT[s][q] is the square entered by leaving s through port q, or -1 (off the
# board: an arrival station) or -2 (the central station). ENTER[q] is the port entered there.
cdef signed char NEXT[64][8]
cdef signed char RAW_NEXT[64][8]      # as NEXT, but the central squares are squares (C3 tracks)
cdef signed char ENTER[8]
# The 8 central-station spaces (C2), clockwise from the top-left: the square facing each, its
# departure (even) port; the odd port beside it is the arrival. SPACE_OF[square]: the space a
# square faces, or -1.
cdef int CSPACE_SQ[8]
cdef int CSPACE_PORT[8]
cdef signed char SPACE_OF[64]
CENTRE_SQUARES = (27, 28, 35, 36)


cdef void _init_geometry():
    cdef int s, q, r, c, nr, nc
    cdef int enter[8]
    enter[:] = [5, 4, 7, 6, 1, 0, 3, 2]
    cdef int dr[4]
    cdef int dc[4]
    dr[:] = [-1, 0, 1, 0]
    dc[:] = [0, 1, 0, -1]
    for q in range(8):
        ENTER[q] = enter[q]
    for s in range(64):
        r = s // 8
        c = s % 8
        for q in range(8):
            nr = r + dr[q // 2]
            nc = c + dc[q // 2]
            RAW_NEXT[s][q] = -1 if nr < 0 or nr > 7 or nc < 0 or nc > 7 else nr * 8 + nc
            if nr < 0 or nr > 7 or nc < 0 or nc > 7:
                NEXT[s][q] = -1
            elif 3 <= nr <= 4 and 3 <= nc <= 4:
                NEXT[s][q] = -2
            else:
                NEXT[s][q] = nr * 8 + nc

    CSPACE_SQ[:] = [19, 20, 29, 37, 44, 43, 34, 26]     # D3 E3 F4 F5 E6 D6 C5 C4
    CSPACE_PORT[:] = [4, 4, 6, 6, 0, 0, 2, 2]
    for s in range(64):
        SPACE_OF[s] = -1
    for q in range(8):
        SPACE_OF[CSPACE_SQ[q]] = q

_init_geometry()

#: The central-station spaces (C2): space j faces this square, clockwise from the top-left.
CENTRAL_SPACE_SQUARES = (19, 20, 29, 37, 44, 43, 34, 26)
#: The first central-station station number: space j is station 33 + j (departure and arrival, C2).
CENTRAL_STATION_BASE = 33


cdef int central_square(int space) noexcept nogil:
    return CSPACE_SQ[space]


cdef int central_port(int space) noexcept nogil:
    return CSPACE_PORT[space]


cdef int central_space(int square) noexcept nogil:
    return SPACE_OF[square]


cdef int next_square(int square, int port) noexcept nogil:
    return NEXT[square][port]


cdef int entry_port(int port) noexcept nogil:
    return ENTER[port]


# ---- state mechanics (C level) ----
# The hot ones (candidate_squares, legal_placements, tile_actions, draw_tile, hand_add,
# hand_remove, pass_turn, space_free, place_tile) are inline in rules.pxd, so that every module
# compiles its own copy; here are those that read the geometry tables above.

cdef void clear_state(MetroData* d, const MetroTables* t) noexcept nogil:
    """Empty board, empty hands, every owned line open and waiting on its station's square."""
    cdef int l
    memset(d, 0, sizeof(MetroData))
    memset(d.cell, METRO_EMPTY, 64)
    memset(d.hand, -1, sizeof(d.hand))
    d.drawn = -1
    for l in range(t.nlines):
        d.line_sq[l] = t.line_square[l]
        d.line_port[l] = t.line_port[l]
        d.line_arr[l] = -1
        d.waiting[t.line_square[l]] |= (<uint64_t>1) << l
    for l in range(t.nlines, t.nlines + t.ncentral):     # central pieces: not placed yet (C2)
        d.line_sq[l] = -1
        d.line_arr[l] = -1


cdef void deal_tiles(MetroData* d, const MetroTables* t, rng_t* rng) noexcept nogil:
    """A new deal: the 60 tiles, by kind ascending, shuffled (Fisher-Yates from the end); hands
    dealt one tile per player per round from the front, player 0 first; player 0 to move."""
    cdef int k, i = 0, j, p, rnd
    cdef signed char tiles[60]
    for k in range(METRO_KINDS):
        for j in range(t.count[k]):
            tiles[i] = k
            i += 1
    rng_shuffle(rng, tiles, METRO_TILES)
    clear_state(d, t)
    memcpy(d.supply, tiles, 60)
    for rnd in range(t.hand_size):
        for p in range(t.players):
            hand_add(d, p, draw_tile(d))
    d.current = 0
    d.phase = PHASE_TURN


cdef void advance_line(MetroData* d, const MetroTables* t, int l) noexcept nogil:
    """Follow open line l from its frontier until an empty square or an arrival (M7)."""
    cdef int sq = d.line_sq[l]
    cdef int p = d.line_port[l]
    cdef int c, q, nx
    while True:
        c = d.cell[sq]
        if c == METRO_EMPTY:
            d.line_sq[l] = sq
            d.line_port[l] = p
            d.waiting[sq] |= (<uint64_t>1) << l
            return
        d.line_len[l] += 1
        q = t.exits[c >> 2][c & 3][p]
        nx = NEXT[sq][q]
        if nx >= 0:
            sq = nx
            p = ENTER[q]
            continue
        if nx == -2 and has_centre_tracks(t):    # C3: tracks cover the centre, whose squares count as tiles
            sq = RAW_NEXT[sq][q]
            p = ENTER[q]
            continue
        d.line_sq[l] = -1
        if nx == -1:
            d.line_arr[l] = t.arrival[sq][q]
            d.score[t.line_owner[l]] += d.line_len[l]
        elif (d.central >> sq) & 1:    # C2: a central-station piece on this space: an arrival
            d.line_arr[l] = 33 + SPACE_OF[sq]
            d.score[t.line_owner[l]] += d.line_len[l]
        else:                      # the central station: doubled (M7); the space is used (C2, C15)
            d.line_arr[l] = 0
            d.score[t.line_owner[l]] += 2 * d.line_len[l]
            d.reached |= (<uint64_t>1) << sq
        return


# ---- the central part (C2, C15, C17): its C helpers ----

cdef void clear_central(CentralData* cd) noexcept nogil:
    cdef int i
    for i in range(8):
        cd.piece_space[i] = -1
        cd.space_piece[i] = -1
    for i in range(6):
        cd.shown[i] = 0


cdef void place_piece(MetroData* d, const MetroTables* t, CentralData* cd, int piece, int space) noexcept nogil:
    """Put `piece` on `space` and start its line (C2): traced at once (C17)."""
    cdef int sq = CSPACE_SQ[space], l = t.nlines + piece
    cd.piece_space[piece] = space
    cd.space_piece[space] = piece
    d.central |= (<uint64_t>1) << sq
    d.line_sq[l] = sq
    d.line_port[l] = CSPACE_PORT[space]
    d.line_len[l] = 0
    d.line_arr[l] = -1
    advance_line(d, t, l)


cdef int check_space(const MetroData* d, const CentralData* cd, int action, int maxshare) noexcept nogil:
    """c_check for a central-station action (shares 0..maxshare-1): 0 if the space may take a piece now."""
    if d.phase == PHASE_OVER:
        return R_OVER
    if action >= METRO_CENTRAL_ACTION + 8 * maxshare:
        return R_CE_RANGE
    if d.phase != PHASE_TURN:
        return R_CE_PHASE
    if not space_free(d, cd, (action - METRO_CENTRAL_ACTION) & 7):
        return R_CE_SPACE
    return 0


cdef void retrace_lines(MetroData* d, const MetroTables* t) noexcept nogil:
    """Recompute every line, the waiting lists and the scores from the board alone."""
    cdef int l
    memset(d.waiting, 0, sizeof(d.waiting))
    memset(d.score, 0, sizeof(d.score))
    d.reached = 0
    for l in range(t.nlines):
        d.line_sq[l] = t.line_square[l]
        d.line_port[l] = t.line_port[l]
        d.line_len[l] = 0
        d.line_arr[l] = -1
        advance_line(d, t, l)


# ---- the companies part (M11-M20) ----

cdef uint64_t CO_DETERMINIZE_SALT = 0xC0A1E5CE5EED5EEDULL


cdef bint co_exchanges_open(const MetroData* d) noexcept nogil:
    cdef int k
    for k in range(CO_COMPANIES):
        if d.score[k] >= CO_CUTOFF:
            return False
    return True


cdef int co_turns(const MetroData* d, const MetroTables* t, const CompanyData* c) noexcept nogil:
    """Turns taken (M13, C2): tiles placed, exchanges made, central-station pieces placed."""
    cdef int p, n = d.nplaced
    cdef uint64_t pieces = d.central
    for p in range(t.players):
        n += c.exchanges[p]
    while pieces:
        pieces &= pieces - 1
        n += 1
    return n


cdef void co_end_at_turn_limit(MetroData* d, const MetroTables* t, const CompanyData* c) noexcept nogil:
    """M20 (exchange_limit=None): once a turn ends with ``turn_limit`` turns taken, the game is
    over there; returns rank by the final scoring (M14, M19) as at any end."""
    if t.turn_limit > 0 and d.phase == PHASE_TURN and co_turns(d, t, c) >= t.turn_limit:
        d.current = -1
        d.phase = PHASE_OVER


cdef int co_actions(const MetroData* d, const MetroTables* t, const CompanyData* c, const CentralData* cd,
                    unsigned int free, int* out) noexcept nogil:
    cdef int p = d.current, i, j, s, n = 0
    cdef int held[4]
    cdef bint exchanges = c.exchanges[p] < t.exchange_limit and co_exchanges_open(d)
    if not (exchanges or has_central(t)):
        return 0
    for i in range(CO_PCTS):                  # the 4 shares held, ascending (insertion sort)
        s = c.hold[p][i]
        j = i
        while j > 0 and held[j - 1] > s:
            held[j] = held[j - 1]
            j -= 1
        held[j] = s
    if exchanges:
        for i in range(CO_PCTS):
            if has_central(t) and (cd.shown[p] >> (held[i] & 3)) & 1:
                continue                      # a shown share cannot be exchanged (C18)
            out[n] = CO_EXCHANGE + 2 * held[i]
            out[n + 1] = CO_EXCHANGE + 2 * held[i] + 1
            n += 2
    if has_central(t):                        # the central part (C2, C18): show a share, place its company's piece
        for i in range(CO_PCTS):
            s = held[i]
            if (cd.shown[p] >> (s & 3)) & 1 or cd.piece_space[s >> 2] >= 0:
                continue
            for j in range(8):
                if (free >> j) & 1:
                    out[n] = METRO_CENTRAL_ACTION + 8 * s + j
                    n += 1
    return n


cdef int co_check_exchange(const MetroData* d, const MetroTables* t, const CompanyData* c, const CentralData* cd,
                           int action) noexcept nogil:
    cdef int share, p = d.current
    if action >= CO_EXCHANGE + 2 * CO_SHARES:
        return R_EX_RANGE
    if d.phase != PHASE_TURN:
        return R_EX_PHASE
    if not co_exchanges_open(d):
        return R_EX_CLOSED
    if c.exchanges[p] >= t.exchange_limit:
        return R_EX_LIMIT
    share = (action - CO_EXCHANGE) >> 1
    if c.hold[p][share & 3] != share:
        return R_EX_NOT_HELD
    if has_central(t) and (cd.shown[p] >> (share & 3)) & 1:
        return R_CE_SHOWN
    return 0


cdef int co_check_piece(const MetroData* d, const CompanyData* c, const CentralData* cd, int action) noexcept nogil:
    cdef int p = d.current, share = (action - METRO_CENTRAL_ACTION) >> 3
    if c.hold[p][share & 3] != share or (cd.shown[p] >> (share & 3)) & 1:
        return R_CE_SHARE
    if cd.piece_space[share >> 2] >= 0:
        return R_CE_PIECE
    return 0


cdef int co_show(CompanyData* c, CentralData* cd, const MetroTables* t, int p, int share) noexcept nogil:
    cd.shown[p] |= <unsigned char>(1 << (share & 3))
    c.hold_known[p][share & 3] = <unsigned char>((1 << t.players) - 1)    # public now (C18)
    return share >> 2


cdef void co_exchange(CompanyData* c, const MetroTables* t, int p, int action) noexcept nogil:
    """Exchange (M13): the share goes back face down to the bottom of its pile (M16), who knew
    it still does; the face-up share (then the top face-down one turns up) or the top face-down
    one (the player sees it now) is taken."""
    cdef int share = (action - CO_EXCHANGE) >> 1, src = (action - CO_EXCHANGE) & 1, i, j, n
    i = share & 3
    n = c.pile_n[i]
    c.pile[i][n] = c.hold[p][i]
    c.pile_known[i][n] = c.hold_known[p][i]
    n += 1
    if src == 0:
        c.hold[p][i] = c.face_up[i]
        c.hold_known[p][i] = <unsigned char>((1 << t.players) - 1)
        c.face_up[i] = c.pile[i][0]
    else:
        c.hold[p][i] = c.pile[i][0]
        c.hold_known[p][i] = c.pile_known[i][0] | <unsigned char>(1 << p)
    for j in range(n - 1):
        c.pile[i][j] = c.pile[i][j + 1]
        c.pile_known[i][j] = c.pile_known[i][j + 1]
    n -= 1
    c.pile[i][n] = -1
    c.pile_known[i][n] = 0
    c.pile_n[i] = n
    c.exchanges[p] += 1


cdef void co_company_values(const double* profit, int* value) noexcept nogil:
    """Company values (M14): 8 for the most profit, 7 for the next distinct profit, and so on;
    tied companies share a value."""
    cdef int k, j, i, above
    for k in range(CO_COMPANIES):
        above = 0
        for j in range(CO_COMPANIES):       # distinct profits above company k's
            if profit[j] > profit[k]:
                above += 1
                for i in range(j):
                    if profit[i] == profit[j]:
                        above -= 1
                        break
        value[k] = 8 - above


cdef void co_scores(const MetroData* d, const MetroTables* t, const CompanyData* c, double* out) noexcept nogil:
    """The final scoring (M14) on the profits as they stand (M19): each share is worth
    (percent / 10) x its company's value; the players holding the highest total percentage of a
    company (above 0) each get floor(profit / 10). At the end, the final scores."""
    cdef double profit[8]
    cdef int value[8]
    cdef int total[6][8]
    cdef int k, p, i, best, n = t.players
    for k in range(CO_COMPANIES):
        profit[k] = d.score[k]
    co_company_values(profit, value)
    for p in range(n):
        out[p] = 0.0
        for k in range(CO_COMPANIES):
            total[p][k] = 0
        for i in range(CO_PCTS):
            k = c.hold[p][i] >> 2
            out[p] += (i + 1) * value[k]
            total[p][k] += i + 1
    for k in range(CO_COMPANIES):
        best = 0
        for p in range(n):
            if total[p][k] > best:
                best = total[p][k]
        if best > 0:
            for p in range(n):
                if total[p][k] == best:
                    out[p] += d.score[k] // 10


cdef void co_expected(const MetroData* d, const MetroTables* t, const CompanyData* c, double weight, double bonus,
                      double* out) noexcept nogil:
    """Each player's expected final score from what that player knows (M19): profits projected
    (an open line: ``weight`` times its tiles so far plus ``bonus``), company values from them;
    the player's own shares exactly; a company's bonus if the player's total in it is at least
    every other player's expected total, unknown holdings counted by expectation over the shares
    of that percentage the player has not seen."""
    cdef double profit[8]
    cdef int value[8]
    cdef int unknown[4]             # companies (bitmask) whose pct-i share p has not seen
    cdef int nunknown[4]
    cdef int mine[8]
    cdef double other, best
    cdef int k, p, q, i, j, l, s, n = t.players
    for k in range(CO_COMPANIES):
        profit[k] = d.score[k]
    for l in range(t.nlines + t.ncentral):
        if d.line_arr[l] < 0:
            profit[t.line_owner[l]] += weight * d.line_len[l] + bonus
    co_company_values(profit, value)
    for p in range(n):
        out[p] = 0.0
        for k in range(CO_COMPANIES):
            mine[k] = 0
        for i in range(CO_PCTS):
            s = c.hold[p][i]
            out[p] += (i + 1) * value[s >> 2]
            mine[s >> 2] += i + 1
            unknown[i] = 0
            nunknown[i] = 0
            for q in range(n):
                if q != p and not (c.hold_known[q][i] >> p) & 1:
                    unknown[i] |= 1 << (c.hold[q][i] >> 2)
                    nunknown[i] += 1
            for j in range(c.pile_n[i]):
                if not (c.pile_known[i][j] >> p) & 1:
                    unknown[i] |= 1 << (c.pile[i][j] >> 2)
                    nunknown[i] += 1
        for k in range(CO_COMPANIES):
            if mine[k] == 0:
                continue
            best = 0.0
            for q in range(n):
                if q == p:
                    continue
                other = 0.0
                for i in range(CO_PCTS):
                    s = c.hold[q][i]
                    if (c.hold_known[q][i] >> p) & 1:
                        if s >> 2 == k:
                            other += i + 1
                    elif (unknown[i] >> k) & 1:
                        other += (i + 1) / <double>nunknown[i]
                if other > best:
                    best = other
            if mine[k] >= best:
                out[p] += <int>(profit[k] / 10)


cdef int co_observed(const MetroData* d, int action, int player) noexcept nogil:
    """M18: others see an exchange's percentage and source, not the company put back: for a
    player other than the mover, the exchange of company 0's share of that percentage."""
    cdef int share
    if action < CO_EXCHANGE or player == d.current:
        return action
    share = (action - CO_EXCHANGE) >> 1
    return CO_EXCHANGE + 2 * (share & 3) + ((action - CO_EXCHANGE) & 1)


cdef void co_determinize(CompanyData* c, const MetroTables* t, int player, uint64_t seed) noexcept nogil:
    """The shares `player` does not know, per percentage, dealt uniformly over the places they
    do not know (M18): the unknown shares ascending, shuffled from ``seed ^ salt``, to the other
    players' unknown holdings in seat order, then to the unknown pile positions top first."""
    cdef rng_t rng = seed ^ CO_DETERMINIZE_SALT
    cdef signed char pool[8]
    cdef signed char* slot[8]
    cdef int i, j, q, n, k, a, b, tmp
    for i in range(CO_PCTS):
        n = 0
        for q in range(t.players):
            if q != player and not (c.hold_known[q][i] >> player) & 1:
                slot[n] = &c.hold[q][i]
                pool[n] = c.hold[q][i]
                n += 1
        for j in range(c.pile_n[i]):
            if not (c.pile_known[i][j] >> player) & 1:
                slot[n] = &c.pile[i][j]
                pool[n] = c.pile[i][j]
                n += 1
        for a in range(1, n):                  # the unknown shares, ascending
            b = a
            while b > 0 and pool[b - 1] > pool[b]:
                tmp = pool[b]
                pool[b] = pool[b - 1]
                pool[b - 1] = tmp
                b -= 1
        rng_shuffle(&rng, pool, n)
        for k in range(n):
            slot[k][0] = pool[k]
