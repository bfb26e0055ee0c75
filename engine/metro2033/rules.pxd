# Metro 2033 (board game): the C declarations every module of the fast engine shares. The map as
# flat tables and the path rules over it (G6, G11, G12, G22, G23; rules.pyx, checked against
# board.py by tests/metro2033/test_metro2033_rules.py); then the state as flat C structs: the action blocks,
# phases and agenda tasks, the compiled card set (Tables, built by cardset.pyx) and the whole game
# (Data, played by machine.pyx). Rules: docs/rules/metro2033.md.
from libc.stdint cimport uint64_t

cdef enum:
    M33_STATIONS = 78           # G1
    M33_MAX_DEGREE = 8          # links at one station (the map has at most 5)
    M33_PIGS = 0                # station kinds: the three resources, then the rest
    M33_MUSHROOMS = 1
    M33_BULLETS = 2
    M33_HANSA = 3
    M33_ABANDONED = 4
    M33_POLIS = 5
    M33_TUNNEL = 0              # link kinds
    M33_TRANSFER = 1
    M33_MAX_ZONES = 7           # zones of the map (G6); closed-zone masks are below 1 << 7

ctypedef unsigned long long m33_word

cdef struct M33Map:                      # the map, read once from board.py's data
    int n                                # stations
    signed char deg[78]                  # links at each station
    signed char nbr[78][8]               # the stations linked, ascending
    signed char link[78][8]              # M33_TUNNEL or M33_TRANSFER
    signed char kind[78]                 # M33_PIGS .. M33_POLIS
    signed char zone[78]                 # index into Metro2033Map.zones
    # precomputed once per map (Metro2033Map.__init__), so that the path rules are table look-ups
    # and bit operations; the map's stations as 2 x 64-bit masks (station i: word i >> 6, bit i & 63)
    m33_word zone_bits[7][2]             # the stations of each zone
    m33_word passable_kind[2]            # Polis and Hansa stations (G11, G23: passed when neutral)
    m33_word nbr_free[78][2]             # the stations linked to i but by a Hansa-Hansa tunnel
    m33_word nbr_hansa[78][2]            # the Hansa stations linked to Hansa station i by a tunnel
    unsigned char dist[128][78][78]      # G12: links from i to j, zones of the mask out of play; 255 none


cdef int m33_army_reach(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                        signed char* out) noexcept nogil
cdef void m33_army_reach_bits(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                             m33_word* reached) noexcept nogil
cdef int m33_bits_list(const m33_word* bits, signed char* out) noexcept nogil
cdef int m33_army_targets(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                          signed char* out) noexcept nogil
cdef int m33_hero_reach(const M33Map* m, int start, int speed, unsigned int closed,
                        signed char* out) noexcept nogil


cdef class Metro2033Map:
    cdef M33Map m
    cdef readonly tuple zones            # zone names, in the order of M33Map.zone
    cdef int _precompute(self) except -1
    cdef unsigned int _closed_mask(self, object closed_zones) except? 0
    cdef int _owners(self, object owner, int player, signed char* own) except -1


# ---------------------------------------------------------------- the state as C structs
cdef enum:
    MAXC = 128          # cards in a set
    MAXQ = 128          # quests a player holds (every quest of a set, at most)
    MAXE = 8            # equipment a hero carries (at most 3, plus one over before a discard)
    MAXT = 512          # agenda tasks
    MAX_LEGAL = 640     # >= num_distinct_actions (A_CARD + 3 * MAXC + 12): legal-action buffers

cdef enum:
    S = 78
    A_STATION = 0
    A_STATION_HERO = 78
    A_FACTION = 156
    A_HERO = 162
    A_PLAYER = 168
    A_RESOURCE = 174
    A_COUNT = 177
    A_CARD = 213
    YES = 0
    NO = 1
    ARMYF = 2
    HEROF = 3
    BUY = 4
    QUEST = 5
    EXCHANGE = 6
    SCOUT = 7
    ATTACK = 8
    PASS = 9
    REFRESH = 10
    DONE = 11
    K_EQUIPMENT = 0       # deck keys
    K_QUEST = 1
    K_LAW = 2
    K_THREAT1 = 3
    K_THREAT2 = 4
    T_FACTION = 0         # card types
    T_HERO = 1
    T_THREAT = 2
    T_EQUIPMENT = 3
    T_QUEST = 4
    T_LAW = 5
    T_COMBAT = 6

cdef enum:
    P_NONE, P_DRAFT_FACTION, P_DRAFT_HERO, P_PLACE_HERO, P_POLIS_RES, P_LAW_PEEK, P_VOTE, P_DECLARE
    P_SCOUT_RETURN, P_ARTYOM, P_CAPTURE, P_FREE_STATION, P_DEFENDER, P_COMBAT_PICK, P_TAKE_EQ
    P_STRIP_EQ, P_DISCARD_EQ, P_HIRE, P_ARMY, P_HERO_MOVE, P_HERO_ACT, P_BUY
    P_QUEST_KEEP, P_EX_FROM, P_EX_TO, P_EX_AMOUNT, P_STAGE2_EQ, P_LAW_LOOK, P_UPKEEP, P_QUEST_COMPLETE
    P_OVER
    P_COUNT             # how many phases (not a phase): machine.pyx's phase table has a row for each
