"""Observation tensors for Metro 2033 (board game): what one player sees as a float32 vector.

Built from ``state.observation(player)`` alone, so a tensor holds nothing the player may not see.
Seats are relative to the viewer (seat 0 is the viewer). Every value lies in [0, 1].
``Metro2033Features(game).sections`` names the parts in order with their sizes (S = 78
stations, C cards, n players):

============  ==============================================================================
``stations``  S x (2n + 1): owned by relative seat 0..n-1, hero of relative seat 0..n-1 there,
              neutral
``seats``     per relative seat: VP / 10, army / 8, pigs, mushrooms, bullets (/ 35), wounded,
              equipment / 4, quests in hand / 18, completed quests / 18, a scouted threat
``cards``     C x 8: in the market, the law in force, the viewer's quest in hand, equipment of
              any player, a completed quest, the threat being fought, the viewer's scouted
              threat, in a discard pile
``turn``      phase (one-hot), player to move (relative seat, one-hot), round / round limit,
              stage 2, deck sizes / C (5)
============  ==============================================================================
"""
from __future__ import annotations

import numpy as np

from .board import BOARD
from .machine import PHASES

SEAT_FEATURES = 10
CARD_CHANNELS = 8
DECKS = ("equipment", "quest", "law", "threat1", "threat2")


class Metro2033Features:
    """The tensor layout of one Metro 2033 game (the players and the card set fix it)."""

    def __init__(self, game):
        self.game = game
        self.n = game.players
        self.C = game.C
        self.limit = game.options["round_limit"]
        self.sections = [("stations", BOARD.n * (2 * self.n + 1)), ("seats", self.n * SEAT_FEATURES),
                         ("cards", self.C * CARD_CHANNELS), ("turn", len(PHASES) + self.n + 2 + len(DECKS))]
        self.size = sum(k for _, k in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        """The tensor of one observation (``state.observation(player)``)."""
        me, n, C = obs["player"], self.n, self.C
        st = np.zeros((BOARD.n, 2 * n + 1), np.float32)
        for s, o in enumerate(obs["owner"]):
            st[s, 2 * n if o is None else (o - me) % n] = 1
        for p, at in enumerate(obs["hero_at"]):
            if at is not None:
                st[at, n + (p - me) % n] = 1
        seats = np.zeros((n, SEAT_FEATURES), np.float32)
        for p in range(n):
            r = obs["res"][p]
            seats[(p - me) % n] = (min(obs["vp"][p], 10) / 10, obs["army"][p] / 8, r[0] / 35, r[1] / 35, r[2] / 35,
                                   float(obs["wounded"][p]), min(len(obs["equipment"][p]), 4) / 4,
                                   min(obs["quest_counts"][p], 18) / 18, min(len(obs["done_quests"][p]), 18) / 18,
                                   float(obs["scouting"][p] > 0))
        cards = np.zeros((C, CARD_CHANNELS), np.float32)
        for c in obs["market"]:
            if c is not None:
                cards[c, 0] = 1
        if obs["law"] is not None:
            cards[obs["law"], 1] = 1
        for c in obs["quests"]:
            cards[c, 2] = 1
        for eq in obs["equipment"]:
            for c in eq:
                cards[c, 3] = 1
        for done in obs["done_quests"]:
            for c in done:
                cards[c, 4] = 1
        if obs["threat_now"] is not None:
            cards[obs["threat_now"], 5] = 1
        for c in obs["scouted"]:
            cards[c, 6] = 1
        for pile in obs["discards"].values():
            for c in pile:
                cards[c, 7] = 1
        turn = np.zeros(len(PHASES) + n + 2 + len(DECKS), np.float32)
        turn[PHASES.index(obs["phase"])] = 1
        if obs["current_player"] >= 0:
            turn[len(PHASES) + (obs["current_player"] - me) % n] = 1
        k = len(PHASES) + n
        turn[k] = min(obs["round"], self.limit) / self.limit
        turn[k + 1] = float(obs["stage"] == 2)
        for i, key in enumerate(DECKS):
            turn[k + 2 + i] = min(obs["deck_sizes"][key], C) / C
        return np.concatenate([st.ravel(), seats.ravel(), cards.ravel(), turn])
