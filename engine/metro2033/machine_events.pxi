# Metro 2033's state machine (machine.pyx, which includes this file): the start of a round and its
# events (G8, G9, G31, G32): the round track's production, Polis stations' resource choice, the law
# (the Confederation's look, the vote) and the threat (declarations, the fights, the discard). For
# each phase its task (run_*), its legal actions (legal_*) and applying one (do_*), side by side;
# machine.pyx's tables name them.

# ---------------------------------------------------------------- round_start (G8): a task
cdef void run_round_start(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int i, ev
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

# ---------------------------------------------------------------- produce (G9): a task
cdef void run_produce(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int k = 0, i, p, s
    cdef int tmp[8]
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

# ---------------------------------------------------------------- polis_res (G9)
cdef void run_polis_res(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_POLIS_RES, a)
    m.d.pd_resmask = b
    m.d.pd_amount = c

cdef int legal_polis_res(Machine* m, int p, int* out) noexcept nogil:
    cdef int k = 0, i
    for i in range(3):
        if m.d.pd_resmask & (1 << i):
            out[k] = A_RESOURCE + i
            k += 1
    return k

cdef void do_polis_res(Machine* m, int p, int a) noexcept nogil:
    cdef int r = a - A_RESOURCE
    m.d.res[p][r] = min(35, m.d.res[p][r] + m.d.pd_amount)

# ---------------------------------------------------------------- law_event (G31): a task
cdef void run_law_event(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int p, i
    if d.deck_n[K_LAW] == 0:
        return
    p = -1
    for i in range(d.n):
        if m.t.peek[d.faction[m33_order(m, i)]]:
            p = m33_order(m, i)
            break
    if p >= 0 and d.deck_n[K_LAW] >= 2:
        m33_set_phase(m, P_LAW_LOOK, p)      # G31: the Confederation "may" look
        return
    m33_start_vote(m, m33_draw(m, K_LAW))

cdef void m33_start_vote(Machine* m, int c) noexcept nogil:
    cdef int i
    m.d.vote_on = True
    m.d.vote_law = c
    m.d.vote_for = m.d.vote_against = 0
    m33_task(m, J_LAW_RESULT, 0, 0, 0)
    for i in range(m.d.n - 1, -1, -1):
        m33_task(m, J_VOTE, m33_order(m, i), 0, 0)

# ---------------------------------------------------------------- law_look (G31): legal_yes_no
cdef void do_law_look(Machine* m, int p, int a) noexcept nogil:
    cdef int c, other
    if a == m.FIXED + YES:
        c = m33_draw(m, K_LAW)
        other = m33_draw(m, K_LAW)
        m33_pending_cards(m, c, other)
        m33_set_phase(m, P_LAW_PEEK, p)
    else:
        m33_start_vote(m, m33_draw(m, K_LAW))

# ---------------------------------------------------------------- law_peek (G31): legal_pending_cards
cdef void do_law_peek(Machine* m, int p, int a) noexcept nogil:
    cdef Data* d = &m.d
    cdef int c = a - A_CARD
    cdef int other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
    m33_under(m, K_LAW, other, 1 << p)
    m33_start_vote(m, c)

# ---------------------------------------------------------------- vote (G31): legal_yes_no
cdef void run_vote(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_VOTE, a)
    m.d.pd_votes = m33_stations(m, a, NULL) + m.t.votes[m.d.faction[a]]

cdef void do_vote(Machine* m, int p, int a) noexcept nogil:
    if a == m.FIXED + YES:
        m.d.vote_for += m.d.pd_votes
    else:
        m.d.vote_against += m.d.pd_votes

# ---------------------------------------------------------------- law_result (G31): a task
cdef void run_law_result(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
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

# ---------------------------------------------------------------- declare (G9, G32)
cdef void run_declare(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_DECLARE, a)

cdef int legal_declare(Machine* m, int p, int* out) noexcept nogil:
    return m33_declare_options(m, p, out)

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

cdef void do_declare(Machine* m, int p, int a) noexcept nogil:
    m.d.decl_station[p] = a % S
    m.d.decl_hero[p] = a >= A_STATION_HERO

# ---------------------------------------------------------------- threat_reveal (G9): a task
cdef void run_threat_reveal(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int x, p, i
    x = m33_draw(m, m33_tkey(m))
    d.threat_now = x
    if x < 0:
        for p in range(d.n):
            d.decl_station[p] = -1
        return
    m33_task(m, J_THREAT_DONE, 0, 0, 0)
    for i in range(d.n - 1, -1, -1):
        m33_task(m, J_THREAT_FIGHT, m33_order(m, i), 0, 0)

# ---------------------------------------------------------------- threat_fight (G9, G20): a task
cdef int m33_threat_outcome(Machine* m, int p, int who, int card) noexcept nogil:
    """G9, G20: the outcome (+1 a win, -1 a loss, 0 a tie) of p's army (`who` 0) or hero (1)
    defending against the threat `card`."""
    cdef int mine = m33_army_strength(m, p, 2) if who == 0 else m33_hero_strength(m, p, 2, 1 + m.t.ttype[card])
    return m33_outcome(m, mine, m.t.strength[card], m33_wins_ties(m, p, who, 2), False)

cdef void run_threat_fight(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int p = a, s = d.decl_station[a], who = d.decl_hero[a], res
    if d.owner[s] != p:
        return
    if who == 1 and (d.hero_at[p] != s or d.wounded[p]):
        who = 0
    res = m33_threat_outcome(m, p, who, d.threat_now)
    if res > 0:
        m33_gain(m, p, d.threat_now)
    elif res < 0:
        m33_lose(m, p, s)

# ---------------------------------------------------------------- threat_done (G9): a task
cdef void run_threat_done(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef int p
    m33_discard(m, d.threat_now)
    d.last_threat = d.threat_now
    d.threat_now = -1
    for p in range(d.n):
        d.decl_station[p] = -1
