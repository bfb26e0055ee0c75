# cython: language_level=3
"""Games written in plain Python: ``PythonGame`` and ``PythonState`` (the way OpenSpiel's Python
games get its algorithms).

A game written as Cython fills in the C-level methods of the contract (``core.pxd``), which the
search calls without the GIL. A Python game subclasses these two classes instead and writes the
state's moves as ordinary Python methods; this adapter's C-level methods take the GIL and call
them, so every bot, the contract suite, the CLI (``match``, ``tournament``) and the protocol
(``serve``, ``web``) play the game, slower than a Cython game but the same way. Worker threads of
a search take turns on the GIL (no speed-up); ``backend="processes"`` works where the game's
module can be imported by name in a worker process.

A state subclass writes (``examples/tunnel_draft.py`` is a worked example):

- ``__init__(self, game, ...)``: call ``super().__init__(game)``, then deal (from a seed);
- ``_current_player()``: the seat to move, -1 once the game is over;
- ``_legal_actions()``: the legal actions, a sorted list of distinct ints (empty once over);
- ``_apply_action(action)``: play a legal action (already checked);
- ``_scores()``: the score per player (returns rank them: win 1, loss 0, ties shared), or
  ``_returns()`` for another outcome;
- ``_state_fields()`` (and the game's ``_load_state``) and ``observation(player)``, as any game;
- optionally ``_heuristic()`` (default: the scores), ``_determinize(player, seed)`` (redeal, in
  place, what `player` cannot see; default: nothing, for games without hidden information),
  ``_observed_action(action, player)`` (default: the action), ``_copy_from(other)`` (default: a
  deep copy of the other state's attributes), ``_check(action)`` (0 if legal; default: whether
  it is listed) with ``_reason(code)``, ``render(player)``.

The game subclass writes the class attributes of every game (``name``, ``title``, ``OPTIONS``,
player range...), ``new_state(seed)``, ``_load_state(obj)``, ``num_distinct_actions``,
``max_game_length`` and ``_action_text(action)``; ``max_actions`` defaults to
``num_distinct_actions`` and ``string_to_action`` to the contract's search of the action texts.

Errors in the game's code: from a Python call (``state.apply``, ``legal_actions``...) they
propagate as usual (the adapter records them at the C level and raises them again, unchanged,
when the method returns). Inside a search or a C play-out they cannot cross the C code, so the first one
is recorded on the game, every state of the game then reads as over (the search winds down at
once), and the search or play-out raises ``PythonGameError`` from the original exception (its
``__cause__``) when it returns. Values of the wrong kind (an action outside the action space, more
legal actions than ``max_actions``, unsorted actions, a bad player) are errors of the same kind.
"""
from libc.stdint cimport uint64_t

from .core cimport Game, GameState, MAX_PLAYERS

import copy as _copy


class PythonGameError(RuntimeError):
    """An error raised by a Python game's own code inside a search or a C play-out (the
    original exception is its ``__cause__``)."""


