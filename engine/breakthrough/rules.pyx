# cython: language_level=3
"""Metro 2033: Breakthrough: the rules mechanics, in C (no GIL, no Python objects).

Dealing, drawing and reshuffling (B1-B3), costs (B2, B4), quests (B5, R2, R3), monsters (B7),
the turn agenda (R7-R17), legal actions, applying an action and the reason an action is illegal.
The state and game classes that call these are in ``state.pyx``; the package docstring says how
the engine is laid out, and ``docs/rules/breakthrough.md`` gives the rules ids cited here.
"""
from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t

from metro_ai.engine.rng cimport rng_t, rng_bounded, rng_shuffle

CARD_TYPES = ("resource", "station", "threat", "caravan", "hero", "faction")
RESOURCE_TYPES = ("welfare", "food", "items", "weapon", "bullets", "equipment")
THREAT_TYPES = ("biological", "mental", "radiative", "physical", "epidemiological", "unknown")
QUEST_CLASSES = ("peaceful", "military", "trade")
CLASSES = ("peaceful", "military")
LINES = ("red_line", "hansa", "polis", "neutral")
LOSSES = ("station", "peaceful_resources", "military_resources", "all_resources")
PHASES = ("main", "quest_hero", "keep_station", "discard3", "draw", "protect", "free_play",
          "lose_station", "over", "quest_pay")
SURVIVAL_OPTIONS = ("full_protection_required", "failed_defence_tokens_down",
                    "quest_tokens_stay_down")



def names_of_bits(tuple_, int mask):
    """The names in `tuple_` whose bit is set in `mask`, sorted."""
    return sorted(tuple_[i] for i in range(len(tuple_)) if (mask >> i) & 1)


cdef void clear_state(BtData* d, const BtTables* t) noexcept nogil:
    cdef int p
    memset(d, 0, sizeof(BtData))
    memset(d.hand, 0, sizeof(d.hand))
    memset(d.market, BT_NONE, BT_MARKET)
    for p in range(BT_MAX_PLAYERS):
        d.above[p] = START_TOKENS if p < t.players else 0
        d.supply[p] = TOKENS_PER_COLOUR - START_TOKENS if p < t.players else 0
    d.turn = 1
    d.winner = -1
    d.todo_draw = -1
    d.phase = BT_MAIN
    d.pay_hero = BT_NONE


cdef void hand_add(BtData* d, int p, int c, int gen) noexcept nogil:
    """Insert c into p's sorted hand (R23); gen = -1 for a known card (R20).

    Memory guard, never taken in a reachable state (a hand never exceeds BT_HAND, B1, and a card
    is only drawn when one is available): no card (c < 0) adds nothing, and a card for a full
    hand goes to the discard pile instead of past the end of the hand, keeping every card in
    exactly one place. The loader refuses the states that could get here."""
    cdef int i = d.hand_n[p]
    if c < 0:
        return
    if i >= BT_HAND:
        if d.disc_n < BT_MAX_CARDS:
            d.disc[d.disc_n] = <unsigned char>c
            d.disc_n += 1
        return
    while i > 0 and d.hand[p][i - 1] > c:
        d.hand[p][i] = d.hand[p][i - 1]
        d.hand_gen[p][i] = d.hand_gen[p][i - 1]
        i -= 1
    d.hand[p][i] = <unsigned char>c
    d.hand_gen[p][i] = gen
    d.hand_n[p] += 1


cdef void hand_remove(BtData* d, int p, int c) noexcept nogil:
    cdef int i, j, n = d.hand_n[p]
    for i in range(n):
        if d.hand[p][i] == c:
            for j in range(i, n - 1):
                d.hand[p][j] = d.hand[p][j + 1]
                d.hand_gen[p][j] = d.hand_gen[p][j + 1]
            d.hand_n[p] = n - 1
            d.hand[p][n - 1] = 0
            d.hand_gen[p][n - 1] = 0
            return


cdef int hand_index(const BtData* d, int p, int c) noexcept nogil:
    cdef int i
    for i in range(d.hand_n[p]):
        if d.hand[p][i] == c:
            return i
    return -1


