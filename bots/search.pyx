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

Everything random comes from the core's own seeded generator: the same seed and iteration budget
give the same tree, bit for bit.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.math cimport log, sqrt
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
    ``tree_depth`` (None: unlimited); ``max_nodes`` (the tree stops growing there);
    ``fixed_world``: search this one full state instead of a fresh determinisation per iteration.
    """

    def __cinit__(self):
        self.nodes = NULL
        self.legal = NULL
        self.mark = NULL
        self.ret = NULL
        self.heur = NULL

    def __init__(self, GameState root, int player, seed, double c=0.7, selection="ucb", rollout="random",
                 rollout_depth=None, tree_depth=None, int max_nodes=10_000_000, GameState fixed_world=None):
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
        self.world = root.c_new_blank()
        self.probe = root.c_new_blank()
        self.player = player
        self.nplayers = root.c_num_players()
        self.num_actions = root.c_num_actions()
        self.c = c
        self.selection = SEL_UCB if selection == "ucb" else SEL_UNIFORM
        self.rollout = ROLL_RANDOM if rollout == "random" else ROLL_HEURISTIC
        self.rollout_depth = -1 if rollout_depth is None else int(rollout_depth)
        self.tree_depth = 1 << 30 if tree_depth is None else int(tree_depth)
        if self.rollout_depth < -1 or self.tree_depth < 1:
            raise ValueError("rollout_depth must be >= 0 and tree_depth >= 1")
        self.max_nodes = max_nodes
        self.rng = as_seed(seed)
        self.legal = <int*>malloc(max(root.c_max_actions(), 1) * sizeof(int))
        self.mark = <int*>malloc(max(self.num_actions, 1) * sizeof(int))
        self.ret = <double*>malloc(self.nplayers * sizeof(double))
        self.heur = <double*>malloc(self.nplayers * sizeof(double))
        self.cap = 1024
        self.nodes = <Node*>malloc(self.cap * sizeof(Node))
        if not (self.legal and self.mark and self.ret and self.heur and self.nodes):
            raise MemoryError()
        for i in range(self.num_actions):
            self.mark[i] = 0
        self.stamp = 0
        self.size = 1
        self.nodes[0].value = 0
        self.nodes[0].parent = -1
        self.nodes[0].action = -1
        self.nodes[0].first_child = -1
        self.nodes[0].next_sibling = -1
        self.nodes[0].visits = 0
        self.nodes[0].avail = 0
        self.nodes[0].mover = -1

    def __dealloc__(self):
        free(self.nodes)
        free(self.legal)
        free(self.mark)
        free(self.ret)
        free(self.heur)

    cdef int _grow(self) noexcept nogil:
        cdef int cap = self.cap * 2
        cdef Node* p = <Node*>realloc(self.nodes, cap * sizeof(Node))
        if p == NULL:
            return -1
        self.nodes = p
        self.cap = cap
        return 0

    cdef int _add_child(self, int parent, int action, int mover) noexcept nogil:
        if self.size == self.cap and self._grow() != 0:
            return -1
        cdef int i = self.size
        cdef Node* n = &self.nodes[i]
        self.size += 1
        n.value = 0
        n.parent = parent
        n.action = action
        n.first_child = -1
        n.next_sibling = self.nodes[parent].first_child
        n.visits = 0
        n.avail = 1
        n.mover = mover
        self.nodes[parent].first_child = i
        return i

    cdef void _evaluate(self, double* out) noexcept nogil:
        """Rank-based returns at the end, or of the public heuristic at a cut-off."""
        cdef int i
        if self.world.c_is_terminal():
            self.world.c_returns(out)
        else:
            self.world.c_heuristic(self.heur)
            for i in range(self.nplayers):
                out[i] = rank_return(i, self.nplayers, self.heur)

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
        cdef int node = 0, depth = 0, n, i, a, ch, navail, untried, k, best, mover, steps
        cdef double u, bu, lg
        if self.use_fixed:
            self.world.c_copy_from(self.fixed)
        else:
            self.world.c_determinize_from(self.root, self.player, rng_next(&self.rng))
            self.worlds += 1
        # Selection and expansion.
        while not self.world.c_is_terminal() and depth < self.tree_depth:
            n = self.world.c_legal_actions(self.legal)
            self.stamp += 1
            for i in range(n):
                self.mark[self.legal[i]] = self.stamp
            nodes = self.nodes
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
                mover = self.world.c_current_player()
                ch = self._add_child(node, a, mover)
                if ch < 0:          # out of memory: stop growing, play out from here
                    self.max_nodes = self.size
                    break
                self.world.c_apply(a)
                node = ch
                depth += 1
                break
            if navail == 0:
                break
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
            self.world.c_apply(nodes[best].action)
            node = best
            depth += 1
        # Play-out.
        steps = 0
        while not self.world.c_is_terminal() and (self.rollout_depth < 0 or steps < self.rollout_depth):
            n = self.world.c_legal_actions(self.legal)
            self.world.c_apply(self._rollout_action(n))
            steps += 1
        self._evaluate(self.ret)
        # Back-up: each node keeps the value of the player who moved into it.
        nodes = self.nodes
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

    def root_stats(self):
        """[(action, visits, value_sum, avail)] for every child of the root, by action."""
        out = []
        ch = self.nodes[0].first_child
        while ch != -1:
            out.append((self.nodes[ch].action, self.nodes[ch].visits, self.nodes[ch].value, self.nodes[ch].avail))
            ch = self.nodes[ch].next_sibling
        return sorted(out)

    def principal_variation(self, int max_len=12):
        """Actions along the most-visited path from the root: the expected line of play."""
        line = []
        cdef int node = 0, ch, best, bv
        while len(line) < max_len:
            best, bv = -1, 0
            ch = self.nodes[node].first_child
            while ch != -1:
                if self.nodes[ch].visits > bv or (self.nodes[ch].visits == bv and best >= 0 and self.nodes[ch].action < self.nodes[best].action):
                    best, bv = ch, self.nodes[ch].visits
                ch = self.nodes[ch].next_sibling
            if best < 0:
                break
            line.append((self.nodes[best].action, int(self.nodes[best].mover)))
            node = best
        return line

    @property
    def node_count(self):
        return self.size

    @property
    def root_visits(self):
        return self.nodes[0].visits

    @property
    def bytes_per_node(self):
        return sizeof(Node)

    @property
    def memory_bytes(self):
        """Bytes held by the node array (capacity, not just the nodes in use)."""
        return self.cap * sizeof(Node)
