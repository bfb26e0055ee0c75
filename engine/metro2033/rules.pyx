# cython: language_level=3
"""Metro 2033 (board game): the map in C, for the fast engine.

The map as flat C tables (:class:`Metro2033Map`, built from ``board.BOARD``, the one reader of the
map's data) and the path rules in ``nogil`` C: the stations an army may attack (G11, with the
Polis/Hansa passage of G23 and the zones out of play of G6, G22) and the stations a hero reaches
(G12), as look-ups in tables computed once per map (hero distances for every set of zones out of
play) and searches over 2 x 64-bit station masks (the army's paths). The fast engine
(``machine.pyx``, played as the game ``metro2033``) cimports them;
``tests/metro2033/test_metro2033_rules.py`` checks both against ``board.py`` on random positions, and the
pure-Python reference engine (``reference.py``) plays the whole game independently of them.

Owners are ``-1`` (neutral) or a player 0..5; zones out of play are a bit mask over
``Metro2033Map.zones``. Outputs are station indices, ascending.
"""
from metro_ai.engine.metro2033.board import BOARD, RESOURCES

_KINDS = RESOURCES + ("hansa", "abandoned", "polis")


cdef extern from *:
    int m33_ctz "__builtin_ctzll"(unsigned long long x) nogil


cdef int m33_bits_list(const m33_word* bits, signed char* out) noexcept nogil:
    """The stations of a 2-word station mask, ascending, written to `out`; returns how many."""
    cdef int w, count = 0
    cdef m33_word x
    for w in range(2):
        x = bits[w]
        while x:
            out[count] = <signed char>(w * 64 + m33_ctz(x))
            count += 1
            x &= x - 1
    return count


cdef void m33_army_reach_bits(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                              m33_word* reached) noexcept nogil:
    """G11, G23: the stations `player`'s army reaches, as a station mask in `reached[2]`: every
    station linked to a station held or passed, in a zone in play, of any kind and owner; passed
    are the neutral Polis and Hansa stations so reached, with at most one Hansa tunnel (a tunnel
    between two Hansa stations) on the way. A search over (station, Hansa tunnels used) in whole
    frontiers of bits: `seen0`/`seen1` the stations held or passed with 0/1 Hansa tunnels used (a
    held station is reached but never passed)."""
    cdef m33_word open_[2]
    cdef m33_word passable[2]
    cdef m33_word seen0[2]
    cdef m33_word seen1[2]
    cdef m33_word front0[2]
    cdef m33_word front1[2]
    cdef m33_word new0[2]
    cdef m33_word new1[2]
    cdef m33_word x, r
    cdef int i, w, z, b
    open_[0] = open_[1] = ~(<m33_word>0)
    for z in range(M33_MAX_ZONES):
        if closed & (1u << z):
            open_[0] &= ~m.zone_bits[z][0]
            open_[1] &= ~m.zone_bits[z][1]
    seen0[0] = seen0[1] = 0
    passable[0] = passable[1] = 0
    for i in range(m.n):
        if owner[i] == player:
            seen0[i >> 6] |= (<m33_word>1) << (i & 63)
        elif owner[i] < 0:
            passable[i >> 6] |= (<m33_word>1) << (i & 63)
    reached[0] = reached[1] = 0
    seen1[0] = seen1[1] = 0
    for w in range(2):
        passable[w] &= m.passable_kind[w] & open_[w]
        front0[w] = seen0[w]
        front1[w] = 0
    while front0[0] | front0[1] | front1[0] | front1[1]:
        new0[0] = new0[1] = new1[0] = new1[1] = 0
        for w in range(2):
            x = front0[w]
            while x:
                i = w * 64 + m33_ctz(x)
                x &= x - 1
                for b in range(2):
                    r = m.nbr_free[i][b] & open_[b]
                    reached[b] |= r
                    new0[b] |= r
                    r = m.nbr_hansa[i][b] & open_[b]
                    reached[b] |= r
                    new1[b] |= r
            x = front1[w]
            while x:
                i = w * 64 + m33_ctz(x)
                x &= x - 1
                for b in range(2):
                    r = m.nbr_free[i][b] & open_[b]
                    reached[b] |= r
                    new1[b] |= r
        for w in range(2):
            front0[w] = new0[w] & passable[w] & ~seen0[w]
            seen0[w] |= front0[w]
            front1[w] = new1[w] & passable[w] & ~seen1[w]
            seen1[w] |= front1[w]


