# cython: language_level=3
"""Leduc poker (OpenSpiel's ``leduc_poker``, rules L1-L8 of ``docs/rules/leduc.md``): the C
mechanics, below the game and state (``state.pyx``, which documents the encoding). Over the flat
state ``LeducData`` (``rules.pxd``): dealing (L2), the legal actions and applying one in a betting
round (L4, L5), the public card between the rounds (L6) and the chips at the end (L7); ``nogil``
functions that another poker variant may ``cimport``."""

cdef inline int raise_amount(int rnd) noexcept nogil:
    """L5: raises are 2 chips in the first round, 4 in the second."""
    return 2 if rnd == 0 else 4


cdef inline int next_in(const LeducData* d, int players, int p) noexcept nogil:
    """The first player after `p` (round the table) who has not folded."""
    cdef int i, q
    for i in range(1, players + 1):
        q = (p + i) % players
        if not d.folded[q]:
            return q
    return -1


cdef void leduc_deal(LeducData* d, int players, const signed char* cards, int public_card) noexcept nogil:
    """A new hand: each player's card, the public card (hidden until round 2), the antes (L3)."""
    cdef int p
    for p in range(LEDUC_MAX_PLAYERS):
        d.card[p] = cards[p] if p < players else -1
        d.folded[p] = 0
        d.spent[p] = LEDUC_ANTE if p < players else 0
    d.public_card = public_card
    d.round = 0
    d.current = 0
    d.raises = 0
    d.acted = 0
    d.remaining = players
    d.stake = LEDUC_ANTE
    d.hist_n[0] = 0
    d.hist_n[1] = 0


cdef int leduc_legal(const LeducData* d, int* out) noexcept nogil:
    """L5: fold only facing a bet, call always, raise while fewer than two raises this round."""
    cdef int n = 0
    if d.current < 0:
        return 0
    if d.spent[d.current] < d.stake:
        out[n] = LEDUC_FOLD
        n += 1
    out[n] = LEDUC_CALL
    n += 1
    if d.raises < LEDUC_MAX_RAISES:
        out[n] = LEDUC_RAISE
        n += 1
    return n


cdef void leduc_apply(LeducData* d, int players, int action) noexcept nogil:
    """Apply a legal action of the player to move (L5, L6)."""
    cdef int p = d.current
    d.hist[d.round][d.hist_n[d.round]] = action
    d.hist_n[d.round] += 1
    if action == LEDUC_FOLD:
        d.folded[p] = 1
        d.remaining -= 1
        if d.remaining == 1:              # the last player in takes the pot (L7)
            d.current = -1
            return
    elif action == LEDUC_CALL:
        d.spent[p] = d.stake
        d.acted += 1
    else:
        d.stake += raise_amount(d.round)
        d.spent[p] = d.stake
        d.raises += 1
        d.acted = 1                       # the raiser has matched; everyone else must answer
    if d.acted >= d.remaining:            # the round is over (L5)
        if d.round == 1:
            d.current = -1                # showdown (L7)
            return
        d.round = 1                       # L6: the public card is shown
        d.raises = 0
        d.acted = 0
        d.current = next_in(d, players, players - 1)
        return
    d.current = next_in(d, players, p)


cdef inline int hand_value(const LeducData* d, int p) noexcept nogil:
    """L7: a pair with the public card beats every other hand; otherwise the higher rank."""
    cdef int rank = d.card[p] >> 1
    return 100 + rank if rank == (d.public_card >> 1) else rank


cdef void leduc_chips(const LeducData* d, int players, double* out) noexcept nogil:
    """Chips won or lost: at the end the winners share the pot (L7); before it, minus the chips
    each player has put in."""
    cdef int p, best = -1, v, winners = 0
    cdef double pot = 0.0
    for p in range(players):
        out[p] = -d.spent[p]
        pot += d.spent[p]
    if d.current >= 0:
        return
    for p in range(players):
        if not d.folded[p]:
            v = hand_value(d, p)
            if v > best:
                best = v
                winners = 1
            elif v == best:
                winners += 1
    for p in range(players):
        if not d.folded[p] and hand_value(d, p) == best:
            out[p] += pot / winners