cdef int draw_from_deck(BtData* d, const BtTables* t) noexcept nogil:
    """The top card of the deck, reshuffling the discard pile sorted ascending (B3); -1 if none."""
    cdef uint64_t mark[3]
    cdef unsigned char pile[BT_MAX_CARDS]
    cdef int i, m, w, c
    cdef uint64_t x
    if d.deck_n == 0:
        if d.disc_n == 0:
            return -1
        mark[0] = mark[1] = mark[2] = 0
        for i in range(d.disc_n):
            bit_set(mark, d.disc[i])
        m = bits_to_ids(mark, pile)
        rng_shuffle(&d.rng, pile, m)
        for i in range(m):
            d.deck[i] = pile[m - 1 - i]
        d.deck_n = m
        d.disc_n = 0
        d.deck_gen += 1
    d.deck_n -= 1
    c = d.deck[d.deck_n]
    d.deck[d.deck_n] = 0
    return c


cdef void fill_market(BtData* d, const BtTables* t) noexcept nogil:
    """R8: fill empty slots in slot order while cards are available."""
    cdef int s, c
    for s in range(BT_MARKET):
        if d.market[s] == BT_NONE:
            c = draw_from_deck(d, t)
            d.market[s] = BT_NONE if c < 0 else <unsigned char>c


cdef bint card_available(const BtData* d) noexcept nogil:
    return d.deck_n > 0 or d.disc_n > 0 or d.market[0] != BT_NONE or \
        d.market[1] != BT_NONE or d.market[2] != BT_NONE


cdef void discard_played(BtData* d, int p, int c) noexcept nogil:
    """Move a played card to the discard pile; station tokens go above (B1 clean-up, B7)."""
    bit_clear(d.tab[p], c)
    bit_clear(d.rot, c)
    d.above[p] += d.tok[c]
    d.tok[c] = 0
    d.disc[d.disc_n] = <unsigned char>c
    d.disc_n += 1


cdef void move_up(BtData* d, int p, int k) noexcept nogil:
    if k > d.below[p]:
        k = d.below[p]
    d.below[p] -= k
    d.above[p] += k


cdef int tokens_held(const BtData* d, int p) noexcept nogil:
    return TOKENS_PER_COLOUR - d.supply[p]


cdef void cost_context(const BtData* d, const BtTables* t, int p, int* free, int* icons,
                        int* lines) noexcept nogil:
    """What B4 costs depend on: free resource types, station icons in play, stations per line."""
    cdef int w, c
    cdef uint64_t x
    free[0] = t.reward[d.faction[p]] if d.fdone[p] else 0
    icons[0] = 0
    lines[0] = lines[1] = lines[2] = lines[3] = 0
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.station_mask[w]
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            icons[0] |= 1 << t.rtype[c]
            lines[t.line[c]] += 1
            if d.tok[c] > 0:
                free[0] |= t.reward[c]


cdef int face_cost(const BtTables* t, int c, int free, int icons, const int* lines) noexcept nogil:
    """B4, R9: the cost of playing c face up."""
    cdef int ct = t.ctype[c], v
    if ct == CT_RESOURCE:
        if (free >> t.rtype[c]) & 1:
            return 0
        v = t.cost[c] - ((icons >> t.rtype[c]) & 1)
    elif ct == CT_STATION:
        v = t.cost[c] - (0 if t.line[c] == 3 else lines[t.line[c]])
    else:
        v = t.cost[c]
    return v if v > 0 else 0


cdef int card_cost(const BtData* d, const BtTables* t, int p, int c, bint rotated) noexcept nogil:
    cdef int free, icons
    cdef int lines[4]
    if rotated:
        return t.pcost[c]
    if t.ctype[c] == CT_HERO:
        return t.cost[c]
    cost_context(d, t, p, &free, &icons, lines)
    return face_cost(t, c, free, icons, lines)


cdef void resource_totals(const BtData* d, const BtTables* t, int p, int* tot) noexcept nogil:
    """Quantity of p's unrotated resources per type."""
    cdef int w, c, i
    cdef uint64_t x
    for i in range(6):
        tot[i] = 0
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            tot[t.rtype[c]] += t.qty[c]


