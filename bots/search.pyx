# cython: language_level=3
# Why one file of about 1,000 lines: the core is one final class whose methods the C compiler
# inlines into the iteration, and the play-outs and learned value it calls in its innermost loop
# are read with it; split across modules they would be calls through other modules' tables.
"""The search core shared by every tree-search bot: information-set MCTS in C.

One tree of nodes in a flat array that grows by doubling; every iteration runs without the GIL
and creates no Python object. An iteration takes a world, then runs the four steps of MCTS, each
a method of `SearchCore`:

0. a world (``_new_world``): a fresh ``determinize(player, seed)`` of the root (SO-ISMCTS), or a
   copy of a fixed world (determinised UCT, used by PIMC);
1. selection (``_select``): descend while every legal action of the world already has a child:
   among the children taken by the world's player to move, under the chance key the tree's
   observer sees in this world, whose action is legal in this world,
   UCB1 with availability counts (value / visits + c * sqrt(ln(avail) / visits)), plus, at the
   searcher's root with a prior (``set_prior``), progressive bias w * prior / (visits + 1)
   (Chaslot et al. 2008), with implicit minimax (``minimax`` = a > 0) the mean replaced by
   (1 - a) * mean + a * the child's minimax value, or least-visited first for flat Monte Carlo;
2. expansion (``_expand``): add one untried legal action, chosen uniformly (at the searcher's
   root, with a prior, the untried action of the best prior), if the depth limit
   and the node budget allow; its siblings legal in this world count one more availability, as
   at a selection step (Cowling, Powley & Whitehouse 2012 count availability for every
   compatible sibling of each node on the path);
3. play-out (``_play_out``): the `Playout` policy plays on, to the end or to its cut-off depth,
   and evaluates where it stopped (the returns at the end, the game's heuristic at a cut-off);
   with ``leaf_mix`` = l > 0 the iteration's return is l * the evaluation of the world where the
   tree steps ended (as a cut-off there scores it) + (1 - l) * the play-out's (the mixing of a
   value at the leaf with a roll-out's result of Silver et al. 2016);
4. back-up (``_back_up``): each node on the path adds the return of the player who moved into it
   (max^n for n players). With implicit minimax back-ups (Lanctot, Winands, Pepels & Sturtevant
   2014), each node also keeps a vector of per-player values: a new leaf's is the play-out's
   evaluation of its world before the play-out (the game's heuristic as a cut-off scores it, or
   the returns at the end), and each node on the path takes the vector of its best child by that
   child's mover, among the children of the group (mover, chance key) the path went through. In
   an information-set tree the group holds the children of every world seen there, so the max
   is over actions legal in some world, not necessarily in each: it credits the mover with the
   best action of any world (an opponent with the best of every hand it might hold). Taking
   only the children legal in the iteration's world instead measured no better (issue #26,
   benches/results/versus_minimax.md).

The play-out is an object, as OpenSpiel's ``Evaluator``: `RandomPlayout` (uniform) and
`HeuristicPlayout` (the best of a few random actions by the game's heuristic) are given here, and
a game may supply its own subclass from Cython, overriding ``choose`` and perhaps ``evaluate``.
Selection is a flag of the core, not an object: its two rules are the core's own (flat Monte
Carlo is the tree cut at depth 1), a game's knowledge enters through the play-out, and the rule
runs once per child in the innermost loop, where a call would cost.

With ``multi_observer=True`` (MO-ISMCTS) there is one tree per player: the player to move selects
and expands in their own tree, while every other tree follows the move as that player observes
it (``c_observed_action``), so each player's decisions are made on what they could have seen.
When every move is public (the observed action is the action itself) all trees coincide and
MO-ISMCTS makes the same choices as SO-ISMCTS, at n times the memory.

A child is keyed by (action, player who took it, chance key), not by the action alone (the chance
key with ``chance_keys=True`` only; off, it is 0 everywhere: it has measured weaker in play so
far, see docs/guide/bots.md): after the
same path of actions the player to move may differ between worlds (Metro 2033: chance and hidden
cards decide who acts next), and the players share action ids, so a key by action would mix one
player's statistics into another's. The chance key (the game's ``c_chance_key(observer)``, 16
bits of it) is what chance has shown the tree's observer where the action is taken (Leduc's
public card, Metro 2033's threats and draws): worlds the observer could tell apart do not share
a node. A node's children are thus grouped by (mover, chance key), each group a pass-through
outcome of chance as the observer sees it; selection, expansion and availability look only at
the group of the world's mover and key, while the node's own statistics cover every outcome.
The observer is the searching player in SO-ISMCTS (at opponents' nodes too: the tree is the
searcher's information sets, and keying by what an opponent alone saw would let the searcher's
later decisions depend on it) and each tree's own player in MO-ISMCTS (chance being the moves of
an environment player, each tree follows them as its player observes them).

``max_nodes`` bounds all trees together: a tree that cannot follow a move (the budget is reached,
or memory ran out) stops where it is for the rest of the iteration, and its back-up covers the
path it followed; when that tree's player is next to move, selection stops and the play-out
starts.

Everything random comes from the core's own seeded generator: the same seed and iteration budget
give the same tree, bit for bit.
"""
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.math cimport atan, exp, isnan, log, pow, sqrt, tanh, M_PI, NAN
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from metro_ai.engine.core cimport GameState, rank_return
from metro_ai.engine.rng cimport rng_t, rng_next, rng_bounded, rng_uniform
from metro_ai.engine.core import PEEK, as_seed, check_unchanged
from metro_ai.engine.python_game import PythonState

cdef enum:
    SEL_UCB = 0
    SEL_UNIFORM = 1
    CLOCK_EVERY_MAX = 1024      # the most iterations between clock reads under a time budget

