"""A small game written in plain Python (``Relay``), correct as written, and the faults a user's
game can have: each a replacement for one of its methods, the kind of mistake a first game makes
(an exception, a value of the wrong kind, a method that is not pure, a copy that shares, a game
that never ends). ``make_game(faults)`` builds the game with those faults; the fuzzer
(tests/fuzz_user_games.py) and the tests of the adapter's boundary
(tests/contract/test_python_game_faults.py) use it.

Relay (R1–R3, this file's own rules): R1 two or three players, each dealt a hidden card 0–4 from
the seed; R2 in turn, a player adds 1, 2 or 3 to a shared total (actions 0, 1, 2), and the game
ends when the total reaches 10 (so at most 10 actions); R3 a player's score is their card plus
what they added; returns rank the scores.
"""
from __future__ import annotations

import itertools
import random
import sys

import numpy as np

from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.options import Option
from metro_ai.engine.python_game import PythonGame, PythonState

TARGET = 10


class GameBug(Exception):
    """What a faulty method raises: the game's own error."""


class RelayState(PythonState):
    def __init__(self, game, seed=0):
        super().__init__(game)
        rng = random.Random(seed)
        self.cards = [rng.randrange(5) for _ in range(game.players)]       # R1, hidden
        self.added = [0] * game.players
        self.total = 0
        self.turn = 0

    def _current_player(self):
        return -1 if self.total >= TARGET else self.turn

    def _legal_actions(self):
        return [] if self.total >= TARGET else [0, 1, 2]

    def _apply_action(self, action):
        self.total += action + 1                                             # R2
        self.added[self.turn] += action + 1
        self.turn = (self.turn + 1) % self.game.players

    def _scores(self):
        return [c + a for c, a in zip(self.cards, self.added)]              # R3

    def _determinize(self, player, seed):
        rng = random.Random(seed)
        self.cards = [c if p == player else rng.randrange(5) for p, c in enumerate(self.cards)]

    def _state_fields(self):
        return {"cards": self.cards, "added": self.added, "total": self.total, "turn": self.turn}

    def observation(self, player):
        return {"card": self.cards[player], "added": self.added, "total": self.total, "turn": self.turn}


class RelayGame(PythonGame):
    name = "relay"
    title = "Relay (a test game)"
    family = "example"
    min_players, max_players = 2, 3
    OPTIONS = (Option.integer("players", 2, "number of players", low=2, high=3, rule="R1"),)
    state_fields = ("cards", "added", "total", "turn")
    benchmark_moves = {"opening": 0, "middle": 2, "end": 4}
    num_distinct_actions = 3
    max_game_length = TARGET
    state_class = RelayState

    def new_state(self, seed=0):
        return self.state_class(self, seed)

    def _action_text(self, action):
        return f"add {action + 1}"

    def _load_state(self, obj):
        n = self.players
        s = self.state_class(self)
        for key in self.state_fields:
            value = obj[key]
            ok = isinstance(value, int) if key in ("total", "turn") else \
                isinstance(value, list) and len(value) == n and all(isinstance(v, int) for v in value)
            if not ok:
                raise StateFormatError(f"relay state: bad {key}")
            setattr(s, key, list(value) if isinstance(value, list) else value)
        return s


# ---- faults: (method, name) -> a replacement (for a state method, called with the state) ----

class _Lying:
    """len() 1, iterates more."""
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return 1

    def __iter__(self):
        return iter(self.items)


class _Grow(int):
    """Compared while a list of it is checked: appends to the list."""
    target: list = []

    def __gt__(self, other):
        if len(_Grow.target) < 10_000:
            _Grow.target.extend(range(len(_Grow.target), len(_Grow.target) + 100))
        return int.__gt__(self, other)

    __lt__ = __gt__


def _grown(s):
    _Grow.target = [0, _Grow(1), 2]
    return _Grow.target


def _impure_player(s):
    """Says the game is over on every third call, whatever the state (deterministic)."""
    s.game.calls = getattr(s.game, "calls", 0) + 1
    return -1 if s.game.calls % 3 == 0 else RelayState._current_player(s)


def _shares(s, other):
    s.__dict__.update(other.__dict__)            # the lists are shared, not copied


def _never_ends(s, action):
    s.turn = (s.turn + 1) % s.game.players       # the total never grows


def _raise(*args):
    raise GameBug("a bug in the game")


def _exit(*args):
    sys.exit(3)


def _interrupt(*args):
    raise KeyboardInterrupt


