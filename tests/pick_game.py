"""Pick, a game small enough to know its best moves, for the tests of game review
(tests/play/test_review.py). Its own rules (K1–K3):

K1 two players, in turn, two turns each (four actions in all).
K2 on a turn a player takes 2 points (action 0), 1 point (action 1), or gambles (action 2): the
   next coin of the deal (from the seed, hidden until flipped) gives 3 points on heads, 0 on tails.
K3 the higher total wins (return 1, a tie 0.5 each).

Taking 2 is always best (a gamble is worth 1.5 points on average): two players who take 2 tie. A
player who takes 1 at the start falls behind and must gamble to catch up, about a quarter of a
win chance lost; every gamble's coin is luck.
"""
from __future__ import annotations

import random

from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.options import Option
from metro_ai.engine.python_game import PythonGame, PythonState

TURNS = 4


class PickState(PythonState):
    def __init__(self, game, seed=0):
        super().__init__(game)
        rng = random.Random(seed)
        self.coins = [rng.random() < 0.5 for _ in range(TURNS)]     # K2: hidden until flipped
        self.points = [0, 0]
        self.ply = 0
        self.flipped = 0

    def _current_player(self):
        return -1 if self.ply >= TURNS else self.ply % 2                # K1

    def _legal_actions(self):
        return [] if self.ply >= TURNS else [0, 1, 2]

    def _apply_action(self, action):
        p = self.ply % 2
        if action == 2:                                                 # K2: the next coin
            self.points[p] += 3 if self.coins[self.flipped] else 0
            self.flipped += 1
        else:
            self.points[p] += 2 - action
        self.ply += 1

    def _scores(self):
        return list(self.points)                                        # K3 (ranked by the adapter)

    def _determinize(self, player, seed):
        rng = random.Random(seed)                                       # the coins not yet flipped
        self.coins = self.coins[:self.flipped] + [rng.random() < 0.5 for _ in range(TURNS - self.flipped)]

    def _state_fields(self):
        return {"coins": self.coins, "points": self.points, "ply": self.ply, "flipped": self.flipped}

    def observation(self, player):
        return {"points": self.points, "ply": self.ply, "flipped": self.coins[:self.flipped]}


class PickGame(PythonGame):
    name = "pick"
    title = "Pick (a test game)"
    family = "example"
    min_players, max_players = 2, 2
    OPTIONS = (Option.integer("players", 2, "number of players", low=2, high=2, rule="K1"),)
    state_fields = ("coins", "points", "ply", "flipped")
    benchmark_moves = {"opening": 0, "middle": 2, "end": 3}
    num_distinct_actions = 3
    max_game_length = TURNS
    state_class = PickState

    def new_state(self, seed=0):
        return self.state_class(self, seed)

    def _action_text(self, action):
        return ("take 2", "take 1", "gamble")[action]

    def _load_state(self, obj):
        s = self.state_class(self)
        for key in self.state_fields:
            setattr(s, key, obj[key])
        if not (isinstance(s.ply, int) and 0 <= s.ply <= TURNS):
            raise StateFormatError("pick state: bad ply")
        return s
