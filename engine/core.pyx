# cython: language_level=3
"""The contract every metro-ai game implements: ``Game`` and ``GameState`` (modelled on
OpenSpiel's ``Game`` and ``State``, with python-chess's economy of names).

A *game* holds the configuration: its name and title, its options (declared once, as ``Option``
objects, with default, type, allowed values, description and rule id), the player range, the size
of the action space and rule tables shared by its states. A *state* holds everything, hidden parts
included, so engines are determinised: chance is realised from the seed when the state is dealt,
and hidden information is state a player must not look at. Python users call the methods below;
search code calls the C-level methods declared in ``core.pxd``.

A new game subclasses both (``cdef class MyGame(Game)``, ``cdef class MyState(GameState)``), fills
in the class attributes and hooks marked *game hook* below and the C-level methods, and adds one
line to ``metro_ai/registry.py``. Everything else (option checking, ``options``, ``repr``,
pickling, the JSON envelope, scores and returns, player checks) is done here once.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.stdint cimport uint64_t

from cpython.exc cimport PyErr_CheckSignals

import json

from .datafile import envelope_problem
from .errors import IllegalActionError, PythonGameError, StateFormatError, brief
from .options import Option, check_options

from .rng cimport rng_t

import importlib
import random

_SEED_MASK = (1 << 64) - 1
STATE_FORMAT = "metro-ai-state"      # the "format" field of every serialised state
STATE_VERSION = 1
#: Stages of a deal that ``Game.benchmark_position`` can give.
STAGES = ("opening", "middle", "end")


def as_seed(seed):
    """Validate a seed (any int; taken modulo 2**64) and return it as an unsigned 64-bit int."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__} {seed!r}")
    return seed & _SEED_MASK


