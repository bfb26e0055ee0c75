"""OpenSpiel bridge: every metro-ai game as an OpenSpiel (``pyspiel``) game.

Install the optional extra (``pip install "metro-ai[openspiel]"``, i.e. ``open_spiel>=2.0``), then::

    import pyspiel
    import metro_ai.interop.openspiel          # registers the games below with pyspiel

    game = pyspiel.load_game("metro_ai_metro", {"players": 4})
    state = game.new_initial_state()            # a chance node: the deal
    state.apply_action(12345)                   # deal seed 12345 == metro_ai new_state(seed=12345)
    state.legal_actions(), state.information_state_string(0)
    world = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0., 1.))

    from open_spiel.python.algorithms import ismcts, mcts
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1), uct_c=1.4, max_simulations=200)
    bot.step(state)

Registered games (``GAMES``): every game of ``metro_ai.list_games()`` is ``metro_ai_<name>``, read
from its ``Game`` class: the parameters are the game's options declared ``bridged`` (ints and
bools; ``players`` defaults to the fewest the game allows, the others to the game's defaults; the
rest keep their defaults), plus ``deals``; ``num_distinct_actions`` and ``max_game_length`` are
the game's.  Where a game declares that two actions may print alike (``unique_action_strings``
False, e.g. two copies of a card), action strings end in `` #<action id>`` because OpenSpiel wants
them unique.

Design (what OpenSpiel sees):

* Chance: our engines are determinised -- all chance is realised when a state is created from a
  seed.  Each game is ``ChanceMode.EXPLICIT_STOCHASTIC`` with exactly one chance node, the initial
  state, whose outcomes are the deal seeds ``0 .. deals-1`` (parameter ``deals``, default 2**16),
  equally likely; outcome ``k`` gives ``load_game(...).new_state(seed=k)``.  ``deals`` is kept
  moderate because OpenSpiel materialises the full outcome list at that node.
* Information: ``IMPERFECT_INFORMATION``.  The information-state string and the observation
  string of player ``p`` are both ``json.dumps(state.observation(p), sort_keys=True)`` (what
  ``p`` sees, nothing more; the deal node reads ``"deal pending"``).  Our observations hold the
  public board/tableaux and the player's own hand but not the order of past moves, so as OpenSpiel
  information states they are not perfect-recall in general; ISMCTS-style algorithms key on them
  as they are.  No tensors are provided.
* Utility: our rank-based returns, unchanged: ``(players strictly below + half the tied) / (n-1)``
  in [0, 1] (win 1, loss 0), zeros before the end, reward model TERMINAL.  They always sum to
  ``n/2`` at the end, so the game is declared ``CONSTANT_SUM`` with ``utility_sum = n/2``,
  ``min_utility 0``, ``max_utility 1``.  (For 2 players, ``2*r - 1`` gives OpenSpiel's usual
  zero-sum +-1.)
* ``resample_from_infostate(player, sampler)`` returns a new bridge state wrapping
  ``state.determinize(player, seed)`` with ``seed = int(sampler() * 2**53)`` (the sampler is the
  callable OpenSpiel passes, e.g. ``pyspiel.UniformProbabilitySampler(0., 1.)``); without a usable
  sampler a per-state counter gives the seeds.  The result has the same information-state string
  for ``player``; its ``history()`` is empty (the determinisation has no move history) and it
  cannot be undone.  At the deal node it returns a clone (nothing is known yet).
* ``clone()`` copies the flat engine state (``state.clone()``); ``str(state)`` is the full
  ``to_json()``.

OpenSpiel's C++ ISMCTS bot on a game registered from Python with a Python
``resample_from_infostate`` crashed (segmentation fault) in open-spiel 2.0.2; use the Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot``.  ``pyspiel.random_sim_test`` passes on these
games (``tests/interop/test_openspiel.py``).
"""
from __future__ import annotations

import json

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "metro_ai.interop.openspiel needs OpenSpiel: pip install 'metro-ai[openspiel]' "
        "(or pip install open_spiel>=2.0; wheels exist for CPython on Linux x86_64 and macOS)"
    ) from exc

from metro_ai.registry import game_class, list_games, load_game

__all__ = ["GAMES", "MetroAIGame", "MetroAIState", "game_name", "load", "from_state"]

DEFAULT_DEALS = 2 ** 16
_SEED_SCALE = 2 ** 53          # a uniform double in [0, 1) has 53 bits


class _Spec:
    """What OpenSpiel needs to know about one metro-ai game, read from its ``Game`` class: the
    bridged parameters are the options declared ``bridged`` (plain ints and bools), with the
    game's defaults, players defaulting to the fewest the game allows."""

    def __init__(self, cls):
        self.name = cls.name                # metro_ai game name
        self.short_name = "metro_ai_" + cls.name
        self.long_name = f"metro-ai {cls.title}"
        self.min_players = cls.min_players
        self.max_players = cls.max_players
        self.params = {o.name: (cls.min_players if o.name == "players" else o.default)
                       for o in cls.OPTIONS if o.bridged}   # OpenSpiel parameter -> default
        self.tag_actions = not cls.unique_action_strings    # append " #<id>" to action strings

    def game_type(self):
        spec = dict(self.params)
        spec["deals"] = DEFAULT_DEALS
        return pyspiel.GameType(
            short_name=self.short_name,
            long_name=self.long_name,
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.CONSTANT_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=self.max_players,
            min_num_players=self.min_players,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=False,
            parameter_specification=spec,
        )


