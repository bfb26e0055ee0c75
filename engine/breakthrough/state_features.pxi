# Breakthrough's observation features in C (issue #44), included into state.pyx: what
# BreakthroughState.c_features writes, value for value as the Python encoder
# (features.py, BreakthroughFeatures.encode over state.observation(player)), so that the search's
# learned evaluators read them without the GIL. Each value is computed in double as Python does
# (an int / 10, min(1, x)), then rounded to float once, as numpy stores it in the float32 array.

# The layout (features.py): per card FT_CHANNELS channels, then FT_SEATS rows of
# FT_SEAT_FEATURES, then the turn part, whose phase one-hot has FT_PHASES = len(PHASES) entries.
cdef enum:
    FT_CHANNELS = 20
    FT_SEATS = 5
    FT_SEAT_FEATURES = 6
    FT_PHASES = 10


cdef inline double cap1(double v) noexcept nogil:
    """Python's ``min(1, v)``."""
    return v if v < 1.0 else 1.0


cdef int write_features(const BtData* d, const BtTables* t, int player, float* out, int n) noexcept nogil:
    """`player`'s features into out[:n]: 0, or -1 unless n is the encoder's size (C * 20 + 5 * 6
    + len(PHASES) + 1 + 2 * 5 + 4) and `player` a seat. Every one of the n floats is written.
    Seats are relative to the viewer, (p - player) % players."""
    cdef int C = t.C, np_ = t.players
    cdef int p, i, c, w, base, paid
    cdef uint64_t x
    if (n != C * FT_CHANNELS + FT_SEATS * FT_SEAT_FEATURES + FT_PHASES + 1 + 2 * FT_SEATS + 4
            or player < 0 or player >= np_):
        return -1
    memset(out, 0, n * sizeof(float))
    # cards: the viewer's hand, cards known in the other hands (R20), tableaux, market, discard
    # pile, faction cards, the pending decision's card
    for i in range(d.hand_n[player]):
        out[d.hand[player][i] * FT_CHANNELS] = 1.0
    for p in range(np_):
        if p == player:
            continue
        for i in range(d.hand_n[p]):
            if d.hand_gen[p][i] < 0:
                out[d.hand[p][i] * FT_CHANNELS + (p - player + np_) % np_] = 1.0
    for p in range(np_):
        for w in range(BT_WORDS):
            x = d.tab[p][w]
            while x:
                c = w * 64 + ctz(x)
                x &= x - 1
                if c >= C:
                    continue
                base = c * FT_CHANNELS
                out[base + 5 + (p - player + np_) % np_] = 1.0
                out[base + 10] = 1.0 if bit_has(d.rot, c) else 0.0
                out[base + 11] = <float>cap1(d.tok[c] / 10.0)
    for i in range(BT_MARKET):
        if d.market[i] != BT_NONE:
            out[d.market[i] * FT_CHANNELS + 12] = 1.0
    for i in range(d.disc_n):
        out[d.disc[i] * FT_CHANNELS + 13] = 1.0
    for p in range(np_):
        out[d.faction[p] * FT_CHANNELS + 14 + (p - player + np_) % np_] = 1.0
    if d.phase in (BT_QUEST_HERO, BT_PAY, BT_KEEP, BT_PROTECT, BT_FREE, BT_LOSE):   # pending["card"]
        out[d.pending_card * FT_CHANNELS + 19] = 1.0
    # seats: tokens above, below, in the supply, held; hand size; faction card face down
    for p in range(np_):
        base = C * FT_CHANNELS + ((p - player + np_) % np_) * FT_SEAT_FEATURES
        out[base] = <float>(d.above[p] / 10.0)
        out[base + 1] = <float>(d.below[p] / 10.0)
        out[base + 2] = <float>(d.supply[p] / 10.0)
        out[base + 3] = <float>cap1(tokens_held(d, p) / 10.0)
        out[base + 4] = <float>(d.hand_n[p] / 5.0)
        out[base + 5] = 1.0 if d.fdone[p] else 0.0
    # turn: phase, main action taken, player to move (none once over), active player, turn / turn
    # limit, deck size / C, deck generation / 10, cards paid so far for the pending quest / 5 (R2)
    base = C * FT_CHANNELS + FT_SEATS * FT_SEAT_FEATURES
    out[base + d.phase] = 1.0
    out[base + FT_PHASES] = 1.0 if d.main_done else 0.0
    if d.phase != BT_OVER and d.decider >= 0:                        # c_current_player
        out[base + FT_PHASES + 1 + (d.decider - player + np_) % np_] = 1.0
    out[base + FT_PHASES + 1 + FT_SEATS + (d.active - player + np_) % np_] = 1.0
    out[base + FT_PHASES + 1 + 2 * FT_SEATS] = <float>((<double>d.turn) / <double>t.turn_limit)
    out[base + FT_PHASES + 2 + 2 * FT_SEATS] = <float>((<double>d.deck_n) / <double>C)
    out[base + FT_PHASES + 3 + 2 * FT_SEATS] = <float>cap1(d.deck_gen / 10.0)
    paid = 0
    if d.phase == BT_PAY:
        for c in range(C):
            if bit_has(d.pay_mask, c):
                paid += 1
    out[base + FT_PHASES + 4 + 2 * FT_SEATS] = <float>cap1(paid / 5.0)
    return 0
