# The search core: one tree of information-set nodes in a flat, growable array, and the play-out
# policies it evaluates leaves with (see search.pyx).
cimport cython
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
    int nchildren           # children (of every mover and chance key); past index_from they are
                            # also found through the tree's child index (SearchCore.index)
    signed char mover       # the player who took `action` (-1 at the root); a child is keyed by
                            # (action, mover, chance): after one action path the player to move
                            # may differ between worlds, and players share action ids
    unsigned short chance   # the tree's observer's chance key where `action` was taken (16 bits
                            # of c_chance_key): what chance had shown them differs between worlds

cdef class SearchCore

cdef class LearnedValue:
    # A learned evaluator (metro-ai train's file) in C: a seat's expected return from its
    # observation features, sigmoid(w . x + b [+ a * logit(hand-written)]) or one tanh layer.
    cdef readonly int size              # the features it reads
    cdef readonly int hidden            # hidden units; 0: logistic
    cdef float* w                       # logistic: size weights; else hidden x size, row by row
    cdef double* b1                     # hidden layer: its biases
    cdef double* w2                     # hidden layer: the output's weights
    cdef double bias                    # the output's bias
    cdef readonly bint on_hand_written  # the hand-written evaluation's log-odds is an input
    cdef double hand_weight, hand_scale # its weight, and the soft rank's scale it is taken at
    cdef readonly object data           # the evaluator file's data (what pickles and compares)
    cdef readonly str key               # a digest of data

    cdef double value(self, const float* x, double hand) noexcept nogil

cdef class Playout:
    # The play-out step of the search and the evaluation where it stops (OpenSpiel's Evaluator).
    # Holds settings only: one object may serve several cores searching in parallel, so scratch
    # space is the core's (world, probe, legal, heur, rng).
    cdef readonly int depth             # actions played out before evaluating; -1: to the end
    cdef readonly double cutoff_scale   # 0: rank by heuristic at a cut-off; > 0: soft rank (logistic)
    cdef readonly double end_scale      # 0: the game's returns at the end; > 0: soft rank by final scores
    cdef readonly bint mast             # the core keeps MAST tables for this play-out (MastPlayout)
    cdef readonly LearnedValue learned  # scores a cut-off (mixed with the hand-written value), or None
    cdef readonly double eval_mix       # the learned value's weight at a cut-off
    cdef readonly double lead_weight    # weight of the lead term (0: off; see Playout)

    cdef int choose(self, SearchCore core, int n) noexcept nogil
    cdef void evaluate(self, SearchCore core, double* out) noexcept nogil
    cdef void _mix_learned(self, SearchCore core, double* out) noexcept nogil
    cdef void _mix_lead(self, SearchCore core, double* out, bint have_heuristic) noexcept nogil

cdef class RandomPlayout(Playout):
    pass

cdef class HeuristicPlayout(Playout):
    cdef readonly int samples           # random legal actions compared per move

cdef class MastPlayout(Playout):
    cdef int policy                     # 0: epsilon-greedy; 1: Gibbs (softmax)
    cdef readonly double epsilon        # epsilon-greedy: share of uniformly random actions
    cdef readonly double tau            # Gibbs: temperature
    cdef readonly double unseen         # the mean an action not yet taken counts as

