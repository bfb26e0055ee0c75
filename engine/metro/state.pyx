# cython: language_level=3
"""The companies part of a Metro state (rules M11-M20 of ``docs/rules/metro.md``): its C rules,
over the part's data (``state.pxd``: ``CompanyData``) and the base game's. ``MetroState``
(``rules.pyx``) calls them where its tables' ``companies`` flag is on; the deal, the loader and
the actions' text are ``companies.pyx``'s. This module imports nothing of the engine's: it sits
below ``rules`` and every module, so the state can hold the part without an import circle.

Conventions (the companies' module docstring says them in full): share id ``4 * company + pct
index``; exchange action ``6145 + 2 * share + src`` (src 0 the face-up share, 1 the top
face-down one); central-station action with a share ``6209 + 8 * share + space`` (C16, C18);
``MetroData.score[0..7]`` holds the companies' profits.
"""
from libc.stdint cimport uint64_t

from metro_ai.engine.rng cimport rng_t, rng_shuffle

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
    if not (exchanges or t.ncentral):
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
            if t.ncentral and (cd.shown[p] >> (held[i] & 3)) & 1:
                continue                      # a shown share cannot be exchanged (C18)
            out[n] = CO_EXCHANGE + 2 * held[i]
            out[n + 1] = CO_EXCHANGE + 2 * held[i] + 1
            n += 2
    if t.ncentral:                            # the central part (C2, C18): show a share, place its company's piece
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
    if t.ncentral and (cd.shown[p] >> (share & 3)) & 1:
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
