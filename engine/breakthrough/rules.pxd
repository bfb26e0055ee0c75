# Metro 2033: Breakthrough (card game): flat C state, rule tables and the rules helpers.
# Rules: docs/rules/breakthrough.md (B1-B9, R1-R24); the reference engine (reference.py) plays
# the same rules in plain Python, and this engine matches it bit for bit. The state and game
# classes are in state.pxd; an expansion cimports the helpers below, e.g.
#     from metro_ai.engine.breakthrough.rules cimport BtData, BtTables, apply_action, list_legal
from libc.stdint cimport uint64_t

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

cdef enum:
    BT_MAX_CARDS = 136         # card ids 0..C-1; a rulebook set has C = 133
    BT_WORDS = 3               # 64-bit words of a card bitmask (192 bits >= BT_MAX_CARDS)
    BT_MAX_PLAYERS = 5
    BT_HAND = 5                # hand size (B1); hands never exceed it
    BT_MARKET = 3
    BT_NONE = 255              # an empty market slot
    BT_MAX_ACTIONS = 320       # >= 4 * 5 hand actions + 2 * BT_MAX_CARDS tableau actions + 9
    BT_MAX_QUEST = 24          # largest quest amount a card set may ask (sums fit 64 bits, R2)
    BT_MAX_QTY = 16            # largest resource quantity a card set may print (same bound, R2)

cdef enum BtPhase:
    BT_MAIN = 0                # active player: free actions, one main action, end turn (B1)
    BT_QUEST_HERO = 1          # choose a hero to double, or none (R3)
    BT_KEEP = 2                # keep the completed station or discard it (B5)
    BT_DISCARD3 = 3            # second and third pick of discard-three (R5)
    BT_DRAW = 4                # take a market card or the top of the deck (B1, B2)
    BT_PROTECT = 5             # give up a protection card against the monster (B7, R13)
    BT_FREE = 6                # the free play after repelling, or pass (B7)
    BT_LOSE = 7                # choose the station lost to the monster (B7)
    BT_OVER = 8
    BT_PAY = 9                 # choose the next resource paying for the quest (B5, R2)

cdef struct BtTables:                      # per game configuration, shared by all its states
    int C                                  # cards in the set (action blocks are multiples of C)
    int players
    int turn_limit                         # B8, R18
    bint full_protection                   # B9.1, R13
    bint tokens_down                       # B9.2, R14
    bint stay_down                         # B9.3, R15
    int nfactions
    int ndeck
    int fixed_factions[5]                  # chosen factions, or -1 (random, R22)
    unsigned char faction_ids[BT_MAX_CARDS]
    unsigned char deck_ids[BT_MAX_CARDS]   # every non-faction card, ascending
    unsigned char ctype[BT_MAX_CARDS]      # 0 resource 1 station 2 threat 3 caravan 4 hero 5 faction
    signed char cost[BT_MAX_CARDS]         # printed cost (resource, station, hero)
    signed char move[BT_MAX_CARDS]         # tokens a DISCARD moves up: cost or value (R10)
    signed char rtype[BT_MAX_CARDS]        # resource type 0-5 (resource; station icon; hero doubles)
    signed char qty[BT_MAX_CARDS]          # resource quantity
    unsigned char prot[BT_MAX_CARDS]       # protection icons (bit per threat type)
    signed char pcost[BT_MAX_CARDS]        # protection cost, -1 when none
    unsigned char threats[BT_MAX_CARDS]    # monster icons (threat cards)
    signed char loss[BT_MAX_CARDS]         # 0 station 1 peaceful 2 military 3 all resources
    signed char line[BT_MAX_CARDS]         # station line 0 red_line 1 hansa 2 polis 3 neutral
    signed char qclass[BT_MAX_CARDS]       # quest class 0 peaceful 1 military 2 trade
    signed char qamount[BT_MAX_CARDS]      # quest amount
    unsigned char reward[BT_MAX_CARDS]     # quest reward types (bit per resource type)
    signed char rclass[BT_MAX_CARDS]       # resource class / reward class / caravan class
    signed char extra[BT_MAX_CARDS]        # extra token (B5)
    bint play_ok[BT_MAX_CARDS]             # can be played face up (resource, station, hero)
    bint rot_ok[BT_MAX_CARDS]              # can be played rotated (resource/threat with icons)
    uint64_t station_mask[3]
    uint64_t resource_mask[3]
    uint64_t hero_mask[3]