cdef enum:
    J_DRAFT_FACTION, J_DRAFT_HERO, J_SETUP, J_PLACE_HERO, J_ROUND_START, J_PRODUCE, J_POLIS_RES
    J_LAW_EVENT, J_VOTE, J_LAW_RESULT, J_DECLARE, J_THREAT_REVEAL, J_THREAT_FIGHT, J_THREAT_DONE
    J_MOBILISE, J_ARMY, J_HERO, J_HERO_ACT, J_NEUTRAL_ATTACK, J_NEUTRAL_FIGHT, J_CAPTURE
    J_FREE_STATION, J_DEFENDER, J_COMBAT_DEAL, J_COMBAT_PICK, J_COMBAT_RESOLVE, J_TAKE_EQ
    J_STRIP_EQ, J_DISCARD_EQ, J_BUY, J_EX_FROM, J_EX_TO, J_EX_AMOUNT, J_STAGE2_EQ, J_END_ROUND
    J_QUEST_CHECK, J_QUEST_OFFER
    J_COUNT             # how many tasks (not a task): machine.pyx's task table has a row for each

# G8: the round track (resource bits 1, 2, 4; law 8; threat 16), START first

cdef struct Task:
    signed char name
    short a
    short b
    short c


cdef struct Tables:                      # the card set, compiled (see _Tables)
    int C
    signed char ctype[MAXC]
    signed char stage[MAXC]
    signed char ttype[MAXC]              # threat type 0..2
    signed char strength[MAXC]           # threat or hero printed strength
    signed char speed[MAXC]              # hero printed speed
    int spd[MAXC]                        # speed bonus of the card's effects
    int hb[MAXC][3][4]                   # hero/equipment: when (none, attack, defence) x vs (none, 3 types)
    int fb[MAXC][2][3]                   # faction/law: who (army, hero) x when, plain entries
    int cb[MAXC][4]                      # combat card: vs (none, attack, defence, manoeuvre)
    signed char ctyp[MAXC]               # combat type 0..2
    int gain[MAXC][4]                    # pigs, mushrooms, bullets, army gained (reward, bonus, property)
    signed char zone[MAXC]               # faction: zone index of the map
    signed char home[MAXC][3]
    signed char votes[MAXC]
    signed char win_vp[MAXC]             # -1: none
    signed char ties[MAXC]               # bits: army attack 1, army defence 2, hero attack 4, hero defence 8
    signed char peek[MAXC]
    signed char threat_choice[MAXC]
    signed char forage[MAXC]             # -1: none
    signed char upkeep_free[MAXC]        # -1: none
    signed char no_hero_fights[MAXC]
    signed char capture_cost[MAXC][3]
    signed char cond[MAXC]               # quest condition id (equal conditions, equal ids)
    signed char cond_kind[MAXC]          # stations, resources, army, polis, equipment, zones
    signed char cond_count[MAXC]
    signed char cond_res[MAXC]
    signed char factions[6]
    signed char heroes[6]
    int nheroes
    signed char by_type[7][MAXC]
    int n_type[7]
    int border[8]                        # zone -> mask of bordering zones (G6)
    int polis[4]


cdef struct Data:                        # the whole state, hidden parts included
    int n
    uint64_t rng
    signed char deck[5][MAXC]
    int deck_n[5]
    signed char disc[5][MAXC]
    int disc_n[5]
    signed char out[MAXC]
    int out_n
    signed char market[4]
    signed char law
    signed char known[MAXC]              # players who know the card at its deck place (bit mask)
    signed char owner[78]
    signed char faction[6]
    signed char hero[6]
    signed char hero_at[6]
    signed char wounded[6]
    int vp[6]
    int army[6]
    int res[6][3]
    signed char equip[6][MAXE]
    int equip_n[6]
    signed char quests[6][MAXQ]
    int quest_n[6]
    signed char done[6][MAXQ]
    int done_n[6]
    signed char used[6][MAXQ]
    int used_n[6]
    signed char scouted[6]
    int scouted_round[6]
    signed char decl_station[6]          # -1: not declared
    signed char decl_hero[6]
    signed char threat_now
    bint combat_on
    signed char hand[2][8]
    int hand_n[2]
    signed char aside[MAXC]
    int aside_n
    signed char pick[2]
    int cx_kind                          # 0 station, 1 hero
    int cx_side[2]                       # attacker, defender
    int cx_who[2]                        # 0 army, 1 hero
    int cx_station
    bint vote_on
    int vote_law
    int vote_for
    int vote_against
    bint last_vote_on
    int last_vote[3]
    int last_threat
    int round
    int first
    int stage
    bint over
    int winner
    int phase
    int decider
    signed char pd_cards[2]
    int pd_ncards
    int pd_votes, pd_max, pd_side, pd_who, pd_station, pd_taken, pd_from, pd_to
    int pd_bought, pd_refreshed, pd_forced, pd_amount, pd_resmask
    Task ag[MAXT]
    int ag_n