def _values(value):
    return lambda s: value(s) if callable(value) else value


STATE_FAULTS = {
    "_legal_actions": {
        "raises": _raise, "lying_len": lambda s: _Lying([0, 1, 2, 0, 1, 2]), "growing": _grown,
        "unsorted": lambda s: [2, 0, 1], "duplicates": lambda s: [0, 0, 1], "bools": lambda s: [False, True],
        "strings": lambda s: ["0", "1"], "floats": lambda s: [0.0, 1.0], "out_of_range": lambda s: [0, 1, 99],
        "negative": lambda s: [-1, 0], "empty_before_end": lambda s: [], "none": lambda s: None,
        "too_many": lambda s: [0, 1, 2, 3], "endless": lambda s: itertools.count(),
        "numpy": lambda s: np.array(RelayState._legal_actions(s), dtype=np.int64),    # valid
        "after_the_end": lambda s: [0, 1, 2]},
    "_current_player": {
        "raises": _raise, "impure": _impure_player, "out_of_range": lambda s: 5, "string": lambda s: "0",
        "bool": lambda s: True, "float": lambda s: 0.0, "none": lambda s: None, "exits": _exit},
    "_apply_action": {"raises": _raise, "exits": _exit, "interrupts": _interrupt, "never_ends": _never_ends},
    "_scores": {
        "raises": _raise, "nan": lambda s: [float("nan")] * s.game.players,
        "inf": lambda s: [float("inf")] * s.game.players, "strings": lambda s: ["1"] * s.game.players,
        "short": lambda s: [1], "long": lambda s: [1] * 9, "lying_len": lambda s: _Lying([1] * 9),
        "none": lambda s: None, "numpy": lambda s: np.array(RelayState._scores(s), dtype=np.float64)},
    "_returns": {
        "raises": _raise, "nan": lambda s: [float("nan")] * s.game.players,
        "out_of_unit": lambda s: [2.0] + [-1.0] * (s.game.players - 1), "short": lambda s: [0.5],
        "strings": lambda s: ["x"] * s.game.players},
    "_heuristic": {"raises": _raise, "inf": lambda s: [float("-inf")] * s.game.players,
                   "strings": lambda s: ["h"] * s.game.players, "exits": _exit},
    "_copy_from": {"raises": _raise, "shares": _shares},
    "_determinize": {"raises": _raise, "exits": _exit},
    "_observed_action": {"raises": _raise, "string": lambda s, a, p: "a", "huge": lambda s, a, p: 2 ** 40},
    "_check": {"raises": _raise, "negative": lambda s, a: -1, "string": lambda s, a: "0",
               "always_legal": lambda s, a: 0},
}

GAME_FAULTS = {
    "num_distinct_actions": {"huge": 2 ** 31 - 1, "zero": 0, "string": "3", "float": 3.0},
    "max_actions": {"zero": 0, "over": 4},
    "max_game_length": {"zero": 0, "string": "10", "huge": 2 ** 40},
    "_action_text": {"not_text": lambda g, a: a, "raises": lambda g, a: _raise()},
}

#: Every fault, as (method, name).
FAULTS = sorted([(m, n) for m, v in STATE_FAULTS.items() for n in v] + [("__init__", "no_super")]
                + [(m, n) for m, v in GAME_FAULTS.items() for n in v])


def make_game(faults=(), players=2, after=0):
    """A Relay game (`players`) whose methods have `faults` ((method, name) pairs of FAULTS), each
    starting after its method's first `after` calls (so a search starts well, then meets it)."""
    state_ns, game_ns = {}, {}
    counts = {}
    for method, name in faults:
        if method == "__init__":
            def init(s, game, seed=0):       # forgets super().__init__(game)
                s.cards, s.added, s.total, s.turn = [0] * players, [0] * players, 0, 0
            state_ns["__init__"] = init
        elif method in STATE_FAULTS:
            good, bad = getattr(RelayState, method), STATE_FAULTS[method][name]

            def hook(s, *args, _good=good, _bad=bad, _m=method):
                counts[_m] = counts.get(_m, 0) + 1
                return (_bad if counts[_m] > after else _good)(s, *args)
            state_ns[method] = hook
        else:
            value = GAME_FAULTS[method][name]
            game_ns[method] = value
    state_cls = type("FaultyRelayState", (RelayState,), state_ns)
    game_cls = type("FaultyRelayGame", (RelayGame,), {**game_ns, "state_class": state_cls, "faults": tuple(faults)})
    return game_cls(players=players)
