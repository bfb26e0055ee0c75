# The game contract shared by every game (see engine/core.pyx for the Python face).
#
# A concrete game subclasses Game (its configuration: options, rule tables) and GameState (one
# position, hidden parts included) and fills in the C-level methods below. Search code calls them
# on typed references without the GIL and without creating Python objects per iteration: copy a
# root into a preallocated scratch state (c_copy_from), list actions into a caller-owned buffer of
# c_max_actions() ints (c_legal_actions), apply a listed action unchecked (c_apply).
from libc.stdint cimport uint64_t
from metro_ai.engine.rng cimport rng_t, rng_bounded

cdef enum:
    MAX_PLAYERS = 8            # the most players any game may declare (per-player C buffers)


cdef class Game:
    cdef readonly int players            # seats at the table, in [min_players, max_players]
    cdef dict _options                   # option name -> validated value, in declaration order


cdef class GameState:
    cdef readonly Game game              # the Game object: configuration, shared rule tables

    cdef int c_num_players(self) noexcept nogil
    cdef int c_max_actions(self) noexcept nogil          # upper bound on len(legal actions)
    cdef int c_num_actions(self) noexcept nogil          # every action is an int in [0, this)
    cdef int c_current_player(self) noexcept nogil       # -1 once terminal
    cdef bint c_is_terminal(self) noexcept nogil
    cdef int c_legal_actions(self, int* out) noexcept nogil  # writes sorted actions, returns count
    cdef int c_check(self, int action) noexcept nogil    # 0 if legal, else a game reason code > 0
    cdef void c_apply(self, int action) noexcept nogil   # action must be legal (not re-checked)
    # A uniformly random legal action, -1 where there is none: exactly
    # ``c_legal_actions(scratch)[rng_bounded(rng, n)]`` (the same draw, the same action), which
    # is the default; a game may find it without listing every action (Metro counts them).
    # `scratch` holds c_max_actions() ints. c_counts_actions: True where the game's own is
    # cheaper than listing (False by default), so that play-out loops call it rather than list.
    cdef int c_random_action(self, rng_t* rng, int* scratch) noexcept nogil
    cdef bint c_counts_actions(self) noexcept nogil
    # Rank-based returns (rank_return over c_scores) once terminal, zeros before; games whose
    # outcome is not a ranking of scores override it.
    cdef void c_returns(self, double* out) noexcept nogil
    cdef void c_scores(self, double* out) noexcept nogil     # the game's score per player now
    # A cheap estimate of each player's final score from public information only (for greedy
    # bots and rollout cut-offs); defaults to c_scores.
    cdef void c_heuristic(self, double* out) noexcept nogil
    # `player`'s observation features (``observation_tensor(player)``, value for value) into
    # out[:n], n their number (the game's ``observation_features().size``): 0 once written, -1
    # where they could not be (out then unspecified). By default through Python with the GIL
    # (the game's encoder over its observation); Breakthrough and Metro 2033 write them in C,
    # for the learned evaluators of the search's cut-off (issue #44).
    cdef int c_features(self, int player, float* out, int n) noexcept nogil
    # How `player` sees `action` when another player takes it (MO-ISMCTS); identity by default,
    # for games whose moves are public.
    cdef int c_observed_action(self, int action, int player) noexcept nogil
    # What chance has shown `player` (a card dealt, drawn or turned up) that can differ between
    # states reached by the same actions as `player` observes them: equal where `player` cannot
    # tell the states apart, different (as far as the game can say) where they can. The search
    # keys a node's children by it; it may be a hash, of which the search keeps 16 bits. 0 by
    # default, for games whose chance is all in the action ids or hidden from every player.
    cdef int c_chance_key(self, int player) noexcept nogil
    cdef void c_copy_from(self, GameState other) noexcept nogil  # other: same class and game
    # Make self a full state that `player` cannot tell from `source`, drawn from `seed` (same
    # class and game). Depends only on what `player` sees in `source` and on `seed`.
    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil
    # For measurement only (the ceilings of opponent modelling, issue #44): make this state's
    # later c_determinize_from leave the hidden parts named by `parts` (PEEK_* bits) as they are
    # in the source, so a search that deals its worlds here knows them. 0 (the default, and the
    # only value a game need accept) deals honestly; a game refuses parts it cannot keep.
    cdef int c_set_peek(self, int parts) except -1
    # Make this state's later c_determinize_from draw the other players' secret choices not yet
    # shown from the game's model of them rather than uniformly (`on`; the search option
    # opponents='model', issue #44). Off by default; a game without a model (Game.models_opponents
    # False) refuses to turn it on.
    cdef int c_set_model(self, bint on) except -1
    cdef GameState c_new_blank(self)                     # an uninitialised state of the same game
    # True once the game's own code failed in this state (games written in Python): it reads as
    # over, and a loop over it stops and raises the fault (``_raise_failure``). False by default.
    cdef bint c_failed(self) noexcept nogil


cdef int copy_features(object vec, float* out, int n) except -2
cdef double rank_return(int me, int n, const double* scores) noexcept nogil


cdef inline int listed_random_action(GameState s, rng_t* rng, int* scratch) noexcept nogil:
    """GameState.c_random_action's default: the legal actions listed into `scratch`, the one at
    rng_bounded(rng, n); -1, drawing nothing, where there is none."""
    cdef int n = s.c_legal_actions(scratch)
    if n == 0:
        return -1
    return scratch[rng_bounded(rng, <uint64_t>n)]

# The hidden parts a measuring search may be let see (c_set_peek): the decks' order (and the
# chance still to come), the other players' hands (cards dealt to them or kept), and their secret
# choices (cards picked, declarations made, not yet shown).
cdef enum:
    PEEK_DECKS = 1
    PEEK_HANDS = 2
    PEEK_CHOICES = 4
