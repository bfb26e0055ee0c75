# Metro (Dirk Henn's tile-laying game): the game and its state on the contract (state.pyx), over the
# C data and mechanics of rules.pxd, cimported here whole: a module cimports what it needs from
# here. A module (module.py: a MetroModule) adds a part to MetroState (switched on by a table flag,
# tested through its inline helper: has_companies, has_central) or, with a turn of its own (the
# cities), a subclass of it; a game of its own (the solo game) subclasses MetroGame and MetroState.
from libc.stdint cimport uint64_t
from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.rng cimport rng_t

from metro_ai.engine.metro.rules cimport *

cdef class MetroGame(Game):
    cdef MetroTables tables
    cdef readonly bint orientation       # False: variant M9 (tiles may be rotated)
    cdef readonly int hand_size          # tiles held in hand (M10)
    cdef readonly object data            # metro_ai.engine.metro.data.MetroData
    cdef readonly tuple tile_ids         # "T01" .. "T24", kind index order
    cdef readonly dict owners            # player (with companies: company) -> tuple of station numbers
    cdef readonly bint companies         # the companies expansion (M11-M14)
    cdef readonly object company_chart   # None (the shipped, reconstructed chart) or a file path (M11)
    cdef readonly object exchange_limit  # exchanges each player may make (M17); None: no cap (M20)
    cdef readonly object turn_limit      # with exchange_limit=None: the turn limit (M20); else None
    cdef readonly tuple chart            # company -> tuple of its 4 station numbers (companies only)
    cdef readonly bint central_stations  # City Edition module 2 (C2)
    cdef readonly bint central_tracks    # City Edition module 3 (C3)
    cdef readonly object central_track_layouts   # None (shipped, reconstructed) or a file path (C13)
    cdef readonly tuple track_layouts    # the 8 central-track pieces' exits (C3 only)
    cdef readonly str edition            # "classic" or "city" (C1 setup frames)
    cdef readonly object city            # None or a City Edition city (C5-C10)
    cdef readonly object city_data       # None (the shipped, reconstructed numbers) or a file path (C26)
    cdef readonly object city_rules      # the city's tables (cities.CityRules), cities only
    cdef readonly tuple modules          # the active MetroModules (module.py MODULES), in dispatch order
    cdef object state_maker              # an active module's blank_state (a state class of its own), or None
    cdef _build_tables(self)
    cdef MetroState _blank(self)


cdef class MetroState(GameState):
    # The base game's part, then the optional parts, each switched on by a table flag:
    # `cd` (central stations, C2) with t.ncentral > 0; `co` (the companies' shares, M11-M18)
    # with t.companies.
    cdef MetroData d
    cdef const MetroTables* t
    cdef CentralData cd
    cdef CompanyData co
