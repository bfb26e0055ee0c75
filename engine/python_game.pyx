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

What each method must give is the contract's reference page (docs/reference/contract.md,
"Games in plain Python"); ``examples/tunnel_draft.py`` is a worked example. In short, a state
subclass writes ``__init__(self, game, ...)`` calling ``super().__init__(game)``,
``_current_player()``, ``_legal_actions()``, ``_apply_action(action)``, ``_scores()`` (or
``_returns()``), ``_state_fields()`` and ``observation(player)``, and optionally
``_heuristic()``, ``_determinize(player, seed)``, ``_observed_action(action, player)``,
``_copy_from(other)``, ``_check(action)`` with ``_reason(code)`` and ``render(player)``; the game
subclass writes the class attributes of every game, ``new_state(seed)``, ``_load_state(obj)``,
``num_distinct_actions``, ``max_game_length`` and ``_action_text(action)``.

**The boundary.** Nothing the game's code gives is trusted: the adapter copies every value into
its own objects by count (never more than the C buffer holds) and checks it (type, range,
finiteness, sortedness, one value per player) before the compiled layer uses it. The mover is read
once per step (``_current_player()`` is read again only after the state changed), the game's
limits (``num_distinct_actions``, ``max_actions``, ``max_game_length``) once per game, and
``max_game_length`` is enforced: an action past it, in a game not over, is refused.

