"""Observation tensors for Leduc poker: what one player sees as a float32 vector.

Built from ``state.observation(player)`` alone (L8), so a tensor holds nothing the player may not
see. Seats are relative to the viewer (seat 0 is the viewer). Every value lies in [0, 1].
``LeducFeatures(game).sections`` names the parts in order with their sizes (K cards, n players):

===========  ==============================================================================
``cards``    K x (n + 1): the card held by relative seat 0 .. n-1 where seen (the viewer's
             own; at a showdown those still in), then the public card once shown
``seats``    per relative seat: chips put in / 13, folded, to move
``betting``  round (2, one-hot), then each round's actions, one-hot (fold, call, raise) per
             slot, 3 * n - 2 slots a round (L5)
===========  ==============================================================================
"""
from __future__ import annotations

import numpy as np

ACTIONS = ("fold", "call", "raise")
MAX_SPENT = 13          # 1 ante + 2 raises of 2 + 2 raises of 4 (L3, L5)


class LeducFeatures:
    """The tensor layout of one Leduc game (the players fix the deck and the history length)."""

    def __init__(self, game):
        self.game = game
        self.n = game.players
        self.K = game.num_cards
        self.slots = 3 * self.n - 2
        self.sections = [("cards", self.K * (self.n + 1)), ("seats", 3 * self.n),
                         ("betting", 2 + 2 * self.slots * len(ACTIONS))]
        self.size = sum(n for _, n in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        """The tensor of one observation (``state.observation(player)``)."""
        me, n = obs["player"], self.n
        names = self.game.card_names
        cards = np.zeros((self.K, n + 1), np.float32)
        for p, card in enumerate(obs["cards"]):
            if card is not None:
                cards[names.index(card), (p - me) % n] = 1
        if obs["public_card"] is not None:
            cards[names.index(obs["public_card"]), n] = 1
        seats = np.zeros((n, 3), np.float32)
        for p in range(n):
            r = (p - me) % n
            seats[r] = (obs["spent"][p] / MAX_SPENT, float(obs["folded"][p]), float(obs["current_player"] == p))
        betting = np.zeros(2 + 2 * self.slots * len(ACTIONS), np.float32)
        betting[obs["round"] - 1] = 1
        for rnd, actions in enumerate(obs["history"]):
            for i, a in enumerate(actions):
                betting[2 + (rnd * self.slots + i) * len(ACTIONS) + ACTIONS.index(a)] = 1
        return np.concatenate([cards.ravel(), seats.ravel(), betting])
