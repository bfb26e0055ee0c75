# cython: language_level=3
# Why one module of about 1,400 lines: the state machine is one family of nogil functions over
# ``Machine`` that call one another (the agenda runner, legal actions and applying an action step
# through the same phases), the ones other modules call declared in machine.pxd; it holds the
# rules G1-G38 and nothing else. Issue #42 splits it by part of the round once the phases are one
# table (legal and do side by side); until then a split would cut each phase's three switches apart.
"""Metro 2033 (board game): the state machine in C.

``Machine`` (``machine.pxd``): the flat C state ``Data`` (``rules.pxd``) with the card tables it
plays with. The ``m33_*`` functions are the whole game of the reference engine (``reference.py``,
rules G1-G36) over it: the same decisions, the same action ids, the same draws from the same
splitmix64 stream, so that the differential tests can compare the two after every action.
``m33_init`` points a machine at a compiled card set (``cardset.pyx``), ``m33_new`` deals,
``m33_legal`` / ``m33_do`` / ``m33_advance`` play, ``m33_determinize`` redeals exactly as the
reference does. The module has no Python face of its own: the contract's game and state
(``state.pyx``) hold a ``Machine`` by value and are the only way in from Python.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.rng cimport rng_t, rng_bounded
from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.cardset cimport CardTables

# Every phase's name beside its enum (rules.pxd, P_*): PHASES is built from these pairs in the
# enums' order, and a name missing or given twice stops the import (_by_value), so the tuple
# cannot drift from the enum (issue #42).
_PHASE_NAMES = (
    (P_NONE, "none"), (P_DRAFT_FACTION, "draft_faction"), (P_DRAFT_HERO, "draft_hero"),
    (P_PLACE_HERO, "place_hero"), (P_POLIS_RES, "polis_res"), (P_LAW_PEEK, "law_peek"),
    (P_VOTE, "vote"), (P_DECLARE, "declare"), (P_SCOUT_RETURN, "scout_return"),
    (P_ARTYOM, "artyom"), (P_CAPTURE, "capture"), (P_FREE_STATION, "free_station"),
    (P_DEFENDER, "defender"), (P_COMBAT_PICK, "combat_pick"), (P_TAKE_EQ, "take_equipment"),
    (P_STRIP_EQ, "strip_equipment"), (P_DISCARD_EQ, "discard_equipment"), (P_HIRE, "hire"),
    (P_ARMY, "army"), (P_HERO_MOVE, "hero_move"), (P_HERO_ACT, "hero_act"), (P_BUY, "buy"),
    (P_QUEST_KEEP, "quest_keep"), (P_EX_FROM, "exchange_from"), (P_EX_TO, "exchange_to"),
    (P_EX_AMOUNT, "exchange_amount"), (P_STAGE2_EQ, "stage2_equipment"), (P_LAW_LOOK, "law_look"),
    (P_UPKEEP, "upkeep"), (P_QUEST_COMPLETE, "quest_complete"), (P_OVER, "over"),
)


def _by_value(rows, what):
    """`rows` ((enum value, name, ...), ...) sorted by value, checked to number 0..n-1 once each."""
    values = sorted(row[0] for row in rows)
    if values != list(range(len(rows))):
        raise ImportError(f"metro2033 machine: the {what} table does not number its enums "
                          f"0..{len(rows) - 1} once each")
    return sorted(rows)


PHASES = tuple(name for _, name in _by_value(_PHASE_NAMES, "phase"))

# G8: the round track (resource bits 1, 2, 4; law 8; threat 16), START first
TRACK_EVENTS = (1 | 2 | 4, 2 | 1, 8 | 4, 16, 2 | 4, 8 | 1, 16, 1 | 4, 8 | 2, 16)
cdef int TRACK[10]
for _i, _v in enumerate(TRACK_EVENTS):
    TRACK[_i] = _v

# Every task's name and arguments beside its enum (rules.pxd, J_*), as the phases. The arguments:
# p a player, s a station, w army/hero (0/1), b 0/1, m a resource mask 0..7, k an amount 1..2, r
# a resource 0..2; unused arguments are 0.
_TASKS = _by_value((
    (J_DRAFT_FACTION, "draft_faction", "p"), (J_DRAFT_HERO, "draft_hero", "p"),
    (J_SETUP, "setup", ""), (J_PLACE_HERO, "place_hero", "p"), (J_ROUND_START, "round_start", ""),
    (J_PRODUCE, "produce", "mk"), (J_POLIS_RES, "polis_res", "pmk"),
    (J_LAW_EVENT, "law_event", ""), (J_VOTE, "vote", "p"), (J_LAW_RESULT, "law_result", ""),
    (J_DECLARE, "declare", "p"), (J_THREAT_REVEAL, "threat_reveal", ""),
    (J_THREAT_FIGHT, "threat_fight", "p"), (J_THREAT_DONE, "threat_done", ""),
    (J_MOBILISE, "mobilise", "p"), (J_ARMY, "army", "p"), (J_HERO, "hero", "p"),
    (J_HERO_ACT, "hero_act", "p"), (J_NEUTRAL_ATTACK, "neutral_attack", "pws"),
    (J_NEUTRAL_FIGHT, "neutral_fight", "pws"), (J_CAPTURE, "capture", "psb"),
    (J_FREE_STATION, "free_station", "p"), (J_DEFENDER, "defender", "p"),
    (J_COMBAT_DEAL, "combat_deal", ""), (J_COMBAT_PICK, "combat_pick", "b"),
    (J_COMBAT_RESOLVE, "combat_resolve", ""), (J_TAKE_EQ, "take_equipment", "ppb"),
    (J_STRIP_EQ, "strip_equipment", "ppb"), (J_DISCARD_EQ, "discard_equipment", "p"),
    (J_BUY, "buy", "pbb"), (J_EX_FROM, "exchange_from", "p"), (J_EX_TO, "exchange_to", "pr"),
    (J_EX_AMOUNT, "exchange_amount", "prr"), (J_STAGE2_EQ, "stage2_equipment", "p"),
    (J_END_ROUND, "end_round", ""), (J_QUEST_CHECK, "quest_check", ""),
    (J_QUEST_OFFER, "quest_offer", "p"),
), "task")
TASK_NAMES = tuple(row[1] for row in _TASKS)
TASK_ARGS = tuple(row[2] for row in _TASKS)
HIDDEN_PENDING = (P_LAW_PEEK, P_ARTYOM, P_QUEST_KEEP, P_STAGE2_EQ)
DECK_KEYS = ("equipment", "quest", "law", "threat1", "threat2")

cdef Metro2033Map MAP = Metro2033Map()
THE_MAP = MAP                                    # the map's tables, for the loader's checks


cdef int m33_init(Machine* m, CardTables tab, int round_limit) except -1:
    """Point `m` at the compiled card set `tab` (which must outlive it) with the round limit
    (G30) and the first ids of the action blocks after the cards; the game itself is zeroed
    (``m33_new`` deals one)."""
    if round_limit < 1:
        raise ValueError(f"round_limit must be >= 1, got {round_limit}")
    memset(m, 0, sizeof(Machine))
    m.t = &tab.t
    m.round_limit = round_limit
    m.COMPLETE = A_CARD + tab.t.C
    m.USE = A_CARD + 2 * tab.t.C
    m.FIXED = A_CARD + 3 * tab.t.C
    return 0

# ---------------------------------------------------------------- setup
cdef void m33_shuffle(Machine* m, signed char* a, int n) noexcept nogil:
    cdef int i, j
    cdef signed char x
    for i in range(n - 1, 0, -1):
        j = <int>rng_bounded(&m.d.rng, <uint64_t>(i + 1))
        x = a[i]
        a[i] = a[j]
        a[j] = x

cdef void m33_new(Machine* m, int n, uint64_t seed) noexcept nogil:
    cdef Tables* t = m.t
    cdef Data* d = &m.d
    cdef int k, i, c, p, ty
    cdef int kinds[5]
    kinds[0], kinds[1], kinds[2], kinds[3], kinds[4] = T_EQUIPMENT, T_QUEST, T_LAW, T_THREAT, T_THREAT
    memset(d, 0, sizeof(Data))
    d.n = n
    d.rng = seed
    # G5: equipment, quest, law, stage-1 threats, stage-2 threats, each from sorted ids
    for k in range(5):
        ty = kinds[k]
        d.deck_n[k] = 0
        for i in range(t.n_type[ty]):
            c = t.by_type[ty][i]
            if ty != T_THREAT or t.stage[c] == k - 2:
                d.deck[k][d.deck_n[k]] = c
                d.deck_n[k] += 1
        m33_shuffle(m, d.deck[k], d.deck_n[k])
    for i in range(4):
        d.market[i] = m33_pop(m, K_EQUIPMENT)
    d.law = -1
    for i in range(S):
        d.owner[i] = -1
    for i in range(MAXC):
        d.known[i] = 0
    for p in range(n):
        d.faction[p] = d.hero[p] = d.hero_at[p] = -1
        d.scouted[p] = -1
        d.decl_station[p] = -1
    d.threat_now = -1
    d.last_threat = -1
    d.winner = -1
    d.stage = 1
    d.phase = P_NONE
    # agenda (a stack: its end is the front)
    m33_task(m, J_ROUND_START, 0, 0, 0)
    for p in range(n - 1, -1, -1):
        m33_task(m, J_PLACE_HERO, p, 0, 0)
    m33_task(m, J_SETUP, 0, 0, 0)
    for p in range(n):
        m33_task(m, J_DRAFT_HERO, p, 0, 0)
    for p in range(n - 1, -1, -1):
        m33_task(m, J_DRAFT_FACTION, p, 0, 0)
    m33_advance(m)

cdef void m33_task(Machine* m, int name, int a, int b, int c) noexcept nogil:
    """Put a task at the front of the agenda (push several in reverse order)."""
    cdef Task* x
    if m.d.ag_n >= MAXT:           # never in a game the loader accepts: end it, write nothing
        m.d.over = True
        return
    x = &m.d.ag[m.d.ag_n]
    x.name = name
    x.a = a
    x.b = b
    x.c = c
    m.d.ag_n += 1

# ---------------------------------------------------------------- decks
cdef int m33_pop(Machine* m, int key) noexcept nogil:
    cdef Data* d = &m.d
    cdef int i, c
    if d.deck_n[key] == 0:
        return -1
    c = d.deck[key][0]
    for i in range(d.deck_n[key] - 1):
        d.deck[key][i] = d.deck[key][i + 1]
    d.deck_n[key] -= 1
    d.known[c] = 0
    return c

cdef int m33_draw(Machine* m, int key) noexcept nogil:
    """G19: the top card; an empty deck takes its discard pile, sorted and shuffled."""
    cdef Data* d = &m.d
    cdef int i
    if d.deck_n[key] == 0 and key != K_LAW and d.disc_n[key] > 0:
        _sort(d.disc[key], d.disc_n[key])
        for i in range(d.disc_n[key]):
            d.deck[key][i] = d.disc[key][i]
        d.deck_n[key] = d.disc_n[key]
        d.disc_n[key] = 0
        m33_shuffle(m, d.deck[key], d.deck_n[key])
    return m33_pop(m, key)

cdef void m33_under(Machine* m, int key, int c, int mask) noexcept nogil:
    m.d.deck[key][m.d.deck_n[key]] = c
    m.d.deck_n[key] += 1
    if mask:
        m.d.known[c] = mask

cdef void m33_on_top(Machine* m, int key, int c, int mask) noexcept nogil:
    cdef int i
    for i in range(m.d.deck_n[key], 0, -1):
        m.d.deck[key][i] = m.d.deck[key][i - 1]
    m.d.deck[key][0] = c
    m.d.deck_n[key] += 1
    m.d.known[c] = mask

cdef void m33_discard(Machine* m, int c) noexcept nogil:
    cdef Tables* t = m.t
    cdef Data* d = &m.d
    cdef int key
    if t.ctype[c] == T_THREAT:
        if t.stage[c] != d.stage:
            d.out[d.out_n] = c
            d.out_n += 1
            return
        key = K_THREAT1 if t.stage[c] == 1 else K_THREAT2
    else:
        key = K_EQUIPMENT if t.ctype[c] == T_EQUIPMENT else K_QUEST
    d.disc[key][d.disc_n[key]] = c
    d.disc_n[key] += 1

cdef int m33_tkey(Machine* m) noexcept nogil:
    return K_THREAT1 if m.d.stage == 1 else K_THREAT2

cdef void m33_refill_market(Machine* m) noexcept nogil:
    cdef int i
    for i in range(4):
        if m.d.market[i] < 0:
            m.d.market[i] = m33_draw(m, K_EQUIPMENT)

# ---------------------------------------------------------------- helpers
cdef int m33_order(Machine* m, int i) noexcept nogil:
    return (m.d.first + i) % m.d.n

cdef int m33_stations(Machine* m, int p, signed char* out) noexcept nogil:
    cdef int s, k = 0
    for s in range(S):
        if m.d.owner[s] == p:
            if out != NULL:
                out[k] = s
            k += 1
    return k

cdef unsigned int m33_closed(Machine* m) noexcept nogil:
    cdef int p
    cdef unsigned int chosen = 0, all_ = 0
    cdef int z
    for p in range(m.d.n):
        if m.d.faction[p] < 0:
            return 0
        chosen |= 1u << m.t.zone[m.d.faction[p]]
    for z in range(6):
        all_ |= 1u << m.t.zone[m.t.factions[z]]
    return all_ & ~chosen

cdef int m33_amount_fl(Machine* m, int p, int which, int default) noexcept nogil:
    """G35: the largest amount of the faction's and the law's effect (forage 0, upkeep 1)."""
    cdef int best = -1, v, c, i
    for i in range(2):
        c = m.d.faction[p] if i == 0 else m.d.law
        if c >= 0:
            v = m.t.forage[c] if which == 0 else m.t.upkeep_free[c]
            if v > best:
                best = v
    return best if best >= 0 else default

cdef int m33_win_vp(Machine* m, int p) noexcept nogil:
    cdef int v = m.t.win_vp[m.d.faction[p]]
    return v if v >= 0 else 10

cdef int m33_limit(Machine* m) noexcept nogil:
    return 2 if m.d.stage == 1 else 3

cdef int m33_speed(Machine* m, int p) noexcept nogil:
    cdef Tables* t = m.t
    cdef int h = m.d.hero[p], v, i
    v = t.speed[h] + t.spd[h] + t.spd[m.d.faction[p]]
    if m.d.law >= 0:
        v += t.spd[m.d.law]
    for i in range(m.d.equip_n[p]):
        v += t.spd[m.d.equip[p][i]]
    return v if v > 0 else 0

cdef int m33_fl_bonus(Machine* m, int p, int who, int when) noexcept nogil:
    cdef int v = m.t.fb[m.d.faction[p]][who][when]
    if m.d.law >= 0:
        v += m.t.fb[m.d.law][who][when]
    return v

cdef int m33_army_strength(Machine* m, int p, int when) noexcept nogil:
    return m.d.army[p] + m33_fl_bonus(m, p, 0, when)

cdef int m33_hero_strength(Machine* m, int p, int when, int vs) noexcept nogil:
    cdef Tables* t = m.t
    cdef int h = m.d.hero[p], v, i
    v = t.strength[h] + t.hb[h][when][vs]
    for i in range(m.d.equip_n[p]):
        v += t.hb[m.d.equip[p][i]][when][vs]
    return v + m33_fl_bonus(m, p, 1, when)

cdef bint m33_wins_ties(Machine* m, int p, int who, int when) noexcept nogil:
    cdef int bit = (1 if when == 1 else 2) << (2 * who)
    cdef int ties = m.t.ties[m.d.faction[p]]
    if m.d.law >= 0:
        ties |= m.t.ties[m.d.law]
    if who == 1:
        ties |= m.t.ties[m.d.hero[p]]
    return (ties & bit) != 0

cdef int m33_outcome(Machine* m, int a, int b, bint at, bint bt) noexcept nogil:
    if a != b:
        return 1 if a > b else -1
    if at != bt:
        return 1 if at else -1
    return 0

cdef void m33_gain(Machine* m, int p, int c) noexcept nogil:
    cdef int r
    for r in range(3):
        m.d.res[p][r] = min(35, m.d.res[p][r] + m.t.gain[c][r])
    m.d.army[p] = min(8, m.d.army[p] + m.t.gain[c][3])

cdef void m33_capture(Machine* m, int p, int s) noexcept nogil:
    m.d.owner[s] = p
    m.d.vp[p] += 1

cdef int m33_free_options(Machine* m, int p, signed char* out) noexcept nogil:
    """G15, G28: the neutral producing stations of p's zone in play, else anywhere in play."""
    cdef unsigned int closed = m33_closed(m)
    cdef int s, k = 0, kz = 0, zone = m.t.zone[m.d.faction[p]]
    cdef signed char allst[78]
    cdef signed char own[78]
    for s in range(S):
        if m.d.owner[s] < 0 and MAP.m.kind[s] < 3 and not (closed & (1u << MAP.m.zone[s])):
            allst[k] = s
            k += 1
            if MAP.m.zone[s] == zone:
                own[kz] = s
                kz += 1
    if kz:
        for s in range(kz):
            out[s] = own[s]
        return kz
    for s in range(k):
        out[s] = allst[s]
    return k

