# cython: language_level=3
"""Metro 2033 (board game): the state machine in C.

``Machine`` (``machine.pxd``): the flat C state ``Data`` (``rules.pxd``) with the card tables it
plays with. The ``m33_*`` functions are the whole game of the reference engine (``reference.py``,
rules G1-G38) over it: the same decisions, the same action ids, the same draws from the same
splitmix64 stream, so that the differential tests can compare the two after every action.
``m33_init`` points a machine at a compiled card set (``cardset.pyx``), ``m33_new`` deals,
``m33_legal`` / ``m33_do`` / ``m33_advance`` play, ``m33_determinize`` redeals exactly as the
reference does. The module has no Python face of its own: the contract's game and state
(``state.pyx``) hold a ``Machine`` by value and are the only way in from Python.

The game is one table of phases and one of agenda tasks (issue #42). A phase (``P_*``, rules.pxd)
is a decision: its row names it and holds its ``legal_*`` (the legal actions) and ``do_*``
(applying one); a task (``J_*``) is a step of the agenda: its row names it, says its arguments and
holds its ``run_*``, which plays the step or sets the phase that asks for it. The functions live
side by side, a phase's task, legal and do together, in one file per part of the round, included
here so that the whole machine stays one C translation unit (the compiler inlines the shared
helpers into each phase's functions):

    machine_setup.pxi    the set-up (G5-G7, G24): drafts, home stations, the heroes' places
    machine_events.pxi   the round's start and events (G8, G9, G31, G32): production, law, threat
    machine_actions.pxi  mobilisation, the army and hero actions, Hansa (G10-G12, G27, G33, G34)
    machine_fights.pxi   fights and what follows (G14, G15, G17, G20, G21, G25, G28)
    machine_end.pxi      quests and the end of the round (G13, G16, G18, G29, G30, G38)

This file holds the tables, the three entry points that dispatch through them, the decks, the
helpers every part shares and the determinisation.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.rng cimport rng_t, rng_bounded
from metro_ai.engine.core cimport PEEK_DECKS, PEEK_HANDS, PEEK_CHOICES
from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.cardset cimport CardTables

# G8: the round track (resource bits 1, 2, 4; law 8; threat 16), START first
TRACK_EVENTS = (1 | 2 | 4, 2 | 1, 8 | 4, 16, 2 | 4, 8 | 1, 16, 1 | 4, 8 | 2, 16)
cdef int TRACK[10]
for _i, _v in enumerate(TRACK_EVENTS):
    TRACK[_i] = _v

HIDDEN_PENDING = (P_LAW_PEEK, P_ARTYOM, P_QUEST_KEEP, P_STAGE2_EQ)
DECK_KEYS = ("equipment", "quest", "law", "threat1", "threat2")

cdef Metro2033Map MAP = Metro2033Map()
THE_MAP = MAP                                    # the map's tables, for the loader's checks

include "machine_setup.pxi"
include "machine_events.pxi"
include "machine_actions.pxi"
include "machine_fights.pxi"
include "machine_end.pxi"

# ---------------------------------------------------------------- the tables
ctypedef int (*legal_fn)(Machine* m, int p, int* out) noexcept nogil     # p: the decider
ctypedef void (*do_fn)(Machine* m, int p, int a) noexcept nogil
ctypedef void (*run_fn)(Machine* m, int a, int b, int c) noexcept nogil  # the task's arguments

cdef struct PhaseRow:
    legal_fn legal
    do_fn do_

cdef PhaseRow PHASE_TABLE[P_COUNT]
cdef run_fn TASK_TABLE[J_COUNT]
_PHASE_ROWS = []
_TASK_ROWS = []


cdef _phase(int phase, str name, legal_fn legal, do_fn do_):
    PHASE_TABLE[phase].legal = legal
    PHASE_TABLE[phase].do_ = do_
    _PHASE_ROWS.append((phase, name))


cdef _task(int task, str name, str args, run_fn run):
    TASK_TABLE[task] = run
    _TASK_ROWS.append((task, name, args))


# Every phase: its enum (rules.pxd), its name (the state's "phase", the JSON's), its legal actions
# and applying one. none (the agenda runs) and over (the game is) have no actions.
_phase(P_NONE, "none", legal_nothing, do_nothing)
_phase(P_DRAFT_FACTION, "draft_faction", legal_draft_faction, do_draft_faction)
_phase(P_DRAFT_HERO, "draft_hero", legal_draft_hero, do_draft_hero)
_phase(P_PLACE_HERO, "place_hero", legal_place_hero, do_place_hero)
_phase(P_POLIS_RES, "polis_res", legal_polis_res, do_polis_res)
_phase(P_LAW_PEEK, "law_peek", legal_pending_cards, do_law_peek)
_phase(P_VOTE, "vote", legal_yes_no, do_vote)
_phase(P_DECLARE, "declare", legal_declare, do_declare)
_phase(P_SCOUT_RETURN, "scout_return", legal_yes_no, do_scout_return)
_phase(P_ARTYOM, "artyom", legal_pending_cards, do_artyom)
_phase(P_CAPTURE, "capture", legal_yes_no, do_capture)
_phase(P_FREE_STATION, "free_station", legal_free_station, do_free_station)
_phase(P_DEFENDER, "defender", legal_defender, do_defender)
_phase(P_COMBAT_PICK, "combat_pick", legal_combat_pick, do_combat_pick)
_phase(P_TAKE_EQ, "take_equipment", legal_equipment_from, do_take_eq)
_phase(P_STRIP_EQ, "strip_equipment", legal_equipment_from, do_strip_eq)
_phase(P_DISCARD_EQ, "discard_equipment", legal_discard_eq, do_discard_eq)
_phase(P_HIRE, "hire", legal_hire, do_hire)
_phase(P_ARMY, "army", legal_army, do_army)
_phase(P_HERO_MOVE, "hero_move", legal_hero_move, do_hero_move)
_phase(P_HERO_ACT, "hero_act", legal_hero_act, do_hero_act)
_phase(P_BUY, "buy", legal_buy, do_buy)
_phase(P_QUEST_KEEP, "quest_keep", legal_pending_cards, do_quest_keep)
_phase(P_EX_FROM, "exchange_from", legal_ex_from, do_ex_from)
_phase(P_EX_TO, "exchange_to", legal_ex_to, do_ex_to)
_phase(P_EX_AMOUNT, "exchange_amount", legal_ex_amount, do_ex_amount)
_phase(P_STAGE2_EQ, "stage2_equipment", legal_pending_cards, do_stage2_eq)
_phase(P_LAW_LOOK, "law_look", legal_yes_no, do_law_look)
_phase(P_UPKEEP, "upkeep", legal_upkeep, do_upkeep)
_phase(P_QUEST_COMPLETE, "quest_complete", legal_quest_complete, do_quest_complete)
_phase(P_OVER, "over", legal_nothing, do_nothing)

# Every task: its enum, its name (the JSON agenda's), its arguments and what running it does. The
# arguments: p a player, s a station, w army/hero (0/1), b 0/1, m a resource mask 0..7, k an
# amount 1..2, r a resource 0..2; unused arguments are 0.
_task(J_DRAFT_FACTION, "draft_faction", "p", run_draft_faction)
_task(J_DRAFT_HERO, "draft_hero", "p", run_draft_hero)
_task(J_SETUP, "setup", "", run_setup)
_task(J_PLACE_HERO, "place_hero", "p", run_place_hero)
_task(J_ROUND_START, "round_start", "", run_round_start)
_task(J_PRODUCE, "produce", "mk", run_produce)
_task(J_POLIS_RES, "polis_res", "pmk", run_polis_res)
_task(J_LAW_EVENT, "law_event", "", run_law_event)
_task(J_VOTE, "vote", "p", run_vote)
_task(J_LAW_RESULT, "law_result", "", run_law_result)
_task(J_DECLARE, "declare", "p", run_declare)
_task(J_THREAT_REVEAL, "threat_reveal", "", run_threat_reveal)
_task(J_THREAT_FIGHT, "threat_fight", "p", run_threat_fight)
_task(J_THREAT_DONE, "threat_done", "", run_threat_done)
_task(J_MOBILISE, "mobilise", "p", run_mobilise)
_task(J_ARMY, "army", "p", run_army)
_task(J_HERO, "hero", "p", run_hero)
_task(J_HERO_ACT, "hero_act", "p", run_hero_act)
_task(J_NEUTRAL_ATTACK, "neutral_attack", "pws", run_neutral_attack)
_task(J_NEUTRAL_FIGHT, "neutral_fight", "pws", run_neutral_fight)
_task(J_CAPTURE, "capture", "psb", run_capture)
_task(J_FREE_STATION, "free_station", "p", run_free_station)
_task(J_DEFENDER, "defender", "p", run_defender)
_task(J_COMBAT_DEAL, "combat_deal", "", run_combat_deal)
_task(J_COMBAT_PICK, "combat_pick", "b", run_combat_pick)
_task(J_COMBAT_RESOLVE, "combat_resolve", "", run_combat_resolve)
_task(J_TAKE_EQ, "take_equipment", "ppb", run_take_eq)
_task(J_STRIP_EQ, "strip_equipment", "ppb", run_strip_eq)
_task(J_DISCARD_EQ, "discard_equipment", "p", run_discard_eq)
_task(J_BUY, "buy", "pbb", run_buy)
_task(J_EX_FROM, "exchange_from", "p", run_ex_from)
_task(J_EX_TO, "exchange_to", "pr", run_ex_to)
_task(J_EX_AMOUNT, "exchange_amount", "prr", run_ex_amount)
_task(J_STAGE2_EQ, "stage2_equipment", "p", run_stage2_eq)
_task(J_END_ROUND, "end_round", "", run_end_round)
_task(J_QUEST_CHECK, "quest_check", "", run_quest_check)
_task(J_QUEST_OFFER, "quest_offer", "p", run_quest_offer)


def _by_value(rows, what, count=None):
    """`rows` ((enum value, name, ...), ...) sorted by value, checked to number 0..n-1 once each
    (and, given `count`, to be that many: every member of the enum)."""
    values = sorted(row[0] for row in rows)
    n = len(rows) if count is None else count
    if values != list(range(n)):
        raise ImportError(f"metro2033 machine: the {what} table does not number its enums "
                          f"0..{n - 1} once each")
    return sorted(rows)


# The names, in the enums' order, from the tables: a phase or task without its row, or with two,
# stops the import (_by_value), so no name can drift from its enum or a dispatch find no function.
PHASES = tuple(row[1] for row in _by_value(_PHASE_ROWS, "phase", P_COUNT))
_TASKS = _by_value(_TASK_ROWS, "task", J_COUNT)
TASK_NAMES = tuple(row[1] for row in _TASKS)
TASK_ARGS = tuple(row[2] for row in _TASKS)


def _table_rows():
    """For the tests: per phase (name, has legal, has do), per task (name, has run), in enum order."""
    return (tuple((PHASES[i], PHASE_TABLE[i].legal != NULL, PHASE_TABLE[i].do_ != NULL) for i in range(P_COUNT)),
            tuple((TASK_NAMES[i], TASK_TABLE[i] != NULL) for i in range(J_COUNT)))


# ---------------------------------------------------------------- playing: the entry points
cdef int m33_legal(Machine* m, int* out) noexcept nogil:
    if m.d.over:
        return 0
    return PHASE_TABLE[m.d.phase].legal(m, m.d.decider, out)

cdef void m33_do(Machine* m, int a) noexcept nogil:
    cdef int ph = m.d.phase
    m.d.phase = P_NONE
    PHASE_TABLE[ph].do_(m, m.d.decider, a)

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
        TASK_TABLE[x.name](m, x.a, x.b, x.c)
        if m.d.over:
            m.d.phase = P_OVER
            m.d.decider = -1
            return

# ---------------------------------------------------------------- legal actions several phases share
cdef int legal_nothing(Machine* m, int p, int* out) noexcept nogil:
    return 0

cdef void do_nothing(Machine* m, int p, int a) noexcept nogil:
    pass

cdef int legal_yes_no(Machine* m, int p, int* out) noexcept nogil:
    """vote, capture, scout_return, law_look."""
    out[0] = m.FIXED + YES
    out[1] = m.FIXED + NO
    return 2

cdef int legal_pending_cards(Machine* m, int p, int* out) noexcept nogil:
    """law_peek, artyom, quest_keep, stage2_equipment: one of the cards drawn to choose among."""
    cdef int k = 0, i
    for i in range(m.d.pd_ncards):
        out[k] = A_CARD + m.d.pd_cards[i]
        k += 1
    _isort(out, k)
    return k

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

# ---------------------------------------------------------------- a new game
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

cdef void m33_set_phase(Machine* m, int phase, int p) noexcept nogil:
    m.d.phase = phase
    m.d.decider = p

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

cdef int m33_limit(Machine* m) noexcept nogil:
    return 2 if m.d.stage == 1 else 3

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

cdef void m33_gain_equipment(Machine* m, int p, int c) noexcept nogil:
    m.d.equip[p][m.d.equip_n[p]] = c
    m.d.equip_n[p] += 1
    _sort(m.d.equip[p], m.d.equip_n[p])
    if m.d.equip_n[p] > m33_limit(m):
        m33_task(m, J_DISCARD_EQ, p, 0, 0)

# ---------------------------------------------------------------- determinisation
cdef int m33_gather(Machine* m, int pool, int player, signed char** pos) noexcept nogil:
    """The places of `pool` (a deck key, or 5: the combat cards) whose card `player` cannot
    see, in the reference's order: deck places not known to them, the others' quests and
    scouted threats, cards another player is choosing among, then the combat cards aside and
    the other sides' hands and picks. The parts in ``m.peek`` are left out (their places keep
    their cards): decks (deck places, the combat cards aside), hands (quests, scouted threats,
    cards chosen among, combat hands), choices (combat picks)."""
    cdef Data* d = &m.d
    cdef int k = 0, i, q, key, side
    cdef bint decks = not (m.peek & PEEK_DECKS), hands = not (m.peek & PEEK_HANDS)
    cdef bint choices = not (m.peek & PEEK_CHOICES)
    if pool < 5:
        if decks:
            for i in range(d.deck_n[pool]):
                if not (d.known[d.deck[pool][i]] >> player) & 1:
                    pos[k] = &d.deck[pool][i]
                    k += 1
        if not hands:
            return k
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
    if decks:
        for i in range(d.aside_n):
            pos[k] = &d.aside[i]
            k += 1
    for side in range(2):
        if d.cx_side[side] != player:
            if hands:
                for i in range(d.hand_n[side]):
                    pos[k] = &d.hand[side][i]
                    k += 1
            if choices and d.pick[side] >= 0:
                pos[k] = &d.pick[side]
                k += 1
    return k

# The model of the others' secret choices (issue #44): where a search deals its worlds with it
# (``m.model``: GameState.c_set_model, the search option opponents='model'), each other player's
# secret choice not yet shown is drawn epsilon-greedily instead of uniformly. With probability
# 1 - 1/MODEL_ANY the player makes the choice with the best total outcome (wins less losses)
# against every answer they cannot know, ties drawn uniformly; else any of their choices,
# uniformly. A threat declaration (G9) is scored against every card of the threat deck the threat
# will be drawn from; the attacker's combat pick (G21) against every combat card outside their
# own three (the defender's answer is unknown to them). A model of how this project's own bots
# choose, not a measured one of people: the worlds it deals stay ones the searching player
# cannot tell from the real state, only their weights change.
cdef enum:
    MODEL_ANY = 4

cdef int m33_model_draw(rng_t* r, const int* value, int n) noexcept nogil:
    """The index of the modelled choice among `n` scored by `value` (see above)."""
    cdef int i, best, k = 0, j
    if rng_bounded(r, MODEL_ANY) == 0:
        return <int>rng_bounded(r, <uint64_t>n)
    best = value[0]
    for i in range(1, n):
        if value[i] > best:
            best = value[i]
    for i in range(n):
        k += value[i] == best
    j = <int>rng_bounded(r, <uint64_t>k)
    for i in range(n):
        if value[i] == best:
            if j == 0:
                return i
            j -= 1
    return 0

cdef int m33_model_declaration(Machine* m, int q, const int* opts, int nopt, rng_t* r) noexcept nogil:
    """q's modelled threat declaration among its `nopt` options `opts`: an option scores as its
    defender does (the army the same at every station), each defender scored once."""
    cdef int value[80]
    cdef int by_who[2]
    cdef int j, k, who, tk = m33_tkey(m)
    by_who[0] = by_who[1] = -1 << 30            # not scored yet
    for j in range(nopt):
        who = opts[j] >= A_STATION_HERO
        if by_who[who] == -1 << 30:
            by_who[who] = 0
            for k in range(m.d.deck_n[tk]):
                by_who[who] += m33_threat_outcome(m, q, who, m.d.deck[tk][k])
        value[j] = by_who[who]
    return opts[m33_model_draw(r, value, nopt)]

cdef void m33_model_pick(Machine* m, rng_t* r) noexcept nogil:
    """The attacker's modelled combat pick among the three cards the world dealt them (their
    hand and pick): the pick becomes it, the hand the other two."""
    cdef Data* d = &m.d
    cdef signed char own[MAXC]
    cdef int value[MAXC]
    cdef int n = d.hand_n[0] + 1, i, j, k, cd
    for i in range(d.hand_n[0]):
        own[i] = d.hand[0][i]
    own[n - 1] = d.pick[0]
    _sort(own, n)
    for j in range(n):
        value[j] = 0
        for k in range(m.t.n_type[T_COMBAT]):
            cd = m.t.by_type[T_COMBAT][k]
            if not _has(own, n, cd):
                value[j] += m33_combat_outcome(m, own[j], cd)
    j = m33_model_draw(r, value, n)
    d.pick[0] = own[j]
    k = 0
    for i in range(n):
        if i != j:
            d.hand[0][k] = own[i]
            k += 1

cdef void m33_determinize(Machine* m, int player, uint64_t seed) noexcept nogil:
    """The reference's ``determinize``: each pool's hidden cards sorted, shuffled and dealt
    back in place order (deck knowledge staying with the place), then the undisclosed threat
    declarations of the others redrawn (G32), uniformly or, with ``m.model``, by the model
    (above), which then also redraws the attacker's combat pick the player cannot see; the
    generator is the one drawn from `seed`. The parts in ``m.peek`` stay as they are
    (m33_gather; choices: the declarations and the model's pick too; decks: the generator too,
    so that the chance to come is the source's)."""
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
    if d.threat_now < 0 and not (m.peek & PEEK_CHOICES):
        for i in range(d.n):
            q = m33_order(m, i)
            if q != player and d.decl_station[q] >= 0:
                nopt = m33_declare_options(m, q, opts)
                j = (m33_model_declaration(m, q, opts, nopt, &r) if m.model
                     else opts[rng_bounded(&r, <uint64_t>nopt)])
                d.decl_station[q] = j % S
                d.decl_hero[q] = j >= A_STATION_HERO
    if m.model and d.combat_on and d.pick[0] >= 0 and d.cx_side[0] != player and not (m.peek & PEEK_CHOICES):
        m33_model_pick(m, &r)
    if not (m.peek & PEEK_DECKS):
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