cdef struct BtData:                        # the whole state, hidden parts included
    uint64_t rng                           # splitmix64 state, used by reshuffles (B3)
    uint64_t tab[5][3]                     # cards played in front of each player
    uint64_t rot[3]                        # played cards that are rotated (protection)
    int hand_gen[5][5]                         # per hand slot: deck generation of a blind draw,
                                           # -1 if taken from the market (known to all, R20)
    int deck_gen                           # reshuffles so far (R21)
    int turn                               # 1-based turn number (R18)
    unsigned char hand[5][5]               # sorted card ids (R23)
    unsigned char hand_n[5]
    unsigned char deck[BT_MAX_CARDS]       # deck[0:deck_n]; the top card is deck[deck_n - 1]
    unsigned char disc[BT_MAX_CARDS]       # discard pile, oldest first (R24)
    unsigned char deck_n
    unsigned char disc_n
    unsigned char market[3]                # card ids or BT_NONE
    signed char tok[BT_MAX_CARDS]          # tokens on a played station
    signed char above[5]
    signed char below[5]
    signed char supply[5]
    unsigned char faction[5]
    unsigned char fdone[5]                 # faction card face down (quest done)
    signed char active                     # whose turn it is
    signed char decider                    # who decides now (-1 once over)
    signed char phase                      # BtPhase
    signed char main_done                  # the main action of this turn is taken
    signed char winner                     # -1 if none
    unsigned char pending_card                    # pending: quest card / station to keep / threat
    unsigned char pay_hero                 # quest_pay: the hero doubling, or BT_NONE (R3)
    uint64_t pay_mask[3]                   # quest_pay: resources paid so far (discarded, R2)
    signed char keep_tokens                         # keep_station: tokens to place (B5)
    signed char discard_left                      # discard3: picks left
    unsigned char discard_last                    # discard3: last pick
    unsigned char uncovered                   # protect: monster icons not yet covered (R13)
    signed char todo_draw                    # agenda: draw task, cards left; -1 none (R7)
    unsigned char todo_monster                   # agenda: monster attack under way (B7, R12)
    unsigned char mon_card
    unsigned char mon_pos                  # index in the order from the active player
    unsigned char mon_stage                # 0 check, 1 protect, 2 free play
    unsigned char todo_refill                # agenda: refill hands (B1, R17)
    unsigned char refill_pos               # index in the order from the active player
    unsigned char todo_next_turn                  # agenda: next turn

# card types
cdef enum:
    CT_RESOURCE = 0
    CT_STATION = 1
    CT_THREAT = 2
    CT_CARAVAN = 3
    CT_HERO = 4
    CT_FACTION = 5

# action blocks and offsets after 9*C (as in the reference)
cdef enum:
    B_PLAY = 0
    B_PLAY_ROTATED = 1
    B_DISCARD = 2
    B_DISCARD3 = 3
    B_CLEANUP = 4
    B_QUEST = 5
    B_QUEST_HERO = 6
    B_PROTECT = 7
    B_LOSE_STATION = 8
    O_TAKE_DECK = 3
    O_END_TURN = 4
    O_QUEST_NO_HERO = 5
    O_KEEP_STATION = 6
    O_DISCARD_STATION = 7
    O_PASS = 8
    O_PAY = 9                  # 9*C + 9 + c: pay for the pending quest with resource c (R2)

cdef enum:
    ST_CHECK = 0
    ST_PROTECT = 1
    ST_FREE = 2