cdef int quest_total(const int* tot, int qcls, int dbl) noexcept nogil:
    cdef int i, s = 0
    for i in range(6):
        if qcls == 2 or class_of(i) == qcls:
            s += tot[i] * (2 if i == dbl else 1)
    return s


cdef bint hero_fits(const BtTables* t, int h, const int* tot, int qcls, int amount) noexcept nogil:
    """R3: hero h may double for the quest."""
    cdef int ty = t.rtype[h]
    return tot[ty] > 0 and (qcls == 2 or class_of(ty) == qcls) and quest_total(tot, qcls, ty) >= amount


cdef bint any_hero_fits(const BtData* d, const BtTables* t, int p, const int* tot, int qcls, int amount) noexcept nogil:
    cdef int w, c
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.hero_mask[w]
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            if hero_fits(t, c, tot, qcls, amount):
                return True
    return False


cdef bint quest_open(const BtData* d, const BtTables* t, int p, int c) noexcept nogil:
    """c has an open quest for p: the face-up faction card, or a station in play without tokens."""
    if c == d.faction[p]:
        return not d.fdone[p]
    return t.ctype[c] == CT_STATION and bit_has(d.tab[p], c) and d.tok[c] == 0


cdef bint quest_ok(const BtData* d, const BtTables* t, int p, int c, const int* tot) noexcept nogil:
    """QUEST c is legal: open, and reachable without a hero or with some hero (R3)."""
    cdef int qc = t.qclass[c], amt = t.qamount[c]
    if not quest_open(d, t, p, c):
        return False
    return quest_total(tot, qc, -1) >= amt or any_hero_fits(d, t, p, tot, qc, amt)


cdef int pay_value(const BtData* d, const BtTables* t, int c) noexcept nogil:
    """R2: the counted quantity of resource c in the pending payment (doubled for the hero's type)."""
    if d.pay_hero != BT_NONE and t.rtype[c] == t.rtype[d.pay_hero]:
        return 2 * t.qty[c]
    return t.qty[c]


cdef int pay_pool(const BtData* d, const BtTables* t, int p, int after, int* ids, int* vals) noexcept nogil:
    """R2: p's unrotated resources of the pending quest's class(es) with ids above `after`,
    ascending, and their counted quantities; returns how many."""
    cdef int qcls = t.qclass[d.pending_card], n = 0, w, c
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            if c > after and (qcls == 2 or t.rclass[c] == qcls):
                ids[n] = c
                vals[n] = pay_value(d, t, c)
                n += 1
    return n


cdef void paid_so_far(const BtData* d, const BtTables* t, int* total, int* least, int* last) noexcept nogil:
    """R2: the counted sum, the smallest counted quantity (0 if none) and the last pick (-1 if
    none) of the resources paid so far."""
    cdef int w, c, v
    cdef uint64_t x
    total[0] = 0
    least[0] = 0
    last[0] = -1
    for w in range(BT_WORDS):
        x = d.pay_mask[w]
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            v = pay_value(d, t, c)
            total[0] += v
            if least[0] == 0 or v < least[0]:
                least[0] = v
            last[0] = c


cdef bint pay_pick_ok(const BtData* d, const BtTables* t, int p, int c) noexcept nogil:
    """R2: paying next with c (above the last pick) leads on to a minimal payment: a set S of the
    picks so far, c and later (larger-id) resources with amount <= sum(S) < amount + min(S).

    Every minimal S is reached once, its cards picked in increasing id order, and the quest is
    paid exactly at its last card (sum(S) - last < amount). With L = amount - (paid + v(c)) > 0
    still to pay, some T of the later cards must bring the sum into [amount, amount + m - 1],
    m = min(S); for each candidate floor w (the smallest counted quantity allowed in T, and the
    least so far) the subset sums of the later cards worth >= w are a 64-bit set (sums stay
    below BT_MAX_QUEST + 2 * BT_MAX_QTY < 64), tested against that window."""
    cdef int ids[BT_MAX_CARDS]
    cdef int vals[BT_MAX_CARDS]
    cdef int amount = t.qamount[d.pending_card], paid, least, last, v, s, m, need, n, i, k, w
    cdef uint64_t reach, window
    paid_so_far(d, t, &paid, &least, &last)
    if c <= last:
        return False
    v = pay_value(d, t, c)
    s = paid + v
    m = v if least == 0 or v < least else least
    if s >= amount:
        return s - m < amount
    need = amount - s
    n = pay_pool(d, t, p, c, ids, vals)
    for i in range(n + 1):
        w = m if i == n else vals[i]
        if w > m:
            continue
        reach = 1
        for k in range(n):
            if vals[k] >= w:
                reach |= reach << vals[k]
        window = (((<uint64_t>1) << w) - 1) << need           # sums need .. need + w - 1
        if reach & window:
            return True
    return False


