# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The search core shared by every tree-search bot: information-set MCTS in C.

One tree of nodes in a flat array that grows by doubling; every iteration runs without the GIL
and creates no Python object. Each iteration:

1. takes a world: a fresh ``determinize(player, seed)`` of the root (SO-ISMCTS), or a copy of a
   fixed world (determinised UCT, used by PIMC);
2. descends while every legal action of the world already has a child: among the children whose
   action is legal in this world, UCB1 with availability counts (value / visits +
   c * sqrt(ln(avail) / visits)), or least-visited first for flat Monte Carlo;
3. expands one untried legal action, chosen uniformly, if the depth limit allows;
4. plays out: uniform random or a light heuristic policy, to the end or to a cut-off where the
   game's public heuristic is turned into rank-based returns;
5. backs up each node's value for the player who moved into it (max^n for n players).

With ``multi_observer=True`` (MO-ISMCTS) there is one tree per player: the player to move selects
and expands in their own tree, while every other tree follows the move as that player observes
it (``c_observed_action``), so each player's decisions are made on what they could have seen.
When every move is public (the observed action is the action itself) all trees coincide and
MO-ISMCTS makes the same choices as SO-ISMCTS, at n times the memory.

Everything random comes from the core's own seeded generator: the same seed and iteration budget
give the same tree, bit for bit.
"""
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.math cimport exp, log, sqrt
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from metro_ai.engine.core cimport GameState, rank_return
from metro_ai.engine.rng cimport rng_t, rng_next, rng_bounded
from metro_ai.engine.core import as_seed

cdef enum:
    SEL_UCB = 0
    SEL_UNIFORM = 1
    ROLL_RANDOM = 0
    ROLL_HEURISTIC = 1
    HEURISTIC_SAMPLES = 3       # actions the light rollout policy compares per move
    TIME_CHECK_EVERY = 16       # iterations between clock reads under a time budget


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


NODE_BYTES = sizeof(Node)


cdef class SearchCore:
    """A search tree over `root` from `player`'s point of view. See the module docstring.

    Parameters: ``seed``; ``c`` exploration constant; ``selection`` "ucb" or "uniform";
    ``rollout`` "random" or "heuristic"; ``rollout_depth`` (None: play to the end);
    ``cutoff_scale``: at a cut-off each player's value is the mean over opponents of
    logistic((h_self - h_opponent) / cutoff_scale) on the game's heuristic h, a soft version of
    the rank-based return (0, the default, is the hard rank itself);
    ``tree_depth`` (None: unlimited); ``max_nodes`` (the tree stops growing there);
    ``fixed_world``: search this one full state instead of a fresh determinisation per iteration;
    ``multi_observer``: one tree per player (MO-ISMCTS).
    """

    def __cinit__(self):
        self.trees = NULL
        self.sizes = NULL
        self.caps = NULL
        self.cur = NULL
        self.ntrees = 0
        self.legal = NULL
        self.mark = NULL
        self.ret = NULL
        self.heur = NULL

    def __init__(self, GameState root, int player, seed, double c=0.7, selection="ucb", rollout="random",
                 rollout_depth=None, tree_depth=None, int max_nodes=10_000_000, GameState fixed_world=None,
                 bint multi_observer=False, double cutoff_scale=0.0):
        if root.c_is_terminal():
            raise ValueError("cannot search a finished game")
        if not 0 <= player < root.c_num_players():
            raise ValueError(f"player {player} out of range")
        if selection not in ("ucb", "uniform"):
            raise ValueError(f"selection must be 'ucb' or 'uniform', got {selection!r}")
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"rollout must be 'random' or 'heuristic', got {rollout!r}")
        if not c >= 0:
            raise ValueError(f"exploration constant c must be >= 0, got {c!r}")
        if max_nodes < 1:
            raise ValueError("max_nodes must be >= 1")
        self.root = root
        self.fixed = fixed_world
        self.use_fixed = fixed_world is not None
        self.worlds = 1 if self.use_fixed else 0      # determinisations this search has used
        self.world = root.c_new_blank()
        self.probe = root.c_new_blank()
        self.player = player
        self.nplayers = root.c_num_players()
        self.num_actions = root.c_num_actions()
        self.c = c
        self.selection = SEL_UCB if selection == "ucb" else SEL_UNIFORM
        self.rollout = ROLL_RANDOM if rollout == "random" else ROLL_HEURISTIC
        self.rollout_depth = -1 if rollout_depth is None else int(rollout_depth)
        if not cutoff_scale >= 0:
            raise ValueError(f"cutoff_scale must be >= 0, got {cutoff_scale!r}")
        self.cutoff_scale = cutoff_scale
        self.tree_depth = 1 << 30 if tree_depth is None else int(tree_depth)
        if self.rollout_depth < -1 or self.tree_depth < 1:
            raise ValueError("rollout_depth must be >= 0 and tree_depth >= 1")
        self.max_nodes = max_nodes
        self.rng = as_seed(seed)
        self.legal = <int*>malloc(max(root.c_max_actions(), 1) * sizeof(int))
        self.mark = <int*>malloc(max(self.num_actions, 1) * sizeof(int))
        self.ret = <double*>malloc(self.nplayers * sizeof(double))
        self.heur = <double*>malloc(self.nplayers * sizeof(double))
        self.multi = multi_observer
        self.ntrees = self.nplayers if multi_observer else 1
        self.trees = <Node**>calloc(self.ntrees, sizeof(Node*))
        self.sizes = <int*>calloc(self.ntrees, sizeof(int))
        self.caps = <int*>calloc(self.ntrees, sizeof(int))
        self.cur = <int*>calloc(self.ntrees, sizeof(int))
        if not (self.legal and self.mark and self.ret and self.heur and self.trees and self.sizes and self.caps and self.cur):
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
            root_node.mover = -1
        self.size = self.ntrees
        for i in range(self.num_actions):
            self.mark[i] = 0
        self.stamp = 0

    def __dealloc__(self):
        if self.trees != NULL:
            for t in range(self.ntrees):
                free(self.trees[t])
        free(self.trees)
        free(self.sizes)
        free(self.caps)
        free(self.cur)
        free(self.legal)
        free(self.mark)
        free(self.ret)
        free(self.heur)

    cdef int _grow(self, int t) noexcept nogil:
        cdef int cap = self.caps[t] * 2
        cdef Node* p = <Node*>realloc(self.trees[t], cap * sizeof(Node))
        if p == NULL:
            return -1
        self.trees[t] = p
        self.caps[t] = cap
        return 0

    cdef int _add_child(self, int t, int parent, int action, int mover) noexcept nogil:
        """A new child of `parent` in tree t; -1 if memory ran out."""
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
        n.mover = mover
        nodes[parent].first_child = i
        return i

    cdef int _child_for(self, int t, int parent, int action, int mover) noexcept nogil:
        """The child of `parent` in tree t reached by `action` (as that tree's player saw it),
        made if new; -1 if memory ran out."""
        cdef Node* nodes = self.trees[t]
        cdef int ch = nodes[parent].first_child
        while ch != -1:
            if nodes[ch].action == action:
                nodes[ch].avail += 1
                return ch
            ch = nodes[ch].next_sibling
        return self._add_child(t, parent, action, mover)

    cdef void _evaluate(self, double* out) noexcept nogil:
        """Rank-based returns at the end, or of the public heuristic at a cut-off (hard or soft)."""
        cdef int i, j
        cdef double v
        if self.world.c_is_terminal():
            self.world.c_returns(out)
            return
        self.world.c_heuristic(self.heur)
        for i in range(self.nplayers):
            if self.cutoff_scale == 0:
                out[i] = rank_return(i, self.nplayers, self.heur)
            else:
                v = 0
                for j in range(self.nplayers):
                    if j != i:
                        v += 1.0 / (1.0 + exp((self.heur[j] - self.heur[i]) / self.cutoff_scale))
                out[i] = v / (self.nplayers - 1)

    cdef int _rollout_action(self, int n) noexcept nogil:
        """The light policy: of a few random legal actions, the best for the mover by the
        public heuristic (own value minus the best opponent's), one ply ahead."""
        cdef int k, i, a, best = self.legal[rng_bounded(&self.rng, n)]
        cdef int p = self.world.c_current_player()
        cdef double v, top, bestv = -1e300
        if self.rollout == ROLL_RANDOM or n == 1:
            return best
        for k in range(HEURISTIC_SAMPLES):
            a = self.legal[rng_bounded(&self.rng, n)]
            self.probe.c_copy_from(self.world)
            self.probe.c_apply(a)
            self.probe.c_heuristic(self.heur)
            top = -1e300
            for i in range(self.nplayers):
                if i != p and self.heur[i] > top:
                    top = self.heur[i]
            v = self.heur[p] - top
            if v > bestv:
                bestv = v
                best = a
        return best

    cdef void _iterate(self) noexcept nogil:
        cdef Node* nodes
        cdef int node, depth = 0, n, i, a, ch, navail, untried, k, best, mover, steps, t, ts
        cdef bint expanded = False
        cdef double u, bu
        if self.use_fixed:
            self.world.c_copy_from(self.fixed)
        else:
            self.world.c_determinize_from(self.root, self.player, rng_next(&self.rng))
            self.worlds += 1
        for t in range(self.ntrees):
            self.cur[t] = 0
        # Selection and expansion, in the tree of the player to move (the only tree in SO-ISMCTS).
        while not self.world.c_is_terminal() and depth < self.tree_depth:
            mover = self.world.c_current_player()
            ts = mover if self.multi else 0
            node = self.cur[ts]
            n = self.world.c_legal_actions(self.legal)
            self.stamp += 1
            for i in range(n):
                self.mark[self.legal[i]] = self.stamp
            nodes = self.trees[ts]
            navail = 0
            ch = nodes[node].first_child
            while ch != -1:
                if self.mark[nodes[ch].action] == self.stamp:
                    self.mark[nodes[ch].action] = -self.stamp     # legal, with a child
                    navail += 1
                ch = nodes[ch].next_sibling
            untried = n - navail
            if untried > 0 and self.size < self.max_nodes:
                k = <int>rng_bounded(&self.rng, untried)
                for i in range(n):
                    a = self.legal[i]
                    if self.mark[a] == self.stamp:
                        if k == 0:
                            break
                        k -= 1
                best = self._add_child(ts, node, a, mover)
                expanded = True
            elif navail == 0:
                break
            else:
                best = -1
                bu = -1e300
                ch = nodes[node].first_child
                while ch != -1:
                    if self.mark[nodes[ch].action] == -self.stamp:
                        nodes[ch].avail += 1
                        if self.selection == SEL_UCB:
                            u = nodes[ch].value / nodes[ch].visits + self.c * sqrt(log(<double>nodes[ch].avail) / nodes[ch].visits)
                        else:
                            u = -<double>nodes[ch].visits
                        if u > bu:
                            bu = u
                            best = ch
                    ch = nodes[ch].next_sibling
            if best < 0:              # out of memory: stop growing, play out from here
                self.max_nodes = self.size
                break
            a = self.trees[ts][best].action
            self.cur[ts] = best
            for t in range(self.ntrees):      # the other players' trees follow what they observe
                if t != ts:
                    ch = self._child_for(t, self.cur[t], self.world.c_observed_action(a, t), mover)
                    if ch < 0:
                        self.max_nodes = self.size
                        break
                    self.cur[t] = ch
            self.world.c_apply(a)
            depth += 1
            if expanded:
                break
        # Play-out.
        steps = 0
        while not self.world.c_is_terminal() and (self.rollout_depth < 0 or steps < self.rollout_depth):
            n = self.world.c_legal_actions(self.legal)
            self.world.c_apply(self._rollout_action(n))
            steps += 1
        self._evaluate(self.ret)
        # Back-up, in every tree: each node keeps the value of the player who moved into it.
        for t in range(self.ntrees):
            nodes = self.trees[t]
            node = self.cur[t]
            while node != 0:
                nodes[node].visits += 1
                nodes[node].value += self.ret[nodes[node].mover]
                node = nodes[node].parent
            nodes[0].visits += 1
        self.iterations += 1

    def run(self, iterations=None, seconds=None):
        """Search until `iterations` more iterations or `seconds` elapse (whichever first; at
        least one must be given). Releases the GIL. Returns the iterations done in this call."""
        if iterations is None and seconds is None:
            raise ValueError("give iterations, seconds or both")
        cdef long todo = -1 if iterations is None else int(iterations)
        cdef double limit = -1.0 if seconds is None else float(seconds)
        cdef long done = 0
        cdef double deadline
        with nogil:
            deadline = _now() + limit
            while todo < 0 or done < todo:
                self._iterate()
                done += 1
                if limit >= 0 and done % TIME_CHECK_EVERY == 0 and _now() >= deadline:
                    break
        return done

    cdef Node* _own(self):
        return self.trees[self.player if self.multi else 0]

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

    @property
    def memory_bytes(self):
        """Bytes held by the node arrays (capacity, not just the nodes in use)."""
        return sum(self.caps[t] for t in range(self.ntrees)) * sizeof(Node)
