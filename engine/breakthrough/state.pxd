# Metro 2033: Breakthrough: the game (configuration and rule tables) and the state classes.
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.breakthrough.rules cimport BtData, BtTables


cdef class BreakthroughState(GameState):
    cdef BtData d                          # the whole state, hidden parts included
    cdef const BtTables* t                 # the game's tables
    # The observation features in C (features.py's BreakthroughFeatures, value for value).
    cdef int c_features(self, int player, float* out, int n) noexcept nogil


cdef class BreakthroughGame(Game):
    cdef BtTables tables
    cdef readonly bint full_protection_required    # survival mode 1 (B9.1, R13)
    cdef readonly bint failed_defence_tokens_down  # survival mode 2 (B9.2, R14)
    cdef readonly bint quest_tokens_stay_down      # survival mode 3 (B9.3, R15)
    cdef readonly object factions          # "random" or a tuple of faction names
    cdef readonly int turn_limit           # B8, R18
    cdef readonly object card_set          # the cards.CardSet
    cdef readonly object card_set_path     # None (shipped set) or the path given
    cdef readonly tuple card_names         # card id -> name
    cdef readonly dict name_to_ids         # name -> card ids
    cdef _build_tables(self)
    cdef BreakthroughState _blank(self)