cdef void pay_with(BtData* d, int p, int c) noexcept nogil:
    discard_played(d, p, c)
    bit_set(d.pay_mask, c)


cdef void start_payment(BtData* d, const BtTables* t, int p, int c, int hero) noexcept nogil:
    """B5, R2, R3: pay for quest c, hero `hero` doubling (or -1). Picks with only one possibility
    are made at once; the player is asked (phase quest_pay) when two or more are possible; once
    the sum reaches the amount the quest is complete."""
    d.pending_card = <unsigned char>c
    d.pay_hero = BT_NONE if hero < 0 else <unsigned char>hero
    memset(d.pay_mask, 0, sizeof(d.pay_mask))
    pay_on(d, t, p)


cdef void pay_on(BtData* d, const BtTables* t, int p) noexcept nogil:
    cdef int ids[BT_MAX_CARDS]
    cdef int vals[BT_MAX_CARDS]
    cdef int paid, least, last, n, i, count, pick
    while True:
        paid_so_far(d, t, &paid, &least, &last)
        if paid >= t.qamount[d.pending_card]:
            break
        n = pay_pool(d, t, p, last, ids, vals)
        count = 0
        pick = -1
        for i in range(n):
            if pay_pick_ok(d, t, p, ids[i]):
                count += 1
                pick = ids[i]
                if count > 1:
                    d.phase = BT_PAY
                    return
        if count == 0:
            break           # unreachable: QUEST and the loader guarantee a payment exists
        pay_with(d, p, pick)
    d.phase = BT_MAIN
    complete_quest(d, t, p)


cdef bint check_win(BtData* d, const BtTables* t) noexcept nogil:
    """B8: a player holding 10 tokens wins at once."""
    cdef int p
    for p in range(t.players):
        if tokens_held(d, p) >= WIN_TOKENS:
            d.winner = p
            game_over(d)
            return True
    return False


cdef void game_over(BtData* d) noexcept nogil:
    d.phase = BT_OVER
    d.decider = -1
    d.todo_draw = -1
    d.todo_monster = 0
    d.todo_refill = 0
    d.todo_next_turn = 0


cdef void complete_quest(BtData* d, const BtTables* t, int p) noexcept nogil:
    """B5, R3, R4, R15: the pending quest is paid; the hero goes too, then the rewards."""
    cdef int c = d.pending_card, i, gained, k, w, s
    cdef uint64_t x
    if d.pay_hero != BT_NONE:
        discard_played(d, p, d.pay_hero)
    d.pay_hero = BT_NONE
    memset(d.pay_mask, 0, sizeof(d.pay_mask))
    gained = 1 + t.extra[c]
    for i in range(gained):                                   # R4
        if d.supply[p] > 0:
            d.supply[p] -= 1
            d.above[p] += 1
    if not t.stay_down:                                       # R15
        d.above[p] += d.below[p]
        d.below[p] = 0
    if c == d.faction[p]:
        d.fdone[p] = 1
        check_win(d, t)
        return
    if check_win(d, t):
        return
    k = 1
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.station_mask[w]
        while x:
            s = w * 64 + ctz(x)
            x &= x - 1
            if d.tok[s] > 0:
                k += 1
    d.phase = BT_KEEP
    d.keep_tokens = k