cdef void m33_lose(Machine* m, int p, int s) noexcept nogil:
    """G15: never fewer than 3 stations: left with 2 or fewer (fewer when an earlier loss
    found no free station, G28), p takes a neutral one free."""
    cdef signed char tmp[78]
    m.d.owner[s] = -1
    m.d.vp[p] -= 1
    if m33_stations(m, p, NULL) <= 2 and m33_free_options(m, p, tmp) > 0:
        m33_task(m, J_FREE_STATION, p, 0, 0)

cdef void m33_capture_cost(Machine* m, int taken, int* cost) noexcept nogil:
    cdef int r
    cost[0] = 0 if taken else 1
    cost[1] = 1
    cost[2] = 0
    if m.d.law >= 0:
        for r in range(3):
            cost[r] += m.t.capture_cost[m.d.law][r]

cdef void m33_offer_capture(Machine* m, int p, int s, int taken) noexcept nogil:
    cdef int cost[3]
    m33_capture_cost(m, taken, cost)
    if m.d.res[p][0] >= cost[0] and m.d.res[p][1] >= cost[1] and m.d.res[p][2] >= cost[2]:
        m33_task(m, J_CAPTURE, p, s, taken)

cdef void m33_wound(Machine* m, int p) noexcept nogil:
    """G25: to the first home station still held, else the first station held."""
    cdef int k, h, f = m.d.faction[p]
    cdef signed char held[78]
    cdef int nh = m33_stations(m, p, held)
    for k in range(3):
        h = m.t.home[f][k]
        if m.d.owner[h] == p:
            m.d.hero_at[p] = h
            m.d.wounded[p] = 1
            return
    m.d.hero_at[p] = held[0] if nh else m.t.home[f][0]
    m.d.wounded[p] = 1