cdef int m33_army_reach(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                        signed char* out) noexcept nogil:
    """G11, G23: the stations `player`'s army reaches (m33_army_reach_bits), ascending, written
    to `out`; returns how many."""
    cdef m33_word reached[2]
    m33_army_reach_bits(m, owner, player, closed, reached)
    return m33_bits_list(reached, out)


cdef int m33_army_targets(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                          signed char* out) noexcept nogil:
    """G11, G23: the stations an army may attack: of those it reaches (m33_army_reach), the
    ones not the player's, neither Hansa nor abandoned. Writes them ascending to `out`; returns
    how many."""
    cdef signed char reached[78]
    cdef int i, j, n = m33_army_reach(m, owner, player, closed, reached), count = 0
    for i in range(n):
        j = reached[i]
        if owner[j] != player and m.kind[j] != M33_HANSA and m.kind[j] != M33_ABANDONED:
            out[count] = <signed char>j
            count += 1
    return count


cdef void _hero_dist(const M33Map* m, int start, unsigned int closed, unsigned char* dist) noexcept nogil:
    """G12: links from `start` to every station, never entering a zone out of play (`start`
    itself counts, wherever it is); 255 where none leads. Breadth-first; fills `dist[78]`."""
    cdef signed char queue[78]
    cdef int head = 0, tail = 1, i, j, k
    for i in range(m.n):
        dist[i] = 255
    dist[start] = 0
    queue[0] = <signed char>start
    while head < tail:
        i = queue[head]
        head += 1
        for k in range(m.deg[i]):
            j = m.nbr[i][k]
            if dist[j] == 255 and not (closed & (1u << m.zone[j])):
                dist[j] = dist[i] + 1
                queue[tail] = <signed char>j
                tail += 1


cdef int m33_hero_reach(const M33Map* m, int start, int speed, unsigned int closed,
                        signed char* out) noexcept nogil:
    """G12: the stations within `speed` links of `start` (abandoned ones crossed), never
    entering a zone out of play; `start` included (speed 0..127). Writes them ascending; returns
    how many. A look-up in the distances precomputed per closed-zone mask."""
    cdef const unsigned char* dist = m.dist[closed & 127][start]
    cdef int i, count = 0
    for i in range(m.n):
        if dist[i] <= speed:
            out[count] = <signed char>i
            count += 1
    return count


