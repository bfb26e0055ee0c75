# Metro 2033 (board game): the state machine (machine.pyx): a ``Machine`` (the C state of rules.pxd
# with its card tables) and the nogil functions over it that the contract's state (state.pyx) and
# the loader (loader.pyx) call.
from libc.stdint cimport uint64_t

from metro_ai.engine.metro2033.rules cimport Data, Tables
from metro_ai.engine.metro2033.cardset cimport CardTables


cdef struct Machine:
    Data d                      # the game
    Tables* t                   # the compiled card set (a CardTables' ``t``; its owner keeps it alive)
    int round_limit             # G30
    int COMPLETE                # first id of the "complete a quest" block (after the card block)
    int USE                     # first id of the "use a quest" block
    int FIXED                   # first id of the fixed actions (yes, no, army, ...; 12 of them)
    int peek                    # hidden parts m33_determinize leaves as they are (core's PEEK_*
                                # bits; measurement only, 0 in play: GameState.c_set_peek)
    int model                   # m33_determinize draws the others' secret choices from the model
                                # (m33_model_choices) rather than uniformly: GameState.c_set_model


cdef int m33_init(Machine* m, CardTables tab, int round_limit) except -1
cdef void m33_new(Machine* m, int n, uint64_t seed) noexcept nogil
cdef int m33_legal(Machine* m, int* out) noexcept nogil
cdef void m33_do(Machine* m, int a) noexcept nogil
cdef void m33_advance(Machine* m) noexcept nogil
cdef int m33_amount_fl(Machine* m, int p, int which, int default) noexcept nogil
cdef int m33_tkey(Machine* m) noexcept nogil
cdef void m33_determinize(Machine* m, int player, uint64_t seed) noexcept nogil