cdef void m33_gain_equipment(Machine* m, int p, int c) noexcept nogil:
    m.d.equip[p][m.d.equip_n[p]] = c
    m.d.equip_n[p] += 1
    _sort(m.d.equip[p], m.d.equip_n[p])
    if m.d.equip_n[p] > m33_limit(m):
        m33_task(m, J_DISCARD_EQ, p, 0, 0)

cdef bint m33_quest_ok(Machine* m, int p, int c) noexcept nogil:
    cdef Tables* t = m.t
    cdef int i, k, count = t.cond_count[c], s
    cdef unsigned int zones = 0
    for i in range(m.d.done_n[p]):
        if t.cond[m.d.done[p][i]] == t.cond[c]:
            return False
    k = t.cond_kind[c]
    if k == 0:
        return m33_stations(m, p, NULL) >= count
    if k == 1:
        return m.d.res[p][t.cond_res[c]] >= count
    if k == 2:
        return m.d.army[p] >= count
    if k == 3:
        s = 0
        for i in range(4):
            s += m.d.owner[t.polis[i]] == p
        return s >= count
    if k == 4:
        return m.d.equip_n[p] >= count
    for s in range(S):
        if m.d.owner[s] == p and MAP.m.zone[s] != t.zone[m.d.faction[p]]:
            zones |= 1u << MAP.m.zone[s]
    return _popcount(zones) >= count

cdef void m33_set_phase(Machine* m, int phase, int p) noexcept nogil:
    m.d.phase = phase
    m.d.decider = p

