# Leduc poker: the game and state on the contract (state.pyx), over the C state and mechanics of
# rules.pxd, cimported here whole.
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.leduc.rules cimport *


cdef class LeducGame(Game):
    cdef readonly int num_cards          # 2 * (players + 1) (L2)
    cdef readonly int max_win            # the most chips a player can win: 13 * (players - 1)
    cdef LeducState _blank(self)


cdef class LeducState(GameState):
    cdef LeducData d
    cdef int n                           # players