cdef class PythonGame(Game):
    """Base class of a game written in Python (see the module docstring)."""
    cdef public bint failed         # an error of the game's code is recorded (states read as over)
    cdef public object error        # (exception, where) of that error, or None
    cdef int cap, nda               # max_actions and num_distinct_actions, read once

    def __init__(self, *args, **options):
        self.failed = False
        self.error = None
        self.cap = -1
        self.nda = -1
        super().__init__(*args, **options)

    @property
    def max_actions(self):
        """An upper bound on the number of legal actions in any state (default: the size of
        the action space; a game may override it with a tighter bound)."""
        return self.num_distinct_actions

    def raise_pending_error(self, wrap=True):
        """Raise the error recorded in the game's code at the C level (see the module
        docstring), if any, and clear it: the game plays again. `wrap`: as a PythonGameError
        from the original (searches, play-outs), else the original itself (the state's Python
        methods)."""
        if not self.failed:
            return
        error, where = self.error
        self.failed = False
        self.error = None
        if not wrap:
            raise error
        raise PythonGameError(f"{self.name}: {where} raised {type(error).__name__}: {error}") from error

    cdef void record(self, object error, str where) noexcept:
        if not self.failed:
            self.error = (error, where)
            self.failed = True

    def check_action(self, action):
        """ValueError unless `action` is an int in the action space."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.num_distinct_actions:
            raise ValueError(f"{action!r} is not a {self.name} action (an int in 0..{self.num_distinct_actions - 1})")

    def action_to_string(self, action):
        """Human text of an action: ``_action_text(action)`` once `action` is checked."""
        self.check_action(action)
        return self._action_text(action)

    def _action_text(self, action):
        """*Game hook*: human text of a checked action (default: its number)."""
        return str(action)


cdef class PythonState(GameState):
    """Base class of a state of a Python game (see the module docstring)."""

    def __init__(self, game):
        if not isinstance(game, PythonGame):
            raise TypeError(f"a PythonState belongs to a PythonGame, got {type(game).__name__}")
        self.game = game

    # ---- the game's hooks (defaults) ----
    def _current_player(self):
        raise NotImplementedError

    def _legal_actions(self):
        raise NotImplementedError

    def _apply_action(self, action):
        raise NotImplementedError

    def _scores(self):
        raise NotImplementedError

    def _returns(self):
        """Rank-based returns over ``_scores()`` once over (win 1, loss 0, ties shared), zeros
        before."""
        n = self.game.players
        if self._current_player() != -1:
            return [0.0] * n
        if n == 1:
            return [float(x) for x in self._scores()]
        sc = list(self._scores())
        return [sum(1.0 if sc[j] < sc[i] else 0.5 if sc[j] == sc[i] else 0.0 for j in range(n) if j != i) / (n - 1)
                for i in range(n)]

    def _heuristic(self):
        return self._scores()

    def _observed_action(self, action, player):
        return action

    def _determinize(self, player, seed):
        pass

    def _copy_from(self, other):
        d = self.__dict__
        d.clear()
        d.update(_copy.deepcopy(other.__dict__))

    def _check(self, action):
        return 0 if action in self._legal_actions() else 1

    def _reason(self, int code):
        return "not a legal action now"

    # ---- the C-level contract ----
    cdef inline bint failed(self) noexcept nogil:
        return (<PythonGame>self.game).failed

    cdef inline PythonGame pg(self):
        return <PythonGame>self.game

    cdef int c_num_players(self) noexcept nogil:
        return self.game.players

    cdef int c_max_actions(self) noexcept nogil:
        if (<PythonGame>self.game).cap < 0:
            with gil:
                try:
                    cap = self.game.max_actions
                    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap < 2**31:
                        raise ValueError(f"max_actions must be a positive int, got {cap!r}")
                    self.pg().cap = cap
                except BaseException as exc:
                    self.pg().record(exc, "max_actions")
                    return 1
        return (<PythonGame>self.game).cap

    cdef int c_num_actions(self) noexcept nogil:
        if (<PythonGame>self.game).nda < 0:
            with gil:
                try:
                    nda = self.game.num_distinct_actions
                    if isinstance(nda, bool) or not isinstance(nda, int) or not 1 <= nda < 2**31:
                        raise ValueError(f"num_distinct_actions must be a positive int, got {nda!r}")
                    self.pg().nda = nda
                except BaseException as exc:
                    self.pg().record(exc, "num_distinct_actions")
                    return 1
        return (<PythonGame>self.game).nda

    cdef int c_current_player(self) noexcept nogil:
        if self.failed():
            return -1
        with gil:
            try:
                p = self._current_player()
                if isinstance(p, bool) or not isinstance(p, int) or not -1 <= p < self.game.players:
                    raise ValueError(f"_current_player() must be -1 or a seat in 0..{self.game.players - 1}, "
                                     f"got {p!r}")
                return p
            except BaseException as exc:
                self.pg().record(exc, "_current_player()")
                return -1

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.c_current_player() == -1

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int cap = self.c_max_actions()
        cdef int nda = self.c_num_actions()
        cdef int i = 0, a, last = -1
        if self.failed():
            return 0
        with gil:
            try:
                actions = self._legal_actions()
                if len(actions) > cap:
                    raise ValueError(f"_legal_actions() gave {len(actions)} actions, more than max_actions ({cap})")
                for x in actions:
                    if isinstance(x, bool) or not isinstance(x, int) or not last < x < nda:
                        raise ValueError(f"_legal_actions() must give sorted, distinct ints in 0..{nda - 1}, "
                                         f"got {list(actions)!r}")
                    a = x
                    out[i] = a
                    last = a
                    i += 1
                return i
            except BaseException as exc:
                self.pg().record(exc, "_legal_actions()")
                return 0

    cdef int c_check(self, int action) noexcept nogil:
        if self.failed():
            return 1
        with gil:
            try:
                code = self._check(action)
                if isinstance(code, bool) or not isinstance(code, int) or code < 0:
                    raise ValueError(f"_check() must give 0 (legal) or a positive reason code, got {code!r}")
                return code
            except BaseException as exc:
                self.pg().record(exc, "_check()")
                return 1

    cdef void c_apply(self, int action) noexcept nogil:
        if self.failed():
            return
        with gil:
            try:
                self._apply_action(action)
            except BaseException as exc:
                self.pg().record(exc, "_apply_action()")

    cdef void _floats(self, str hook, double* out) noexcept:
        cdef int i, n = self.game.players
        for i in range(n):
            out[i] = 0.0
        if self.failed():
            return
        try:
            values = getattr(self, hook)()
            if len(values) != n:
                raise ValueError(f"{hook}() must give one number per player ({n}), got {values!r}")
            for i in range(n):
                out[i] = float(values[i])
        except BaseException as exc:
            for i in range(n):
                out[i] = 0.0
            self.pg().record(exc, hook + "()")

    cdef void c_returns(self, double* out) noexcept nogil:
        with gil:
            self._floats("_returns", out)

    cdef void c_scores(self, double* out) noexcept nogil:
        with gil:
            self._floats("_scores", out)

    cdef void c_heuristic(self, double* out) noexcept nogil:
        with gil:
            self._floats("_heuristic", out)

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        if self.failed():
            return action
        with gil:
            try:
                seen = self._observed_action(action, player)
                if isinstance(seen, bool) or not isinstance(seen, int) or not -2**31 <= seen < 2**31:
                    raise ValueError(f"_observed_action() must give an int, got {seen!r}")
                return seen
            except BaseException as exc:
                self.pg().record(exc, "_observed_action()")
                return action

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        if self.failed():
            return
        with gil:
            try:
                self._copy_from(other)
            except BaseException as exc:
                self.pg().record(exc, "_copy_from()")

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        if self.failed():
            return
        with gil:
            try:
                self._copy_from(source)
                self._determinize(player, seed)
            except BaseException as exc:
                self.pg().record(exc, "_determinize()")

    cdef GameState c_new_blank(self):
        cdef PythonState s = type(self).__new__(type(self))
        s.game = self.game
        return s

    # ---- the Python face: errors recorded at the C level surface here at once ----
    @property
    def current_player(self):
        """The player to move, or -1 once the game is over."""
        p = self.c_current_player()
        self.pg().raise_pending_error(False)
        return p

    def is_terminal(self):
        over = self.c_is_terminal()
        self.pg().raise_pending_error(False)
        return over

    def legal_actions(self):
        """The legal actions as a sorted list of ints (empty once terminal)."""
        out = GameState.legal_actions(self)
        self.pg().raise_pending_error(False)
        return out

    def is_legal(self, action):
        """True if `action` (an int) may be applied now."""
        out = GameState.is_legal(self, action)
        self.pg().raise_pending_error(False)
        return out

    def apply(self, action):
        """Apply a legal action. An illegal one raises IllegalActionError and changes nothing."""
        GameState.apply(self, action)
        self.pg().raise_pending_error(False)

    def returns(self):
        """One float per player (rank-based unless the game says otherwise); zeros before the end."""
        out = GameState.returns(self)
        self.pg().raise_pending_error(False)
        return out

    def scores(self):
        """The game's score per player now."""
        out = GameState.scores(self)
        self.pg().raise_pending_error(False)
        return out

    def heuristic(self):
        """The game's cheap estimate of each player's final score, from public information."""
        out = GameState.heuristic(self)
        self.pg().raise_pending_error(False)
        return out

    def clone(self):
        """An independent copy (``_copy_from``)."""
        out = GameState.clone(self)
        self.pg().raise_pending_error(False)
        return out

    def determinize(self, player, seed):
        """A full state that `player` cannot tell apart from this one, drawn from `seed`."""
        out = GameState.determinize(self, player, seed)
        self.pg().raise_pending_error(False)
        return out