#: metro-ai game name -> its OpenSpiel description, for every registered game.
GAMES = {name: _Spec(game_class(name)) for name in list_games()}


def game_name(name):
    """The OpenSpiel short name of metro-ai game ``name``: ``metro_ai_<name>``."""
    return GAMES[name].short_name


def load(name, **params):
    """``pyspiel.load_game`` of metro-ai game ``name`` with OpenSpiel parameters, e.g.
    ``load("metro", players=4)``."""
    return pyspiel.load_game(game_name(name), params)


class _Inner:
    """Holds the engine state; deep copies (OpenSpiel's clone) use the engine's flat clone."""
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s

    def __deepcopy__(self, memo):
        return _Inner(None if self.s is None else self.s.clone())


class _Ref:
    """Shares the game between a state and its copies (deep copies would rebuild the game)."""
    __slots__ = ("game",)

    def __init__(self, game):
        self.game = game

    def __deepcopy__(self, memo):
        return self


_ENGINE_GAMES: dict = {}


def _engine_game(name, options):
    key = (name, tuple(sorted(options.items())))
    if key not in _ENGINE_GAMES:
        _ENGINE_GAMES[key] = load_game(name, **options)
    return _ENGINE_GAMES[key]


class MetroAIGame(pyspiel.Game):
    """An OpenSpiel game over a metro-ai game (subclassed once per registered game)."""
    _spec: _Spec | None = None          # set in each registered game's subclass

    def __init__(self, params=None):
        spec = self._spec
        if spec is None:
            raise TypeError("MetroAIGame is subclassed once per registered game: use load(name)")
        params = dict(params or {})
        unknown = set(params) - set(spec.params) - {"deals"}
        if unknown:
            raise ValueError(f"{spec.short_name}: unknown parameter(s) {sorted(unknown)}")
        options = {k: params.get(k, v) for k, v in spec.params.items()}
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        if self.deals < 1:
            raise ValueError(f"{spec.short_name}: deals must be >= 1, got {self.deals}")
        self.metro_game = _engine_game(spec.name, options)
        n = self.metro_game.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.metro_game.num_distinct_actions,
            max_chance_outcomes=self.deals,
            num_players=n,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=n / 2.0,
            max_game_length=self.metro_game.max_game_length,
        )
        super().__init__(spec.game_type(), info, params)

    def new_initial_state(self):
        return MetroAIState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        return _Observer()


class MetroAIState(pyspiel.State):
    """An OpenSpiel state wrapping a metro-ai state (``self.metro_state``; None at the deal)."""

    def __init__(self, game, inner=None):
        super().__init__(game)
        self._ref = _Ref(game)
        self._inner = _Inner(inner)
        self._resample_counter = 0

    @property
    def _game_ref(self):
        return self._ref.game

    @property
    def metro_state(self):
        return self._inner.s

    # -- the pyspiel API --
    def current_player(self):
        s = self._inner.s
        if s is None:
            return pyspiel.PlayerId.CHANCE
        if s.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return s.current_player

    def _legal_actions(self, player):
        return list(self._inner.s.legal_actions())

    def chance_outcomes(self):
        n = self._game_ref.deals
        p = 1.0 / n
        return [(k, p) for k in range(n)]

    def _apply_action(self, action):
        if self._inner.s is None:
            self._inner.s = self._game_ref.metro_game.new_state(seed=int(action))
        else:
            self._inner.s.apply(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        s = self._inner.s
        try:
            text = s.action_to_string(int(action))
        except Exception:  # noqa: BLE001 - OpenSpiel may ask about an action not legal here
            return f"action {action}"
        return f"{text} #{action}" if self._game_ref._spec.tag_actions else text

    def is_terminal(self):
        s = self._inner.s
        return s is not None and s.is_terminal()

    def returns(self):
        s = self._inner.s
        if s is None:
            return [0.0] * self._game_ref.metro_game.num_players
        return [float(r) for r in s.returns()]

    def resample_from_infostate(self, player_id, probability_sampler=None):
        s = self._inner.s
        if s is None:
            return self.clone()
        seed = None
        if probability_sampler is not None:
            try:
                seed = int(float(probability_sampler()) * _SEED_SCALE)
            except TypeError:
                seed = None
        if seed is None:
            self._resample_counter += 1
            seed = self._resample_counter
        return MetroAIState(self._game_ref, s.determinize(int(player_id), seed=seed))

    def __str__(self):
        s = self._inner.s
        return "deal pending" if s is None else s.to_json()


class _Observer:
    """PyObserver: strings only (JSON of ``observation(player)``), no tensor."""

    def __init__(self):
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        s = state.metro_state
        if s is None:
            return "deal pending"
        return json.dumps(s.observation(player), sort_keys=True)


def from_state(game, metro_state):
    """A bridge state of OpenSpiel ``game`` wrapping a clone of metro-ai ``metro_state``
    (already dealt; its ``history()`` is empty)."""
    return MetroAIState(game, metro_state.clone())


def _register():
    registered = set(pyspiel.registered_names())
    for spec in GAMES.values():
        cls = type(f"MetroAIGame_{spec.name}", (MetroAIGame,), {"_spec": spec})
        globals()[cls.__name__] = cls
        if spec.short_name not in registered:
            pyspiel.register_game(spec.game_type(), cls)


_register()
