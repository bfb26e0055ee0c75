# The play-out policies of the search (included by search.pyx, so they stay classes of
# metro_ai.bots.search, declared in search.pxd): the play-out step and the evaluation where it
# stops, for the core's ``_play_out``.

def _playout_from_settings(cls, settings):
    """Unpickle a play-out: ``cls(**settings)``."""
    return cls(**settings)


cdef class Playout:
    """The play-out step and the evaluation where it stops: a policy, a cut-off and an evaluator.

    ``depth``: actions played out before evaluating (None or -1: to the end of the game);
    ``cutoff_scale``: how a cut-off is scored from the game's heuristic h: 0 ranks the players by
    h (the rank-based return of the end of a game); > 0 gives each player the mean over opponents
    of logistic((h_self - h_opponent) / cutoff_scale), a soft rank. ``end_scale``: how the end of
    a game is scored: 0 by the game's returns; > 0 by the same soft rank of the final scores
    (``c_scores``) at that scale, so a play-out won by a wide margin counts more than a narrow
    win (a score-margin reward, as in Pepels et al. 2014's quality-based rewards).

    The base class plays uniformly at random. A subclass (in Cython: ``cimport`` this class from
    ``metro_ai.bots.search``) overrides ``choose`` and may override ``evaluate``; both run without
    the GIL and must not create Python objects. A play-out holds settings only, since one object
    may serve several cores searching in parallel: scratch space and the random generator are the
    core's (``core.world``, ``core.probe``, ``core.legal``, ``core.heur``, ``core.rng``). A
    subclass whose constructor takes other arguments overrides ``settings``.
    """

    def __init__(self, depth=None, cutoff_scale=0.0, end_scale=0.0):
        if depth is None:
            depth = -1
        if isinstance(depth, bool) or not isinstance(depth, int) or not -1 <= depth < (1 << 31):
            raise ValueError(f"play-out depth must be None or -1 (to the end) or an int >= 0, got {depth!r}")
        if isinstance(cutoff_scale, bool) or not isinstance(cutoff_scale, (int, float)) or not cutoff_scale >= 0:
            raise ValueError(f"cutoff_scale must be a number >= 0, got {cutoff_scale!r}")
        if isinstance(end_scale, bool) or not isinstance(end_scale, (int, float)) or not 0 <= end_scale < float("inf"):
            raise ValueError(f"end_scale must be a finite number >= 0, got {end_scale!r}")
        self.depth = depth
        self.cutoff_scale = cutoff_scale
        self.end_scale = end_scale
        self.mast = False

    cdef int choose(self, SearchCore core, int n) noexcept nogil:
        """The action to play in ``core.world``, whose ``n`` legal actions are ``core.legal[:n]``
        (n >= 1). Uniform here; subclasses choose otherwise."""
        return core.legal[rng_bounded(&core.rng, n)]

    cdef void evaluate(self, SearchCore core, double* out) noexcept nogil:
        """Each player's return in [0, 1] into ``out``, for ``core.world`` where the play-out
        stopped: at the end the game's returns (or, with ``end_scale``, the soft rank of the
        final scores), at a cut-off the rank (hard or soft) by its heuristic."""
        cdef int i, j, np = core.nplayers
        cdef double v, scale = self.cutoff_scale
        if core.world.c_is_terminal():
            if self.end_scale == 0 or np < 2:
                core.world.c_returns(out)
                return
            core.world.c_scores(core.heur)
            scale = self.end_scale
        else:
            core.world.c_heuristic(core.heur)
        for i in range(np):
            if scale == 0:
                out[i] = rank_return(i, np, core.heur)
            else:
                v = 0
                for j in range(np):
                    if j != i:
                        v += 1.0 / (1.0 + exp((core.heur[j] - core.heur[i]) / scale))
                out[i] = v / (np - 1)

    def settings(self):
        """The constructor's keyword arguments that make an equal play-out."""
        return {"depth": None if self.depth < 0 else self.depth, "cutoff_scale": self.cutoff_scale,
                "end_scale": self.end_scale}

    def replace(self, **changes):
        """A play-out of the same kind with some settings changed, e.g. ``p.replace(depth=5)``."""
        unknown = sorted(set(changes) - set(self.settings()))
        if unknown:
            raise ValueError(f"{type(self).__name__} has no setting {unknown[0]!r}; settings are "
                             f"{', '.join(sorted(self.settings()))}")
        return type(self)(**{**self.settings(), **changes})

    def __reduce__(self):
        return _playout_from_settings, (type(self), self.settings())

    def __eq__(self, other):
        return type(other) is type(self) and other.settings() == self.settings()

    def __hash__(self):
        return hash((type(self), tuple(sorted(self.settings().items()))))

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in self.settings().items()) + ")"


cdef class RandomPlayout(Playout):
    """Uniformly random play-outs (the ``rollout="random"`` of the bots), with the cut-off and
    evaluation of `Playout`."""


