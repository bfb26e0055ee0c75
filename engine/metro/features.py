"""Observation tensors for Metro: what one player sees as a fixed-length float32 vector.

Built from ``state.observation(player)`` alone, so a tensor holds nothing the player may not see
(the supply order, other hands and other players' hidden shares are not in the observation).
Seats are relative to the viewer (seat 0 is the viewer, 1 the next player clockwise, ...), so one
network can play every seat. Every value lies in [0, 1]: counts are divided by their largest
possible value. ``MetroFeatures(game).sections`` names the parts in order with their sizes:

=================  ===================================================================
``board``          64 squares x (24 tile kinds + 8 central-track pieces (C3) + 4 rotations),
                   one-hot; empty squares 0
``stations``       32 stations x 8 owners: relative seat (base game) or company (M11)
``lines``          40 departures (32 stations, then the 8 central spaces of C2) x (line
                   scored, tiles / 120, points / 240, ends central)
``scores``         per relative seat (6): points / 240; with companies: final-scoring value
                   of the holdings the viewer can see is not shown (it depends on hidden
                   shares), so this part is 0 there
``hand``           own hand tiles per kind / 3, and the drawn tile (24 + 24)
``public``         hand sizes per relative seat / 3 (6), supply size / 60, tiles placed / 60,
                   player to move as a relative seat (6, one-hot), phase (3, one-hot)
``companies``      (companies only) profits / 60 and company values / 8 per company (16);
                   own share per percentage (4 x 8); face-up shares (4 x 8); pile sizes / 8
                   (4); shares known held by each other relative seat (5 x 4 x 8);
                   exchanges per relative seat / the exchange limit (30 with none; at most 1) (6); exchanges open (1)
``central``        (central stations, C2, only) 8 spaces x (a piece there, its owner: 8
                   relative seats or companies, one-hot)
=================  ===================================================================

The solo game (C4, ``metro-solo``) has its own layout, :class:`SoloFeatures`.
"""
from __future__ import annotations

import numpy as np

SEATS = 6                   # the most players (M1)
OWNERS = 8                  # owner slots per station: seats, or the 8 companies (M11)
PHASES = ("turn", "place_drawn", "over")
KINDS = 24 + 8              # tiles, then the central-track pieces CT1..CT8 (C3)
DEPARTURES = 32 + 8         # stations, then the central spaces (C2)
MAX_TILES = 60
MAX_LINE_TILES = 120        # a tile passed twice counts twice
MAX_POINTS = 240            # doubled at the centre (M7)
PCTS = 4


def kind_index(game) -> dict:
    """Column of each cell kind in the board section: "T01".."T24", then "CT1".."CT8"."""
    out = {t: i for i, t in enumerate(game.tile_ids)}
    out.update({f"CT{j + 1}": 24 + j for j in range(8)})
    return out


def _board(kinds, obs):
    board = np.zeros((64, KINDS + 4), np.float32)
    for r, row in enumerate(obs["board"]):
        for c, cell in enumerate(row):
            if cell is not None:
                board[8 * r + c, kinds[cell["tile"]]] = 1
                board[8 * r + c, KINDS + cell["rotation"]] = 1
    return board.ravel()


def _stations(obs, rel):
    """Owner of each station: a relative seat, or (rel None) the owner index itself (companies)."""
    stations = np.zeros((32, OWNERS), np.float32)
    for owner, numbers in enumerate(obs["stations"]):
        for s in numbers:
            stations[s - 1, owner if rel is None else rel(owner)] = 1
    return stations.ravel()


def _lines(obs):
    lines = np.zeros((DEPARTURES, 4), np.float32)
    for line in obs["lines"]:
        lines[line["station"] - 1] = (1, min(1, line["tiles"] / MAX_LINE_TILES),
                                      min(1, line["points"] / MAX_POINTS), bool(line.get("central")))
    return lines.ravel()


