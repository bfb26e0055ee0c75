# Metro 2033 (board game): the game and state classes on the contract (state.pyx).
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.metro2033.cardset cimport CardTables
from metro_ai.engine.metro2033.machine cimport Machine


cdef class Metro2033Game(Game):
    cdef CardTables tab                      # the compiled card set, which every state's Machine points at
    cdef Machine proto                       # the deal of seed 0 on those tables, copied into blank states
    cdef readonly object card_set            # cards.py's CardSet
    cdef readonly tuple card_names           # by card id
    cdef readonly tuple card_types
    cdef readonly int C                      # cards in the set
    cdef Metro2033State _blank(self)


cdef class Metro2033State(GameState):
    cdef Machine m
    cdef int c_features(self, int player, float* out, int n) noexcept nogil