cdef class HeuristicPlayout(Playout):
    """A light policy (the ``rollout="heuristic"`` of the bots): of ``samples`` random legal
    actions, the best for the mover by the game's heuristic one ply ahead (own value minus the
    best opponent's). Cut-off and evaluation as `Playout`."""

    def __init__(self, depth=None, cutoff_scale=0.0, samples=3, end_scale=0.0):
        super().__init__(depth, cutoff_scale, end_scale)
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 1000:
            raise ValueError(f"samples must be an int in [1, 1000], got {samples!r}")
        self.samples = samples

    cdef int choose(self, SearchCore core, int n) noexcept nogil:
        """One random action, then the best by the heuristic of ``samples`` more random ones
        (the first is kept only when there is a single legal action)."""
        cdef int k, i, a, best = core.legal[rng_bounded(&core.rng, n)]
        cdef int p = core.world.c_current_player()
        cdef double v, top, bestv = -1e300
        if n == 1:
            return best
        for k in range(self.samples):
            a = core.legal[rng_bounded(&core.rng, n)]
            core.probe.c_copy_from(core.world)
            core.probe.c_apply(a)
            core.probe.c_heuristic(core.heur)
            top = -1e300
            for i in range(core.nplayers):
                if i != p and core.heur[i] > top:
                    top = core.heur[i]
            v = core.heur[p] - top
            if v > bestv:
                bestv = v
                best = a
        return best

    def settings(self):
        """The constructor's keyword arguments that make an equal play-out."""
        return {**Playout.settings(self), "samples": self.samples}


cdef enum:
    MAST_EPSILON = 0
    MAST_GIBBS = 1


cdef class MastPlayout(Playout):
    """MAST, the Move-Average Sampling Technique (Finnsson & Björnsson 2008; for ISMCTS, Powley,
    Whitehouse & Cowling 2014) (the ``rollout="mast"`` of the bots): the core keeps, per player
    and action id, the mean return of that player over every iteration in which they took that
    action (in the tree or in the play-out), and the play-out prefers the actions with the best
    means. ``policy`` "epsilon": with probability ``epsilon`` a uniformly random legal action,
    else the best mean (ties broken at random); "gibbs": softmax sampling, weight exp(mean / tau).
    An action not yet taken by the mover counts as ``unseen`` (1.0: optimistic, each tried early).
    No state is copied. Cut-off and evaluation as `Playout`."""

    def __init__(self, depth=None, cutoff_scale=0.0, policy="epsilon", epsilon=0.2, tau=0.1, unseen=1.0,
                 end_scale=0.0):
        super().__init__(depth, cutoff_scale, end_scale)
        if policy not in ("epsilon", "gibbs"):
            raise ValueError(f"MAST policy must be 'epsilon' or 'gibbs', got {policy!r}")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
            raise ValueError(f"MAST epsilon must be a number in [0, 1], got {epsilon!r}")
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0.001 <= tau <= 1000:
            raise ValueError(f"MAST tau (the softmax temperature) must be a number in [0.001, 1000], got {tau!r}")
        if isinstance(unseen, bool) or not isinstance(unseen, (int, float)) or not 0 <= unseen <= 1:
            raise ValueError(f"MAST unseen (the value of an action not yet taken) must be a number in [0, 1], "
                             f"got {unseen!r}")
        self.policy = MAST_EPSILON if policy == "epsilon" else MAST_GIBBS
        self.epsilon = epsilon
        self.tau = tau
        self.unseen = unseen
        self.mast = True

    cdef int choose(self, SearchCore core, int n) noexcept nogil:
        cdef int i, a, best, ties
        cdef int p = core.world.c_current_player()
        cdef double* row = core.mast_table + 2 * <Py_ssize_t>p * core.num_actions
        cdef double q, bq, total, r
        if n == 1:
            return core.legal[0]
        if self.policy == MAST_EPSILON:
            if self.epsilon > 0 and rng_uniform(&core.rng) < self.epsilon:
                return core.legal[rng_bounded(&core.rng, n)]
            best = core.legal[0]
            bq = -1.0
            ties = 0
            for i in range(n):
                a = core.legal[i]
                q = row[2 * a] / row[2 * a + 1] if row[2 * a + 1] > 0 else self.unseen
                if q > bq:
                    bq = q
                    best = a
                    ties = 1
                elif q == bq:
                    ties += 1
                    if rng_bounded(&core.rng, ties) == 0:
                        best = a
            return best
        # Gibbs: weights exp((q - 1) / tau) (q <= 1: no overflow), kept in core.mast_weights
        total = 0
        for i in range(n):
            a = core.legal[i]
            q = row[2 * a] / row[2 * a + 1] if row[2 * a + 1] > 0 else self.unseen
            core.mast_weights[i] = exp((q - 1.0) / self.tau)
            total += core.mast_weights[i]
        r = rng_uniform(&core.rng) * total
        for i in range(n - 1):
            r -= core.mast_weights[i]
            if r < 0:
                return core.legal[i]
        return core.legal[n - 1]

    def settings(self):
        """The constructor's keyword arguments that make an equal play-out."""
        return {**Playout.settings(self), "policy": "epsilon" if self.policy == MAST_EPSILON else "gibbs",
                "epsilon": self.epsilon, "tau": self.tau, "unseen": self.unseen}
