"""Observation tensors for Metro 2033: Breakthrough: what one player sees as a float32 vector.

Built from ``state.observation(player)`` alone, so a tensor holds nothing the player may not see
(other hands' hidden cards and the deck order are not in the observation). Seats are relative to
the viewer (seat 0 is the viewer, 1 the next player clockwise, ...). Every value lies in [0, 1].
``BreakthroughFeatures(game).sections`` names the parts in order with their sizes (C cards):

=============  ==========================================================================
``cards``      C cards x 20 channels: in the viewer's hand; known (taken from the market,
               R20) to be in the hand of relative seat 1-4; in play in front of relative
               seat 0-4; rotated; tokens on it / 10; in the market; in the discard pile;
               the faction card of relative seat 0-4; the card of the pending decision
``seats``      per relative seat (5): tokens above, below, in the supply, held (each / 10),
               hand size / 5, faction card face down
``turn``       phase (10, one-hot), main action taken, player to move and active player
               (relative seats, 5 + 5, one-hot), turn / turn limit, deck size / C, deck
               generation / 10 (capped), cards paid so far for the pending quest / 5 (R2)
=============  ==========================================================================
"""
from __future__ import annotations

import numpy as np

from metro_ai.engine.breakthrough.rules import PHASES

SEATS = 5                           # the most players (B1)
CHANNELS = 1 + 4 + 5 + 1 + 1 + 1 + 1 + 5 + 1
SEAT_FEATURES = 6


class BreakthroughFeatures:
    """The tensor layout of one Breakthrough game (the card set fixes C)."""

    def __init__(self, game):
        self.game = game
        self.C = game.num_cards
        self.sections = [("cards", self.C * CHANNELS), ("seats", SEATS * SEAT_FEATURES),
                         ("turn", len(PHASES) + 1 + 2 * SEATS + 4)]
        self.size = sum(n for _, n in self.sections)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def encode(self, obs: dict) -> np.ndarray:
        """The tensor of one observation (``state.observation(player)``)."""
        me, n = obs["player"], obs["num_players"]

        def rel(p):
            return (int(p) - me) % n

        cards = np.zeros((self.C, CHANNELS), np.float32)
        cards[obs["hand"], 0] = 1
        for p, known in obs["known_in_hands"].items():
            cards[known, rel(p)] = 1                                # channels 1-4: seats 1-4
        for p, tab in enumerate(obs["tableaux"]):
            for e in tab:
                cards[e["card"], 5 + rel(p)] = 1
                cards[e["card"], 10] = bool(e["rotated"])
                cards[e["card"], 11] = min(1, e["tokens"] / 10)
        cards[[m for m in obs["market"] if m is not None], 12] = 1
        cards[obs["discard"], 13] = 1
        for p, f in enumerate(obs["factions"]):
            cards[f, 14 + rel(p)] = 1
        pend = obs["pending"] or {}
        if pend.get("card") is not None:
            cards[pend["card"], 19] = 1
        seats = np.zeros((SEATS, SEAT_FEATURES), np.float32)
        for p in range(n):
            seats[rel(p)] = (obs["above"][p] / 10, obs["below"][p] / 10, obs["supply"][p] / 10,
                             min(1, obs["tokens"][p] / 10), obs["hand_sizes"][p] / 5,
                             bool(obs["faction_done"][p]))
        turn = np.zeros(len(PHASES) + 1 + 2 * SEATS + 4, np.float32)
        turn[PHASES.index(obs["phase"])] = 1
        k = len(PHASES)
        turn[k] = bool(obs["main_done"])
        if obs["current_player"] >= 0:
            turn[k + 1 + rel(obs["current_player"])] = 1
        turn[k + 1 + SEATS + rel(obs["active"])] = 1
        turn[k + 1 + 2 * SEATS] = obs["turn"] / self.game.turn_limit
        turn[k + 2 + 2 * SEATS] = obs["deck_size"] / self.C
        turn[k + 3 + 2 * SEATS] = min(1, obs["deck_generation"] / 10)
        turn[k + 4 + 2 * SEATS] = min(1, len(pend.get("paid", ())) / 5)
        return np.concatenate([cards.ravel(), seats.ravel(), turn])