def load_json(text, bad):
    """``json.loads(text)``, with every way it can fail (not JSON, nesting too deep for the
    parser, an integer too long to convert) reported through ``bad(message)``, which raises the
    caller's error (a StateFormatError, a DataError)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        bad(f"not valid JSON ({exc})")
    except RecursionError:
        bad("not valid JSON here: nested too deeply")
    except ValueError as exc:             # e.g. an integer of more than 4,300 digits
        bad(f"not valid JSON here ({exc})")


def parse_state_json(text, game_name, options, required, also=None):
    """Parse a serialised state (JSON text, bytes or an already-parsed dict) of game `game_name`
    played with `options` (or with `also`, another spelling of the same options: the full dict
    where `options` leaves out added options at their defaults, see ``Game.added_options``), and
    check its envelope (format ``STATE_FORMAT``, version ``STATE_VERSION``: a state of another
    version is refused, ``datafile.envelope_problem``) and that the top-level fields in `required`
    are there. Raises StateFormatError saying what is
    wrong; returns the dict."""
    def bad(msg):
        raise StateFormatError(f"{game_name} state: {msg}")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            bad(f"not UTF-8 text (byte {exc.start}: {bytes(text)[exc.start:exc.start + 1]!r})")
    if isinstance(text, str):
        obj = load_json(text, lambda msg: bad(msg))
    elif isinstance(text, dict):
        obj = text
    else:
        bad(f"expected JSON text, got {type(text).__name__}")
    if not isinstance(obj, dict):
        bad("the top level must be an object")
    # the kind first: another game's state is named as such, not by the first field it lacks
    if "game" in obj and obj["game"] != game_name:
        kind = obj["game"]
        named = isinstance(kind, str) and 0 < len(kind) <= 40 and all(c.isalnum() or c in "-_" for c in kind)
        bad(f"this is a {kind if named else brief(kind)} state, not {game_name}")
    problem = envelope_problem(obj, STATE_FORMAT, (STATE_VERSION,))     # a file of another version: refused
    if problem is not None:
        bad(problem[0])
    for key in required:
        if key not in obj:
            bad(f"missing field {key!r}")
    if obj["options"] != options and (also is None or obj["options"] != also):
        bad(f"options {brief(obj['options'])} differ from the game's {options!r}")
    return obj


cdef int copy_features(object vec, float* out, int n) except -2:
    """`vec` (an encoder's vector) into ``out[:n]``: 0, or -1 (nothing written) unless it holds n
    finite numbers."""
    import numpy as np                      # (not on importing the package: features are for learning)
    arr = np.ascontiguousarray(vec, np.float32).ravel()
    if arr.shape[0] != n or not np.isfinite(arr).all():
        return -1
    cdef const float[::1] view = arr
    if n > 0:
        memcpy(out, &view[0], n * sizeof(float))
    return 0


cdef double rank_return(int me, int n, const double* scores) noexcept nogil:
    """Rank-based return: (players strictly below + half of those tied) / (n - 1).

    Two players: win 1, loss 0, tie 0.5. More players: first 1, last 0, ties share the places.
    """
    cdef double below = 0.0
    cdef int j
    for j in range(n):
        if j != me:
            if scores[j] < scores[me]:
                below += 1.0
            elif scores[j] == scores[me]:
                below += 0.5
    return below / (n - 1)



def _json_ready(value):
    return list(value) if isinstance(value, tuple) else value


def _make_game(cls, options):
    return cls(**options)


def _unpickle(game, text):
    return game.state_from_json(text)


cdef class Game:
    """Base class of every game: its configuration. Not instantiated directly: use
    ``metro_ai.load_game(name, **options)`` or the game's class.

    *Class attributes* a game fills in: ``name`` (short, lower case: the registry key), ``title``,
    ``family`` ("metro" for the Metro family; "benchmark" for games kept to compare with other
    libraries), ``min_players``/``max_players`` (at most ``MAX_PLAYERS``), ``OPTIONS`` (a tuple of
    ``Option``, see ``engine/options.py``, "players" first), ``search_defaults`` (search settings
    the search bots use unless told otherwise: play-out, cut-off, root prior; ``search_settings()``
    adjusts them to a game's options), ``state_fields`` (top-level fields a serialised state must have),
    ``unique_action_strings`` (False where two legal actions may print alike, e.g. two copies of
    a card), ``benchmark_moves`` (random actions played for each stage of ``benchmark_position``),
    ``reference`` ("module:Class" of an independent pure-Python engine of the same rules, or None),
    ``readings`` (the game's rules that are this project's decisions rather than the printed rules:
    ``(rule id, one line)`` pairs, ids defined in ``docs/rules/``; ``metro-ai games`` lists them),
    ``ladder_levels`` (the bot specs an Elo calibration of the game plays, weakest first, where the
    default levels do not suit it; None: ``metro_ai.play.calibrate.DEFAULT_LEVELS``).
    """
    name = None
    title = None
    family = "metro"
    min_players = 2
    max_players = 2
    OPTIONS = ()
    readings = ()
    ladder_levels = None
    search_defaults = {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0}
    state_fields = ()
    unique_action_strings = True
    benchmark_moves = {"opening": 0, "middle": 40, "end": 80}
    reference = None
    #: "module:Class" of the game's observation tensors (``observation_features``), the class
    #: itself (a game written in Python may define it beside the game), or None.
    features = None
    #: "module:function" drawing a state as SVG (``GameState.svg``), or None.
    svg = None
    #: True where the game's dealt worlds can draw the other players' secret choices from a model
    #: of them (``GameState.c_set_model``; the search option ``opponents='model'``, issue #44).
    models_opponents = False
    #: Options declared after states of the game were first saved (an expansion): a state's
    #: envelope and observations leave them out while they are at their default, so the states
    #: of the game without them keep their exact form and older saved states still load.
    added_options = ()

    def search_settings(self):
        """The search settings the search bots take on this game where their options leave them
        unset (``rollout``, ``rollout_depth``, ``cutoff_scale``, ``prior``, ``minimax``): the class's
        ``search_defaults``, which a game may adjust to its options (*game hook*). A new dict."""
        return dict(self.search_defaults)

    def reference_game(self):
        """The same game (same options) on the game's independent pure-Python reference engine
        (``reference``, "module:Class"), or None if the game has none. The reference plays the
        same seeds and actions to the same states; ``metro-ai bench`` times the two side by
        side. Games whose reference names options differently override this."""
        if self.reference is None:
            return None
        module, cls_name = self.reference.split(":")
        return getattr(importlib.import_module(module), cls_name)(**self._reference_options())

    def observation_features(self):
        """The game's observation-tensor layout (``features``, "module:Class" or the class, built
        from this game): ``.shape``, ``.sections`` (name, size) and ``.encode(observation)``, a float32
        vector with values in [0, 1] made from ``state.observation(player)`` alone. ValueError
        if the game declares none."""
        if self.features is None:
            raise ValueError(f"{self.name} has no observation tensors (Game.features is None)")
        if isinstance(self.features, type):
            return self.features(self)
        module, cls_name = self.features.split(":")
        return getattr(importlib.import_module(module), cls_name)(self)

    def _reference_options(self):
        """*Game hook*: the reference engine's keyword arguments for this game's options."""
        return dict(self.options)

    def __init__(self, *args, **options):
        cls = type(self)
        if cls.max_players > MAX_PLAYERS or cls.min_players < 1 or cls.min_players > cls.max_players:
            raise TypeError(f"{cls.__name__}: player range {cls.min_players}..{cls.max_players} must lie "
                            f"in 1..{MAX_PLAYERS} (MAX_PLAYERS, engine/core.pxd)")
        self._options = cls.validate_options(*args, **options)
        self.players = self._options["players"]
        self._configure()

    @classmethod
    def validate_options(cls, *args, **options):
        """The full option dict (defaults filled in, declaration order) for these arguments, or
        ValueError naming what is wrong: an unknown option, a bad value."""
        names = [o.name for o in cls.OPTIONS]
        if len(args) > len(names):
            raise ValueError(f"{cls.name}: at most {len(names)} positional options ({', '.join(names)})")
        for name, value in zip(names, args):
            if name in options:
                raise ValueError(f"{cls.name}: option {name!r} given twice")
            options[name] = value
        out = check_options(f"game {cls.name!r}", cls.OPTIONS, options)
        players = out.get("players")
        if isinstance(players, bool) or not isinstance(players, int) or not cls.min_players <= players <= cls.max_players:
            raise ValueError(f"game {cls.name!r}: option 'players' must be an int from {cls.min_players} to "
                             f"{cls.max_players}, got {players!r}")
        return out

    def _configure(self):
        """*Game hook*: build the game's tables from ``self._options`` (validated); may raise
        ValueError for combinations no single option can check, and may normalise values."""

    # ---- describing the game ----
    @classmethod
    def option(cls, name):
        """The declared ``Option`` called `name` (KeyError if none)."""
        for o in cls.OPTIONS:
            if o.name == name:
                return o
        raise KeyError(name)

    @classmethod
    def describe(cls):
        """A JSON-ready description: name, title, family, player range, options, and the readings
        (rules that are this project's decisions, not the printed rules; ``readings``) (the CLI's
        ``games`` command, the docs and the protocol read this)."""
        return {"name": cls.name, "title": cls.title, "family": cls.family,
                "players": {"min": cls.min_players, "max": cls.max_players},
                "options": {o.name: o.to_dict() for o in cls.OPTIONS},
                "readings": [{"rule": rule, "text": text} for rule, text in cls.readings]}

    @classmethod
    def option_sets(cls):
        """Representative option sets for tests and benchmarks: every player count with the
        other options at their defaults, then each bool or choice option set to each of its
        other values (at the smallest and largest player count)."""
        sets = [{"players": p} for p in range(cls.min_players, cls.max_players + 1)]
        for o in cls.OPTIONS:
            if o.name == "players":
                continue
            values = [not o.default] if o.kind == "bool" else [c for c in o.choices if c != o.default] \
                if o.kind == "choice" else []
            for v in values:
                for p in sorted({cls.min_players, cls.max_players}):
                    sets.append({"players": p, o.name: v})
        return sets

    @property
    def options(self):
        """The game's options as a JSON-ready dict, in declaration order."""
        return {k: _json_ready(v) for k, v in self._options.items()}

    @property
    def state_options(self):
        """The options as a state's envelope (``to_json``) and observations write them: every
        option, less those of ``added_options`` that are at their default."""
        out = self.options
        for name in self.added_options:
            if name in out and out[name] == _json_ready(self.option(name).default):
                del out[name]
        return out

    @property
    def num_players(self):
        return self.players

    @property
    def num_distinct_actions(self):
        """*Game hook*: every action is an int in ``range(num_distinct_actions)``."""
        raise NotImplementedError

    @property
    def max_game_length(self):
        """*Game hook*: an upper bound on the number of actions in a game."""
        raise NotImplementedError

    @property
    def max_actions(self):
        """An upper bound on the number of legal actions in any state."""
        cdef GameState s = self.new_state(0)
        return s.c_max_actions()

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"

    def __reduce__(self):
        return (_make_game, (type(self), self.options))

    # ---- states ----
    def new_state(self, seed=0):
        """*Game hook*: a new game dealt from `seed` (any int)."""
        raise NotImplementedError

    def state_from_json(self, text):
        """Rebuild a state from ``to_json()`` output (text, bytes or a parsed dict), checking it
        against the rules. Malformed or inconsistent input raises StateFormatError saying what is
        wrong."""
        obj = parse_state_json(text, self.name, self.state_options, ("game", "options") + tuple(self.state_fields),
                               also=self.options)
        return self._load_state(obj)

    def _load_state(self, obj):
        """*Game hook*: the state described by `obj` (a dict whose envelope is checked)."""
        raise NotImplementedError

    def benchmark_position(self, stage="opening", seed=11):
        """A fixed position for benchmarks: the deal `seed` after ``benchmark_moves[stage]``
        random actions (a seeded ``random.Random(seed)``), moved on to the first choice between
        two or more actions; in a short game, play stops early, before a move after which no
        such choice is left. Games may measure progress otherwise (Metro: tiles placed)."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")
        s = self.new_state(seed)
        rng = random.Random(seed)
        for _ in range(self.benchmark_moves[stage]):
            after = s.clone()
            after.apply(rng.choice(after.legal_actions()))
            if _to_a_choice(after.clone()).is_terminal():
                break
            s = after
        return _to_a_choice(s)

    # ---- actions in text ----
    def action_to_string(self, action):
        """*Game hook*: human text of an action."""
        raise NotImplementedError

    def string_to_action(self, text):
        """The action that ``action_to_string`` writes as `text` (case and runs of white space
        aside), found by reading the texts of every action of the game, as OpenSpiel's default
        does; ValueError if none is written so. A game overrides it only with a reason: an action
        space too large to search (Metro parses), aliases (Leduc), texts that depend on the
        state (Breakthrough)."""
        if isinstance(text, str):
            want = " ".join(text.lower().split())
            for action in range(self.num_distinct_actions):
                if " ".join(self.action_to_string(action).lower().split()) == want:
                    return action
        raise ValueError(f"cannot read {self.name} action {text!r}: no action of the game is written so "
                         f"(e.g. {self.action_to_string(0)!r})")


def _to_a_choice(s):
    """`s` moved on, through forced moves, to the first choice between two or more actions."""
    while not s.is_terminal() and len(s.legal_actions()) < 2:
        s.apply(s.legal_actions()[0])
    return s


cdef class GameState:
    """Base class of every game state. Not instantiated directly: use ``game.new_state(seed)``."""

    # ---- C-level contract: concrete games override all of these ----
    cdef int c_num_players(self) noexcept nogil:
        return 0

    cdef int c_max_actions(self) noexcept nogil:
        return 0

    cdef int c_num_actions(self) noexcept nogil:
        return 0

    cdef int c_current_player(self) noexcept nogil:
        return -1

    cdef bint c_is_terminal(self) noexcept nogil:
        return True

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return 0

    cdef int c_check(self, int action) noexcept nogil:
        return 1

    cdef void c_apply(self, int action) noexcept nogil:
        pass

    cdef int c_random_action(self, rng_t* rng, int* scratch) noexcept nogil:
        return listed_random_action(self, rng, scratch)

    cdef bint c_counts_actions(self) noexcept nogil:
        return False

    cdef void c_returns(self, double* out) noexcept nogil:
        cdef int i, n = self.c_num_players()
        cdef double sc[MAX_PLAYERS]
        cdef bint over = self.c_is_terminal()
        self.c_scores(sc)
        for i in range(n):
            out[i] = rank_return(i, n, sc) if over else 0.0

    cdef void c_scores(self, double* out) noexcept nogil:
        pass

    cdef void c_heuristic(self, double* out) noexcept nogil:
        self.c_scores(out)

    cdef int c_features(self, int player, float* out, int n) noexcept nogil:
        with gil:
            try:
                return copy_features(self.observation_tensor(player), out, n)
            except Exception:
                return -1

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        return action

    cdef int c_chance_key(self, int player) noexcept nogil:
        return 0

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        pass

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        pass

    cdef int c_set_peek(self, int parts) except -1:
        if parts:
            raise ValueError(f"{self.game!r} deals its worlds only honestly: it cannot keep part of "
                             "the hidden information (a measurement that needs it must use a game "
                             "that can, or the whole world)")
        return 0

    cdef int c_set_model(self, bint on) except -1:
        if on:
            raise ValueError(f"{self.game!r} has no model of its players' secret choices: "
                             "opponents='model' needs a game that has one (Game.models_opponents)")
        return 0

    cdef GameState c_new_blank(self):
        raise NotImplementedError

    cdef bint c_failed(self) noexcept nogil:
        return False

    # ---- faults of a game's own code (games written in Python, engine/python_game.pyx) ----
    def _raise_failure(self, search=True):
        """Raise the fault the game's code left in this state at the C level, if any (a search
        or a C play-out calls it on its own states when it returns). Compiled games have none."""

    def _snapshot(self):
        """The state as text to compare before and after a search, where a search could change
        it through the game's own code (games written in Python); None for compiled games, whose
        copies share nothing."""
        return None

    # ---- hooks for error messages (Python level) ----
    def _reason(self, int code):
        return f"reason code {code}"

    # ---- Python face ----
    @property
    def current_player(self):
        """The player to move, or -1 once the game is over."""
        return self.c_current_player()

    @property
    def num_players(self):
        return self.c_num_players()

    def legal_actions(self):
        """The legal actions as a sorted list of ints (empty once terminal)."""
        cdef int cap = self.c_max_actions()
        cdef int* buf = <int*>malloc(max(cap, 1) * sizeof(int))
        if buf == NULL:
            raise MemoryError()
        try:
            n = self.c_legal_actions(buf)
            return [buf[i] for i in range(n)]
        finally:
            free(buf)

    def is_legal(self, action):
        """True if `action` (an int) may be applied now."""
        if isinstance(action, bool) or not isinstance(action, int) or not -2**31 <= action < 2**31:
            return False
        return self.c_check(action) == 0

    def apply(self, action):
        """Apply a legal action. An illegal one raises IllegalActionError and changes nothing."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"an action is an int, got {type(action).__name__} {action!r}")
        if not -2**31 <= action < 2**31:
            raise IllegalActionError(f"unknown action {action}: out of range")
        cdef int code = self.c_check(action)
        if code != 0:
            raise IllegalActionError(
                f"illegal action {action} ({self._describe(action)}): {self._reason(code)}; "
                f"state: {self._summary()}")
        self.c_apply(action)

    def _describe(self, action):
        """What `action` reads as, for an error message; an id outside the game's actions says so."""
        n = self.game.num_distinct_actions
        if not 0 <= action < n:
            return f"no action of {self.game.name} has this id: they are 0 to {n - 1}"
        try:
            return self.action_to_string(action)
        except Exception:
            return "unreadable"

    def _summary(self):
        """*Game hook*: a one-line description for ``repr`` and error messages."""
        return f"{self.game.name}, player {self.c_current_player()} to move"

    def __repr__(self):
        return f"<{type(self).__name__} {self._summary()}>"

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self.game.options == other.game.options and self.to_json() == other.to_json()

    __hash__ = None

    def __reduce__(self):
        return (_unpickle, (self.game, self.to_json()))

    def _check_player(self, player):
        """ValueError unless `player` is a seat of this game."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.c_num_players():
            raise ValueError(f"player must be an int in 0..{self.c_num_players() - 1}, got {player!r}")

    def scores(self):
        """The game's score per player now (ints where every score is whole)."""
        cdef int n = self.c_num_players()
        cdef double out[MAX_PLAYERS]
        self.c_scores(out)
        return [int(out[i]) if out[i] == <long long>out[i] else out[i] for i in range(n)]

    def _state_fields(self):
        """*Game hook*: the full state (hidden parts included) as a JSON-ready dict, without the
        envelope (format, version, game, options) that ``to_dict`` puts first."""
        raise NotImplementedError

    def to_dict(self):
        """The full state (hidden parts included) as a JSON-ready dict (see ``to_json``)."""
        obj = {"format": STATE_FORMAT, "version": STATE_VERSION, "game": self.game.name,
               "options": self.game.state_options}
        obj.update(self._state_fields())
        return obj

    def to_json(self):
        """The full state (hidden parts included) as JSON text; ``game.state_from_json`` reads it."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def observation(self, player):
        """*Game hook*: what `player` sees, as a JSON-ready dict, nothing hidden from them."""
        raise NotImplementedError

    def observation_tensor(self, player):
        """What `player` sees as a float32 vector (the game's ``observation_features()``
        applied to ``observation(player)``; learning front ends such as PettingZoo use it)."""
        self._check_player(player)
        return self.game.observation_features().encode(self.observation(player))

    def _features_c(self, player):
        """``observation_tensor(player)`` as the search computes it (``c_features``: in C where the
        game writes them there), for the tests that the two agree. ValueError if it cannot."""
        import numpy as np
        self._check_player(player)
        n = self.game.observation_features().size
        out = np.zeros(n, np.float32)
        cdef float[::1] view = out
        if n == 0 or self.c_features(player, &view[0], n) != 0:
            self._raise_failure(False)
            raise ValueError(f"{self.game.name}: the features of player {player} could not be computed")
        return out

    def observed_action(self, action, player):
        """How `player` sees `action`, legal now, when the player to move takes it (MO-ISMCTS's
        observed action; ``c_observed_action``): the action itself for the mover and wherever
        moves are public; a game that hides part of a move (Metro's companies, M18; Metro 2033,
        G38) gives the same number for the moves `player` cannot tell apart. ValueError unless
        the game can read `action` here (``_check_observable``)."""
        self._check_player(player)
        self._check_observable(action)
        return self.c_observed_action(action, player)

    def _check_observable(self, action):
        """*Game hook*: ValueError unless ``c_observed_action`` can read `action` in this state;
        by default unless it is legal now. A game whose actions read the same in every position
        (Metro) accepts each of its action ids, so that a search tree's actions of other worlds
        can be read too (benches/reuse_bound.py)."""
        if not self.is_legal(action):
            raise ValueError(f"{self.game.name}: action {action!r} is not legal now")

    def chance_key(self, player):
        """What chance has shown `player` that can differ between states reached by the same
        observed actions, as the number the search keys its nodes by (``c_chance_key``): 0 for
        games whose chance is all in the action ids."""
        self._check_player(player)
        return self.c_chance_key(player)

    def svg(self, player=None, lastmove=None):
        """The position as SVG text (the game's ``svg`` drawing): with `player`, what that
        player sees (their hand); `lastmove`, an action id, is marked."""
        if self.game.svg is None:
            raise ValueError(f"{self.game.name} has no SVG drawing (Game.svg is None)")
        module, name = self.game.svg.split(":")
        return getattr(importlib.import_module(module), name)(self, player=player, lastmove=lastmove)

    def _repr_svg_(self):
        return self.svg()

    def render(self, player=None):
        """*Game hook*: a text drawing for terminals, with `player`'s hidden parts if given."""
        raise NotImplementedError

    def __str__(self):
        return self.render()

    def action_to_string(self, action):
        """Human text of an action (the game's, unless the state knows better)."""
        return self.game.action_to_string(action)

    def string_to_action(self, text):
        """The action written as `text` (ValueError if unreadable)."""
        return self.game.string_to_action(text)

    def is_terminal(self):
        return self.c_is_terminal()

    def heuristic(self):
        """The game's cheap estimate of each player's final score, from public information."""
        cdef int n = self.c_num_players()
        cdef double out[MAX_PLAYERS]
        self.c_heuristic(out)
        return [out[i] for i in range(n)]

    def greedy_values(self):
        """One value per player for the one-ply greedy bot (public information only); a game
        whose heuristic is not the best one-ply evaluation overrides it. Default: the heuristic."""
        return self.heuristic()

    def returns(self):
        """One float per player, rank-based (win 1, loss 0, ties shared); zeros before the end."""
        cdef int n = self.c_num_players()
        cdef double out[MAX_PLAYERS]
        self.c_returns(out)
        return [out[i] for i in range(n)]

    def clone(self):
        """An independent copy (a flat struct copy)."""
        cdef GameState other = self.c_new_blank()
        other.c_copy_from(self)
        return other

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def determinize(self, player, seed, *, bint model=False):
        """A full state that `player` cannot tell apart from this one, drawn from `seed`.

        Hidden parts are redealt uniformly from what the player has not seen; the result depends
        only on what the player sees and on the seed. With `model`, the other players' secret
        choices not yet shown are drawn from the game's model of them instead (games whose
        ``models_opponents`` is True; the others refuse it).
        """
        return self._determinize_peeking(player, seed, 0, model)

    def _determinize_peeking(self, player, seed, int parts, bint model=False):
        """``determinize`` with the hidden parts `parts` (``PEEK`` bits; 0: none, ``determinize``
        itself) left as they are here: for measurements of what knowing them is worth and their
        tests only (c_set_peek)."""
        self._check_player(player)
        cdef uint64_t s = as_seed(seed)
        cdef GameState other = self.c_new_blank()
        other.c_set_peek(parts)
        other.c_set_model(model)
        other.c_determinize_from(self, player, s)
        return other


PEEK = {"decks": PEEK_DECKS, "hands": PEEK_HANDS, "choices": PEEK_CHOICES}


def random_playouts(GameState state, long games, seed):
    """Play `games` uniformly random games from `state` in C (no Python objects per move).

    Returns the sum of the returns per player over all games, as a list of floats. The input
    state is not changed. This is the engine's speed yardstick and the rollout of the bots.
    """
    if games < 0:
        raise ValueError("games must be >= 0")
    state.current_player                 # a fault of a game written in Python is raised here, first
    before = state._snapshot()
    cdef rng_t rng = as_seed(seed)
    cdef GameState work = state.c_new_blank()
    cdef int n = state.c_num_players()
    cdef int cap = state.c_max_actions()
    cdef bint counts = state.c_counts_actions()     # c_random_action, else the list (the same draws)
    cdef int* buf = <int*>malloc(max(cap, 1) * sizeof(int))
    cdef double ret[MAX_PLAYERS]
    cdef double total[MAX_PLAYERS]
    cdef long g
    cdef int k, i
    if buf == NULL:
        raise MemoryError()
    for i in range(n):
        total[i] = 0.0
    try:
        for g in range(games):
            with nogil:
                work.c_copy_from(state)
                while not work.c_is_terminal():
                    k = work.c_random_action(&rng, buf) if counts else listed_random_action(work, &rng, buf)
                    if k < 0:           # a dead end (never reached from a loadable state)
                        break
                    work.c_apply(k)
                work.c_returns(ret)
                for i in range(n):
                    total[i] += ret[i]
            if work.c_failed():         # the game's code failed (games written in Python)
                break
            if (g & 1023) == 1023:
                PyErr_CheckSignals()
    finally:
        free(buf)
    work._raise_failure()
    check_unchanged(state, before, "random_playouts")
    return [total[i] for i in range(n)]


def _random_trajectory(GameState state, seed, long cap):
    """The actions one play-out of ``random_playouts(state, 1, seed)`` takes (at most `cap`): each
    ``c_random_action``'s, for tests to hold them against ``legal[bounded(len(legal))]`` step by
    step. The state is not changed."""
    cdef rng_t rng = as_seed(seed)
    cdef GameState work = state.c_new_blank()
    cdef int* buf = <int*>malloc(max(state.c_max_actions(), 1) * sizeof(int))
    cdef int a
    out = []
    if buf == NULL:
        raise MemoryError()
    try:
        work.c_copy_from(state)
        while not work.c_is_terminal() and len(out) < cap:
            a = work.c_random_action(&rng, buf)
            if a < 0:
                break
            work.c_apply(a)
            out.append(a)
    finally:
        free(buf)
    work._raise_failure()
    return out


def check_unchanged(GameState state, before, who):
    """PythonGameError if `state` no longer reads as `before` (its ``_snapshot()`` taken before
    `who` worked on copies of it): the game's ``_copy_from`` shared mutable objects between the
    copies and the original, so the copies wrote into it. Compiled games (no snapshot): nothing."""
    if before is not None and state._snapshot() != before:
        raise PythonGameError(f"{state.game.name}: {who} changed the state it was given by playing on copies "
                              "of it: _copy_from() must copy the state's mutable attributes (lists, dicts, "
                              "objects), not share them (the state may have been changed)")


cdef extern from *:
    """
    #if defined(__OPTIMIZE__) || (defined(_MSC_VER) && !defined(_DEBUG))
    #define METRO_AI_OPTIMIZED 1
    #else
    #define METRO_AI_OPTIMIZED 0
    #endif
    #ifndef METRO_AI_CHECKS
    #define METRO_AI_CHECKS 0
    #endif
    #ifndef METRO_AI_SANITIZE
    #define METRO_AI_SANITIZE ""
    #endif
    """
    int METRO_AI_OPTIMIZED
    int METRO_AI_CHECKS
    const char* METRO_AI_SANITIZE


def build_info():
    """Facts about how the extensions were compiled (checked by the test suite): ``optimized``,
    ``cython_checks`` (bounds and wraparound checks on: ``METRO_AI_CHECKS=1``) and
    ``sanitizers`` (``METRO_AI_SANITIZE``, e.g. ["address", "undefined"])."""
    sanitizers = METRO_AI_SANITIZE.decode()
    return {"optimized": bool(METRO_AI_OPTIMIZED), "cython_checks": bool(METRO_AI_CHECKS),
            "sanitizers": sanitizers.split(",") if sanitizers else []}
