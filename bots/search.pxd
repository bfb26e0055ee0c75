# The search core: one tree of information-set nodes in a flat, growable array (see search.pyx).
from libc.stdint cimport uint64_t
from metro_ai.engine.core cimport GameState
from metro_ai.engine.rng cimport rng_t

cdef struct Node:
    double value            # sum, over visits, of the return of `mover`
    int parent              # -1 at the root
    int action              # the action that leads here from the parent
    int first_child         # -1 if none
    int next_sibling        # -1 if none
    int visits
    int avail               # times this node's action was legal when its parent was searched
    signed char mover       # the player who took `action` (-1 at the root)

cdef class SearchCore:
    cdef Node** trees                   # one node array per tree: 1 (SO-ISMCTS) or one per player (MO)
    cdef int* sizes
    cdef int* caps
    cdef int* cur                       # per tree: the node the current iteration has reached
    cdef int ntrees
    cdef bint multi                     # MO-ISMCTS: select in the mover's tree
    cdef int size, max_nodes            # nodes in all trees together
    cdef GameState root                 # the position searched: read only through determinize
    cdef GameState fixed                # a fixed world (determinised UCT), or None
    cdef bint use_fixed
    cdef GameState world                # scratch: the world of the current iteration
    cdef GameState probe                # scratch: heuristic rollout look-ahead
    cdef int player, nplayers
    cdef int* legal
    cdef int* mark                      # per action: stamp of the last listing it was legal in
    cdef int stamp
    cdef int num_actions
    cdef double c                       # UCB exploration constant
    cdef int selection                  # 0: availability-aware UCB; 1: least visited (flat MC)
    cdef int rollout                    # 0: uniform random; 1: light heuristic
    cdef int rollout_depth              # -1: to the end; else cut off and evaluate
    cdef double cutoff_scale            # 0: rank by heuristic at a cut-off; > 0: soft rank (logistic)
    cdef int tree_depth                 # nodes are grown to this depth at most
    cdef rng_t rng
    cdef readonly long iterations
    cdef readonly long worlds
    cdef double* ret
    cdef double* heur

    cdef int _grow(self, int t) noexcept nogil
    cdef int _add_child(self, int t, int parent, int action, int mover) noexcept nogil
    cdef int _child_for(self, int t, int parent, int action, int mover) noexcept nogil
    cdef void _iterate(self) noexcept nogil
    cdef int _rollout_action(self, int n) noexcept nogil
    cdef void _evaluate(self, double* out) noexcept nogil
    cdef Node* _own(self)