cdef enum:
    TOKENS_PER_COLOUR = 10     # tokens of each player's colour (B1)
    START_TOKENS = 5           # tokens above the faction card at the start (B1)
    WIN_TOKENS = 10            # tokens held that win the game (B8)

# Reason codes of c_check (texts: state.pyx).
cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_PHASE = 3
    R_NOT_IN_HAND = 4
    R_MAIN_DONE = 5
    R_CANNOT_PLAY = 6
    R_COST = 7
    R_HAND_SMALL = 8
    R_NOT_PLAYED = 9
    R_QUEST = 10
    R_END_TURN = 11
    R_HERO = 12
    R_NO_HERO = 13
    R_KEEP = 14
    R_DISCARD3 = 15
    R_SLOT = 16
    R_DECK = 17
    R_PROTECT = 18
    R_STATION = 19
    R_PAY = 20



# ---- bitset helpers (inline: compiled into every module that cimports them) ----
cdef inline bint bit_has(const uint64_t* m, int c) noexcept nogil:
    return (m[c >> 6] >> (c & 63)) & 1


cdef inline void bit_set(uint64_t* m, int c) noexcept nogil:
    m[c >> 6] |= (<uint64_t>1) << (c & 63)


cdef inline void bit_clear(uint64_t* m, int c) noexcept nogil:
    m[c >> 6] &= ~((<uint64_t>1) << (c & 63))


cdef inline int ctz(uint64_t x) noexcept nogil:
    return __builtin_ctzll(x)


cdef inline int bits_to_ids(const uint64_t* mark, unsigned char* out) noexcept nogil:
    """Write the card ids set in a BT_WORDS-word bitset to `out`, ascending; return how many."""
    cdef int w, m = 0
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = mark[w]
        while x:
            out[m] = <unsigned char>(w * 64 + ctz(x))
            x &= x - 1
            m += 1
    return m


cdef inline int decode_action(const BtTables* t, int a, int* card) noexcept nogil:
    """The one decoding of an action id (B1): ids are block * C + card for the nine blocks of cards
    (B_*), then 9 * C + option (O_*). Returns the block, the card in `card`; for an option, -1
    and the option in `card`."""
    cdef int fixed = 9 * t.C
    if a < fixed:
        card[0] = a % t.C
        return a // t.C
    card[0] = a - fixed
    return -1


cdef inline int num_actions(const BtTables* t) noexcept nogil:
    """Every action is an int in [0, 10*C + 9): nine blocks of C, nine fixed ids, PAY's block."""
    return 9 * t.C + O_PAY + t.C


cdef inline int class_of(int rtype) noexcept nogil:
    return 1 if rtype >= 3 else 0          # welfare, food, items peaceful; the rest military




# ---- the rules helpers (rules.pyx) ----
cdef void clear_state(BtData* d, const BtTables* t) noexcept nogil
# Insert c into p's sorted hand (R23); gen = -1 for a known card (R20). Never writes past
# BT_HAND: a card for a full hand (unreachable) goes to the discard pile instead.
cdef void hand_add(BtData* d, int p, int c, int gen) noexcept nogil
cdef void hand_remove(BtData* d, int p, int c) noexcept nogil
cdef int hand_index(const BtData* d, int p, int c) noexcept nogil
# The top card of the deck, reshuffling the discard pile sorted ascending (B3); -1 if none.
cdef int draw_from_deck(BtData* d, const BtTables* t) noexcept nogil
# R8: fill empty slots in slot order while cards are available.
cdef void fill_market(BtData* d, const BtTables* t) noexcept nogil
cdef bint card_available(const BtData* d) noexcept nogil
# Move a played card to the discard pile; station tokens go above (B1 clean-up, B7).
cdef void discard_played(BtData* d, int p, int c) noexcept nogil
cdef void move_up(BtData* d, int p, int k) noexcept nogil
cdef int tokens_held(const BtData* d, int p) noexcept nogil
cdef void cost_context(const BtData* d, const BtTables* t, int p, int* free, int* icons,
                        int* lines) noexcept nogil
