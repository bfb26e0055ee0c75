# Metro 2033: Breakthrough (card game): flat C state and rule tables.
# Rules: shared/rules/breakthrough.md (B1-B9) and the decisions R1-R24 of the reference engine
# (tests/reference/breakthrough_ref.py), which this engine matches bit for bit.
from libc.stdint cimport uint64_t
from .core cimport GameState

cdef enum:
    BT_MAX_CARDS = 136         # card ids 0..C-1; a rulebook set has C = 133
    BT_WORDS = 3               # 64-bit words of a card bitmask (192 bits >= BT_MAX_CARDS)
    BT_MAX_PLAYERS = 5
    BT_HAND = 5                # hand size (B1); hands never exceed it
    BT_MARKET = 3
    BT_NONE = 255              # an empty market slot
    BT_MAX_ACTIONS = 320       # >= 4 * 5 hand actions + 2 * BT_MAX_CARDS tableau actions + 9
    BT_MAX_QUEST = 24          # largest quest amount a card set may ask (DP bound, R2)
    BT_MAX_QTY = 16            # largest resource quantity a card set may print (DP bound, R2)

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
    int hgen[5][5]                         # per hand slot: deck generation of a blind draw,
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
    unsigned char pcard                    # pending: quest card / station to keep / threat
    signed char pk                         # keep_station: tokens to place (B5)
    signed char pleft                      # discard3: picks left
    unsigned char plast                    # discard3: last pick
    unsigned char puncov                   # protect: monster icons not yet covered (R13)
    signed char ag_draw                    # agenda: draw task, cards left; -1 none (R7)
    unsigned char ag_mon                   # agenda: monster attack under way (B7, R12)
    unsigned char mon_card
    unsigned char mon_pos                  # index in the order from the active player
    unsigned char mon_stage                # 0 check, 1 protect, 2 free play
    unsigned char ag_refill                # agenda: refill hands (B1, R17)
    unsigned char refill_pos               # index in the order from the active player
    unsigned char ag_next                  # agenda: next turn

cdef class BreakthroughState(GameState):
    cdef BtData d
    cdef const BtTables* t