# A node with more children than this has them in its tree's child index too (SearchCore.index):
# selection there looks up each legal action rather than walking the sibling list. Read when a
# core is made; `_set_index_from` changes it (tests: the same search, indexed or walked).
cdef int INDEX_FROM = 16


def _set_index_from(int children):
    """Index the children of nodes with more than `children` (>= 0) in cores made from now on;
    returns the value it had. For tests: the search is the same whatever it is."""
    global INDEX_FROM
    if children < 0:
        raise ValueError("children must be >= 0")
    old, INDEX_FROM = INDEX_FROM, children
    return old


cdef inline int _index_slot(int parent, int action, int mover, int chance, int mask) noexcept nogil:
    """The first slot of a child's key (parent, action, mover, chance) in an index of mask + 1 slots."""
    cdef uint64_t k = <uint64_t><unsigned int>parent * <uint64_t>0x9E3779B97F4A7C15ULL
    k ^= (<uint64_t><unsigned int>action | (<uint64_t>(<unsigned char>mover) << 32)
          | (<uint64_t>(<unsigned short>chance) << 40)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    k ^= k >> 29
    return <int>(k & <uint64_t>mask)


# log(n) for the availability counts of UCB, read from a table filled once at import (the same
# values the library's log gives, so every choice is as with log itself): one log per child per
# selection step was about a tenth of a Leduc search's time.
cdef enum:
    LOG_TABLE = 1 << 15
cdef double _LOGS[LOG_TABLE]
cdef int _i
_LOGS[0] = log(0.0)
for _i in range(1, LOG_TABLE):
    _LOGS[_i] = log(<double>_i)


cdef inline double _log_count(int n) noexcept nogil:
    """log(n) for a count n >= 0."""
    return _LOGS[n] if n < LOG_TABLE else log(<double>n)


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


NODE_BYTES = sizeof(Node)


include "playouts.pxi"


def _peek_parts(peek):
    """SearchCore's `peek` as PEEK bits (-1: all; None: honest)."""
    if peek is None:
        return None
    names = (peek,) if isinstance(peek, str) else tuple(peek)
    if "all" in names:
        return -1
    unknown = [n for n in names if n not in PEEK]
    if unknown or not names:
        raise ValueError(f"peek names hidden parts ({', '.join(sorted(PEEK))}) or 'all', got {peek!r}")
    return sum(PEEK[n] for n in set(names))


cdef class SearchCore:
    """A search tree over `root` from `player`'s point of view. See the module docstring.

    ``settings``: a `metro_ai.bots.settings.SearchSettings`, read whole (``c``, ``playout``,
    ``max_nodes``, ``widen``, ``widen_power``, ``minimax``, ``chance_keys``; the search options
    declared once in that module, each checked there), or None and the settings as keywords
    (``SearchCore(root, player, seed, c=1.0, rollout=HeuristicPlayout(depth=3))``: made into
    `SearchSettings`, so with the same checks; none given: the defaults, random play-outs to the
    end). What the bot's kind decides: ``selection`` "ucb" or "uniform"; ``tree_depth`` (None:
    unlimited); ``fixed_world``: search this one full state instead of a fresh determinisation
    per iteration; ``multi_observer``: one tree per player (MO-ISMCTS); ``peek``, for measurement
    only (what opponent modelling could give, issue #44; no bot option reaches it): None (honest
    worlds), "all" (search the root itself: every hand and the chance to come known) or hidden
    parts to deal as they are in the root (``metro_ai.engine.core.PEEK`` names: "decks",
    "hands", "choices"; the games that can keep them say so). ``max_nodes`` is at least
    one node more than the roots; the core checks only what keeps its memory safe.
    """

    def __cinit__(self):
        self.trees = NULL
        self.sizes = NULL
        self.caps = NULL
        self.cur = NULL
        self.lost = NULL
        self.ntrees = 0
        self.legal = NULL
        self.kids = NULL
        self.mark = NULL
        self.ret = NULL
        self.heur = NULL
        self.lead0 = NULL
        self.mast_table = NULL
        self.mast_weights = NULL
        self.trail = NULL
        self.prior = NULL
        self.mm = NULL
        self.leaf_eval = NULL
        self.points = NULL
        self.feats = NULL

    def __init__(self, GameState root, int player, seed, settings=None, *, selection="ucb", tree_depth=None,
                 GameState fixed_world=None, bint multi_observer=False, peek=None, **options):
        from metro_ai.bots.settings import SearchSettings
        if settings is None:
            settings = SearchSettings(**options)
        elif options:
            raise TypeError(f"SearchCore takes settings or the settings as keywords, not both (got {', '.join(options)})")
        elif not isinstance(settings, SearchSettings):
            raise TypeError(f"settings must be a SearchSettings, got {type(settings).__name__}")
        if root.c_is_terminal():      # (the mover as last read: a Python game's is read once per step)
            root._raise_failure()     # a fault of a Python game's code, if that is why
            raise ValueError("cannot search a finished game")
        root._raise_failure()
        if not 0 <= player < root.c_num_players():
            raise ValueError(f"player {player} out of range")
        if selection not in ("ucb", "uniform"):
            raise ValueError(f"selection must be 'ucb' or 'uniform', got {selection!r}")
        self.widen = settings.widen
        self.widen_power = settings.widen_power
        self.root = root
        if fixed_world is not None and (type(fixed_world) is not type(root)
                                        or fixed_world.game.options != root.game.options):
            raise ValueError(f"fixed_world must be a state of the root's game ({type(root).__name__}, "
                             f"{root.game.options}), got {type(fixed_world).__name__} of {fixed_world.game!r}")
        parts = _peek_parts(peek)
        if parts is not None and fixed_world is not None:
            raise ValueError("peek and fixed_world exclude each other")
        if parts == -1:
            fixed_world = root.clone()
        self.fixed = fixed_world
        self.use_fixed = fixed_world is not None
        self.slow = isinstance(root, PythonState)
        self.before = root._snapshot()
        self.halt = 0
        self.deadline = -1.0
        self.worlds = 1 if self.use_fixed else 0      # determinisations this search has used
        self.world = root.c_new_blank()
        if parts is not None and parts > 0:
            self.world.c_set_peek(parts)
        if settings.opponents == "model":
            self.world.c_set_model(True)
        self.probe = root.c_new_blank()
        self.player = player
        self.nplayers = root.c_num_players()
        self.num_actions = root.c_num_actions()
        self.c = settings.c
        self.selection = SEL_UCB if selection == "ucb" else SEL_UNIFORM
        self.playout = settings.playout
        self.uniform = ((type(self.playout) is Playout or type(self.playout) is RandomPlayout)
                        and root.c_counts_actions())
        if self.playout.lead_weight > 0:
            self.lead0 = <double*>malloc(self.nplayers * sizeof(double))
            if self.lead0 == NULL:
                raise MemoryError()
        if self.playout.learned is not None:
            self.playout.learned.check_game(root.game)
            self.feats = <float*>malloc(self.playout.learned.size * sizeof(float))
            if self.feats == NULL:
                raise MemoryError()
        self.tree_depth = 1 << 30 if tree_depth is None else int(tree_depth)
        if self.tree_depth < 1:
            raise ValueError("tree_depth must be >= 1")
        self.rng = as_seed(seed)
        self.legal = <int*>malloc(max(root.c_max_actions(), 1) * sizeof(int))
        self.nlegal = 0
        self.kids = <int*>malloc(max(root.c_max_actions(), 1) * sizeof(int))
        self.nkids = 0
        self.mark = <int*>malloc(max(self.num_actions, 1) * sizeof(int))
        self.ret = <double*>malloc(self.nplayers * sizeof(double))
        self.heur = <double*>malloc(self.nplayers * sizeof(double))
        self.multi = multi_observer
        self.chance_keys = settings.chance_keys
        self.ntrees = self.nplayers if multi_observer else 1
        # The roots count among the nodes: leave room for at least one child, or the search
        # would learn nothing (MO-ISMCTS has a root per player).
        self.max_nodes = max(settings.max_nodes, self.ntrees + 1)
        self.trees = <Node**>calloc(self.ntrees, sizeof(Node*))
        self.sizes = <int*>calloc(self.ntrees, sizeof(int))
        self.caps = <int*>calloc(self.ntrees, sizeof(int))
        self.cur = <int*>calloc(self.ntrees, sizeof(int))
        self.lost = <char*>calloc(self.ntrees, sizeof(char))
        self.index_from = INDEX_FROM
        self.index = <int**>calloc(self.ntrees, sizeof(int*))
        self.index_cap = <int*>calloc(self.ntrees, sizeof(int))
        self.index_used = <int*>calloc(self.ntrees, sizeof(int))
        if not (self.legal and self.kids and self.mark and self.ret and self.heur and self.trees and self.sizes and self.caps
                and self.cur and self.lost and self.index and self.index_cap and self.index_used):
            raise MemoryError()
        for t in range(self.ntrees):
            self.caps[t] = 1024
            self.trees[t] = <Node*>malloc(self.caps[t] * sizeof(Node))
            if self.trees[t] == NULL:
                raise MemoryError()
            self.sizes[t] = 1
            root_node = &self.trees[t][0]
            root_node.value = 0
            root_node.parent = -1
            root_node.action = -1
            root_node.first_child = -1
            root_node.next_sibling = -1
            root_node.visits = 0
            root_node.avail = 0
            root_node.nchildren = 0
            root_node.mover = -1
            root_node.chance = 0
        self.size = self.ntrees
        for i in range(self.num_actions):
            self.mark[i] = 0
        self.stamp = 0
        if self.playout.mast:
            self.mast_table = <double*>calloc(2 * <size_t>self.nplayers * max(self.num_actions, 1), sizeof(double))
            self.mast_weights = <double*>malloc(max(root.c_max_actions(), 1) * sizeof(double))
            self.trail_cap = 256
            self.trail = <int*>malloc(2 * self.trail_cap * sizeof(int))
            if not (self.mast_table and self.mast_weights and self.trail):
                raise MemoryError()
        self.trail_len = 0
        self.mm_weight = settings.minimax
        self.leaf_mix = settings.leaf_mix
        if self.mm_weight > 0 or self.leaf_mix > 0:
            self.leaf_eval = <double*>malloc(self.nplayers * sizeof(double))
            if self.leaf_eval == NULL:
                raise MemoryError()
        if self.mm_weight > 0:
            self.mm = <float**>calloc(self.ntrees, sizeof(float*))
            if self.mm == NULL:
                raise MemoryError()
            for t in range(self.ntrees):
                self.mm[t] = <float*>malloc(<size_t>self.caps[t] * self.nplayers * sizeof(float))
                if self.mm[t] == NULL:
                    raise MemoryError()
                for i in range(self.nplayers):
                    self.mm[t][i] = NAN

    def __dealloc__(self):
        if self.trees != NULL:
            for t in range(self.ntrees):
                free(self.trees[t])
        free(self.trees)
        if self.index != NULL:
            for t in range(self.ntrees):
                free(self.index[t])
        free(self.index)
        free(self.index_cap)
        free(self.index_used)
        free(self.sizes)
        free(self.caps)
        free(self.cur)
        free(self.lost)
        free(self.legal)
        free(self.kids)
        free(self.mark)
        free(self.ret)
        free(self.heur)
        free(self.lead0)
        free(self.mast_table)
        free(self.mast_weights)
        free(self.trail)
        free(self.prior)
        if self.mm != NULL:
            for t in range(self.ntrees):
                free(self.mm[t])
        free(self.mm)
        free(self.leaf_eval)
        free(self.points)
        free(self.feats)

    # -- the tree --

    cdef int _grow(self, int t) noexcept nogil:
        """Double tree t's node array; -1 if memory ran out."""
        cdef int cap = self.caps[t] * 2
        cdef float* q
        if self.mm != NULL:           # (a larger minimax array beside an unchanged tree is harmless)
            q = <float*>realloc(self.mm[t], <size_t>cap * self.nplayers * sizeof(float))
            if q == NULL:
                return -1
            self.mm[t] = q
        cdef Node* p = <Node*>realloc(self.trees[t], cap * sizeof(Node))
        if p == NULL:
            return -1
        self.trees[t] = p
        self.caps[t] = cap
        return 0

    cdef int _add_child(self, int t, int parent, int action, int mover, int chance) noexcept nogil:
        """A new child of `parent` in tree t (`chance`: a folded key, see ``_chance``); -1 if
        memory ran out."""
        if self.sizes[t] == self.caps[t] and self._grow(t) != 0:
            return -1
        cdef Node* nodes = self.trees[t]
        cdef int i = self.sizes[t]
        cdef Node* n = &nodes[i]
        self.sizes[t] += 1
        self.size += 1
        n.value = 0
        n.parent = parent
        n.action = action
        n.first_child = -1
        n.next_sibling = nodes[parent].first_child
        n.visits = 0
        n.avail = 1
        n.nchildren = 0
        n.mover = mover
        n.chance = <unsigned short>chance
        nodes[parent].first_child = i
        nodes[parent].nchildren += 1
        cdef int k
        if nodes[parent].nchildren > self.index_from and self.index_cap[t] >= 0:
            if nodes[parent].nchildren > self.index_from + 1:
                self._index_put(t, i)
            else:                     # the parent is indexed from now on: all its children go in
                k = i
                while k != -1 and self.index_cap[t] >= 0:
                    self._index_put(t, k)
                    k = self.trees[t][k].next_sibling
        if self.mm != NULL:           # no minimax value until the node's first evaluation
            for k in range(self.nplayers):
                self.mm[t][<Py_ssize_t>i * self.nplayers + k] = NAN
        return i

    cdef int _child_for(self, int t, int parent, int action, int mover, int chance) noexcept nogil:
        """The child of `parent` in tree t reached when `mover` takes `action` (as that tree's
        player saw it) after chance showed that player `chance` (folded), made if new; -1 if it
        is new and the node budget is reached or memory ran out."""
        cdef Node* nodes = self.trees[t]
        cdef int ch
        if self._indexed(t, parent):
            ch = self._index_find(t, parent, action, mover, chance)
        else:
            ch = nodes[parent].first_child
            while ch != -1:
                if nodes[ch].action == action and nodes[ch].mover == mover and nodes[ch].chance == chance:
                    break
                ch = nodes[ch].next_sibling
        if ch != -1:
            nodes[ch].avail += 1
            return ch
        if self.size >= self.max_nodes:
            return -1
        return self._add_child(t, parent, action, mover, chance)

    cdef bint _indexed(self, int t, int parent) noexcept nogil:
        """Whether `parent`'s children in tree t are all in the child index."""
        return self.trees[t][parent].nchildren > self.index_from and self.index_cap[t] > 0

    cdef int _index_find(self, int t, int parent, int action, int mover, int chance) noexcept nogil:
        """The child of an indexed `parent` in tree t keyed (action, mover, chance), or -1."""
        cdef Node* nodes = self.trees[t]
        cdef int* slots = self.index[t]
        cdef int mask = self.index_cap[t] - 1
        cdef int j = _index_slot(parent, action, mover, chance, mask), ch
        while True:
            ch = slots[j]
            if ch == -1:
                return -1
            if (nodes[ch].parent == parent and nodes[ch].action == action and nodes[ch].mover == mover
                    and nodes[ch].chance == chance):
                return ch
            j = (j + 1) & mask

    cdef void _index_add(self, int t, int child) noexcept nogil:
        """Put `child` in tree t's index (its slots known to have room)."""
        cdef Node* n = &self.trees[t][child]
        cdef int* slots = self.index[t]
        cdef int mask = self.index_cap[t] - 1
        cdef int j = _index_slot(n.parent, n.action, n.mover, n.chance, mask)
        while slots[j] != -1:
            j = (j + 1) & mask
        slots[j] = child
        self.index_used[t] += 1

    cdef void _index_put(self, int t, int child) noexcept nogil:
        """Put `child` in tree t's index, doubling its slots to keep it at most half full; if
        memory runs out the index is dropped and tree t is walked from then on."""
        cdef int cap = self.index_cap[t], j, ch
        cdef int* old = self.index[t]
        cdef int* slots
        if 2 * (self.index_used[t] + 1) > cap:
            if cap > (1 << 29):
                slots = NULL
            else:
                slots = <int*>malloc(<size_t>(1024 if cap == 0 else 2 * cap) * sizeof(int))
            if slots == NULL:
                free(old)
                self.index[t] = NULL
                self.index_cap[t] = -1
                return
            self.index[t] = slots
            self.index_cap[t] = 1024 if cap == 0 else 2 * cap
            self.index_used[t] = 0
            for j in range(self.index_cap[t]):
                slots[j] = -1
            for j in range(cap):
                ch = old[j]
                if ch != -1:
                    self._index_add(t, ch)
            free(old)
        self._index_add(t, child)

    cdef int _observer(self, int t) noexcept nogil:
        """The player whose information sets tree t's nodes are: its own player (MO-ISMCTS), or
        the searching player (the single tree of SO-ISMCTS, opponents' nodes included)."""
        return t if self.multi else self.player

    cdef int _chance(self, int t) noexcept nogil:
        """The world's chance key for tree t's observer, folded to the 16 bits a node keeps."""
        cdef unsigned int k
        if not self.chance_keys:
            return 0
        k = <unsigned int>self.world.c_chance_key(self._observer(t))
        return <int>((k ^ (k >> 16)) & 0xFFFF)

    # -- one iteration: a world, then the four steps --

    cdef void _new_world(self) noexcept nogil:
        """The world of this iteration, with every tree back at its root."""
        cdef int t
        if self.use_fixed:
            self.world.c_copy_from(self.fixed)
        else:
            self.world.c_determinize_from(self.root, self.player, rng_next(&self.rng))
            self.worlds += 1
        if self.lead0 != NULL:
            self.world.c_heuristic(self.heur)
            _leads(self.nplayers, self.heur, self.lead0)
        for t in range(self.ntrees):
            self.cur[t] = 0
            self.lost[t] = 0
        self.trail_len = 0

    cdef void _descend(self, int ts, int child, int mover) noexcept nogil:
        """Move to `child` in tree ts (the mover's) and play its action in the world; every
        other tree that still follows this iteration follows the action, and the chance before
        it, as its player observes them, or stops where it is if it has no node for it and may
        not add one."""
        cdef int t, ch
        cdef int a = self.trees[ts][child].action
        self.cur[ts] = child
        for t in range(self.ntrees):
            if t != ts and not self.lost[t]:
                ch = self._child_for(t, self.cur[t], self.world.c_observed_action(a, t), mover, self._chance(t))
                if ch < 0:                    # budget reached or out of memory: this tree stops here
                    if self.size < self.max_nodes:
                        self.max_nodes = self.size        # out of memory: no tree grows any more
                    self.lost[t] = 1
                else:
                    self.cur[t] = ch
        if self.mast_table != NULL:
            self._record(a, mover)
        self.world.c_apply(a)
        self.path += 1

    cdef int _select(self) noexcept nogil:
        """Selection: descend, in the tree of the player to move, while every action legal in
        the world has a child taken by that player under the world's chance key, to the child
        with the best UCB value among those (availability counts; least visited first for flat
        Monte Carlo). Returns how many legal actions of the node reached have no child, if it
        may be expanded (the world's legal actions are then in ``legal[:nlegal]``, the untried
        ones marked with ``stamp``, the tried ones with ``-stamp`` and their children in
        ``kids[:nkids]``); 0 at the end of the game, at the depth limit, at the node budget,
        where no child is legal, or where the mover's tree stopped following (MO-ISMCTS)."""
        cdef Node* nodes
        cdef Node* kid
        cdef int depth = 0, node, n, i, ch, navail, nchild, untried, best, mover, ts, key
        cdef double u, bu, c
        cdef float v
        cdef float* mm
        cdef double* prior
        while not self.world.c_is_terminal() and depth < self.tree_depth:
            mover = self.world.c_current_player()
            ts = mover if self.multi else 0
            if self.lost[ts]:
                return 0
            node = self.cur[ts]
            n = self.world.c_legal_actions(self.legal)
            self.nlegal = n
            self.stamp += 1
            for i in range(n):
                self.mark[self.legal[i]] = self.stamp
            nodes = self.trees[ts]
            self.chance = key = self._chance(ts)
            navail = nchild = 0
            if self.widen == 0 and self._indexed(ts, node):
                # many children (of other worlds' actions too): look up the legal actions instead;
                # kids come in another order, which the choice below does not depend on
                for i in range(n):
                    if self.mark[self.legal[i]] != self.stamp:
                        continue                                        # (listed twice)
                    ch = self._index_find(ts, node, self.legal[i], mover, key)
                    if ch != -1:
                        self.mark[self.legal[i]] = -self.stamp         # legal, with a child
                        self.kids[navail] = ch
                        navail += 1
            else:
                ch = nodes[node].first_child
                while ch != -1:
                    if nodes[ch].mover == mover and nodes[ch].chance == key:
                        nchild += 1
                        if self.mark[nodes[ch].action] == self.stamp:
                            self.mark[nodes[ch].action] = -self.stamp     # legal, with a child
                            self.kids[navail] = ch
                            navail += 1
                    ch = nodes[ch].next_sibling
            self.nkids = navail
            untried = n - navail
            # progressive widening: a node grows only while it has few children for its visits
            # (where none of its children is legal in this world, it grows regardless)
            if untried > 0 and self.size < self.max_nodes and (
                    self.widen == 0 or navail == 0
                    or nchild < self.widen * pow(nodes[node].visits + 1.0, self.widen_power)):
                return untried
            if navail == 0:
                return 0
            best = -1
            bu = -1e300
            if self.selection == SEL_UCB:
                # the settings this node's choice reads, fetched once (not at every child)
                c = self.c
                mm = self.mm[ts] if self.mm != NULL else NULL
                prior = self.prior if node == 0 and mover == self.player else NULL
                for i in range(navail):
                    ch = self.kids[i]
                    kid = &nodes[ch]
                    kid.avail += 1
                    u = kid.value / kid.visits
                    if mm != NULL:
                        v = mm[<Py_ssize_t>ch * self.nplayers + mover]
                        if not isnan(v):
                            u = (1.0 - self.mm_weight) * u + self.mm_weight * v
                    u += c * sqrt(_log_count(kid.avail) / kid.visits)
                    if prior != NULL:
                        u += self.prior_weight * prior[kid.action] / (kid.visits + 1.0)
                    if u > bu or (u == bu and ch > best):     # a tie: the newest child
                        bu = u
                        best = ch
            else:
                for i in range(navail):
                    ch = self.kids[i]
                    nodes[ch].avail += 1
                    u = -<double>nodes[ch].visits
                    if u > bu or (u == bu and ch > best):
                        bu = u
                        best = ch
            if best < 0:              # (not reached: a legal child always scores above -1e300)
                self.max_nodes = self.size
                return 0
            self._descend(ts, best, mover)
            depth += 1
        return 0

    cdef void _expand(self, int untried) noexcept nogil:
        """Expansion: a child for one of the `untried` legal actions that selection stopped at,
        chosen uniformly, and a step into it. Its siblings legal in this world (the mover's
        children marked ``-stamp`` by selection, listed in ``kids``) were available too: one more
        availability each."""
        cdef int mover = self.world.c_current_player()
        cdef int ts = mover if self.multi else 0
        cdef int i, a = -1, child, b
        cdef Node* nodes
        cdef int k
        if self.prior != NULL and self.cur[ts] == 0 and mover == self.player:
            # ordered expansion: the untried action of the best prior (the first listed of a tie)
            for i in range(self.nlegal):
                b = self.legal[i]
                if self.mark[b] == self.stamp and (a < 0 or self.prior[b] > self.prior[a]):
                    a = b
        else:
            k = <int>rng_bounded(&self.rng, untried)
            for i in range(self.nlegal):
                a = self.legal[i]
                if self.mark[a] == self.stamp:
                    if k == 0:
                        break
                    k -= 1
        child = self._add_child(ts, self.cur[ts], a, mover, self.chance)
        if child < 0:                 # out of memory: stop growing, play out from here
            self.max_nodes = self.size
            return
        self.expanded += 1
        nodes = self.trees[ts]        # (the array may have moved)
        for i in range(self.nkids):
            nodes[self.kids[i]].avail += 1
        self._descend(ts, child, mover)

    cdef void _play_out(self) noexcept nogil:
        """Play-out: the play-out policy plays on to the end or its cut-off, then evaluates the
        world into ``ret``."""
        cdef int n, a, steps = 0, depth = self.playout.depth
        while not self.world.c_is_terminal() and (depth < 0 or steps < depth):
            if self.slow and (self.halt or (self.deadline >= 0 and _now() >= self.deadline)):
                break                 # a slow game: the deadline or a stop ends the play-out here
            if self.uniform:        # uniform: the game may draw it without listing every action
                a = self.world.c_random_action(&self.rng, self.legal)
            else:
                n = self.world.c_legal_actions(self.legal)
                a = self.playout.choose(self, n) if n > 0 else -1
            if a < 0:               # a dead end (never reached from a loadable state): stop here
                break
            if self.mast_table != NULL:
                self._record(a, self.world.c_current_player())
            self.world.c_apply(a)
            steps += 1
        if self.world.c_is_terminal():
            self.terminal += 1
        self.playout.evaluate(self, self.ret)

    cdef void _back_up(self) noexcept nogil:
        """Back-up, in every tree: each node on the path adds the return of the player who moved
        into it; the root counts the visit."""
        cdef Node* nodes
        cdef int t, node, i, k
        for t in range(self.ntrees):
            nodes = self.trees[t]
            node = self.cur[t]
            while node != 0:
                nodes[node].visits += 1
                nodes[node].value += self.ret[nodes[node].mover]
                if self.mm != NULL and nodes[node].parent != 0:
                    self._mm_update(t, nodes[node].parent, node)
                node = nodes[node].parent
            nodes[0].visits += 1
        if self.mast_table != NULL:           # MAST: every action of the iteration, with its mover's return
            for i in range(self.trail_len):
                k = 2 * (self.trail[2 * i + 1] * self.num_actions + self.trail[2 * i])
                self.mast_table[k] += self.ret[self.trail[2 * i + 1]]
                self.mast_table[k + 1] += 1

    cdef void _add_points(self) noexcept nogil:
        """Points: the score margin, where the play-out stopped, of the mover at the root, added
        to the root child this iteration went through in the searching player's tree (none when
        the iteration stayed at the root)."""
        cdef Node* nodes = self.trees[self.player if self.multi else 0]
        cdef int node = self.cur[self.player if self.multi else 0], i, mover
        cdef double others = 0
        if node == 0:
            return
        while nodes[node].parent != 0:
            node = nodes[node].parent
        mover = nodes[node].mover
        self.world.c_scores(self.heur)
        for i in range(self.nplayers):
            if i != mover:
                others += self.heur[i]
        if self.nplayers > 1:
            others /= self.nplayers - 1
        self.points[2 * nodes[node].action] += self.heur[mover] - others
        self.points[2 * nodes[node].action + 1] += 1

    cdef void _mm_leaf(self) noexcept nogil:
        """Implicit minimax: the leaf's evaluation (``leaf_eval``) becomes the minimax value of
        each tree's node reached that has none yet (the node just added, or one an observer tree
        added)."""
        cdef int t, k, node, np = self.nplayers
        cdef float* m
        for t in range(self.ntrees):
            node = self.cur[t]
            m = self.mm[t] + <Py_ssize_t>node * np
            if node != 0 and isnan(m[0]):
                for k in range(np):
                    m[k] = <float>self.leaf_eval[k]

    cdef void _mm_update(self, int t, int parent, int child) noexcept nogil:
        """Implicit minimax back-up of `parent` in tree t: the values of its best child by that
        child's mover, among its children of `child`'s group (mover and chance key) with a value."""
        cdef Node* nodes = self.trees[t]
        cdef int np = self.nplayers, mover = nodes[child].mover, ch = nodes[parent].first_child, best = -1, k
        cdef unsigned short key = nodes[child].chance
        cdef float* m = self.mm[t]
        cdef float v, bv = 0
        while ch != -1:
            if nodes[ch].mover == mover and nodes[ch].chance == key:
                v = m[<Py_ssize_t>ch * np + mover]
                if not isnan(v) and (best < 0 or v > bv):
                    best, bv = ch, v
            ch = nodes[ch].next_sibling
        if best >= 0:
            for k in range(np):
                m[<Py_ssize_t>parent * np + k] = m[<Py_ssize_t>best * np + k]

    cdef void _record(self, int action, int mover) noexcept nogil:
        """MAST: put (action, mover) on the trail of this iteration (the trail stops growing if
        memory runs out: the back-up then counts the actions it holds)."""
        cdef int* p
        if self.trail_len == self.trail_cap:
            p = <int*>realloc(self.trail, 4 * self.trail_cap * sizeof(int))
            if p == NULL:
                return
            self.trail = p
            self.trail_cap *= 2
        self.trail[2 * self.trail_len] = action
        self.trail[2 * self.trail_len + 1] = mover
        self.trail_len += 1

    cdef void _iterate(self) noexcept nogil:
        """One iteration: a world, then selection, expansion, play-out and back-up."""
        cdef int untried, k
        self._new_world()
        self.path = 0
        untried = self._select()
        if untried > 0:
            self._expand(untried)
        if self.leaf_eval != NULL:    # the world where the tree steps ended, as a cut-off here scores it
            self.playout.evaluate(self, self.leaf_eval)
            if self.mm != NULL:
                self._mm_leaf()
        self.depth_sum += self.path
        if self.path > self.depth_max:
            self.depth_max = self.path
        self._play_out()
        if self.leaf_mix > 0:
            for k in range(self.nplayers):
                self.ret[k] = self.leaf_mix * self.leaf_eval[k] + (1.0 - self.leaf_mix) * self.ret[k]
        self._back_up()
        if self.points != NULL:
            self._add_points()
        self.iterations += 1

    def set_prior(self, prior, double weight=1.0):
        """Progressive bias at the searcher's root: ``prior`` maps actions to numbers in [0, 1]
        (actions left out count 0); each root child of the searcher scores ``weight * prior /
        (visits + 1)`` more in selection, and untried root actions are expanded best prior
        first. None (or weight 0) turns it off. Set before searching."""
        self._own()
        if not weight >= 0 or weight == float("inf"):
            raise ValueError(f"prior weight must be a finite number >= 0, got {weight!r}")
        cdef double* p = NULL
        if prior is not None and weight != 0:
            p = <double*>calloc(max(self.num_actions, 1), sizeof(double))
            if p == NULL:
                raise MemoryError()
        try:
            for a, v in (dict(prior).items() if p != NULL else ()):
                if not 0 <= a < self.num_actions:
                    raise ValueError(f"prior: action {a!r} out of range 0..{self.num_actions - 1}")
                if not 0 <= v <= 1:
                    raise ValueError(f"prior: the value of action {a} must be in [0, 1], got {v!r}")
                p[a] = v
        except BaseException:
            free(p)                 # the prior set before stays as it was
            raise
        free(self.prior)
        self.prior = p
        self.prior_weight = weight

    def run(self, iterations=None, seconds=None):
        """Search until `iterations` more iterations or `seconds` elapse (whichever first; at
        least one must be given), or `request_stop`. Releases the GIL. Returns the iterations
        done in this call. The clock is read at most every CLOCK_EVERY_MAX iterations and at
        least every millisecond or so (every iteration where iterations are slow; every
        play-out step too for a game written in Python), so the deadline holds whatever an
        iteration costs. A fault of a Python game's code ends the run and is raised here
        (`PythonGameError`), as is a search that changed its root (see ``check_unchanged``)."""
        if iterations is None and seconds is None:
            raise ValueError("give iterations, seconds or both")
        self._own()                                   # ValueError if __init__ never ran
        cdef long todo = -1 if iterations is None else int(iterations)
        cdef double limit = -1.0 if seconds is None else float(seconds)
        cdef long done = 0, every = 1, since = 0
        cdef double now, last
        with nogil:
            last = _now()
            self.deadline = last + limit if limit >= 0 else -1.0
            while todo < 0 or done < todo:
                self._iterate()
                done += 1
                if self.halt:
                    break
                if self.slow and (self.world.c_failed() or self.probe.c_failed()):
                    break
                if limit >= 0:
                    since += 1
                    if since >= every:        # read the clock about once a millisecond
                        since = 0
                        now = _now()
                        if now >= self.deadline:
                            break
                        if now - last < 1e-3 and every < CLOCK_EVERY_MAX:
                            every *= 2
                        elif now - last > 2e-3 and every > 1:
                            every //= 2       # iterations got slower: read it more often again
                        last = now
            self.deadline = -1.0
        # A game written in Python (engine/python_game.pyx) leaves a fault of its own code in
        # the state it failed in, where the C loop cannot raise it; compiled games have none.
        self.world._raise_failure()
        self.probe._raise_failure()
        check_unchanged(self.root, self.before, "the search")
        return done

    def request_stop(self):
        """End the run under way (from another thread) after the iteration under way, or for a
        game written in Python after its play-out step; later runs end after one iteration."""
        self.halt = 1

    cdef Node* _own(self) except NULL:
        if self.trees == NULL or self.ntrees == 0:
            raise ValueError("this SearchCore was never initialised: make one with "
                             "SearchCore(root, player, seed, ...)")
        return self.trees[self.player if self.multi else 0]

    def keep_points(self):
        """From now on, keep each root action's mean score margin for the root's mover (its score
        less the mean of the others', read with ``c_scores`` where each play-out stops: the end
        of the game, or its cut-off), reported by ``summary()`` as ``"points"``. For reviews (the
        loss in points); nothing the search chooses reads it."""
        if self.points == NULL:
            self.points = <double*>calloc(2 * max(self.num_actions, 1), sizeof(double))
            if self.points == NULL:
                raise MemoryError()

    def root_points(self):
        """{action: (sum of margins, play-outs)} kept since ``keep_points()`` (None before)."""
        if self.points == NULL:
            return None
        return {a: (self.points[2 * a], int(self.points[2 * a + 1]))
                for a in range(self.num_actions) if self.points[2 * a + 1] > 0}

    def root_stats(self):
        """[(action, visits, value_sum, avail)] for every child of the root, by action."""
        cdef Node* nodes = self._own()
        out = []
        ch = nodes[0].first_child
        while ch != -1:
            out.append((nodes[ch].action, nodes[ch].visits, nodes[ch].value, nodes[ch].avail))
            ch = nodes[ch].next_sibling
        return sorted(out)

    def principal_variation(self, int max_len=12):
        """(action, player) along the most-visited path of the searching player's tree: the
        expected line of play (other players' moves as that player observes them)."""
        cdef Node* nodes = self._own()
        line = []
        cdef int node = 0, ch, best, bv
        while len(line) < max_len:
            best, bv = -1, 0
            ch = nodes[node].first_child
            while ch != -1:
                if nodes[ch].visits > bv or (nodes[ch].visits == bv and best >= 0 and nodes[ch].action < nodes[best].action):
                    best, bv = ch, nodes[ch].visits
                ch = nodes[ch].next_sibling
            if best < 0:
                break
            line.append((nodes[best].action, int(nodes[best].mover)))
            node = best
        return line

    def tree_nodes(self, tree=None):
        """Every node of one tree, for inspection and tests: [(node, parent, action, mover,
        visits, value_sum, avail, chance)] in creation order (node 0 is the root: parent, action and
        mover -1; chance: the observer's folded chance key where the action was taken). ``tree``: the player whose tree (MO-ISMCTS); None: the searching player's."""
        self._own()
        cdef int t = (self.player if tree is None else int(tree)) if self.multi else 0
        if self.multi and not 0 <= t < self.ntrees:
            raise ValueError(f"tree must be a player in [0, {self.ntrees}) or None, got {tree!r}")
        if not self.multi and tree is not None and tree != self.player:
            raise ValueError(f"a single-tree search has the tree of player {self.player} only, got {tree!r}")
        cdef Node* nodes = self.trees[t]
        return [(i, nodes[i].parent, nodes[i].action, int(nodes[i].mover), nodes[i].visits, nodes[i].value,
                 nodes[i].avail, nodes[i].chance) for i in range(self.sizes[t])]

    def child_index(self):
        """Per tree, the children its child index holds (0 while no node has more children than
        the index threshold; -1 where memory ran out and the tree is walked). For tests."""
        return [-1 if self.index_cap[t] < 0 else self.index_used[t] for t in range(self.ntrees)]

    def summary(self):
        """What a search driver needs from this core after (or between) runs, as plain data
        (picklable, for worker processes): ``{"stats": root_stats(), "line":
        principal_variation(), "iterations", "worlds", "nodes": node_count, "root_visits",
        "expanded", "terminal", "depth_sum", "depth_max"}``: the last four the tree's shape
        (iterations that added a node; play-outs that reached the end of the game rather than
        the play-out depth; tree steps, selection and expansion, summed over iterations and the
        most in one iteration).
        Merging the summaries of several cores and choosing from them is the bot's
        (``SearchBot._merge`` / ``_pick``)."""
        return {"stats": self.root_stats(), "line": self.principal_variation(), "iterations": self.iterations,
                "worlds": self.worlds, "nodes": self.node_count, "root_visits": self.root_visits,
                "expanded": self.expanded, "terminal": self.terminal, "depth_sum": self.depth_sum,
                "depth_max": self.depth_max, **({} if self.points == NULL else {"points": self.root_points()})}

    def mast_stats(self):
        """MAST's table, for a play-out that keeps one (else None): per player, {action: (sum of
        that player's returns, count)} over the actions that player took in some iteration."""
        if self.mast_table == NULL:
            return None
        out = []
        for p in range(self.nplayers):
            row = {}
            for a in range(self.num_actions):
                k = 2 * (p * self.num_actions + a)
                if self.mast_table[k + 1] > 0:
                    row[a] = (self.mast_table[k], int(self.mast_table[k + 1]))
            out.append(row)
        return out

    def last_iteration(self):
        """The last iteration as MAST saw it, for a play-out that keeps MAST tables (else None):
        ([(action, mover)] in the order played, tree then play-out; each player's return)."""
        if self.mast_table == NULL:
            return None
        return ([(self.trail[2 * i], self.trail[2 * i + 1]) for i in range(self.trail_len)],
                [self.ret[p] for p in range(self.nplayers)])

    @property
    def node_count(self):
        """Nodes in all trees together."""
        return self.size

    @property
    def root_visits(self):
        return self._own()[0].visits

    @property
    def bytes_per_node(self):
        return sizeof(Node)

    def minimax_values(self, tree=None):
        """Implicit minimax (``minimax`` > 0): per node of one tree (as ``tree_nodes``, in
        creation order) its per-player values, or None where it has none yet (the root; a node
        an observer tree added and has not yet ended an iteration at). None if minimax is off."""
        nodes = self.tree_nodes(tree)
        if self.mm == NULL:
            return None
        cdef int t = (self.player if tree is None else int(tree)) if self.multi else 0
        cdef int np = self.nplayers
        out = []
        for i in range(len(nodes)):
            row = [self.mm[t][i * np + k] for k in range(np)]
            out.append(None if row[0] != row[0] else row)
        return out

    @property
    def memory_bytes(self):
        """Bytes held by the node arrays (capacity, not just the nodes in use), with the
        implicit minimax values if kept, and the child indexes (at most 16 bytes a node)."""
        per = sizeof(Node) + (self.nplayers * sizeof(float) if self.mm != NULL else 0)
        return (sum(self.caps[t] for t in range(self.ntrees)) * per
                + sum(max(self.index_cap[t], 0) for t in range(self.ntrees)) * sizeof(int))