**Errors.** A fault (an exception of the game's code, or a value that breaks the contract) is
recorded on the *state* whose method failed: that state then reads as over, so a loop over it
winds down at once, and it is raised when control returns to Python. From a Python call
(``state.apply``, ``legal_actions``...) an exception of the game's code is raised unchanged; a
broken contract, ``SystemExit``, and ``KeyboardInterrupt`` outside the main thread raise
`PythonGameError`. Inside a search or a C play-out every fault raises `PythonGameError` from the
original exception (its ``__cause__``), naming the game and the method. Errors are per state, so
they belong to the search (or the caller) whose states failed, never to another caller of the
same game. A game whose search had to be abandoned (a method that did not return after the search
was told to stop, `metro_ai.bots.background`) is marked broken: every state of it then fails with
`PythonGameError` saying why.
"""
from libc.stdint cimport uint64_t

from .core cimport Game, GameState, MAX_PLAYERS, copy_features

import copy as _copy
import itertools
import math
import numbers
import operator
import threading

from .errors import PythonGameError, brief

#: The largest action space a Python game may declare: searches keep an array entry per action
#: (4 bytes, and 16 per player with MAST play-outs), and a state's legal actions are listed into
#: a buffer of ``max_actions`` ints.
MAX_DISTINCT_ACTIONS = 1 << 20
#: The longest game a Python game may declare (``max_game_length``): the bound of a C int.
MAX_GAME_LENGTH = (1 << 31) - 1
#: The methods of a Python game that the compiled layer calls (for messages: which one failed).
HOOKS = ("_current_player", "_legal_actions", "_apply_action", "_scores", "_returns", "_heuristic",
         "_observed_action", "_determinize", "_copy_from", "_check", "_action_text")


def _as_int(value):
    """`value` as an exact int if it is an integer (not a bool: True is no action), else None."""
    if isinstance(value, bool):
        return None
    try:
        return int(operator.index(value))
    except TypeError:
        return None


def as_game_error(game_name, error, where, search):
    """The exception to raise for `error`, recorded in the game's method `where`: `search` (a
    search or a C play-out) wraps every error as a `PythonGameError` from it; a Python call raises
    the game's own exception unchanged, except ``SystemExit`` and a ``KeyboardInterrupt`` outside
    the main thread (game code ending the process or a thread), which are errors of the game. A
    ``KeyboardInterrupt`` in the main thread is the user's Ctrl-C and stays one."""
    if isinstance(error, PythonGameError):
        return error
    if isinstance(error, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
        return error
    if not search and isinstance(error, Exception):
        return error
    wrapped = PythonGameError(f"{game_name}: {where} raised {type(error).__name__}: {error}")
    wrapped.__cause__ = error
    return wrapped


cdef class PythonGame(Game):
    """Base class of a game written in Python (see the module docstring)."""
    cdef int cap                    # max_actions, read and checked once (-1: not yet)
    cdef int nda                    # num_distinct_actions, read and checked once (-1: not yet)
    cdef long long mgl              # max_game_length, read and checked once
    cdef object limits_error        # why those could not be read (a PythonGameError), or None
    cdef bint is_broken             # a search in the game's code was abandoned: no state may play
    cdef object why_broken          # what happened, for the error every state then raises

    def __init__(self, *args, **options):
        self.cap = -1
        self.nda = -1
        self.mgl = -1
        self.limits_error = None
        self.is_broken = False
        self.why_broken = None
        super().__init__(*args, **options)

    @property
    def max_actions(self):
        """An upper bound on the number of legal actions in any state (default: the size of
        the action space; a game may override it with a tighter bound)."""
        return self.num_distinct_actions

    @property
    def broken(self):
        """None, or why the game may no longer be played (see `mark_broken`)."""
        return self.why_broken

    def mark_broken(self, why):
        """Mark the game as no longer playable, with `why` (text naming the game): every state's
        next step fails with a `PythonGameError` saying it. Done when a search in the game's code
        had to be abandoned (its thread may still be running the game's code)."""
        if not self.is_broken:
            self.why_broken = str(why)
            self.is_broken = True

    cdef int read_limits(self) noexcept:
        """Read and check the game's limits once (with the GIL): 0, or -1 with ``limits_error``
        set. A game whose limits cannot be read lists no action (cap 0) ever after, so that no
        buffer sized by an earlier answer can be overrun."""
        if self.nda >= 0:
            return 0 if self.limits_error is None else -1
        self.nda = 0
        self.cap = 0
        self.mgl = 0
        try:
            given = self.num_distinct_actions
            nda = _as_int(given)
            if nda is None or not 1 <= nda <= MAX_DISTINCT_ACTIONS:
                raise PythonGameError(f"{self.name}: num_distinct_actions must be an int from 1 to "
                                      f"{MAX_DISTINCT_ACTIONS:,}, got {brief(given)}")
            given = self.max_actions
            cap = _as_int(given)
            if cap is None or not 1 <= cap <= nda:
                raise PythonGameError(f"{self.name}: max_actions must be an int from 1 to num_distinct_actions "
                                      f"({nda}), got {brief(given)}")
            given = self.max_game_length
            mgl = _as_int(given)
            if mgl is None or not 1 <= mgl <= MAX_GAME_LENGTH:
                raise PythonGameError(f"{self.name}: max_game_length must be an int from 1 to {MAX_GAME_LENGTH:,}, "
                                      f"got {brief(given)}")
        except BaseException as exc:
            self.limits_error = as_game_error(self.name, exc, "reading its limits", True)
            return -1
        self.nda, self.cap, self.mgl = nda, cap, mgl
        return 0

    def check_action(self, action):
        """ValueError unless `action` is an int in the action space."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.num_distinct_actions:
            raise ValueError(f"{action!r} is not a {self.name} action (an int in 0..{self.num_distinct_actions - 1})")

    def action_to_string(self, action):
        """Human text of an action: ``_action_text(action)`` once `action` is checked (a
        `PythonGameError` if that is not text)."""
        self.check_action(action)
        try:
            text = self._action_text(action)
        except (SystemExit, KeyboardInterrupt) as exc:
            raise as_game_error(self.name, exc, "_action_text()", False)
        if not isinstance(text, str):
            raise PythonGameError(f"{self.name}: _action_text() must give text (a str), got {brief(text)}")
        return text

    def _action_text(self, action):
        """*Game hook*: human text of a checked action (default: its number)."""
        return str(action)


cdef class PythonState(GameState):
    """Base class of a state of a Python game (see the module docstring)."""
    cdef object fault               # (exception, method) recorded at the C level, or None
    cdef bint failed                # a fault is recorded: the state reads as over until it is raised
    cdef int mover                  # _current_player() as read since the state last changed (-2: unread)
    cdef long long plies            # actions applied since the state was dealt or loaded (copied with it)

    def __cinit__(self, *args, **kwargs):
        self.mover = -2

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
        """Rank-based returns over the scores once over (win 1, loss 0, ties shared), zeros
        before. One player: the score itself, which must then lie in [0, 1] (a game whose
        scores do not writes ``_returns`` to scale them)."""
        n = self.game.players
        if self.c_current_player() != -1:
            self._raise_failure(False)
            return [0.0] * n
        sc = self.scores()                  # (checked: one finite number per player)
        if n == 1:
            return sc
        return [sum(1.0 if sc[j] < sc[i] else 0.5 if sc[j] == sc[i] else 0.0 for j in range(n) if j != i) / (n - 1)
                for i in range(n)]

    def _heuristic(self):
        return self.scores()                # (checked: a fault names _scores())

    def _observed_action(self, action, player):
        return action

    def _determinize(self, player, seed):
        pass

    def _copy_from(self, other):
        d = self.__dict__
        d.clear()
        d.update(_copy.deepcopy(other.__dict__))

    def _check(self, action):
        return 0 if action in self.legal_actions() else 1

    def _reason(self, int code):
        return "not a legal action now"

    # ---- faults ----
    cdef void record(self, object error, str where) noexcept:
        """Keep the first fault of this state (with the GIL)."""
        if not self.failed:
            self.fault = (error, where)
            self.failed = True

    cdef void broke(self, str where, str what) noexcept:
        """Record a broken contract: `where` (a method) gave `what`."""
        name = type(self).__name__ if self.game is None else self.game.name
        self.record(PythonGameError(f"{name}: {where} {what}"), where)

    cdef bint live(self) noexcept nogil:
        """Whether the game's code may be called on this state: no fault recorded, a game (whose
        ``__init__`` ran), limits read, and the game not broken; otherwise the reason is recorded."""
        if self.failed:
            return False
        if self.game is None:
            with gil:
                self.broke("__init__", f"did not call super().__init__(game): {type(self).__name__} has no game "
                           "(call super().__init__(game) first in its __init__)")
            return False
        if (<PythonGame>self.game).nda < 0 or (<PythonGame>self.game).limits_error is not None:
            with gil:
                if (<PythonGame>self.game).read_limits() < 0:
                    self.record((<PythonGame>self.game).limits_error, "reading its limits")
                    return False
        if (<PythonGame>self.game).is_broken:
            with gil:
                self.record(PythonGameError((<PythonGame>self.game).why_broken), "broken")
            return False
        return True

    cdef bint c_failed(self) noexcept nogil:
        return self.failed

    def _raise_failure(self, search=True):
        """Raise the fault recorded at the C level, if any, and clear it (see the module
        docstring): `search` wraps every error as a `PythonGameError`."""
        if not self.failed:
            return
        error, where = self.fault
        self.fault = None
        self.failed = False
        self.mover = -2                     # read afresh: the state may be anywhere after a fault
        name = type(self).__name__ if self.game is None else self.game.name
        raise as_game_error(name, error, where, search)

    def _snapshot(self):
        """The state as JSON text, to tell whether a search changed it (a ``_copy_from`` that
        shares objects lets the copies write into the original)."""
        self._raise_failure(False)
        return self.to_json()

    # ---- the C-level contract ----
    cdef int c_num_players(self) noexcept nogil:
        if self.game is None:
            return 0
        return self.game.players

    cdef int c_max_actions(self) noexcept nogil:
        if self.game is None:
            return 0
        if (<PythonGame>self.game).nda < 0:
            with gil:
                (<PythonGame>self.game).read_limits()      # once per game: every caller sees one cap
        return (<PythonGame>self.game).cap

    cdef int c_num_actions(self) noexcept nogil:
        if self.game is None:
            return 0
        if (<PythonGame>self.game).nda < 0:
            with gil:
                (<PythonGame>self.game).read_limits()
        return (<PythonGame>self.game).nda

    cdef int c_current_player(self) noexcept nogil:
        if not self.live():
            return -1
        if self.mover == -2:
            with gil:
                self.read_mover()
        return self.mover if not self.failed else -1

    cdef void read_mover(self) noexcept:
        cdef int n = self.game.players
        try:
            got = self._current_player()
        except BaseException as exc:
            self.record(exc, "_current_player()")
            return
        p = _as_int(got)
        if p is None or not -1 <= p < n:
            self.broke("_current_player()", f"must give -1 (over) or a seat in 0..{n - 1}, got {brief(got)}")
            return
        self.mover = p

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.c_current_player() == -1

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int n, p = self.c_current_player()
        if not self.live():
            return 0
        with gil:
            n = self.copy_actions(out, p)
        return n

    cdef int copy_actions(self, int* out, int p) noexcept:
        """``_legal_actions()`` copied into `out` (room for ``max_actions``), checked: at most
        that many, sorted, distinct ints in the action space; none once over, some before."""
        cdef PythonGame game = <PythonGame>self.game
        cdef int cap = game.cap, nda = game.nda, i
        try:
            got = self._legal_actions()
        except BaseException as exc:
            self.record(exc, "_legal_actions()")
            return 0
        items = self.copied(got, cap + 1, "_legal_actions()", "a list of ints")
        if items is None:
            return 0
        if len(items) > cap:
            self.broke("_legal_actions()", f"gave more than max_actions ({cap}) actions")
            return 0
        actions = []
        last = -1
        for x in items:
            a = _as_int(x)
            if a is None or not last < a < nda:
                self.broke("_legal_actions()", f"must give sorted, distinct ints in 0..{nda - 1}, got "
                           f"{brief(list(items))}")
                return 0
            actions.append(a)
            last = a
        if p == -1 and actions:
            self.broke("_legal_actions()", f"gave actions {brief(actions)} though _current_player() says the game "
                       "is over")
            return 0
        if p != -1 and not actions:
            self.broke("_legal_actions()", f"gave no action though _current_player() says player {p} is to move "
                       "(a game that is not over must have a legal action)")
            return 0
        for i in range(len(actions)):
            out[i] = actions[i]
        return len(actions)

    cdef object copied(self, object got, int most, str hook, str kind):
        """The first `most` items of `got` as a tuple of our own (copied by count: a lying len()
        or a list that grows while it is read cannot pass a bound), or None with the fault
        recorded: not iterable (a broken contract), or an error while iterating (the game's)."""
        try:
            it = iter(got)
        except TypeError:
            self.broke(hook, f"must give {kind}, got {brief(got)}")
            return None
        try:
            return tuple(itertools.islice(it, most))
        except BaseException as exc:
            self.record(exc, hook)
            return None

    cdef int c_check(self, int action) noexcept nogil:
        if not self.live():
            return 1
        if not 0 <= action < (<PythonGame>self.game).nda:
            return 1
        with gil:
            try:
                got = self._check(action)
            except BaseException as exc:
                self.record(exc, "_check()")
                return 1
            code = _as_int(got)
            if code is None or not 0 <= code < 2**31:
                self.broke("_check()", f"must give 0 (legal) or a positive reason code, got {brief(got)}")
                return 1
            return code

    cdef void c_apply(self, int action) noexcept nogil:
        if not self.live():
            return
        if self.plies >= (<PythonGame>self.game).mgl:
            with gil:
                self.broke("max_game_length", f"exceeded: the game is not over after {self.plies} actions, the "
                           "most it declares (max_game_length)")
            return
        with gil:
            try:
                self._apply_action(action)
            except BaseException as exc:
                self.record(exc, "_apply_action()")
        if not self.failed:
            self.plies += 1
        self.mover = -2

    cdef void numbers(self, str hook, double* out, bint unit) noexcept:
        """``hook()``'s values copied into `out` (zeros on a fault): one finite real number per
        player, each in [0, 1] if `unit`."""
        cdef int i, n = self.c_num_players()
        for i in range(n):
            out[i] = 0.0
        if not self.live():
            return
        try:
            got = getattr(self, hook)()
        except BaseException as exc:
            self.record(exc, hook + "()")
            return
        items = self.copied(got, n + 1, hook + "()", "a list of numbers")
        if items is None:
            return
        values = [float(v) if isinstance(v, numbers.Real) else None for v in items]
        if len(items) != n:
            self.broke(hook + "()", f"must give one number per player ({n}), got {brief(got)}")
            return
        for i in range(n):
            v = values[i]
            if v is None or not math.isfinite(v):
                self.broke(hook + "()", f"must give finite numbers, got {brief(items[i])} for player {i}")
                return
            if unit and not 0.0 <= v <= 1.0:
                self.broke(hook + "()", f"must give numbers in [0, 1] (win 1, loss 0), got {v!r} for player {i}")
                return
        for i in range(n):
            out[i] = values[i]

    cdef void c_returns(self, double* out) noexcept nogil:
        with gil:
            self.numbers("_returns", out, True)

    cdef void c_scores(self, double* out) noexcept nogil:
        with gil:
            self.numbers("_scores", out, False)

    cdef void c_heuristic(self, double* out) noexcept nogil:
        with gil:
            self.numbers("_heuristic", out, False)

    cdef int c_features(self, int player, float* out, int n) noexcept nogil:
        if not self.live():
            return -1
        with gil:
            try:
                vec = self.observation_tensor(player)
            except BaseException as exc:
                self.record(exc, "observation_tensor()")
                return -1
            try:
                if copy_features(vec, out, n) == 0:
                    return 0
            except Exception:
                pass
            self.broke("observation_tensor()", f"must give {n} finite numbers (its features' size), got {brief(vec)}")
            return -1

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        if not self.live():
            return action
        with gil:
            try:
                got = self._observed_action(action, player)
            except BaseException as exc:
                self.record(exc, "_observed_action()")
                return action
            seen = _as_int(got)
            if seen is None or not -2**31 <= seen < 2**31:
                self.broke("_observed_action()", f"must give an int, got {brief(got)}")
                return action
            return seen

    cdef bint take(self, PythonState source, str hook) noexcept nogil:
        """Before copying `source` into this state: False (and a fault here) if either may not
        play; the copy keeps the count of actions played."""
        if not self.live():
            return False
        if not source.live():
            with gil:
                self.record(source.fault[0], source.fault[1])
            return False
        self.plies = source.plies
        self.mover = -2
        return True

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        if not self.take(<PythonState>other, "_copy_from()"):
            return
        with gil:
            try:
                self._copy_from(other)
            except BaseException as exc:
                self.record(exc, "_copy_from()")

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        if not self.take(<PythonState>source, "_determinize()"):
            return
        with gil:
            try:
                self._copy_from(source)
            except BaseException as exc:
                self.record(exc, "_copy_from()")
                return
            try:
                self._determinize(player, seed)
            except BaseException as exc:
                self.record(exc, "_determinize()")

    cdef GameState c_new_blank(self):
        cdef PythonState s = type(self).__new__(type(self))
        s.game = self.game
        return s

    # ---- the Python face: faults recorded at the C level raised at once ----
    @property
    def current_player(self):
        """The player to move, or -1 once the game is over."""
        p = self.c_current_player()
        self._raise_failure(False)
        return p

    def is_terminal(self):
        over = self.c_is_terminal()
        self._raise_failure(False)
        return over

    def legal_actions(self):
        """The legal actions as a sorted list of ints (empty once terminal)."""
        out = GameState.legal_actions(self)
        self._raise_failure(False)
        return out

    def is_legal(self, action):
        """True if `action` (an int) may be applied now."""
        out = GameState.is_legal(self, action)
        self._raise_failure(False)
        return out

    def apply(self, action):
        """Apply a legal action. An illegal one raises IllegalActionError and changes nothing;
        one past ``max_game_length`` in a game that is not over raises `PythonGameError` and
        changes nothing."""
        try:
            GameState.apply(self, action)
        finally:
            self._raise_failure(False)

    def returns(self):
        """One float per player (rank-based unless the game says otherwise); zeros before the end."""
        out = GameState.returns(self)
        self._raise_failure(False)
        return out

    def scores(self):
        """The game's score per player now."""
        out = GameState.scores(self)
        self._raise_failure(False)
        return out

    def heuristic(self):
        """The game's cheap estimate of each player's final score, from public information."""
        out = GameState.heuristic(self)
        self._raise_failure(False)
        return out

    def observed_action(self, action, player):
        """How `player` sees `action`, legal now, taken by the player to move
        (``_observed_action``, checked)."""
        try:
            return GameState.observed_action(self, action, player)
        finally:
            self._raise_failure(False)

    def clone(self):
        """An independent copy (``_copy_from``)."""
        out = GameState.clone(self)
        self._raise_failure(False)
        (<PythonState>out)._raise_failure(False)
        return out

    def determinize(self, player, seed, *, model=False):
        """A full state that `player` cannot tell apart from this one, drawn from `seed` (a game
        written in Python has no model of its players: `model` True is refused)."""
        out = GameState.determinize(self, player, seed, model=model)
        self._raise_failure(False)
        (<PythonState>out)._raise_failure(False)
        return out
