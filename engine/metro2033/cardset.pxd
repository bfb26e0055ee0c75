# Metro 2033 (board game): the compiled card set (cardset.pyx), which the state machine cimports,
# and the strength rule (G35) over a card's strength entries.
from metro_ai.engine.metro2033.rules cimport Tables, MAXC

cdef enum:
    M33_MAX_STRENGTH = 8        # strength entries a card may print

cdef struct M33Strength:        # one ``strength`` entry of a card (cards.py), names as indices
    int amount
    signed char who             # 0 army, 1 hero; -1 any
    signed char when            # 0 attack, 1 defence; -1 any
    signed char vs              # opponent's threat or combat-card type; -1 none (a plain entry)


cdef int m33_strength_bonus(const M33Strength* e, int n, int who, int when, int vs) noexcept nogil


cdef class CardTables:
    cdef Tables t
    cdef M33Strength strength_entry[MAXC][M33_MAX_STRENGTH]
    cdef int n_strength[MAXC]
