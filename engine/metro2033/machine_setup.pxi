# Metro 2033's state machine (machine.pyx, which includes this file): the set-up (G5-G7, G24).
# The faction draft, the hero draft, the set-up itself and each hero's first station: for each
# phase its task (run_*, which the agenda runs), its legal actions (legal_*) and applying one of
# them (do_*), side by side; machine.pyx's tables name them.

# ---------------------------------------------------------------- draft_faction (G6)
cdef void run_draft_faction(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_DRAFT_FACTION, a)

cdef int legal_draft_faction(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int k = 0, i, f
    cdef unsigned int chosen = 0
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

cdef void do_draft_faction(Machine* m, int p, int a) noexcept nogil:
    m.d.faction[p] = m.t.factions[a - A_FACTION]

# ---------------------------------------------------------------- draft_hero (G24)
cdef void run_draft_hero(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_DRAFT_HERO, a)

cdef int legal_draft_hero(Machine* m, int p, int* out) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int k = 0, i
    for i in range(t.nheroes):
        if not _has(d.hero, d.n, t.heroes[i]):
            out[k] = A_HERO + i
            k += 1
    return k

cdef void do_draft_hero(Machine* m, int p, int a) noexcept nogil:
    m.d.hero[p] = m.t.heroes[a - A_HERO]

# ---------------------------------------------------------------- setup (G7): a task, no phase
cdef void run_setup(Machine* m, int a, int b, int c) noexcept nogil:
    cdef Data* d = &m.d
    cdef Tables* t = m.t
    cdef int p, i
    for p in range(d.n):
        for i in range(3):
            d.owner[t.home[d.faction[p]][i]] = p
        d.vp[p] = 3
        d.army[p] = 2
        m33_gain(m, p, d.faction[p])

# ---------------------------------------------------------------- place_hero (G24)
cdef void run_place_hero(Machine* m, int a, int b, int c) noexcept nogil:
    m33_set_phase(m, P_PLACE_HERO, a)

cdef int legal_place_hero(Machine* m, int p, int* out) noexcept nogil:
    cdef int i
    cdef signed char buf[3]
    for i in range(3):
        buf[i] = m.t.home[m.d.faction[p]][i]
    _sort(buf, 3)
    for i in range(3):
        out[i] = A_STATION + buf[i]
    return 3

cdef void do_place_hero(Machine* m, int p, int a) noexcept nogil:
    m.d.hero_at[p] = a - A_STATION