class MetroFeatures:
    """The tensor layout of one Metro game (its options fix the sections)."""

    def __init__(self, game):
        self.game = game
        self.companies = bool(getattr(game, "companies", False))
        self.central = bool(getattr(game, "central_stations", False))
        self.kinds = kind_index(game)
        self.sections = [("board", 64 * (KINDS + 4)), ("stations", 32 * OWNERS), ("lines", DEPARTURES * 4),
                         ("scores", SEATS), ("hand", 48), ("public", SEATS + 2 + SEATS + len(PHASES))]
        if self.companies:
            self.sections.append(("companies", 16 + 32 + 32 + PCTS + (SEATS - 1) * 32 + SEATS + 1))
        if self.central:
            self.sections.append(("central", 8 * (1 + OWNERS)))
        self.size = sum(n for _, n in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        """The tensor of one observation (``state.observation(player)``)."""
        me, n = obs["player"], len(obs["hand_sizes"])

        def rel(p):
            return (p - me) % n

        out = [_board(self.kinds, obs), _stations(obs, None if self.companies else rel), _lines(obs)]
        scores = np.zeros(SEATS, np.float32)
        if not self.companies:
            for p, v in enumerate(obs["scores"]):
                scores[rel(p)] = min(1, v / MAX_POINTS)
        out.append(scores)
        hand = np.zeros(48, np.float32)
        for t in obs["hand"]:
            hand[self.kinds[t]] += 1 / 3
        if obs["drawn"] is not None:
            hand[24 + self.kinds[obs["drawn"]]] = 1
        out.append(hand)
        public = np.zeros(SEATS + 2 + SEATS + len(PHASES), np.float32)
        for p, k in enumerate(obs["hand_sizes"]):
            public[rel(p)] = k / 3
        public[SEATS] = obs["supply_size"] / MAX_TILES
        public[SEATS + 1] = obs["tiles_placed"] / MAX_TILES
        if obs["current_player"] >= 0:
            public[SEATS + 2 + rel(obs["current_player"])] = 1
        public[2 * SEATS + 2 + PHASES.index(obs["phase"])] = 1
        out.append(public)
        if self.companies:
            out.append(self._companies(obs, rel))
        if self.central:
            central = np.zeros((8, 1 + OWNERS), np.float32)
            for j, owner in enumerate(obs["central"]["spaces"]):
                if owner is not None:
                    central[j, 0] = 1
                    central[j, 1 + (owner if self.companies else rel(owner))] = 1
            out.append(central.ravel())
        return np.concatenate(out)

    def _companies(self, obs, rel):
        cap = getattr(self.game, "exchange_limit", 1)
        limit = max(1, 30 if cap is None else cap)    # None (M17, M20): scaled as the largest cap
        v = np.zeros(16, np.float32)
        v[:8] = np.minimum(1, np.asarray(obs["profits"], np.float32) / 60)
        v[8:] = np.asarray(obs["company_values"], np.float32) / 8
        own = np.zeros((PCTS, 8), np.float32)
        for pct, share in enumerate(obs["shares"]):
            own[pct, share // PCTS] = 1
        face = np.zeros((PCTS, 8), np.float32)
        for pct, share in enumerate(obs["face_up"]):
            if share is not None:
                face[pct, share // PCTS] = 1
        piles = np.asarray(obs["pile_sizes"], np.float32) / 8
        held = np.zeros((SEATS - 1, PCTS, 8), np.float32)
        for p, shares in enumerate(obs["holdings"]):
            if rel(p) == 0:
                continue
            for pct, share in enumerate(shares):
                if share is not None:
                    held[rel(p) - 1, pct, share // PCTS] = 1
        ex = np.zeros(SEATS + 1, np.float32)
        for p, k in enumerate(obs["exchanges"]):
            ex[rel(p)] = min(1, k / limit)
        ex[SEATS] = bool(obs["exchanges_open"])
        return np.concatenate([v, own.ravel(), face.ravel(), piles, held.ravel(), ex])


class SoloFeatures:
    """The tensor layout of the solo game (C4): ``board``, ``stations`` (by company), ``lines``
    as in :class:`MetroFeatures`; ``solo``: profits / 60 (8), the two face-up tiles (2 x 24
    kinds), the company shown (8, one-hot), shares revealed from the deck (8), deck size / 8,
    first deck still running, a tile rejected this turn, supply size / 60, tiles placed / 60,
    phase (3, one-hot)."""

    def __init__(self, game):
        self.game = game
        self.kinds = kind_index(game)
        self.sections = [("board", 64 * (KINDS + 4)), ("stations", 32 * OWNERS), ("lines", DEPARTURES * 4),
                         ("solo", 8 + 48 + 8 + 8 + 5 + len(PHASES))]
        self.size = sum(n for _, n in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        solo = np.zeros(8 + 48 + 8 + 8 + 5 + len(PHASES), np.float32)
        solo[:8] = np.minimum(1, np.asarray(obs["profits"], np.float32) / 60)
        for i, t in enumerate(obs["face_up"][:2]):
            if t is not None:
                solo[8 + 24 * i + self.kinds[t]] = 1
        if obs["company"] is not None:
            solo[56 + obs["company"]] = 1
        for k in obs["revealed"]:
            solo[64 + k] = 1
        solo[72:77] = (obs["deck_size"] / 8, bool(obs["first_deck"]), bool(obs["rejected"]),
                       obs["supply_size"] / MAX_TILES, obs["tiles_placed"] / MAX_TILES)
        solo[77 + PHASES.index(obs["phase"])] = 1
        return np.concatenate([_board(self.kinds, obs), _stations(obs, None), _lines(obs), solo])
