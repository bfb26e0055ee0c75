# The Metro companies expansion (rules M11-M14, decisions M15-M19 of docs/rules/metro.md): the
# shares part of the state, on top of the base game's MetroData (whose score[8] holds the eight
# companies' profits here). The board, tiles and lines are the base game's, from rules.pxd.
from libc.stdint cimport uint64_t
from metro_ai.engine.metro.rules cimport MetroGame, MetroState

cdef enum:
    CO_COMPANIES = 8
    CO_PCTS = 4                # 10%, 20%, 30%, 40%: pct index 0..3
    CO_SHARES = 32             # share id = 4 * company + pct index (M12)
    CO_PILE = 8                # shares of one percentage
    CO_EXCHANGE = 6145         # first exchange action: CO_EXCHANGE + 2 * share + src (M13)
    CO_CUTOFF = 25             # exchanges end once a company has this much profit (M13)

cdef struct CompanyData:
    signed char hold[6][4]              # hold[p][i]: the share of pct index i player p holds (M12)
    unsigned char hold_known[6][4]      # players (bitmask) who know which share that is (M18)
    signed char face_up[4]              # the face-up share of each pile
    signed char pile[4][8]              # face-down shares, top first; -1 past pile_n
    unsigned char pile_known[4][8]      # players (bitmask) who know each face-down share (M18)
    signed char pile_n[4]               # face-down shares in each pile (always 7 - players, M16)
    short exchanges[6]                  # exchanges each player has made (M17; up to the turn limit, M20)


cdef class CompaniesState(MetroState):
    cdef CompanyData c
    cdef bint c_exchanges_open(self) noexcept nogil        # no company has reached 25 yet (M13)
    cdef int c_turns(self) noexcept nogil                  # turns taken: placements, exchanges, pieces
    cdef void c_end_at_turn_limit(self) noexcept nogil     # M20: the game ends at the turn limit
    cdef void c_company_values(self, const double* profit, int* value) noexcept nogil   # M14
    cdef void c_expected(self, double weight, double bonus, double* out) noexcept nogil  # c_heuristic's


# A blank companies state of `game` (its central part cleared with central stations, C2).
cdef CompaniesState _blank(MetroGame game)