cdef class Metro2033Map:
    """The map as C tables, with Python wrappers of the path rules (for tests and tools)."""

    def __init__(self):
        cdef int i, k
        if BOARD.n != M33_STATIONS:
            raise ValueError(f"the map has {BOARD.n} stations, the C tables {M33_STATIONS}")
        self.zones = tuple(BOARD.zones)
        self.m.n = BOARD.n
        for i in range(BOARD.n):
            links = BOARD.links[i]
            if len(links) > M33_MAX_DEGREE:
                raise ValueError(f"station {BOARD.names[i]} has {len(links)} links, at most {M33_MAX_DEGREE}")
            self.m.deg[i] = len(links)
            for k, (j, kind) in enumerate(links):
                self.m.nbr[i][k] = j
                self.m.link[i][k] = M33_TUNNEL if kind == "tunnel" else M33_TRANSFER
            self.m.kind[i] = _KINDS.index(BOARD.kind[i])
            self.m.zone[i] = self.zones.index(BOARD.zone[i])
        self._precompute()

    cdef int _precompute(self) except -1:
        """The tables of M33Map below `zone`: zone and kind masks, the links split by whether
        they are Hansa tunnels (G23), and the hero distances for every closed-zone mask (G12)."""
        cdef int i, j, k, w, z
        cdef unsigned int mask
        cdef m33_word bit
        if len(self.zones) > M33_MAX_ZONES:
            raise ValueError(f"the map has {len(self.zones)} zones, the C tables {M33_MAX_ZONES}")
        for z in range(M33_MAX_ZONES):
            self.m.zone_bits[z][0] = self.m.zone_bits[z][1] = 0
        self.m.passable_kind[0] = self.m.passable_kind[1] = 0
        for i in range(self.m.n):
            w = i >> 6
            bit = (<m33_word>1) << (i & 63)
            self.m.zone_bits[self.m.zone[i]][w] |= bit
            if self.m.kind[i] == M33_POLIS or self.m.kind[i] == M33_HANSA:
                self.m.passable_kind[w] |= bit
            self.m.nbr_free[i][0] = self.m.nbr_free[i][1] = 0
            self.m.nbr_hansa[i][0] = self.m.nbr_hansa[i][1] = 0
        for i in range(self.m.n):
            for k in range(self.m.deg[i]):
                j = self.m.nbr[i][k]
                bit = (<m33_word>1) << (j & 63)
                if (self.m.link[i][k] == M33_TUNNEL and self.m.kind[i] == M33_HANSA
                        and self.m.kind[j] == M33_HANSA):
                    self.m.nbr_hansa[i][j >> 6] |= bit
                else:
                    self.m.nbr_free[i][j >> 6] |= bit
        for mask in range(1u << M33_MAX_ZONES):
            for i in range(self.m.n):
                _hero_dist(&self.m, i, mask, self.m.dist[mask][i])
        return 0

    cdef unsigned int _closed_mask(self, object closed_zones) except? 0:
        cdef unsigned int mask = 0
        for z in closed_zones:
            if z not in self.zones:
                raise ValueError(f"unknown zone {z!r}; zones are {', '.join(self.zones)}")
            mask |= 1u << self.zones.index(z)
        return mask

    cdef int _owners(self, object owner, int player, signed char* own) except -1:
        """Check `owner` (78 entries, None or a player 0..5) and `player`; copy into `own`."""
        cdef int i
        if not 0 <= player < 6:
            raise ValueError(f"player must be 0..5, got {player}")
        if len(owner) != self.m.n:
            raise ValueError(f"owner must have {self.m.n} entries, got {len(owner)}")
        for i in range(self.m.n):
            o = owner[i]
            if o is None:
                own[i] = -1
            elif isinstance(o, int) and not isinstance(o, bool) and 0 <= o < 6:
                own[i] = o
            else:
                raise ValueError(f"owner[{i}] must be None or a player 0..5, got {o!r}")
        return 0

    def army_targets(self, owner, int player, closed_zones=()):
        """G11: as ``board.BOARD.army_targets`` (owner: a list of 78 entries, None or a player)."""
        cdef signed char own[78]
        cdef signed char out[78]
        cdef int i, k
        self._owners(owner, player, own)
        cdef unsigned int closed = self._closed_mask(closed_zones)
        with nogil:
            k = m33_army_targets(&self.m, own, player, closed, out)
        return [out[i] for i in range(k)]

    def army_reach(self, owner, int player, closed_zones=()):
        """G11, G23: the stations `player`'s army reaches (the targets of a station attack
        and of an attack on a hero among them; owner as for ``army_targets``)."""
        cdef signed char own[78]
        cdef signed char out[78]
        cdef int i, k
        self._owners(owner, player, own)
        cdef unsigned int closed = self._closed_mask(closed_zones)
        with nogil:
            k = m33_army_reach(&self.m, own, player, closed, out)
        return [out[i] for i in range(k)]

    def hero_reach(self, int start, int speed, closed_zones=()):
        """G12: as ``board.BOARD.hero_reach``."""
        cdef signed char out[78]
        cdef int i, k
        if not 0 <= start < self.m.n:
            raise ValueError(f"start must be a station 0..{self.m.n - 1}, got {start}")
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed}")
        cdef unsigned int closed = self._closed_mask(closed_zones)
        with nogil:
            k = m33_hero_reach(&self.m, start, min(speed, 127), closed, out)
        return [out[i] for i in range(k)]
