# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The state contract every metro-ai game implements (modelled on OpenSpiel's ``State``).

A *game* holds the configuration; a *state* holds everything, hidden parts included, so engines
are determinised: chance is realised from the seed when the state is dealt, and hidden
information is state a player must not look at. Python users call the methods below; search code
calls the C-level methods declared in ``core.pxd``.
"""
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t

from cpython.exc cimport PyErr_CheckSignals

import json

from .errors import IllegalActionError, StateFormatError

from .rng cimport rng_t, rng_bounded

_SEED_MASK = (1 << 64) - 1


def as_seed(seed):
    """Validate a seed (any int; taken modulo 2**64) and return it as an unsigned 64-bit int."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__} {seed!r}")
    return seed & _SEED_MASK


def parse_state_json(text, game_name, options, required):
    """Parse a serialised state (JSON text, bytes or an already-parsed dict) of game `game_name`
    played with `options`, and check the top-level fields in `required` are there. Raises
    StateFormatError saying what is wrong; returns the dict."""
    def bad(msg):
        raise StateFormatError(f"{game_name} state: {msg}")
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    if isinstance(text, str):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            bad(f"not valid JSON ({exc})")
    elif isinstance(text, dict):
        obj = text
    else:
        bad(f"expected JSON text, got {type(text).__name__}")
    if not isinstance(obj, dict):
        bad("the top level must be an object")
    for key in required:
        if key not in obj:
            bad(f"missing field {key!r}")
    if obj["game"] != game_name:
        bad(f"this is a {obj['game']!r} state, not {game_name}")
    if obj["options"] != options:
        bad(f"options {obj['options']!r} differ from the game's {options!r}")
    return obj


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

    cdef void c_returns(self, double* out) noexcept nogil:
        pass

    cdef void c_scores(self, double* out) noexcept nogil:
        pass

    cdef void c_heuristic(self, double* out) noexcept nogil:
        self.c_scores(out)

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        return action

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        pass

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        pass

    cdef GameState c_new_blank(self):
        raise NotImplementedError

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
        try:
            return self.action_to_string(action)
        except Exception:
            return "unreadable"

    def _summary(self):
        return repr(self)

    def is_terminal(self):
        return self.c_is_terminal()

    def heuristic(self):
        """The game's cheap estimate of each player's final score, from public information."""
        cdef int n = self.c_num_players()
        cdef double out[16]
        self.c_heuristic(out)
        return [out[i] for i in range(n)]

    def returns(self):
        """One float per player, rank-based (win 1, loss 0, ties shared); zeros before the end."""
        cdef int n = self.c_num_players()
        cdef double out[16]
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

    def determinize(self, player, seed):
        """A full state that `player` cannot tell apart from this one, drawn from `seed`.

        Hidden parts are redealt uniformly from what the player has not seen; the result depends
        only on what the player sees and on the seed.
        """
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.c_num_players():
            raise ValueError(f"player must be an int in 0..{self.c_num_players() - 1}, got {player!r}")
        cdef uint64_t s = as_seed(seed)
        cdef GameState other = self.c_new_blank()
        other.c_determinize_from(self, player, s)
        return other


def random_playouts(GameState state, long games, seed):
    """Play `games` uniformly random games from `state` in C (no Python objects per move).

    Returns the sum of the returns per player over all games, as a list of floats. The input
    state is not changed. This is the engine's speed yardstick and the rollout of the bots.
    """
    if games < 0:
        raise ValueError("games must be >= 0")
    cdef rng_t rng = as_seed(seed)
    cdef GameState work = state.c_new_blank()
    cdef int n = state.c_num_players()
    cdef int cap = state.c_max_actions()
    cdef int* buf = <int*>malloc(max(cap, 1) * sizeof(int))
    cdef double ret[16]
    cdef double total[16]
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
                    k = work.c_legal_actions(buf)
                    work.c_apply(buf[rng_bounded(&rng, <uint64_t>k)])
                work.c_returns(ret)
                for i in range(n):
                    total[i] += ret[i]
            if (g & 1023) == 1023:
                PyErr_CheckSignals()
    finally:
        free(buf)
    return [total[i] for i in range(n)]


cdef extern from *:
    """
    #if defined(__OPTIMIZE__) || (defined(_MSC_VER) && !defined(_DEBUG))
    #define METRO_AI_OPTIMIZED 1
    #else
    #define METRO_AI_OPTIMIZED 0
    #endif
    """
    int METRO_AI_OPTIMIZED


def build_info():
    """Facts about how the extensions were compiled (checked by the test suite)."""
    return {"optimized": bool(METRO_AI_OPTIMIZED)}
