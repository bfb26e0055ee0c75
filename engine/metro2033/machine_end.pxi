# Metro 2033's state machine (machine.pyx, which includes this file): quests (G16, G29, G38: the
# check after the events and after each army and hero action, a quest completed or used) and the end
# of the round (G13: the winner, the first player, the round limit G30; stage 2, G18, with its
# equipment). For each phase its task (run_*), its legal actions (legal_*) and applying one (do_*),
# side by side; machine.pyx's tables name them.

# ---------------------------------------------------------------- quests
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

# ---------------------------------------------------------------- quest_check (G29): a task
cdef void run_quest_check(Machine* m, int a, int b, int c) noexcept nogil:
    cdef int i
    for i in range(m.d.n - 1, -1, -1):
        m33_task(m, J_QUEST_OFFER, m33_order(m, i), 0, 0)

# ---------------------------------------------------------------- quest_complete (G29, G38): task quest_offer
cdef void run_quest_offer(Machine* m, int a, int b, int c) noexcept nogil:
    if m.d.quest_n[a] > 0:                    # G38: every holder, fulfilled or not (G29)
        m33_set_phase(m, P_QUEST_COMPLETE, a)

cdef int legal_quest_complete(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, i
    for i in range(d.quest_n[p]):
        if m33_quest_ok(m, p, d.quests[p][i]):
            out[k] = m.COMPLETE + d.quests[p][i]
            k += 1
    out[k] = m.FIXED + DONE
    k += 1
    _isort(out, k)
    return k

cdef void do_quest_complete(Machine* m, int p, int a) noexcept nogil:
    if a != m.FIXED + DONE:
        m33_quest_do(m, p, a)
        m33_task(m, J_QUEST_OFFER, p, 0, 0)

# ---------------------------------------------------------------- end_round (G13, G18, G30): a task
cdef void run_end_round(Machine* m, int a, int b, int c) noexcept nogil:
    m33_end_round(m)

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

cdef int m33_win_vp(Machine* m, int p) noexcept nogil:
    cdef int v = m.t.win_vp[m.d.faction[p]]
    return v if v >= 0 else 10

# ---------------------------------------------------------------- stage2_equipment (G18): legal_pending_cards
cdef void run_stage2_eq(Machine* m, int a, int b, int c) noexcept nogil:
    cdef int x, y
    x = m33_draw(m, K_EQUIPMENT)
    y = m33_draw(m, K_EQUIPMENT)
    m33_pending_cards(m, x, y)
    if m.d.pd_ncards:
        m33_set_phase(m, P_STAGE2_EQ, a)

cdef void do_stage2_eq(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c = a - A_CARD, i
    for i in range(d.pd_ncards):
        if d.pd_cards[i] != c:
            m33_discard(m, d.pd_cards[i])
    m33_gain_equipment(m, p, c)
