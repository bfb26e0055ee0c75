# Metro 2033 (board game): the game and state classes on the contract (state.pyx).
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.metro2033.machine cimport FastMetro2033


cdef class Metro2033Game(Game):
    cdef readonly FastMetro2033 proto        # the deal of seed 0: the card tables, copied into states
    cdef readonly object card_set            # cards.py's CardSet
    cdef readonly tuple card_names           # by card id
    cdef readonly tuple card_types
    cdef readonly int C                      # cards in the set
    cdef Metro2033State _blank(self)


cdef class Metro2033State(GameState):
    cdef FastMetro2033 f