cdef void play_card(BtData* d, const BtTables* t, int p, int c, bint rotated, bint free) noexcept nogil:
    cdef int cost = 0 if free else card_cost(d, t, p, c, rotated)
    d.above[p] -= cost
    d.below[p] += cost
    hand_remove(d, p, c)
    bit_set(d.tab[p], c)
    if rotated:
        bit_set(d.rot, c)
    d.tok[c] = 0


cdef void renew_market(BtData* d, const BtTables* t) noexcept nogil:
    """B6, R8: discard slots 0, 1, 2 in order, then refill them."""
    cdef int s
    for s in range(BT_MARKET):
        if d.market[s] != BT_NONE:
            d.disc[d.disc_n] = d.market[s]
            d.disc_n += 1
            d.market[s] = BT_NONE
    fill_market(d, t)


cdef bint repels(const BtData* d, const BtTables* t, int p, int threats) noexcept nogil:
    """B7, R12, R13: p has played protection matching the monster (all its icons under B9.1)."""
    cdef int w, c, covered = 0
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = d.tab[p][w] & (t.hero_mask[w] | d.rot[w])
        while x:
            c = w * 64 + ctz(x)
            x &= x - 1
            if t.prot[c] & threats:
                covered |= t.prot[c]
    if not t.full_protection:
        return covered != 0
    return (threats & ~covered) == 0


cdef bint has_station(const BtData* d, const BtTables* t, int p) noexcept nogil:
    return ((d.tab[p][0] & t.station_mask[0]) | (d.tab[p][1] & t.station_mask[1])
            | (d.tab[p][2] & t.station_mask[2])) != 0


cdef void after_loss(BtData* d, const BtTables* t, int p) noexcept nogil:
    if t.tokens_down:                                          # R14
        d.below[p] += d.above[p]
        d.above[p] = 0


cdef void apply_action(BtData* d, const BtTables* t, int a) noexcept nogil:
    """The effect of a legal action (the reference's apply_action)."""
    cdef int n = t.players
    cdef int p = d.decider, block, c, q, k, w, s, ph = d.phase, card
    cdef uint64_t x
    cdef int free, icons
    cdef int lines[4]
    cdef int tot[6]
    block = decode_action(t, a, &c)
    if ph == BT_MAIN:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            play_card(d, t, p, c, block == B_PLAY_ROTATED, False)
            d.main_done = 1
            d.todo_draw = 1                                      # B2, R7
        elif block == B_DISCARD:
            d.main_done = 1
            hand_remove(d, p, c)
            d.disc[d.disc_n] = <unsigned char>c
            d.disc_n += 1
            move_up(d, p, t.move[c])                          # R10
            if t.ctype[c] == CT_CARAVAN:                       # B6, R11
                renew_market(d, t)
                for k in range(n):
                    q = (p + k) % n
                    s = 0
                    for w in range(BT_WORDS):
                        x = d.tab[q][w] & t.station_mask[w]
                        while x:
                            card = w * 64 + ctz(x)
                            x &= x - 1
                            if t.rclass[card] == t.rclass[c]:
                                s += 1
                    if d.fdone[q] and t.rclass[d.faction[q]] == t.rclass[c]:
                        s += 1
                    move_up(d, q, s)
                d.todo_draw = 1
            elif t.ctype[c] == CT_THREAT:                      # B7, R12
                d.todo_monster = 1
                d.mon_card = <unsigned char>c
                d.mon_pos = 0
                d.mon_stage = ST_CHECK
                d.todo_refill = 1
                d.refill_pos = 0
            else:
                d.todo_draw = 1
        elif block == B_DISCARD3:
            d.main_done = 1
            hand_remove(d, p, c)
            d.disc[d.disc_n] = <unsigned char>c
            d.disc_n += 1
            d.phase = BT_DISCARD3
            d.discard_last = <unsigned char>c
            d.discard_left = 2
        elif block == B_CLEANUP:
            discard_played(d, p, c)
        elif block == B_QUEST:
            resource_totals(d, t, p, tot)
            if any_hero_fits(d, t, p, tot, t.qclass[c], t.qamount[c]):
                d.phase = BT_QUEST_HERO
                d.pending_card = <unsigned char>c
            else:
                start_payment(d, t, p, c, -1)
        elif c == O_END_TURN:
            d.main_done = 1
            d.todo_refill = 1                                    # B1, R17
            d.refill_pos = 0
            d.todo_next_turn = 1
    elif ph == BT_QUEST_HERO:
        start_payment(d, t, p, d.pending_card, c if block == B_QUEST_HERO else -1)
    elif ph == BT_PAY:
        pay_with(d, p, c - O_PAY)
        pay_on(d, t, p)
    elif ph == BT_KEEP:
        d.phase = BT_MAIN
        if c == O_KEEP_STATION:
            d.above[p] -= d.keep_tokens
            d.tok[d.pending_card] = d.keep_tokens
        else:
            discard_played(d, p, d.pending_card)
    elif ph == BT_DISCARD3:
        hand_remove(d, p, c)
        d.disc[d.disc_n] = <unsigned char>c
        d.disc_n += 1
        d.discard_last = <unsigned char>c
        d.discard_left -= 1
        if d.discard_left == 0:
            d.phase = BT_MAIN
            d.todo_draw = 3
    elif ph == BT_DRAW:
        if c == O_TAKE_DECK:
            card = draw_from_deck(d, t)
            hand_add(d, p, card, d.deck_gen)
        else:
            card = d.market[c]
            k = draw_from_deck(d, t)
            d.market[c] = BT_NONE if k < 0 else <unsigned char>k
            hand_add(d, p, card, -1)                            # R20: known
        if d.todo_draw > 0:
            d.todo_draw -= 1
    elif ph == BT_PROTECT:
        discard_played(d, p, c)
        d.uncovered &= ~t.prot[c]
        if not t.full_protection or d.uncovered == 0:
            d.mon_stage = ST_FREE
    elif ph == BT_FREE:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            play_card(d, t, p, c, block == B_PLAY_ROTATED, True)
        d.mon_pos += 1
        d.mon_stage = ST_CHECK
    elif ph == BT_LOSE:
        discard_played(d, p, c)
        after_loss(d, t, p)
        d.mon_pos += 1
        d.mon_stage = ST_CHECK


