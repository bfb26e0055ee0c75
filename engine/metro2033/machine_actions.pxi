# Metro 2033's state machine (machine.pyx, which includes this file): the players' turns of a round:
# mobilisation (G10, G33), the army action (G11, G23) and the hero action (G12, G34) with Hansa's
# market, quests and exchange (G27). For each phase its task (run_*), its legal actions (legal_*)
# and applying one (do_*), side by side; machine.pyx's tables name them.

# ---------------------------------------------------------------- mobilise (G10, G33): a task
cdef void run_mobilise(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int p = a, free, keep
    free = m33_amount_fl(m, p, 1, 5)
    if d.army[p] > free:
        keep = min(d.army[p], free + d.res[p][0])
        if keep > free:                     # G33: the strength kept is p's decision
            m33_set_phase(m, P_UPKEEP, p)
            return
        m33_keep(m, p, keep)
    m33_hire(m, p)

cdef void m33_keep(Machine* m, int p, int keep) noexcept nogil:
    """G10, G33: keep `keep` points of strength, a pig for each above the free strength."""
    m.d.res[p][0] -= max(0, keep - m33_amount_fl(m, p, 1, 5))
    m.d.army[p] = keep

# ---------------------------------------------------------------- upkeep (G33)
cdef int legal_upkeep(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, i, f = m33_amount_fl(m, p, 1, 5)
    for i in range(f, min(d.army[p], f + d.res[p][0]) + 1):
        out[k] = A_COUNT + i
        k += 1
    return k

cdef void do_upkeep(Machine* m, int p, int a) noexcept nogil:
    m33_keep(m, p, a - A_COUNT)
    m33_hire(m, p)

# ---------------------------------------------------------------- hire (G10): set by m33_hire
cdef void m33_hire(Machine* m, int p) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = min(d.res[p][0], min(d.res[p][2], 8 - d.army[p]))
    if k > 0:
        m33_set_phase(m, P_HIRE, p)
        d.pd_max = k

cdef int legal_hire(Machine* m, int p, int* out) noexcept nogil:
    cdef int i
    for i in range(m.d.pd_max + 1):
        out[i] = A_COUNT + i
    return m.d.pd_max + 1

cdef void do_hire(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = a - A_COUNT
    d.res[p][0] -= k
    d.res[p][2] -= k
    d.army[p] += k

# ---------------------------------------------------------------- army (G11, G23)
cdef void run_army(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_ARMY, a)

cdef int legal_army(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, i, j, s
    cdef signed char buf[78]
    cdef m33_word reach[2]
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

cdef void do_army(Machine* m, int p, int a) noexcept nogil:
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

# ---------------------------------------------------------------- hero_move (G12, G25): task hero
cdef void run_hero(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.wounded[a]:
        m.d.wounded[a] = 0
    else:
        m33_set_phase(m, P_HERO_MOVE, a)

cdef int legal_hero_move(Machine* m, int p, int* out) noexcept nogil:
    cdef int k, i
    cdef signed char buf[78]
    k = m33_hero_reach(&MAP.m, m.d.hero_at[p], min(m33_speed(m, p), 127), m33_closed(m), buf)
    for i in range(k):
        out[i] = A_STATION + buf[i]
    k += m33_quest_actions(m, p, out + k)
    _isort(out, k)
    return k

cdef void do_hero_move(Machine* m, int p, int a) noexcept nogil:
    if a >= m.COMPLETE:
        m33_quest_do(m, p, a)
        m33_task(m, J_HERO, p, 0, 0)
    else:
        m.d.hero_at[p] = a - A_STATION
        m33_task(m, J_HERO_ACT, p, 0, 0)

cdef int m33_speed(Machine* m, int p) noexcept nogil:
    cdef Tables* t = m.t
    cdef int h = m.d.hero[p], v, i
    v = t.speed[h] + t.spd[h] + t.spd[m.d.faction[p]]
    if m.d.law >= 0:
        v += t.spd[m.d.law]
    for i in range(m.d.equip_n[p]):
        v += t.spd[m.d.equip[p][i]]
    return v if v > 0 else 0

# ---------------------------------------------------------------- hero_act (G12, G34)
cdef void run_hero_act(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_HERO_ACT, a)

cdef int legal_hero_act(Machine* m, int p, int* out) noexcept nogil:
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
    _isort(out, k)
    return k

cdef void do_hero_act(Machine* m, int p, int a) noexcept nogil:
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

# ---------------------------------------------------------------- buy (G27)
cdef void run_buy(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_BUY, a)
    m.d.pd_bought = b
    m.d.pd_refreshed = c

cdef int legal_buy(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, i
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

cdef void do_buy(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c, i
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

# ---------------------------------------------------------------- quest_keep (G12): legal_pending_cards
cdef void do_quest_keep(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c = a - A_CARD, i
    d.quests[p][d.quest_n[p]] = c
    d.quest_n[p] += 1
    _sort(d.quests[p], d.quest_n[p])
    for i in range(d.pd_ncards):
        if d.pd_cards[i] != c:
            m33_discard(m, d.pd_cards[i])

# ---------------------------------------------------------------- exchange_from, _to, _amount (G12)
cdef void run_ex_from(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_EX_FROM, a)

cdef int legal_ex_from(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, i
    for i in range(3):
        if m.d.res[p][i] > 0:
            out[k] = A_RESOURCE + i
            k += 1
    return k

cdef void do_ex_from(Machine* m, int p, int a) noexcept nogil:
    m33_task(m, J_EX_TO, p, a - A_RESOURCE, 0)

cdef void run_ex_to(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_EX_TO, a)
    m.d.pd_from = b

cdef int legal_ex_to(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, i
    for i in range(3):
        if i != m.d.pd_from:
            out[k] = A_RESOURCE + i
            k += 1
    return k

cdef void do_ex_to(Machine* m, int p, int a) noexcept nogil:
    m33_task(m, J_EX_AMOUNT, p, m.d.pd_from, a - A_RESOURCE)

cdef void run_ex_amount(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_EX_AMOUNT, a)
    m.d.pd_from = b
    m.d.pd_to = c

cdef int legal_ex_amount(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, i
    for i in range(1, m.d.res[p][m.d.pd_from] + 1):
        out[k] = A_COUNT + i
        k += 1
    return k

cdef void do_ex_amount(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = a - A_COUNT
    d.res[p][d.pd_from] -= k
    d.res[p][d.pd_to] = min(35, d.res[p][d.pd_to] + k)