# B4, R9: the cost of playing c face up.
cdef int face_cost(const BtTables* t, int c, int free, int icons, const int* lines) noexcept nogil
cdef int card_cost(const BtData* d, const BtTables* t, int p, int c, bint rotated) noexcept nogil
# Quantity of p's unrotated resources per type.
cdef void resource_totals(const BtData* d, const BtTables* t, int p, int* tot) noexcept nogil
cdef int quest_total(const int* tot, int qcls, int dbl) noexcept nogil
# R3: hero h may double for the quest.
cdef bint hero_fits(const BtTables* t, int h, const int* tot, int qcls, int amount) noexcept nogil
cdef bint any_hero_fits(const BtData* d, const BtTables* t, int p, const int* tot, int qcls, int amount) noexcept nogil
# c has an open quest for p: the face-up faction card, or a station in play without tokens.
cdef bint quest_open(const BtData* d, const BtTables* t, int p, int c) noexcept nogil
# QUEST c is legal: open, and reachable without a hero or with some hero (R3).
cdef bint quest_ok(const BtData* d, const BtTables* t, int p, int c, const int* tot) noexcept nogil
# R2: the counted quantity of resource c in the pending payment (doubled for the hero's type).
cdef int pay_value(const BtData* d, const BtTables* t, int c) noexcept nogil
# R2: p's resources eligible for the pending quest with ids above `after`, ascending, with their
# counted quantities; returns how many.
cdef int pay_pool(const BtData* d, const BtTables* t, int p, int after, int* ids, int* vals) noexcept nogil
# R2: the counted sum, the least counted quantity (0: none) and the last id (-1: none) paid so far.
cdef void paid_so_far(const BtData* d, const BtTables* t, int* total, int* least, int* last) noexcept nogil
# R2: paying next with c keeps the payment on the way to a minimal one.
cdef bint pay_pick_ok(const BtData* d, const BtTables* t, int p, int c) noexcept nogil
# B5, R2, R3: start paying for quest c (hero h doubling, or -1); forced picks are made at once.
cdef void start_payment(BtData* d, const BtTables* t, int p, int c, int hero) noexcept nogil
# R2: pay with c (to the discard pile), then go on as start_payment does.
cdef void pay_with(BtData* d, int p, int c) noexcept nogil
cdef void pay_on(BtData* d, const BtTables* t, int p) noexcept nogil
# B8: a player holding 10 tokens wins at once.
cdef bint check_win(BtData* d, const BtTables* t) noexcept nogil
cdef void game_over(BtData* d) noexcept nogil
# B5, R3, R4, R15: the quest paid, its rewards.
cdef void complete_quest(BtData* d, const BtTables* t, int p) noexcept nogil
cdef void play_card(BtData* d, const BtTables* t, int p, int c, bint rotated, bint free) noexcept nogil
# B6, R8: discard slots 0, 1, 2 in order, then refill them.
cdef void renew_market(BtData* d, const BtTables* t) noexcept nogil
# B7, R12, R13: p has played protection matching the monster (all its icons under B9.1).
cdef bint repels(const BtData* d, const BtTables* t, int p, int threats) noexcept nogil
cdef bint has_station(const BtData* d, const BtTables* t, int p) noexcept nogil
cdef void after_loss(BtData* d, const BtTables* t, int p) noexcept nogil
# The effect of a legal action (the reference's apply_action).
cdef void apply_action(BtData* d, const BtTables* t, int a) noexcept nogil
# Run pending tasks until a decision is needed (the reference's advance_agenda).
cdef void advance_agenda(BtData* d, const BtTables* t) noexcept nogil
cdef void put_action(int* out, int* n, int a) noexcept nogil
# The legal actions, ascending (blocks in order, cards ascending in each).
cdef int list_legal(const BtData* d, const BtTables* t, int* out) noexcept nogil
# Why a (known illegal) action is illegal.
cdef int reason_code(const BtData* d, const BtTables* t, int a) noexcept nogil
