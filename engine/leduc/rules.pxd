# Leduc poker (OpenSpiel's leduc_poker): flat C state and the rules helpers (rules.pyx).
# Rules: docs/rules/leduc.md (L1-L8). Another poker variant may cimport what it needs from here.
from libc.stdint cimport uint64_t

cdef enum:
    LEDUC_MAX_PLAYERS = 8       # the contract's MAX_PLAYERS (OpenSpiel allows 10)
    LEDUC_MAX_CARDS = 18        # 2 suits x (players + 1) ranks (L2)
    LEDUC_ROUND_LEN = 22        # the most actions in one betting round: 3 * players - 2 (L5)
    LEDUC_FOLD = 0              # actions, as OpenSpiel numbers them (L4)
    LEDUC_CALL = 1              # call, or check when there is nothing to call
    LEDUC_RAISE = 2             # raise, or bet when there is nothing to call
    LEDUC_ANTE = 1              # L3
    LEDUC_MAX_RAISES = 2        # raises in one betting round (L5)

cdef struct LeducData:                   # the whole state, hidden parts included
    signed char card[8]                  # private card of each player (L2: card // 2 is its rank)
    signed char public_card              # dealt from the seed; seen by all from round 2 on (L6)
    signed char round                    # 0: first betting round, 1: second
    signed char current                  # player to move, -1 once over
    signed char raises                   # raises so far this round (L5)
    signed char acted                    # players who have matched the stake since the last raise
    signed char remaining                # players who have not folded
    signed char folded[8]
    int stake                            # chips every player still in must have put in (L5)
    int spent[8]                         # chips each player has put in the pot (ante included)
    signed char hist[2][22]              # the actions of each round, in order
    signed char hist_n[2]


cdef void leduc_deal(LeducData* d, int players, const signed char* cards, int public_card) noexcept nogil
cdef void leduc_apply(LeducData* d, int players, int action) noexcept nogil
cdef int leduc_legal(const LeducData* d, int* out) noexcept nogil
cdef void leduc_chips(const LeducData* d, int players, double* out) noexcept nogil


# L8: at a showdown every player still in shows their card (inline: the state's observation and
# determinize read it too).
cdef inline bint shown_at_showdown(const LeducData* d, int p) noexcept nogil:
    return d.current < 0 and d.remaining > 1 and not d.folded[p]