cdef void advance_agenda(BtData* d, const BtTables* t) noexcept nogil:
    """Run pending tasks until a decision is needed (the reference's advance_agenda)."""
    cdef int n = t.players, p, w, c, loss, thr
    cdef uint64_t x
    if d.phase == BT_OVER:
        return
    fill_market(d, t)                                         # R8
    if d.phase == BT_QUEST_HERO or d.phase == BT_PAY or d.phase == BT_KEEP or d.phase == BT_DISCARD3:
        d.decider = d.active
        return
    while True:
        if d.todo_draw >= 0:
            if d.todo_draw > 0 and card_available(d):
                d.phase = BT_DRAW
                d.decider = d.active
                return
            d.todo_draw = -1
        elif d.todo_monster:
            if d.mon_pos >= n:
                d.todo_monster = 0
                continue
            p = (d.active + d.mon_pos) % n
            thr = t.threats[d.mon_card]
            if d.mon_stage == ST_CHECK:
                if repels(d, t, p, thr):
                    d.mon_stage = ST_PROTECT
                    d.pending_card = d.mon_card
                    d.uncovered = <unsigned char>thr
                    d.phase = BT_PROTECT
                    d.decider = p
                    return
                loss = t.loss[d.mon_card]
                if loss == 0:
                    if has_station(d, t, p):
                        d.pending_card = d.mon_card
                        d.phase = BT_LOSE
                        d.decider = p
                        return
                else:
                    for w in range(BT_WORDS):
                        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
                        while x:
                            c = w * 64 + ctz(x)
                            x &= x - 1
                            if loss == 3 or t.rclass[c] + 1 == loss:
                                discard_played(d, p, c)
                after_loss(d, t, p)
                d.mon_pos += 1
            elif d.mon_stage == ST_PROTECT:
                d.phase = BT_PROTECT
                d.decider = p
                return
            else:
                if d.hand_n[p] > 0:
                    d.pending_card = d.mon_card
                    d.phase = BT_FREE
                    d.decider = p
                    return
                d.mon_pos += 1
                d.mon_stage = ST_CHECK
        elif d.todo_refill:
            while d.refill_pos < n and (d.hand_n[(d.active + d.refill_pos) % n] >= BT_HAND
                                        or not card_available(d)):
                d.refill_pos += 1
            if d.refill_pos < n:
                d.phase = BT_DRAW
                d.decider = (d.active + d.refill_pos) % n
                return
            d.todo_refill = 0
            d.refill_pos = 0
        elif d.todo_next_turn:
            d.todo_next_turn = 0
            if d.turn >= t.turn_limit:                         # B8, R18
                game_over(d)
                return
            d.turn += 1
            d.active = (d.active + 1) % n
            d.main_done = 0
        else:
            break
    d.phase = BT_MAIN
    d.decider = d.active


