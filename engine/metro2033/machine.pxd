# Metro 2033 (board game): the state machine (machine.pyx) as a cdef class over the C state of
# rules.pxd, which the contract's state (state.pyx) and the loader (loader.pyx) cimport.
cimport cython
from libc.stdint cimport uint64_t

from metro_ai.engine.metro2033.rules cimport Data, m33_word
from metro_ai.engine.metro2033.cardset cimport CardTables


@cython.final                            # no subclass: its methods are called directly, not by vtable
cdef class FastMetro2033:
    cdef Data d
    cdef CardTables tab
    cdef readonly object card_set            # cards.py's CardSet the tables were built from
    cdef int round_limit
    cdef int FIXED
    cdef int COMPLETE
    cdef int USE
    cdef void _shuffle(self, signed char* a, int n) noexcept nogil
    cdef void _new(self, int n, uint64_t seed) noexcept nogil
    cdef void _task(self, int name, int a, int b, int c) noexcept nogil
    cdef int _pop(self, int key) noexcept nogil
    cdef int _draw(self, int key) noexcept nogil
    cdef void _under(self, int key, int c, int mask) noexcept nogil
    cdef void _on_top(self, int key, int c, int mask) noexcept nogil
    cdef void _discard(self, int c) noexcept nogil
    cdef int _tkey(self) noexcept nogil
    cdef void _refill_market(self) noexcept nogil
    cdef int _order(self, int i) noexcept nogil
    cdef int _stations(self, int p, signed char* out) noexcept nogil
    cdef unsigned int _closed(self) noexcept nogil
    cdef int _amount_fl(self, int p, int which, int default) noexcept nogil
    cdef int _win_vp(self, int p) noexcept nogil
    cdef int _limit(self) noexcept nogil
    cdef int _speed(self, int p) noexcept nogil
    cdef int _fl_bonus(self, int p, int who, int when) noexcept nogil
    cdef int _army_strength(self, int p, int when) noexcept nogil
    cdef int _hero_strength(self, int p, int when, int vs) noexcept nogil
    cdef bint _wins_ties(self, int p, int who, int when) noexcept nogil
    cdef int _outcome(self, int a, int b, bint at, bint bt) noexcept nogil
    cdef void _gain(self, int p, int c) noexcept nogil
    cdef void _capture(self, int p, int s) noexcept nogil
    cdef int _free_options(self, int p, signed char* out) noexcept nogil
    cdef void _lose(self, int p, int s) noexcept nogil
    cdef void _capture_cost(self, int taken, int* cost) noexcept nogil
    cdef void _offer_capture(self, int p, int s, int taken) noexcept nogil
    cdef void _wound(self, int p) noexcept nogil
    cdef void _gain_equipment(self, int p, int c) noexcept nogil
    cdef bint _quest_ok(self, int p, int c) noexcept nogil
    cdef void _set_phase(self, int phase, int p) noexcept nogil
    cdef int _legal(self, int* out) noexcept nogil
    cdef int _declare_options(self, int p, int* out) noexcept nogil
    cdef int _attackable_heroes(self, int p, const m33_word* reach, int* out) noexcept nogil
    cdef int _quest_actions(self, int p, int* out) noexcept nogil
    cdef int _hero_actions(self, int p, int* out) noexcept nogil
    cdef void _do(self, int a) noexcept nogil
    cdef void _quest_do(self, int p, int a) noexcept nogil
    cdef void _army_do(self, int p, int a) noexcept nogil
    cdef void _start_combat(self, int kind, int att, int att_who, int q, int def_who, int s) noexcept nogil
    cdef void _hero_do(self, int p, int a) noexcept nogil
    cdef void _pending_cards(self, int x, int y) noexcept nogil
    cdef void _attack_station(self, int p, int who, int s) noexcept nogil
    cdef void _fight_threat(self, int p, int who, int s, int c) noexcept nogil
    cdef void _after_neutral(self, int p, int who, int s, int res, int c) noexcept nogil
    cdef void _resolve_combat(self) noexcept nogil
    cdef void _advance(self) noexcept nogil
    cdef void _start_vote(self, int c) noexcept nogil
    cdef void _run(self, int name, int a, int b, int c) noexcept nogil
    cdef void _keep(self, int p, int keep) noexcept nogil
    cdef void _hire(self, int p) noexcept nogil
    cdef void _threat_fight(self, int p) noexcept nogil
    cdef void _end_round(self) noexcept nogil
    cdef FastMetro2033 _copy(self)
    cdef int _gather(self, int pool, int player, signed char** pos) noexcept nogil
    cdef void _determinize(self, int player, uint64_t seed) noexcept nogil
