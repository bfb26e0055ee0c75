# Metro 2033's state machine (machine.pyx, which includes this file): the fights an army or hero
# action starts and what follows them: neutral stations and their threats (G20, G28, G34: the
# scouted card, Artyom's choice), combat between players (G21: the defender, the combat cards),
# capture (G14), losing stations (G15), wounds (G25) and equipment taken, stripped or discarded
# (G17). For each phase its task (run_*), its legal actions (legal_*) and applying one (do_*),
# side by side; machine.pyx's tables name them.

# ---------------------------------------------------------------- starting a fight
cdef void m33_start_combat(Machine* m, int kind, int att, int att_who, int q, int def_who, int s) noexcept nogil:
    m.d.cx_kind = kind
    m.d.cx_side[0] = att
    m.d.cx_side[1] = q
    m.d.cx_who[0] = att_who
    m.d.cx_who[1] = def_who
    m.d.cx_station = s

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

# ---------------------------------------------------------------- neutral_attack (G34): a task
cdef void run_neutral_attack(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.scouted[a] >= 0 and m.d.scouted_round[a] < m.d.round:
        m33_set_phase(m, P_SCOUT_RETURN, a)
        m33_task(m, J_NEUTRAL_FIGHT, a, b, c)
    else:
        run_neutral_fight(m, a, b, c)

# ---------------------------------------------------------------- scout_return (G34): legal_yes_no
cdef void do_scout_return(Machine* m, int p, int a) noexcept nogil:
    cdef int c
    if a == m.FIXED + YES:
        c = m.d.scouted[p]
        m.d.scouted[p] = -1
        m33_on_top(m, m33_tkey(m), c, 1 << p)

# ---------------------------------------------------------------- neutral_fight (G4, G28): a task
cdef void run_neutral_fight(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int key = m33_tkey(m), x, y
    if b == 1 and m.t.threat_choice[d.hero[a]]:
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

# ---------------------------------------------------------------- artyom (G4): legal_pending_cards
cdef void do_artyom(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c = a - A_CARD
    cdef int other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
    m33_under(m, m33_tkey(m), other, 1 << p)
    m33_fight_threat(m, p, d.pd_who, d.pd_station, c)

# ---------------------------------------------------------------- capture (G14): legal_yes_no
cdef void run_capture(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_CAPTURE, a)
    m.d.pd_station = b
    m.d.pd_taken = c

cdef void do_capture(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int r
    cdef int cost[3]
    if a == m.FIXED + YES:
        m33_capture_cost(m, d.pd_taken, cost)
        for r in range(3):
            d.res[p][r] -= cost[r]
        m33_capture(m, p, d.pd_station)

cdef void m33_capture(Machine* m, int p, int s) noexcept nogil:
    m.d.owner[s] = p
    m.d.vp[p] += 1

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

# ---------------------------------------------------------------- free_station (G15, G28)
cdef void run_free_station(Machine* m, int a, int b, int c) noexcept nogil:
    cdef signed char st[78]
    if m33_stations(m, a, NULL) <= 2 and m33_free_options(m, a, st) > 0:
        m33_set_phase(m, P_FREE_STATION, a)

cdef int legal_free_station(Machine* m, int p, int* out) noexcept nogil:
    cdef int k, i
    cdef signed char buf[78]
    k = m33_free_options(m, p, buf)
    for i in range(k):
        out[i] = A_STATION + buf[i]
    return k

cdef void do_free_station(Machine* m, int p, int a) noexcept nogil:
    m33_capture(m, p, a - A_STATION)

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

# ---------------------------------------------------------------- defender (G21)
cdef void run_defender(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_DEFENDER, a)

cdef int legal_defender(Machine* m, int p, int* out) noexcept nogil:
    out[0] = m.FIXED + ARMYF
    out[1] = m.FIXED + HEROF
    return 2

cdef void do_defender(Machine* m, int p, int a) noexcept nogil:
    m.d.cx_who[1] = 1 if a == m.FIXED + HEROF else 0
    m33_task(m, J_COMBAT_DEAL, 0, 0, 0)

# ---------------------------------------------------------------- combat_deal (G21): a task
cdef void run_combat_deal(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int k = t.n_type[T_COMBAT], i
    cdef signed char ids[MAXC]
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

# ---------------------------------------------------------------- combat_pick (G21)
cdef void run_combat_pick(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_COMBAT_PICK, m.d.cx_side[a])
    m.d.pd_side = a

cdef int legal_combat_pick(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int i
    for i in range(d.hand_n[d.pd_side]):
        out[i] = A_CARD + d.hand[d.pd_side][i]
    return d.hand_n[d.pd_side]

cdef void do_combat_pick(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c = a - A_CARD
    _remove(d.hand[d.pd_side], &d.hand_n[d.pd_side], c)
    d.pick[d.pd_side] = c

# ---------------------------------------------------------------- combat_resolve (G20, G21): a task
cdef void run_combat_resolve(Machine* m, int a, int b, int c) noexcept nogil:
    m33_resolve_combat(m)

cdef int m33_combat_outcome(Machine* m, int ca, int cd) noexcept nogil:
    """G20, G21: the combat's outcome (+1 the attacker wins, -1 the defender, 0 a tie) with the
    attacker's card `ca` against the defender's `cd`."""
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int att = d.cx_side[0], q = d.cx_side[1], a, b
    a = (m33_army_strength(m, att, 1) if d.cx_who[0] == 0 else m33_hero_strength(m, att, 1, 0)) \
        + t.cb[ca][1 + t.ctyp[cd]]
    b = (m33_army_strength(m, q, 2) if d.cx_who[1] == 0 else m33_hero_strength(m, q, 2, 0)) \
        + t.cb[cd][1 + t.ctyp[ca]]
    return m33_outcome(m, a, b, m33_wins_ties(m, att, d.cx_who[0], 1), m33_wins_ties(m, q, d.cx_who[1], 2))

cdef void m33_resolve_combat(Machine* m) noexcept nogil:
    cdef Data* d = &m.d
    cdef int att = d.cx_side[0], q = d.cx_side[1]
    cdef int res = m33_combat_outcome(m, d.pick[0], d.pick[1]), s = d.cx_station, winner, loser, wwho, lwho
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

# ---------------------------------------------------------------- take_equipment, strip_equipment (G17, G25)
cdef void run_take_eq(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.equip_n[b]:
        m33_set_phase(m, P_TAKE_EQ, a)
        m.d.pd_from = b
        m.d.pd_forced = False

cdef void run_strip_eq(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.equip_n[b]:
        m33_set_phase(m, P_STRIP_EQ, a)
        m.d.pd_from = b
        m.d.pd_forced = c != 0

cdef int legal_equipment_from(Machine* m, int p, int* out) noexcept nogil:
    """take_equipment, strip_equipment: a card of pd_from's equipment, or none unless forced."""
    cdef Data* d = &m.d
    cdef int k = 0, i
    for i in range(d.equip_n[d.pd_from]):
        out[k] = A_CARD + d.equip[d.pd_from][i]
        k += 1
    if not d.pd_forced:
        out[k] = m.FIXED + NO
        k += 1
    return k

cdef void do_take_eq(Machine* m, int p, int a) noexcept nogil:
    cdef int c
    if a != m.FIXED + NO:
        c = a - A_CARD
        _remove(m.d.equip[m.d.pd_from], &m.d.equip_n[m.d.pd_from], c)
        m33_gain_equipment(m, p, c)

cdef void do_strip_eq(Machine* m, int p, int a) noexcept nogil:
    cdef int c
    if a != m.FIXED + NO:
        c = a - A_CARD
        _remove(m.d.equip[m.d.pd_from], &m.d.equip_n[m.d.pd_from], c)
        m33_discard(m, c)

# ---------------------------------------------------------------- discard_equipment (G17)
cdef void run_discard_eq(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.equip_n[a] > m33_limit(m):
        m33_set_phase(m, P_DISCARD_EQ, a)
        m.d.pd_from = a

cdef int legal_discard_eq(Machine* m, int p, int* out) noexcept nogil:
    cdef int i
    for i in range(m.d.equip_n[p]):
        out[i] = A_CARD + m.d.equip[p][i]
    return m.d.equip_n[p]

cdef void do_discard_eq(Machine* m, int p, int a) noexcept nogil:
    cdef int c, q
    if a != m.FIXED + NO:
        c = a - A_CARD
        q = m.d.pd_from
        _remove(m.d.equip[q], &m.d.equip_n[q], c)
        m33_discard(m, c)
        m33_task(m, J_DISCARD_EQ, q, 0, 0)