cdef void put_action(int* out, int* n, int a) noexcept nogil:
    out[n[0]] = a
    n[0] += 1


cdef int list_legal(const BtData* d, const BtTables* t, int* out) noexcept nogil:
    """The legal actions, ascending (blocks in order, cards ascending in each)."""
    cdef int C = t.C, fixed = 9 * C, p = d.decider, n = 0, i, c, w, hn, f, above
    cdef int free, icons
    cdef int lines[4]
    cdef int tot[6]
    cdef uint64_t x
    cdef int ids[BT_MAX_CARDS]
    cdef int vals[BT_MAX_CARDS]
    cdef int paid, least, last
    cdef bint fpending
    cdef int ph = d.phase
    if ph == BT_OVER:
        return 0
    hn = d.hand_n[p]
    if ph == BT_MAIN:
        above = d.above[p]
        if not d.main_done:
            cost_context(d, t, p, &free, &icons, lines)
            for i in range(hn):
                c = d.hand[p][i]
                if t.play_ok[c] and face_cost(t, c, free, icons, lines) <= above:
                    put_action(out, &n, B_PLAY * C + c)
            for i in range(hn):
                c = d.hand[p][i]
                if t.rot_ok[c] and t.pcost[c] <= above:
                    put_action(out, &n, B_PLAY_ROTATED * C + c)
            for i in range(hn):
                put_action(out, &n, B_DISCARD * C + d.hand[p][i])
            for i in range(hn - 2):                            # R5: two larger ids must remain
                put_action(out, &n, B_DISCARD3 * C + d.hand[p][i])
        for w in range(BT_WORDS):
            x = d.tab[p][w]
            while x:
                put_action(out, &n, B_CLEANUP * C + w * 64 + ctz(x))
                x &= x - 1
        resource_totals(d, t, p, tot)
        f = d.faction[p]
        fpending = not d.fdone[p]
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.station_mask[w]
            while x:
                c = w * 64 + ctz(x)
                x &= x - 1
                if fpending and f < c:
                    fpending = False
                    if quest_ok(d, t, p, f, tot):
                        put_action(out, &n, B_QUEST * C + f)
                if d.tok[c] == 0 and quest_ok(d, t, p, c, tot):
                    put_action(out, &n, B_QUEST * C + c)
        if fpending and quest_ok(d, t, p, f, tot):
            put_action(out, &n, B_QUEST * C + f)
        if d.main_done or hn == 0:                             # R6
            put_action(out, &n, fixed + O_END_TURN)
    elif ph == BT_QUEST_HERO:
        c = d.pending_card
        resource_totals(d, t, p, tot)
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.hero_mask[w]
            while x:
                i = w * 64 + ctz(x)
                x &= x - 1
                if hero_fits(t, i, tot, t.qclass[c], t.qamount[c]):
                    put_action(out, &n, B_QUEST_HERO * C + i)
        if quest_total(tot, t.qclass[c], -1) >= t.qamount[c]:
            put_action(out, &n, fixed + O_QUEST_NO_HERO)
    elif ph == BT_PAY:
        paid_so_far(d, t, &paid, &least, &last)
        hn = pay_pool(d, t, p, last, ids, vals)
        for i in range(hn):
            if pay_pick_ok(d, t, p, ids[i]):
                put_action(out, &n, fixed + O_PAY + ids[i])
    elif ph == BT_KEEP:
        if d.above[p] >= d.keep_tokens:
            put_action(out, &n, fixed + O_KEEP_STATION)
        put_action(out, &n, fixed + O_DISCARD_STATION)
    elif ph == BT_DISCARD3:
        for i in range(hn):
            c = d.hand[p][i]
            if c > d.discard_last and hn - i - 1 >= d.discard_left - 1:
                put_action(out, &n, B_DISCARD3 * C + c)
    elif ph == BT_DRAW:
        for i in range(BT_MARKET):
            if d.market[i] != BT_NONE:
                put_action(out, &n, fixed + i)
        if d.deck_n > 0 or d.disc_n > 0:
            put_action(out, &n, fixed + O_TAKE_DECK)
    elif ph == BT_PROTECT:
        for w in range(BT_WORDS):
            x = d.tab[p][w] & (t.hero_mask[w] | d.rot[w])
            while x:
                c = w * 64 + ctz(x)
                x &= x - 1
                if t.prot[c] & d.uncovered:
                    put_action(out, &n, B_PROTECT * C + c)
    elif ph == BT_FREE:
        for i in range(hn):
            c = d.hand[p][i]
            if t.play_ok[c]:
                put_action(out, &n, B_PLAY * C + c)
        for i in range(hn):
            c = d.hand[p][i]
            if t.rot_ok[c]:
                put_action(out, &n, B_PLAY_ROTATED * C + c)
        put_action(out, &n, fixed + O_PASS)
    elif ph == BT_LOSE:
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.station_mask[w]
            while x:
                put_action(out, &n, B_LOSE_STATION * C + w * 64 + ctz(x))
                x &= x - 1
    return n


