# Metro 2033 (board game): the compiled card set (cardset.pyx), which the state machine cimports.
from metro_ai.engine.metro2033.rules cimport Tables


cdef class CardTables:
    cdef Tables t