# ---------------------------------------------------------------- legal actions
cdef int m33_legal(Machine* m, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int p = d.decider, ph = d.phase, k = 0, i, j, f, s, z
    cdef unsigned int chosen
    cdef signed char buf[78]
    cdef m33_word reach[2]
    if d.over:
        return 0
    if ph == P_DRAFT_FACTION:
        chosen = 0
        for i in range(d.n):
            if d.faction[i] >= 0:
                chosen |= 1u << t.zone[d.faction[i]]
        for i in range(6):
            f = t.factions[i]
            if _has(d.faction, d.n, f):
                continue
            if chosen == 0 or (t.border[t.zone[f]] & chosen):
                out[k] = A_FACTION + i
                k += 1
        return k
    if ph == P_DRAFT_HERO:
        for i in range(t.nheroes):
            if not _has(d.hero, d.n, t.heroes[i]):
                out[k] = A_HERO + i
                k += 1
        return k
    if ph == P_PLACE_HERO:
        for i in range(3):
            buf[i] = t.home[d.faction[p]][i]
        _sort(buf, 3)
        for i in range(3):
            out[i] = A_STATION + buf[i]
        return 3
    if ph == P_FREE_STATION:
        k = m33_free_options(m, p, buf)
        for i in range(k):
            out[i] = A_STATION + buf[i]
        return k
    if ph == P_POLIS_RES:
        for i in range(3):
            if d.pd_resmask & (1 << i):
                out[k] = A_RESOURCE + i
                k += 1
        return k
    if ph == P_LAW_PEEK or ph == P_ARTYOM or ph == P_QUEST_KEEP or ph == P_STAGE2_EQ:
        for i in range(d.pd_ncards):
            out[k] = A_CARD + d.pd_cards[i]
            k += 1
        _isort(out, k)
        return k
    if ph == P_DISCARD_EQ:
        for i in range(d.equip_n[p]):
            out[i] = A_CARD + d.equip[p][i]
        return d.equip_n[p]
    if ph == P_COMBAT_PICK:
        for i in range(d.hand_n[d.pd_side]):
            out[i] = A_CARD + d.hand[d.pd_side][i]
        return d.hand_n[d.pd_side]
    if ph == P_VOTE or ph == P_CAPTURE or ph == P_SCOUT_RETURN or ph == P_LAW_LOOK:
        out[0] = m.FIXED + YES
        out[1] = m.FIXED + NO
        return 2
    if ph == P_UPKEEP:
        f = m33_amount_fl(m, p, 1, 5)
        for i in range(f, min(d.army[p], f + d.res[p][0]) + 1):
            out[k] = A_COUNT + i
            k += 1
        return k
    if ph == P_QUEST_COMPLETE:
        for i in range(d.quest_n[p]):
            if m33_quest_ok(m, p, d.quests[p][i]):
                out[k] = m.COMPLETE + d.quests[p][i]
                k += 1
        out[k] = m.FIXED + DONE
        k += 1
        _isort(out, k)
        return k
    if ph == P_DECLARE:
        return m33_declare_options(m, p, out)
    if ph == P_DEFENDER:
        out[0] = m.FIXED + ARMYF
        out[1] = m.FIXED + HEROF
        return 2
    if ph == P_TAKE_EQ or ph == P_STRIP_EQ:
        for i in range(d.equip_n[d.pd_from]):
            out[k] = A_CARD + d.equip[d.pd_from][i]
            k += 1
        if not d.pd_forced:
            out[k] = m.FIXED + NO
            k += 1
        return k
    if ph == P_HIRE:
        for i in range(d.pd_max + 1):
            out[i] = A_COUNT + i
        return d.pd_max + 1
    if ph == P_ARMY:
        # G11, G23: the stations reached, once for the station attacks and the hero attacks
        m33_army_reach_bits(&MAP.m, d.owner, p, m33_closed(m), reach)
        j = m33_bits_list(reach, buf)
        for i in range(j):
            s = buf[i]
            if d.owner[s] != p and MAP.m.kind[s] != M33_HANSA and MAP.m.kind[s] != M33_ABANDONED:
                out[k] = A_STATION + s
                k += 1
        k += m33_attackable_heroes(m, p, reach, out + k)
        for i in range(3):
            out[k] = A_RESOURCE + i
            k += 1
        k += m33_quest_actions(m, p, out + k)
        _isort(out, k)
        return k
    if ph == P_HERO_MOVE:
        k = m33_hero_reach(&MAP.m, d.hero_at[p], min(m33_speed(m, p), 127), m33_closed(m), buf)
        for i in range(k):
            out[i] = A_STATION + buf[i]
        k += m33_quest_actions(m, p, out + k)
        _isort(out, k)
        return k
    if ph == P_HERO_ACT:
        k = m33_hero_actions(m, p, out)
        _isort(out, k)
        return k
    if ph == P_BUY:
        if d.res[p][2] >= 1 and d.res[p][1] >= 1:
            for i in range(4):
                if d.market[i] >= 0:
                    out[k] = A_CARD + d.market[i]
                    k += 1
        out[k] = m.FIXED + DONE
        k += 1
        if not d.pd_bought and not d.pd_refreshed and d.res[p][2] >= 1:
            out[k] = m.FIXED + REFRESH
            k += 1
        _isort(out, k)
        return k
    if ph == P_EX_FROM:
        for i in range(3):
            if d.res[p][i] > 0:
                out[k] = A_RESOURCE + i
                k += 1
        return k
    if ph == P_EX_TO:
        for i in range(3):
            if i != d.pd_from:
                out[k] = A_RESOURCE + i
                k += 1
        return k
    if ph == P_EX_AMOUNT:
        for i in range(1, d.res[p][d.pd_from] + 1):
            out[k] = A_COUNT + i
            k += 1
        return k
    return 0

cdef int m33_declare_options(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, s
    for s in range(S):
        if m.d.owner[s] == p:
            out[k] = A_STATION + s
            k += 1
    s = m.d.hero_at[p]
    if s >= 0 and m.d.owner[s] == p and not m.d.wounded[p]:
        out[k] = A_STATION_HERO + s
        k += 1
    return k

cdef int m33_attackable_heroes(Machine* m, int p, const m33_word* reach, int* out) noexcept nogil:
    """G11 (by army, `reach` the stations its army reaches, m33_army_reach_bits: on one of p's
    stations or one the army reaches, through neutral Polis and Hansa stations as for a
    station attack, G23) and G12 (by hero, `reach` NULL: on the same station): enemy heroes
    not on a Hansa station nor on a station of their own."""
    cdef int q, at, k = 0
    cdef bint near
    for q in range(m.d.n):
        at = m.d.hero_at[q]
        if q == p or at < 0 or MAP.m.kind[at] == M33_HANSA or m.d.owner[at] == q:
            continue
        if reach != NULL:
            near = m.d.owner[at] == p or ((reach[at >> 6] >> (at & 63)) & 1) != 0
        else:
            near = m.d.hero_at[p] == at and not (m.d.law >= 0 and m.t.no_hero_fights[m.d.law])
        if near:
            out[k] = A_PLAYER + q
            k += 1
    return k

cdef int m33_quest_actions(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, i, c
    for i in range(m.d.quest_n[p]):
        c = m.d.quests[p][i]
        if m33_quest_ok(m, p, c):
            out[k] = m.COMPLETE + c
            k += 1
        out[k] = m.USE + c
        k += 1
    if m.d.res[p][2] >= 1:
        for i in range(m.d.done_n[p]):
            c = m.d.done[p][i]
            if not _has(m.d.used[p], m.d.used_n[p], c):
                out[k] = m.USE + c
                k += 1
    return k

cdef int m33_hero_actions(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, at = d.hero_at[p], key = m33_tkey(m)
    out[k] = m.FIXED + PASS
    k += 1
    if MAP.m.kind[at] == M33_HANSA:
        if d.res[p][2] >= 1:
            out[k] = m.FIXED + BUY
            k += 1
        if d.res[p][2] >= 1 and d.res[p][1] >= 1 and (d.deck_n[K_QUEST] or d.disc_n[K_QUEST]):
            out[k] = m.FIXED + QUEST
            k += 1
        if d.res[p][0] + d.res[p][1] + d.res[p][2] > 0:
            out[k] = m.FIXED + EXCHANGE
            k += 1
    elif d.owner[at] < 0:
        if d.scouted[p] < 0 and (d.deck_n[key] or d.disc_n[key]):
            out[k] = m.FIXED + SCOUT
            k += 1
    if MAP.m.kind[at] != M33_HANSA and MAP.m.kind[at] != M33_ABANDONED and d.owner[at] != p:
        out[k] = m.FIXED + ATTACK
        k += 1
    k += m33_attackable_heroes(m, p, NULL, out + k)
    return k

# ---------------------------------------------------------------- applying
cdef void m33_do(Machine* m, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int p = d.decider, ph = d.phase, c, other, i, r, q, k
    cdef int cost[3]
    d.phase = P_NONE
    if ph == P_DRAFT_FACTION:
        d.faction[p] = t.factions[a - A_FACTION]
    elif ph == P_DRAFT_HERO:
        d.hero[p] = t.heroes[a - A_HERO]
    elif ph == P_PLACE_HERO:
        d.hero_at[p] = a - A_STATION
    elif ph == P_POLIS_RES:
        r = a - A_RESOURCE
        d.res[p][r] = min(35, d.res[p][r] + d.pd_amount)
    elif ph == P_LAW_LOOK:
        if a == m.FIXED + YES:
            c = m33_draw(m, K_LAW)
            other = m33_draw(m, K_LAW)
            m33_pending_cards(m, c, other)
            m33_set_phase(m, P_LAW_PEEK, p)
        else:
            m33_start_vote(m, m33_draw(m, K_LAW))
    elif ph == P_UPKEEP:
        m33_keep(m, p, a - A_COUNT)
        m33_hire(m, p)
    elif ph == P_QUEST_COMPLETE:
        if a != m.FIXED + DONE:
            m33_quest_do(m, p, a)
            m33_task(m, J_QUEST_OFFER, p, 0, 0)
    elif ph == P_LAW_PEEK:
        c = a - A_CARD
        other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
        m33_under(m, K_LAW, other, 1 << p)
        m33_start_vote(m, c)
    elif ph == P_VOTE:
        if a == m.FIXED + YES:
            d.vote_for += d.pd_votes
        else:
            d.vote_against += d.pd_votes
    elif ph == P_DECLARE:
        d.decl_station[p] = a % S
        d.decl_hero[p] = a >= A_STATION_HERO
    elif ph == P_SCOUT_RETURN:
        if a == m.FIXED + YES:
            c = d.scouted[p]
            d.scouted[p] = -1
            m33_on_top(m, m33_tkey(m), c, 1 << p)
    elif ph == P_ARTYOM:
        c = a - A_CARD
        other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
        m33_under(m, m33_tkey(m), other, 1 << p)
        m33_fight_threat(m, p, d.pd_who, d.pd_station, c)
    elif ph == P_CAPTURE:
        if a == m.FIXED + YES:
            m33_capture_cost(m, d.pd_taken, cost)
            for r in range(3):
                d.res[p][r] -= cost[r]
            m33_capture(m, p, d.pd_station)
    elif ph == P_FREE_STATION:
        m33_capture(m, p, a - A_STATION)
    elif ph == P_DEFENDER:
        d.cx_who[1] = 1 if a == m.FIXED + HEROF else 0
        m33_task(m, J_COMBAT_DEAL, 0, 0, 0)
    elif ph == P_COMBAT_PICK:
        c = a - A_CARD
        _remove(d.hand[d.pd_side], &d.hand_n[d.pd_side], c)
        d.pick[d.pd_side] = c
    elif ph == P_TAKE_EQ or ph == P_STRIP_EQ or ph == P_DISCARD_EQ:
        if a != m.FIXED + NO:
            c = a - A_CARD
            q = d.pd_from
            _remove(d.equip[q], &d.equip_n[q], c)
            if ph == P_TAKE_EQ:
                m33_gain_equipment(m, p, c)
            else:
                m33_discard(m, c)
            if ph == P_DISCARD_EQ:
                m33_task(m, J_DISCARD_EQ, q, 0, 0)
    elif ph == P_HIRE:
        k = a - A_COUNT
        d.res[p][0] -= k
        d.res[p][2] -= k
        d.army[p] += k
    elif ph == P_ARMY:
        m33_army_do(m, p, a)
    elif ph == P_HERO_MOVE:
        if a >= m.COMPLETE:
            m33_quest_do(m, p, a)
            m33_task(m, J_HERO, p, 0, 0)
        else:
            d.hero_at[p] = a - A_STATION
            m33_task(m, J_HERO_ACT, p, 0, 0)
    elif ph == P_HERO_ACT:
        m33_hero_do(m, p, a)
    elif ph == P_BUY:
        if a == m.FIXED + REFRESH:
            d.res[p][2] -= 1
            for i in range(4):
                if d.market[i] >= 0:
                    m33_discard(m, d.market[i])
                    d.market[i] = -1
            m33_refill_market(m)
            m33_task(m, J_BUY, p, 0, 1)
        elif a != m.FIXED + DONE:
            c = a - A_CARD
            d.res[p][2] -= 1
            d.res[p][1] -= 1
            for i in range(4):
                if d.market[i] == c:
                    d.market[i] = -1
            m33_refill_market(m)
            m33_task(m, J_BUY, p, 1, d.pd_refreshed)
            m33_gain_equipment(m, p, c)
    elif ph == P_QUEST_KEEP:
        c = a - A_CARD
        d.quests[p][d.quest_n[p]] = c
        d.quest_n[p] += 1
        _sort(d.quests[p], d.quest_n[p])
        for i in range(d.pd_ncards):
            if d.pd_cards[i] != c:
                m33_discard(m, d.pd_cards[i])
    elif ph == P_EX_FROM:
        m33_task(m, J_EX_TO, p, a - A_RESOURCE, 0)
    elif ph == P_EX_TO:
        m33_task(m, J_EX_AMOUNT, p, d.pd_from, a - A_RESOURCE)
    elif ph == P_EX_AMOUNT:
        k = a - A_COUNT
        d.res[p][d.pd_from] -= k
        d.res[p][d.pd_to] = min(35, d.res[p][d.pd_to] + k)
    elif ph == P_STAGE2_EQ:
        c = a - A_CARD
        for i in range(d.pd_ncards):
            if d.pd_cards[i] != c:
                m33_discard(m, d.pd_cards[i])
        m33_gain_equipment(m, p, c)

cdef void m33_quest_do(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c
    if a < m.USE:
        c = a - m.COMPLETE
        _remove(d.quests[p], &d.quest_n[p], c)
        d.done[p][d.done_n[p]] = c
        d.done_n[p] += 1
        d.vp[p] += 1
    else:
        c = a - m.USE
        if _has(d.quests[p], d.quest_n[p], c):
            _remove(d.quests[p], &d.quest_n[p], c)
            m33_discard(m, c)
        else:
            d.res[p][2] -= 1
            d.used[p][d.used_n[p]] = c
            d.used_n[p] += 1
        m33_gain(m, p, c)

cdef void m33_army_do(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int r, q
    if a >= m.COMPLETE:
        m33_quest_do(m, p, a)
        m33_task(m, J_ARMY, p, 0, 0)
    elif a >= A_RESOURCE:
        r = a - A_RESOURCE
        d.res[p][r] = min(35, d.res[p][r] + m33_amount_fl(m, p, 0, 1))
    elif a >= A_PLAYER:
        q = a - A_PLAYER
        m33_start_combat(m, 1, p, 0, q, 1, d.hero_at[q])
        m33_task(m, J_COMBAT_DEAL, 0, 0, 0)
    else:
        m33_attack_station(m, p, 0, a - A_STATION)

cdef void m33_start_combat(Machine* m, int kind, int att, int att_who, int q, int def_who, int s) noexcept nogil:
    m.d.cx_kind = kind
    m.d.cx_side[0] = att
    m.d.cx_side[1] = q
    m.d.cx_who[0] = att_who
    m.d.cx_who[1] = def_who
    m.d.cx_station = s

cdef void m33_hero_do(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int x, y, q
    if a == m.FIXED + PASS:
        return
    if a == m.FIXED + BUY:
        m33_task(m, J_BUY, p, 0, 0)
    elif a == m.FIXED + QUEST:
        d.res[p][2] -= 1
        d.res[p][1] -= 1
        x = m33_draw(m, K_QUEST)
        y = m33_draw(m, K_QUEST)
        m33_pending_cards(m, x, y)
        m33_set_phase(m, P_QUEST_KEEP, p)
    elif a == m.FIXED + EXCHANGE:
        m33_task(m, J_EX_FROM, p, 0, 0)
    elif a == m.FIXED + SCOUT:
        d.scouted[p] = m33_draw(m, m33_tkey(m))
        d.scouted_round[p] = d.round
    elif a == m.FIXED + ATTACK:
        m33_attack_station(m, p, 1, d.hero_at[p])
    else:
        q = a - A_PLAYER
        m33_start_combat(m, 1, p, 1, q, 1, d.hero_at[q])
        m33_task(m, J_COMBAT_DEAL, 0, 0, 0)

cdef void m33_pending_cards(Machine* m, int x, int y) noexcept nogil:
    """The non-missing of two drawn cards, ascending, as the pending choice."""
    cdef Data* d = &m.d
    d.pd_ncards = 0
    if x >= 0:
        d.pd_cards[d.pd_ncards] = x
        d.pd_ncards += 1
    if y >= 0:
        d.pd_cards[d.pd_ncards] = y
        d.pd_ncards += 1
    if d.pd_ncards == 2 and d.pd_cards[0] > d.pd_cards[1]:
        d.pd_cards[0] = y
        d.pd_cards[1] = x

cdef void m33_attack_station(Machine* m, int p, int who, int s) noexcept nogil:
    cdef Data* d = &m.d
    cdef int q = d.owner[s], mine, res
    if q >= 0:
        m33_start_combat(m, 0, p, who, q, 0, s)
        if d.hero_at[q] == s and not d.wounded[q]:
            m33_task(m, J_DEFENDER, q, 0, 0)
        else:
            m33_task(m, J_COMBAT_DEAL, 0, 0, 0)
    elif MAP.m.kind[s] == M33_POLIS:
        mine = m33_army_strength(m, p, 1) if who == 0 else m33_hero_strength(m, p, 1, 0)
        res = m33_outcome(m, mine, 7, m33_wins_ties(m, p, who, 1), False)
        m33_after_neutral(m, p, who, s, res, -1)
    else:
        m33_task(m, J_NEUTRAL_ATTACK, p, who, s)

cdef void m33_fight_threat(Machine* m, int p, int who, int s, int c) noexcept nogil:
    cdef int mine, res
    if c < 0:
        m33_after_neutral(m, p, who, s, 1, -1)
        return
    mine = m33_army_strength(m, p, 1) if who == 0 else m33_hero_strength(m, p, 1, 1 + m.t.ttype[c])
    res = m33_outcome(m, mine, m.t.strength[c], m33_wins_ties(m, p, who, 1), False)
    m33_discard(m, c)
    m33_after_neutral(m, p, who, s, res, c)

cdef void m33_after_neutral(Machine* m, int p, int who, int s, int res, int c) noexcept nogil:
    if res > 0:
        if c >= 0:
            m33_gain(m, p, c)
        m33_offer_capture(m, p, s, 0)
    elif res < 0:
        if who == 0:
            m.d.army[p] = max(1, m.d.army[p] - 1)
        else:
            m33_wound(m, p)

cdef void m33_resolve_combat(Machine* m) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int att = d.cx_side[0], q = d.cx_side[1], ca = d.pick[0], cd = d.pick[1]
    cdef int a, b, res, s = d.cx_station, winner, loser, wwho, lwho
    a = (m33_army_strength(m, att, 1) if d.cx_who[0] == 0 else m33_hero_strength(m, att, 1, 0)) \
        + t.cb[ca][1 + t.ctyp[cd]]
    b = (m33_army_strength(m, q, 2) if d.cx_who[1] == 0 else m33_hero_strength(m, q, 2, 0)) \
        + t.cb[cd][1 + t.ctyp[ca]]
    res = m33_outcome(m, a, b, m33_wins_ties(m, att, d.cx_who[0], 1), m33_wins_ties(m, q, d.cx_who[1], 2))
    d.combat_on = False
    d.hand_n[0] = d.hand_n[1] = d.aside_n = 0
    d.pick[0] = d.pick[1] = -1
    if res == 0:
        return
    winner = att if res > 0 else q
    loser = q if res > 0 else att
    wwho = d.cx_who[0] if res > 0 else d.cx_who[1]
    lwho = d.cx_who[1] if res > 0 else d.cx_who[0]
    if d.cx_kind == 0:
        if res > 0:
            m33_lose(m, q, s)
            if d.cx_who[1] == 1:
                m33_wound(m, q)
            m33_offer_capture(m, att, s, 1)
        elif d.cx_who[0] == 0:
            d.army[att] = max(1, d.army[att] - 1)
        else:
            m33_wound(m, att)
            if d.equip_n[att]:
                m33_task(m, J_STRIP_EQ, q, att, 1)
        return
    if wwho == 1 and lwho == 1:
        m33_wound(m, loser)
        if d.equip_n[loser]:
            m33_task(m, J_TAKE_EQ, winner, loser, 0)
    elif res > 0:
        m33_wound(m, q)
        if d.equip_n[q]:
            m33_task(m, J_STRIP_EQ, att, q, 0)
    elif d.cx_who[0] == 0:
        d.army[att] = max(1, d.army[att] - 1)

# ---------------------------------------------------------------- the agenda
cdef void m33_advance(Machine* m) noexcept nogil:
    cdef Task x
    while m.d.phase == P_NONE:
        if m.d.ag_n <= 0 or m.d.over:   # never in a game the loader accepts: end it
            m.d.over = True
            m.d.phase = P_OVER
            m.d.decider = -1
            return
        m.d.ag_n -= 1
        x = m.d.ag[m.d.ag_n]
        m33_run(m, x.name, x.a, x.b, x.c)
        if m.d.over:
            m.d.phase = P_OVER
            m.d.decider = -1
            return

cdef void m33_start_vote(Machine* m, int c) noexcept nogil:
    cdef int i
    m.d.vote_on = True
    m.d.vote_law = c
    m.d.vote_for = m.d.vote_against = 0
    m33_task(m, J_LAW_RESULT, 0, 0, 0)
    for i in range(m.d.n - 1, -1, -1):
        m33_task(m, J_VOTE, m33_order(m, i), 0, 0)

cdef void m33_run(Machine* m, int name, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int p, i, k, s, x, y, ev, key, r, keep, free, nst
    cdef signed char ids[MAXC]
    cdef signed char st[78]
    cdef int tmp[8]
    if name == J_DRAFT_FACTION:
        m33_set_phase(m, P_DRAFT_FACTION, a)
    elif name == J_DRAFT_HERO:
        m33_set_phase(m, P_DRAFT_HERO, a)
    elif name == J_SETUP:
        for p in range(d.n):
            for i in range(3):
                d.owner[t.home[d.faction[p]][i]] = p
            d.vp[p] = 3
            d.army[p] = 2
            m33_gain(m, p, d.faction[p])
    elif name == J_PLACE_HERO:
        m33_set_phase(m, P_PLACE_HERO, a)
    elif name == J_ROUND_START:
        d.round += 1
        ev = TRACK[0] if d.round == 1 else TRACK[1 + (d.round - 2) % 9]
        # pushed in reverse: end_round, heroes, armies, mobilisation, produce, the events
        # (G29: a quest check after each army and hero action, and after the events)
        m33_task(m, J_END_ROUND, 0, 0, 0)
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_QUEST_CHECK, 0, 0, 0)
            m33_task(m, J_HERO, m33_order(m, i), 0, 0)
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_QUEST_CHECK, 0, 0, 0)
            m33_task(m, J_ARMY, m33_order(m, i), 0, 0)
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_MOBILISE, m33_order(m, i), 0, 0)
        m33_task(m, J_QUEST_CHECK, 0, 0, 0)
        if ev & 7:
            m33_task(m, J_PRODUCE, ev & 7, 2 if d.round == 1 else 1, 0)
        if ev & 16:
            m33_task(m, J_THREAT_REVEAL, 0, 0, 0)
            for i in range(d.n - 1, -1, -1):
                m33_task(m, J_DECLARE, m33_order(m, i), 0, 0)
        if ev & 8:
            m33_task(m, J_LAW_EVENT, 0, 0, 0)
    elif name == J_PRODUCE:
        k = 0
        for i in range(d.n):
            p = m33_order(m, i)
            for s in range(S):
                if d.owner[s] != p:
                    continue
                if MAP.m.kind[s] < 3 and (a & (1 << MAP.m.kind[s])):
                    d.res[p][MAP.m.kind[s]] = min(35, d.res[p][MAP.m.kind[s]] + b)
                elif MAP.m.kind[s] == M33_POLIS:
                    tmp[k] = p
                    k += 1
        for i in range(k - 1, -1, -1):
            m33_task(m, J_POLIS_RES, tmp[i], a, b)
    elif name == J_POLIS_RES:
        m33_set_phase(m, P_POLIS_RES, a)
        d.pd_resmask = b
        d.pd_amount = c
    elif name == J_LAW_EVENT:
        if d.deck_n[K_LAW] == 0:
            return
        p = -1
        for i in range(d.n):
            if t.peek[d.faction[m33_order(m, i)]]:
                p = m33_order(m, i)
                break
        if p >= 0 and d.deck_n[K_LAW] >= 2:
            m33_set_phase(m, P_LAW_LOOK, p)      # G31: the Confederation "may" look
            return
        m33_start_vote(m, m33_draw(m, K_LAW))
    elif name == J_VOTE:
        m33_set_phase(m, P_VOTE, a)
        d.pd_votes = m33_stations(m, a, NULL) + t.votes[d.faction[a]]
    elif name == J_LAW_RESULT:
        d.vote_on = False
        d.last_vote_on = True
        d.last_vote[0] = d.vote_law
        d.last_vote[1] = d.vote_for
        d.last_vote[2] = d.vote_against
        if d.vote_for > d.vote_against:
            if d.law >= 0:
                m33_under(m, K_LAW, d.law, (1 << d.n) - 1)
            d.law = d.vote_law
        else:
            m33_under(m, K_LAW, d.vote_law, (1 << d.n) - 1)
    elif name == J_DECLARE:
        m33_set_phase(m, P_DECLARE, a)
    elif name == J_THREAT_REVEAL:
        x = m33_draw(m, m33_tkey(m))
        d.threat_now = x
        if x < 0:
            for p in range(d.n):
                d.decl_station[p] = -1
            return
        m33_task(m, J_THREAT_DONE, 0, 0, 0)
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_THREAT_FIGHT, m33_order(m, i), 0, 0)
    elif name == J_THREAT_FIGHT:
        m33_threat_fight(m, a)
    elif name == J_THREAT_DONE:
        m33_discard(m, d.threat_now)
        d.last_threat = d.threat_now
        d.threat_now = -1
        for p in range(d.n):
            d.decl_station[p] = -1
    elif name == J_MOBILISE:
        p = a
        free = m33_amount_fl(m, p, 1, 5)
        if d.army[p] > free:
            keep = min(d.army[p], free + d.res[p][0])
            if keep > free:                     # G33: the strength kept is p's decision
                m33_set_phase(m, P_UPKEEP, p)
                return
            m33_keep(m, p, keep)
        m33_hire(m, p)
    elif name == J_QUEST_CHECK:
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_QUEST_OFFER, m33_order(m, i), 0, 0)
    elif name == J_QUEST_OFFER:
        if d.quest_n[a] > 0:                    # G38: every holder, fulfilled or not (G29)
            m33_set_phase(m, P_QUEST_COMPLETE, a)
    elif name == J_ARMY:
        m33_set_phase(m, P_ARMY, a)
    elif name == J_HERO:
        if d.wounded[a]:
            d.wounded[a] = 0
        else:
            m33_set_phase(m, P_HERO_MOVE, a)
    elif name == J_HERO_ACT:
        m33_set_phase(m, P_HERO_ACT, a)
    elif name == J_NEUTRAL_ATTACK:
        if d.scouted[a] >= 0 and d.scouted_round[a] < d.round:
            m33_set_phase(m, P_SCOUT_RETURN, a)
            m33_task(m, J_NEUTRAL_FIGHT, a, b, c)
        else:
            m33_run(m, J_NEUTRAL_FIGHT, a, b, c)
    elif name == J_NEUTRAL_FIGHT:
        key = m33_tkey(m)
        if b == 1 and t.threat_choice[d.hero[a]]:
            x = m33_draw(m, key)
            y = m33_draw(m, key)
            m33_pending_cards(m, x, y)
            if d.pd_ncards == 2:
                m33_set_phase(m, P_ARTYOM, a)
                d.pd_who = b
                d.pd_station = c
                return
            m33_fight_threat(m, a, b, c, d.pd_cards[0] if d.pd_ncards else -1)
        else:
            m33_fight_threat(m, a, b, c, m33_draw(m, key))
    elif name == J_CAPTURE:
        m33_set_phase(m, P_CAPTURE, a)
        d.pd_station = b
        d.pd_taken = c
    elif name == J_FREE_STATION:
        if m33_stations(m, a, NULL) <= 2 and m33_free_options(m, a, st) > 0:
            m33_set_phase(m, P_FREE_STATION, a)
    elif name == J_DEFENDER:
        m33_set_phase(m, P_DEFENDER, a)
    elif name == J_COMBAT_DEAL:
        k = t.n_type[T_COMBAT]
        for i in range(k):
            ids[i] = t.by_type[T_COMBAT][i]
        m33_shuffle(m, ids, k)
        d.combat_on = True
        for i in range(3):
            d.hand[0][i] = ids[i]
            d.hand[1][i] = ids[3 + i]
        d.hand_n[0] = d.hand_n[1] = 3
        _sort(d.hand[0], 3)
        _sort(d.hand[1], 3)
        d.aside_n = k - 6
        for i in range(k - 6):
            d.aside[i] = ids[6 + i]
        d.pick[0] = d.pick[1] = -1
        m33_task(m, J_COMBAT_RESOLVE, 0, 0, 0)
        m33_task(m, J_COMBAT_PICK, 1, 0, 0)
        m33_task(m, J_COMBAT_PICK, 0, 0, 0)
    elif name == J_COMBAT_PICK:
        m33_set_phase(m, P_COMBAT_PICK, d.cx_side[a])
        d.pd_side = a
    elif name == J_COMBAT_RESOLVE:
        m33_resolve_combat(m)
    elif name == J_TAKE_EQ or name == J_STRIP_EQ:
        if d.equip_n[b]:
            m33_set_phase(m, P_TAKE_EQ if name == J_TAKE_EQ else P_STRIP_EQ, a)
            d.pd_from = b
            d.pd_forced = name == J_STRIP_EQ and c != 0
    elif name == J_DISCARD_EQ:
        if d.equip_n[a] > m33_limit(m):
            m33_set_phase(m, P_DISCARD_EQ, a)
            d.pd_from = a
    elif name == J_BUY:
        m33_set_phase(m, P_BUY, a)
        d.pd_bought = b
        d.pd_refreshed = c
    elif name == J_EX_FROM:
        m33_set_phase(m, P_EX_FROM, a)
    elif name == J_EX_TO:
        m33_set_phase(m, P_EX_TO, a)
        d.pd_from = b
    elif name == J_EX_AMOUNT:
        m33_set_phase(m, P_EX_AMOUNT, a)
        d.pd_from = b
        d.pd_to = c
    elif name == J_STAGE2_EQ:
        x = m33_draw(m, K_EQUIPMENT)
        y = m33_draw(m, K_EQUIPMENT)
        m33_pending_cards(m, x, y)
        if d.pd_ncards:
            m33_set_phase(m, P_STAGE2_EQ, a)
    elif name == J_END_ROUND:
        m33_end_round(m)

cdef void m33_keep(Machine* m, int p, int keep) noexcept nogil:
    """G10, G33: keep `keep` points of strength, a pig for each above the free strength."""
    m.d.res[p][0] -= max(0, keep - m33_amount_fl(m, p, 1, 5))
    m.d.army[p] = keep

cdef void m33_hire(Machine* m, int p) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = min(d.res[p][0], min(d.res[p][2], 8 - d.army[p]))
    if k > 0:
        m33_set_phase(m, P_HIRE, p)
        d.pd_max = k

cdef void m33_threat_fight(Machine* m, int p) noexcept nogil:
    cdef Data* d = &m.d
    cdef int s = d.decl_station[p], who = d.decl_hero[p], mine, res, c = d.threat_now
    if d.owner[s] != p:
        return
    if who == 1 and (d.hero_at[p] != s or d.wounded[p]):
        who = 0
    mine = m33_army_strength(m, p, 2) if who == 0 else m33_hero_strength(m, p, 2, 1 + m.t.ttype[c])
    res = m33_outcome(m, mine, m.t.strength[c], m33_wins_ties(m, p, who, 2), False)
    if res > 0:
        m33_gain(m, p, c)
    elif res < 0:
        m33_lose(m, p, s)

cdef void m33_end_round(Machine* m) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int i, p, k, c, best
    for i in range(d.n):
        p = m33_order(m, i)
        k = 0
        for c in range(4):
            k += d.owner[t.polis[c]] == p
        if d.vp[p] >= m33_win_vp(m, p) or k == 4:
            d.winner = p
            d.over = True
            return
    if d.round >= m.round_limit:
        d.over = True
        return
    for p in range(d.n):
        if d.scouted[p] >= 0 and d.scouted_round[p] < d.round:
            c = d.scouted[p]
            d.scouted[p] = -1
            m33_under(m, m33_tkey(m), c, 1 << p)
        d.used_n[p] = 0
    d.first = (d.first + 1) % d.n
    m33_task(m, J_ROUND_START, 0, 0, 0)
    best = d.vp[0]
    for p in range(d.n):
        best = max(best, d.vp[p])
    if d.stage == 1 and best >= 6:
        d.stage = 2
        for i in range(d.deck_n[K_THREAT1]):
            c = d.deck[K_THREAT1][i]
            d.known[c] = 0
            d.out[d.out_n] = c
            d.out_n += 1
        for i in range(d.disc_n[K_THREAT1]):
            c = d.disc[K_THREAT1][i]
            d.known[c] = 0
            d.out[d.out_n] = c
            d.out_n += 1
        d.deck_n[K_THREAT1] = d.disc_n[K_THREAT1] = 0
        for p in range(d.n):
            if d.scouted[p] >= 0 and t.stage[d.scouted[p]] == 1:
                d.out[d.out_n] = d.scouted[p]
                d.out_n += 1
                d.scouted[p] = -1
        for i in range(d.n - 1, -1, -1):
            m33_task(m, J_STAGE2_EQ, m33_order(m, i), 0, 0)

# ---------------------------------------------------------------- determinisation
cdef int m33_gather(Machine* m, int pool, int player, signed char** pos) noexcept nogil:
    """The places of `pool` (a deck key, or 5: the combat cards) whose card `player` cannot
    see, in the reference's order: deck places not known to them, the others' quests and
    scouted threats, cards another player is choosing among, then the combat cards aside and
    the other sides' hands and picks."""
    cdef Data* d = &m.d
    cdef int k = 0, i, q, key, side
    if pool < 5:
        for i in range(d.deck_n[pool]):
            if not (d.known[d.deck[pool][i]] >> player) & 1:
                pos[k] = &d.deck[pool][i]
                k += 1
        for q in range(d.n):
            if q == player:
                continue
            if pool == K_QUEST:
                for i in range(d.quest_n[q]):
                    pos[k] = &d.quests[q][i]
                    k += 1
            if d.scouted[q] >= 0 and pool == K_THREAT1 + m.t.stage[d.scouted[q]] - 1:
                pos[k] = &d.scouted[q]
                k += 1
        if d.decider != player and (d.phase == P_LAW_PEEK or d.phase == P_ARTYOM
                                    or d.phase == P_QUEST_KEEP or d.phase == P_STAGE2_EQ):
            key = (K_LAW if d.phase == P_LAW_PEEK else m33_tkey(m) if d.phase == P_ARTYOM
                   else K_QUEST if d.phase == P_QUEST_KEEP else K_EQUIPMENT)
            if key == pool:
                for i in range(d.pd_ncards):
                    pos[k] = &d.pd_cards[i]
                    k += 1
        return k
    if not d.combat_on:
        return 0
    for i in range(d.aside_n):
        pos[k] = &d.aside[i]
        k += 1
    for side in range(2):
        if d.cx_side[side] != player:
            for i in range(d.hand_n[side]):
                pos[k] = &d.hand[side][i]
                k += 1
            if d.pick[side] >= 0:
                pos[k] = &d.pick[side]
                k += 1
    return k

cdef void m33_determinize(Machine* m, int player, uint64_t seed) noexcept nogil:
    """The reference's ``determinize``: each pool's hidden cards sorted, shuffled and dealt
    back in place order (deck knowledge staying with the place), then the undisclosed threat
    declarations of the others redrawn (G32); the generator is the one drawn from `seed`."""
    cdef Data* d = &m.d
    cdef rng_t r = seed
    cdef signed char* pos[MAXC]
    cdef signed char cards[MAXC]
    cdef signed char km[MAXC]
    cdef int opts[80]
    cdef int pool, k, i, j, q, nopt
    cdef signed char x
    for pool in range(6):
        k = m33_gather(m, pool, player, pos)
        for i in range(k):
            cards[i] = pos[i][0]
            km[i] = d.known[cards[i]]
            d.known[cards[i]] = 0
        _sort(cards, k)
        for i in range(k - 1, 0, -1):
            j = <int>rng_bounded(&r, <uint64_t>(i + 1))
            x = cards[i]
            cards[i] = cards[j]
            cards[j] = x
        for i in range(k):
            pos[i][0] = cards[i]
            if km[i]:
                d.known[cards[i]] = km[i]
    for q in range(d.n):
        _sort(d.quests[q], d.quest_n[q])
    if d.phase == P_LAW_PEEK or d.phase == P_ARTYOM or d.phase == P_QUEST_KEEP or d.phase == P_STAGE2_EQ:
        _sort(d.pd_cards, d.pd_ncards)          # the cards chosen among, ascending as dealt
    if d.combat_on:
        _sort(d.hand[0], d.hand_n[0])
        _sort(d.hand[1], d.hand_n[1])
    if d.threat_now < 0:
        for i in range(d.n):
            q = m33_order(m, i)
            if q != player and d.decl_station[q] >= 0:
                nopt = m33_declare_options(m, q, opts)
                j = opts[rng_bounded(&r, <uint64_t>nopt)]
                d.decl_station[q] = j % S
                d.decl_hero[q] = j >= A_STATION_HERO
    d.rng = r

# ---------------------------------------------------------------- small C helpers
cdef inline int _popcount(unsigned int x) noexcept nogil:
    cdef int k = 0
    while x:
        x &= x - 1
        k += 1
    return k


cdef void _sort(signed char* a, int n) noexcept nogil:
    cdef int i, j
    cdef signed char x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef void _isort(int* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef void _remove(signed char* a, int* n, int c) noexcept nogil:
    cdef int i, j
    for i in range(n[0]):
        if a[i] == c:
            for j in range(i, n[0] - 1):
                a[j] = a[j + 1]
            n[0] -= 1
            return


cdef inline bint _has(const signed char* a, int n, int c) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] == c:
            return True
    return False