cdef int reason_code(const BtData* d, const BtTables* t, int a) noexcept nogil:
    """Why a (known illegal) action is illegal."""
    cdef int p = d.decider, ph = d.phase, block, c, i
    cdef int tot[6]
    if ph == BT_OVER:
        return R_OVER
    if a < 0 or a >= num_actions(t):
        return R_RANGE
    block = decode_action(t, a, &c)
    if ph == BT_MAIN:
        if block in (B_PLAY, B_PLAY_ROTATED, B_DISCARD, B_DISCARD3):
            if d.main_done:
                return R_MAIN_DONE
            i = hand_index(d, p, c)
            if i < 0:
                return R_NOT_IN_HAND
            if block == B_PLAY:
                return R_CANNOT_PLAY if not t.play_ok[c] else R_COST
            if block == B_PLAY_ROTATED:
                return R_CANNOT_PLAY if not t.rot_ok[c] else R_COST
            return R_HAND_SMALL
        if block == B_CLEANUP:
            return R_NOT_PLAYED
        if block == B_QUEST:
            return R_QUEST
        if block == -1 and c == O_END_TURN:
            return R_END_TURN
        return R_PHASE
    if ph == BT_QUEST_HERO:
        if block == B_QUEST_HERO:
            return R_HERO
        if block == -1 and c == O_QUEST_NO_HERO:
            return R_NO_HERO
        return R_PHASE
    if ph == BT_PAY:
        return R_PAY if block == -1 and c >= O_PAY else R_PHASE
    if ph == BT_KEEP:
        if block == -1 and c == O_KEEP_STATION:
            return R_KEEP
        return R_PHASE
    if ph == BT_DISCARD3:
        if block == B_DISCARD3:
            return R_NOT_IN_HAND if hand_index(d, p, c) < 0 else R_DISCARD3
        return R_PHASE
    if ph == BT_DRAW:
        if block == -1 and c < BT_MARKET:
            return R_SLOT
        if block == -1 and c == O_TAKE_DECK:
            return R_DECK
        return R_PHASE
    if ph == BT_PROTECT:
        return R_PROTECT if block == B_PROTECT else R_PHASE
    if ph == BT_FREE:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            return R_NOT_IN_HAND if hand_index(d, p, c) < 0 else R_CANNOT_PLAY
        return R_PHASE
    if ph == BT_LOSE:
        return R_STATION if block == B_LOSE_STATION else R_PHASE
    return R_PHASE


