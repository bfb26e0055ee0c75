"""Observation tensors for Metro: what one player sees as a fixed-length float32 vector.

Built from ``state.observation(player)`` alone, so a tensor holds nothing the player may not see
(the supply order, other hands and other players' hidden shares are not in the observation).
Seats are relative to the viewer (seat 0 is the viewer, 1 the next player clockwise, ...), so one
network can play every seat. Every value lies in [0, 1]: counts are divided by their largest
possible value. ``MetroFeatures(game).sections`` names the parts in order with their sizes:

=================  ===================================================================
``board``          64 squares x (24 tile kinds + 4 rotations), one-hot; empty squares 0
``stations``       32 stations x 8 owners: relative seat (base game) or company (M11)
``lines``          32 stations x (line scored, tiles / 120, points / 240, ends central)
``scores``         per relative seat (6): points / 240; with companies: final-scoring value
                   of the holdings the viewer can see is not shown (it depends on hidden
                   shares), so this part is 0 there
``hand``           own hand tiles per kind / 3, and the drawn tile (24 + 24)
``public``         hand sizes per relative seat / 3 (6), supply size / 60, tiles placed / 60,
                   player to move as a relative seat (6, one-hot), phase (3, one-hot)
``companies``      (companies only) profits / 60 and company values / 8 per company (16);
                   own share per percentage (4 x 8); face-up shares (4 x 8); pile sizes / 8
                   (4); shares known held by each other relative seat (5 x 4 x 8);
                   exchanges per relative seat / the exchange limit (6); exchanges open (1)
=================  ===================================================================
"""
from __future__ import annotations

import numpy as np

SEATS = 6                   # the most players (M1)
OWNERS = 8                  # owner slots per station: seats, or the 8 companies (M11)
PHASES = ("turn", "place_drawn", "over")
MAX_TILES = 60
MAX_LINE_TILES = 120        # a tile passed twice counts twice
MAX_POINTS = 240            # doubled at the centre (M7)
PCTS = 4


class MetroFeatures:
    """The tensor layout of one Metro game (its options fix the sections)."""

    def __init__(self, game):
        self.game = game
        self.companies = bool(getattr(game, "companies", False))
        self.kinds = {t: i for i, t in enumerate(game.tile_ids)}
        self.sections = [("board", 64 * 28), ("stations", 32 * OWNERS), ("lines", 32 * 4),
                         ("scores", SEATS), ("hand", 48), ("public", SEATS + 2 + SEATS + len(PHASES))]
        if self.companies:
            self.sections.append(("companies", 16 + 32 + 32 + PCTS + (SEATS - 1) * 32 + SEATS + 1))
        self.size = sum(n for _, n in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        """The tensor of one observation (``state.observation(player)``)."""
        me, n = obs["player"], len(obs["hand_sizes"])

        def rel(p):
            return (p - me) % n

        out = []
        board = np.zeros((64, 28), np.float32)
        for r, row in enumerate(obs["board"]):
            for c, cell in enumerate(row):
                if cell is not None:
                    board[8 * r + c, self.kinds[cell["tile"]]] = 1
                    board[8 * r + c, 24 + cell["rotation"]] = 1
        out.append(board.ravel())
        stations = np.zeros((32, OWNERS), np.float32)
        for owner, numbers in enumerate(obs["stations"]):
            for s in numbers:
                stations[s - 1, owner if self.companies else rel(owner)] = 1
        out.append(stations.ravel())
        lines = np.zeros((32, 4), np.float32)
        for line in obs["lines"]:
            lines[line["station"] - 1] = (1, min(1, line["tiles"] / MAX_LINE_TILES),
                                          min(1, line["points"] / MAX_POINTS), bool(line.get("central")))
        out.append(lines.ravel())
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
        return np.concatenate(out)

    def _companies(self, obs, rel):
        limit = max(1, getattr(self.game, "exchange_limit", 1))
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
