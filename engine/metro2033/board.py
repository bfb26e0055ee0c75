"""The map of *Metro 2033*, the board game: 78 stations, 69 tunnels, 42 transfers (G1, G6, G11, G12).

Read from the package's own copy of the map (``data/metro2033_stations.csv``,
``data/metro2033_links.csv``). Stations are numbered in file order (0..77). Pure Python.

* ``BOARD`` (a :class:`Board`): names, zones, kinds, links and their kinds.
* :meth:`Board.army_targets`: the stations an army may attack (G11, with the Polis/Hansa passage).
* :meth:`Board.hero_reach`: the stations a hero reaches with a given speed (G12).

Zones out of play (G6: unchosen factions) are passed as a set of zone names; no path enters
them (G22: a Hansa station belongs to the zone the map file gives it, so the Hansa stations of a
zone out of play are closed too).
"""
from __future__ import annotations

from collections import deque
from pathlib import Path

from metro_ai.engine.datafile import read_csv

__all__ = ["Board", "BOARD", "RESOURCES", "FACTION_ZONES"]

DATA = Path(__file__).resolve().parent / "data"
RESOURCES = ("pigs", "mushrooms", "bullets")
FACTION_ZONES = ("confederation_1905", "fourth_reich", "red_line", "bauman_alliance", "bandits",
                 "arbat_confederation")


def _rows(path: Path) -> list[dict]:
    return [row for _, row in read_csv(path, what="map").rows]


class Board:
    """The map: ``names[i]``, ``zone[i]``, ``kind[i]`` (a resource, ``hansa``, ``abandoned`` or
    ``polis``), ``links[i]`` (sorted list of ``(j, "tunnel"|"transfer")``)."""

    def __init__(self, data: Path = DATA):
        stations = _rows(data / "metro2033_stations.csv")
        self.names = [r["station"] for r in stations]
        self.index = {n: i for i, n in enumerate(self.names)}
        self.zone = [r["zone"] for r in stations]
        self.kind = [r["kind"] for r in stations]
        self.n = len(self.names)
        self.links: list[list[tuple[int, str]]] = [[] for _ in range(self.n)]
        self.link_list = []
        for r in _rows(data / "metro2033_links.csv"):
            a, b, k = self.index[r["a"]], self.index[r["b"]], r["kind"]
            if k not in ("tunnel", "transfer"):
                raise ValueError(f"link {r['a']}-{r['b']}: unknown kind {k!r}")
            self.links[a].append((b, k))
            self.links[b].append((a, k))
            self.link_list.append((a, b, k))
        for lst in self.links:
            lst.sort()
        self.polis = [i for i in range(self.n) if self.kind[i] == "polis"]
        self.zones = sorted(set(self.zone))
        # G6: two faction zones border when a link joins them
        self.borders: dict[str, set] = {z: set() for z in self.zones}
        for a, b, _ in self.link_list:
            if self.zone[a] != self.zone[b]:
                self.borders[self.zone[a]].add(self.zone[b])
                self.borders[self.zone[b]].add(self.zone[a])

    def station(self, name: str) -> int:
        """The index of a station by name; ValueError naming it if unknown."""
        try:
            return self.index[name]
        except KeyError:
            raise ValueError(f"unknown station {name!r}") from None

    def produces(self, i: int) -> bool:
        return self.kind[i] in RESOURCES

    def attackable(self, i: int) -> bool:
        """G11, G12: neither Hansa nor abandoned stations are attacked or captured."""
        return self.kind[i] not in ("hansa", "abandoned")

    def is_hansa_tunnel(self, a: int, b: int, kind: str) -> bool:
        return kind == "tunnel" and self.kind[a] == "hansa" and self.kind[b] == "hansa"

    def army_targets(self, owner: list, player: int, closed_zones=frozenset()) -> list[int]:
        """G11: the stations `player`'s army may attack, `owner[i]` being the player holding
        station i or None. From each held station the army moves along links through neutral
        Polis stations and Hansa stations (through at most one Hansa tunnel, a tunnel joining
        two Hansa stations) and attacks the next station: one not held by `player`, not Hansa,
        not abandoned, in play (G23: a neutral Polis station is both passed and attacked; a
        held station, the player's own included, is never passed)."""
        start = [i for i in range(self.n) if owner[i] == player]
        seen = {(i, 0) for i in start}
        queue = deque(seen)
        targets = set()
        while queue:
            i, used = queue.popleft()
            for j, k in self.links[i]:
                if self.zone[j] in closed_zones:
                    continue
                u = used + self.is_hansa_tunnel(i, j, k)
                if u > 1:
                    continue
                if owner[j] is None and self.kind[j] in ("polis", "hansa") and (j, u) not in seen:
                    seen.add((j, u))
                    queue.append((j, u))
                if owner[j] != player and self.attackable(j):
                    targets.add(j)
        return sorted(targets)

    def adjacent(self, a: int, b: int) -> bool:
        return any(j == b for j, _ in self.links[a])

    def hero_reach(self, start: int, speed: int, closed_zones=frozenset()) -> list[int]:
        """G12: the stations within `speed` links of `start` (each tunnel or transfer costs 1,
        abandoned stations are crossed), never entering a closed zone (G6); `start` included."""
        dist = {start: 0}
        queue = deque([start])
        while queue:
            i = queue.popleft()
            if dist[i] == speed:
                continue
            for j, _ in self.links[i]:
                if j not in dist and self.zone[j] not in closed_zones:
                    dist[j] = dist[i] + 1
                    queue.append(j)
        return sorted(dist)


BOARD = Board()
