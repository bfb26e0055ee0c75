# Metro 2033 (board game): the map as flat tables and the path rules over it (G6, G11, G12, G22,
# G23), which the fast engine (fast.pyx) cimports; checked against board.py by
# tests/metro2033/test_metro2033_rules.py. Rules: docs/rules/metro2033.md.

cdef enum:
    M33_STATIONS = 78           # G1
    M33_MAX_DEGREE = 8          # links at one station (the map has at most 5)
    M33_PIGS = 0                # station kinds: the three resources, then the rest
    M33_MUSHROOMS = 1
    M33_BULLETS = 2
    M33_HANSA = 3
    M33_ABANDONED = 4
    M33_POLIS = 5
    M33_TUNNEL = 0              # link kinds
    M33_TRANSFER = 1
    M33_MAX_ZONES = 7           # zones of the map (G6); closed-zone masks are below 1 << 7

ctypedef unsigned long long m33_word

cdef struct M33Map:                      # the map, read once from board.py's data
    int n                                # stations
    signed char deg[78]                  # links at each station
    signed char nbr[78][8]               # the stations linked, ascending
    signed char link[78][8]              # M33_TUNNEL or M33_TRANSFER
    signed char kind[78]                 # M33_PIGS .. M33_POLIS
    signed char zone[78]                 # index into Metro2033Map.zones
    # precomputed once per map (Metro2033Map.__init__), so that the path rules are table look-ups
    # and bit operations; the map's stations as 2 x 64-bit masks (station i: word i >> 6, bit i & 63)
    m33_word zone_bits[7][2]             # the stations of each zone
    m33_word passable_kind[2]            # Polis and Hansa stations (G11, G23: passed when neutral)
    m33_word nbr_free[78][2]             # the stations linked to i but by a Hansa-Hansa tunnel
    m33_word nbr_hansa[78][2]            # the Hansa stations linked to Hansa station i by a tunnel
    unsigned char dist[128][78][78]      # G12: links from i to j, zones of the mask out of play; 255 none


cdef int m33_army_reach(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                        signed char* out) noexcept nogil
cdef void m33_army_reach_bits(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                             m33_word* reached) noexcept nogil
cdef int m33_bits_list(const m33_word* bits, signed char* out) noexcept nogil
cdef int m33_army_targets(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                          signed char* out) noexcept nogil
cdef int m33_hero_reach(const M33Map* m, int start, int speed, unsigned int closed,
                        signed char* out) noexcept nogil


cdef class Metro2033Map:
    cdef M33Map m
    cdef readonly tuple zones            # zone names, in the order of M33Map.zone
    cdef int _precompute(self) except -1
    cdef unsigned int _closed_mask(self, object closed_zones) except? 0
    cdef int _owners(self, object owner, int player, signed char* own) except -1
