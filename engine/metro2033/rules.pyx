# cython: language_level=3
"""Metro 2033 (board game): the map in C, for the fast engine.

The map as flat C tables (:class:`Metro2033Map`, built from ``board.BOARD``, the one reader of the
map's data) and the path rules in ``nogil`` C: the stations an army may attack (G11, with the
Polis/Hansa passage of G23 and the zones out of play of G6, G22) and the stations a hero reaches
(G12). The fast engine (``fast.pyx``, the game registered as ``metro2033``) cimports them;
``tests/test_metro2033_rules.py`` checks both against ``board.py`` on random positions, and the
pure-Python reference engine (``reference.py``) plays the whole game independently of them.

Owners are ``-1`` (neutral) or a player 0..5; zones out of play are a bit mask over
``Metro2033Map.zones``. Outputs are station indices, ascending.
"""
from metro_ai.engine.metro2033.board import BOARD, RESOURCES

_KINDS = RESOURCES + ("hansa", "abandoned", "polis")


cdef int m33_army_reach(const M33Map* m, const signed char* owner, int player, unsigned int closed,
                        signed char* out) noexcept nogil:
    """G11, G23: the stations `player`'s army reaches, breadth-first from its stations through
    neutral Polis and Hansa stations, at most one Hansa tunnel on the way (state: station, Hansa
    tunnels used): every station linked to a station held or passed, in a zone in play, of any
    kind and owner (a held station is reached but never passed). Writes them ascending to
    `out`; returns how many."""
    cdef signed char seen[78][2]
    cdef signed char reached[78]
    cdef short queue[156]
    cdef int head = 0, tail = 0, i, j, k, used, u, count = 0
    for i in range(m.n):
        seen[i][0] = seen[i][1] = 0
        reached[i] = 0
        if owner[i] == player:
            seen[i][0] = 1
            queue[tail] = <short>(i * 2)
            tail += 1
    while head < tail:
        i = queue[head] // 2
        used = queue[head] % 2
        head += 1
        for k in range(m.deg[i]):
            j = m.nbr[i][k]
            if closed & (1u << m.zone[j]):
                continue
            u = used + (m.link[i][k] == M33_TUNNEL and m.kind[i] == M33_HANSA and m.kind[j] == M33_HANSA)
            if u > 1:
                continue
            if owner[j] < 0 and (m.kind[j] == M33_POLIS or m.kind[j] == M33_HANSA) and not seen[j][u]:
                seen[j][u] = 1
                queue[tail] = <short>(j * 2 + u)
                tail += 1
            reached[j] = 1
    for i in range(m.n):
        if reached[i]:
            out[count] = <signed char>i
            count += 1
    return count


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


cdef int m33_hero_reach(const M33Map* m, int start, int speed, unsigned int closed,
                        signed char* out) noexcept nogil:
    """G12: the stations within `speed` links of `start` (abandoned ones crossed), never
    entering a zone out of play; `start` included. Writes them ascending; returns how many."""
    cdef signed char dist[78]
    cdef signed char queue[78]
    cdef int head = 0, tail = 1, i, j, k, count = 0
    for i in range(m.n):
        dist[i] = -1
    dist[start] = 0
    queue[0] = <signed char>start
    while head < tail:
        i = queue[head]
        head += 1
        if dist[i] >= speed:
            continue
        for k in range(m.deg[i]):
            j = m.nbr[i][k]
            if dist[j] < 0 and not (closed & (1u << m.zone[j])):
                dist[j] = dist[i] + 1
                queue[tail] = <signed char>j
                tail += 1
    for i in range(m.n):
        if dist[i] >= 0:
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