# final: its methods are called directly (no virtual table), so the C compiler can inline them
@cython.final
cdef class SearchCore:
    cdef Node** trees                   # one node array per tree: 1 (SO-ISMCTS) or one per player (MO)
    cdef int* sizes                     # per tree: nodes in use
    cdef int* caps                      # per tree: nodes allocated
    cdef int* cur                       # per tree: the node the current iteration has reached
    cdef char* lost                     # per tree: stopped following this iteration (node budget or memory)
    cdef int ntrees                     # 1, or the number of players (MO-ISMCTS)
    # Per tree, the child index: an open-addressing table of node numbers (-1: empty slot) holding
    # every child of each node with more than index_from children, found by (parent, action, mover,
    # chance). Selection then looks up the world's legal actions at such a node instead of walking
    # its sibling list (hundreds long where an opponent's hidden tile or cards vary between worlds).
    # index_cap[t] is a power of 2, 0 before the first entry, -1 once memory ran out (the tree is
    # then walked only).
    cdef int** index
    cdef int index_from                 # nodes with more children than this are indexed
    cdef int* index_cap
    cdef int* index_used
    cdef bint multi                     # MO-ISMCTS: select in the mover's tree
    cdef bint chance_keys               # key children by the observer's chance key (else 0)
    cdef int size, max_nodes            # nodes in all trees together, and the most allowed
    cdef GameState root                 # the position searched: read only through determinize
    cdef GameState fixed                # a fixed world (determinised UCT), or None
    cdef bint use_fixed                 # search `fixed` instead of a new determinisation each time
    cdef GameState world                # scratch: the world of the current iteration
    cdef GameState probe                # scratch: look-ahead for play-out policies
    cdef int player, nplayers           # the searching player, and the number of players
    cdef int* legal                     # scratch: the world's legal actions at the last listing
    cdef int nlegal                     # actions in `legal` at the last listing
    cdef int* kids                      # scratch: the children selection found legal at its last node,
    cdef int nkids                      # in sibling order, or in the legal actions' order at a node
                                        # in the child index (each a distinct legal action: at most nlegal)
    cdef int* mark                      # per action: stamp of the last listing it was legal in
    cdef int stamp                      # the current listing's stamp (negated: legal with a child)
    cdef int chance                     # the folded chance key of the node selection stopped at
    cdef int num_actions                # size of the game's action space
    cdef double c                       # UCB exploration constant
    cdef int selection                  # 0: availability-aware UCB; 1: least visited (flat MC)
    cdef Playout playout                # the play-out policy and leaf evaluation
    cdef int tree_depth                 # nodes are grown to this depth at most
    cdef double widen                   # progressive widening: a node of n visits grows a child only
    cdef double widen_power             # while it has fewer than widen * (n + 1) ** widen_power; 0: off
    cdef double* prior                  # progressive bias at the root (NULL: off): per action, its
    cdef double prior_weight            # prior in [0, 1]; the searcher's root children score
                                        # prior_weight * prior / (visits + 1) more, and are expanded
                                        # best prior first
    cdef float** mm                     # implicit minimax back-ups (NULL: off): per tree, per node,
                                        # nplayers floats: the leaf evaluation backed up max^n
    cdef double mm_weight               # selection's weight on it: (1 - w) * mean + w * minimax value
    cdef double* leaf_eval              # scratch (minimax or leaf_mix on, else NULL): per player, the
                                        # evaluation of the world where the tree steps ended
    cdef double leaf_mix                # each iteration's value: leaf_mix * leaf_eval + (1 - leaf_mix) *
                                        # the play-out's (0: the play-out's alone)
    cdef rng_t rng                      # every random choice of the search, play-outs included
    cdef bint slow                      # the game is written in Python: a step may take long, so the
                                        # deadline and a stop are checked at every play-out step too,
                                        # and its faults end the run
    cdef bint uniform                   # the play-out picks uniformly (Playout, RandomPlayout) in a game
                                        # that counts its actions: a step is its c_random_action, the
                                        # same draw as choose's
    cdef volatile int halt              # set from another thread by request_stop: the run ends
    cdef double deadline                # of the run under way (a time budget), else -1
    cdef object before                  # the root's snapshot (games written in Python), or None
    cdef readonly long iterations       # iterations run
    cdef readonly long worlds           # determinisations used
    # The tree's shape, counted per iteration (read by summary(); nothing in the search reads them):
    cdef readonly long expanded         # iterations that added a node
    cdef readonly long terminal         # play-outs that ended at the end of the game (not cut off)
    cdef readonly long depth_sum        # over iterations: tree steps taken (selection + expansion)
    cdef readonly int depth_max         # the most tree steps one iteration took
    cdef int path                       # tree steps of the current iteration
    cdef double* ret                    # scratch: per player, the return of the current iteration
    cdef double* heur                   # scratch: per player, the game's heuristic
    cdef double* lead0                  # per player, its lead in this iteration's world at the root
                                        # (a play-out with lead_weight; NULL otherwise)
    # MAST (only for a play-out with ``mast``; NULL otherwise): per player p and action a,
    # mast_table[2 * (p * num_actions + a)] sums p's returns over the iterations in which p took a,
    # and the next double counts them; the actions of the current iteration, tree and play-out,
    # with their movers, are on the trail until the back-up adds them.
    cdef double* mast_table
    cdef double* mast_weights           # scratch: per legal action, a Gibbs weight
    cdef int* trail                     # the current iteration's (action, mover) pairs, flat
    cdef int trail_len, trail_cap       # pairs on the trail, and room for
    # Points (only after keep_points(); NULL otherwise): per action a of the root's mover,
    # points[2 * a] sums that mover's score margin (own score less the others' mean) where the
    # play-outs of the iterations through the root's child a stopped, and the next double counts them.
    cdef double* points
    cdef float* feats                   # scratch: one seat's features (a play-out with a learned value)

    cdef int _grow(self, int t) noexcept nogil
    cdef int _add_child(self, int t, int parent, int action, int mover, int chance) noexcept nogil
    cdef int _child_for(self, int t, int parent, int action, int mover, int chance) noexcept nogil
    cdef bint _indexed(self, int t, int parent) noexcept nogil
    cdef int _index_find(self, int t, int parent, int action, int mover, int chance) noexcept nogil
    cdef void _index_add(self, int t, int child) noexcept nogil
    cdef void _index_put(self, int t, int child) noexcept nogil
    cdef int _observer(self, int t) noexcept nogil
    cdef int _chance(self, int t) noexcept nogil
    cdef void _new_world(self) noexcept nogil
    cdef void _descend(self, int ts, int child, int mover) noexcept nogil
    cdef int _select(self) noexcept nogil
    cdef void _expand(self, int untried) noexcept nogil
    cdef void _play_out(self) noexcept nogil
    cdef void _back_up(self) noexcept nogil
    cdef void _add_points(self) noexcept nogil
    cdef void _iterate(self) noexcept nogil
    cdef void _record(self, int action, int mover) noexcept nogil
    cdef void _mm_leaf(self) noexcept nogil
    cdef void _mm_update(self, int t, int parent, int child) noexcept nogil
    cdef Node* _own(self) except NULL           # the searching player's tree; ValueError if none
