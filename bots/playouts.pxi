# The play-out policies of the search (included by search.pyx, so they stay classes of
# metro_ai.bots.search, declared in search.pxd): the play-out step and the evaluation where it
# stops, for the core's ``_play_out``.

def _playout_from_settings(cls, settings):
    """Unpickle a play-out: ``cls(**settings)``."""
    return cls(**settings)

def _learned_from_data(data):
    """Unpickle a learned value: ``LearnedValue(data)``."""
    return LearnedValue(data)


cdef double _soft_rank(int i, int np, const double* h, double scale) noexcept nogil:
    """The soft rank of player i by the values h: the mean over the others of
    logistic((h_i - h_j) / scale) (0.5 alone)."""
    cdef int j
    cdef double v = 0
    if np < 2:
        return 0.5
    for j in range(np):
        if j != i:
            v += 1.0 / (1.0 + exp((h[j] - h[i]) / scale))
    return v / (np - 1)


cdef void _leads(int np, const double* h, double* out) noexcept nogil:
    """Each player's lead by the values h: h_i less the mean of the others' (h_0 itself alone).
    `out` may be `h`: each lead reads its own value and the sum."""
    cdef int i
    cdef double total = 0
    for i in range(np):
        total += h[i]
    for i in range(np):
        out[i] = h[i] - (total - h[i]) / (np - 1) if np > 1 else h[i]


cdef extern from *:
    """
    /* w . x in single precision for the learned evaluators (bots/playouts.pxi): two SSE
       registers of four lanes where the compiler targets SSE (every x86-64), four running sums
       elsewhere; the order of the sum is fixed either way, so a result is the same every run. */
    #if defined(__SSE__)
    #include <xmmintrin.h>
    static float metro_ai_dotf(const float* w, const float* x, int n) {
        __m128 a = _mm_setzero_ps(), b = _mm_setzero_ps();
        float lanes[4], tail = 0.0f;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            a = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(w + i), _mm_loadu_ps(x + i)));
            b = _mm_add_ps(b, _mm_mul_ps(_mm_loadu_ps(w + i + 4), _mm_loadu_ps(x + i + 4)));
        }
        for (; i < n; i++) tail += w[i] * x[i];
        _mm_storeu_ps(lanes, _mm_add_ps(a, b));
        return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + tail;
    }
    #else
    static float metro_ai_dotf(const float* w, const float* x, int n) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += w[i] * x[i]; s1 += w[i + 1] * x[i + 1]; s2 += w[i + 2] * x[i + 2]; s3 += w[i + 3] * x[i + 3];
        }
        for (; i < n; i++) s0 += w[i] * x[i];
        return (s0 + s1) + (s2 + s3);
    }
    #endif
    """
    float metro_ai_dotf(const float* w, const float* x, int n) noexcept nogil


cdef inline double _dot(const float* w, const float* x, int n) noexcept nogil:
    """w . x in single precision (see metro_ai_dotf above)."""
    return metro_ai_dotf(w, x, n)


cdef float* _floats(values, Py_ssize_t n) except NULL:
    """A malloc'ed single-precision copy of n numbers (the caller frees it)."""
    cdef float* out = <float*>malloc(max(n, 1) * sizeof(float))
    cdef Py_ssize_t i
    if out == NULL:
        raise MemoryError()
    for i in range(n):
        out[i] = values[i]
    return out


cdef double* _doubles(values, Py_ssize_t n) except NULL:
    """A malloc'ed copy of n numbers (the caller frees it)."""
    cdef double* out = <double*>malloc(max(n, 1) * sizeof(double))
    cdef Py_ssize_t i
    if out == NULL:
        raise MemoryError()
    for i in range(n):
        out[i] = values[i]
    return out


cdef class LearnedValue:
    """A learned evaluator as the search runs it (issue #44): made from an evaluator file's data
    (``metro-ai train``; checked by ``metro_ai.bots.evaluator.check_evaluator``), it gives a seat's
    expected return from its observation features, without the GIL (the weights over the
    features in single precision, as the features are): ``sigmoid(w . x + b)``,
    plus ``a * logit(h)`` where the model reads the hand-written evaluation h (the soft rank of
    the game's heuristic at the model's scale, clipped to [1e-4, 1 - 1e-4]), or ``sigmoid(w2 .
    tanh(w1 x + b1) + b2)`` with a hidden layer. Read only once made, so one object serves
    every core. Pickles as its data; equal when their data are."""

    def __cinit__(self):
        self.w = NULL
        self.b1 = NULL
        self.w2 = NULL

    def __init__(self, data):
        import hashlib
        import json
        from metro_ai.bots.evaluator import check_evaluator
        check_evaluator(data)
        model = data["model"]
        self.data = data
        self.key = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
        self.size = data["features"]["size"]
        if model["kind"] == "logistic":
            self.hidden = 0
            self.w = _floats(model["weights"], self.size)
            self.bias = model["bias"]
            hand = model.get("hand_written")
            self.on_hand_written = hand is not None
            if hand is not None:
                self.hand_weight = hand["weight"]
                self.hand_scale = hand["scale"]
        else:
            self.hidden = model["hidden"]
            self.w = _floats([v for row in model["w1"] for v in row], <Py_ssize_t>self.hidden * self.size)
            self.b1 = _doubles(model["b1"], self.hidden)
            self.w2 = _doubles(model["w2"], self.hidden)
            self.bias = model["b2"]
            self.on_hand_written = False

    def __dealloc__(self):
        free(self.w)
        free(self.b1)
        free(self.w2)

    cdef double value(self, const float* x, double hand) noexcept nogil:
        """The expected return of the seat whose features are x[:size] (and hand-written value
        `hand`, read where the model takes it)."""
        cdef double z = self.bias
        cdef int j
        if self.hidden == 0:
            z += _dot(self.w, x, self.size)
            if self.on_hand_written:
                hand = min(max(hand, 1e-4), 1 - 1e-4)
                z += self.hand_weight * log(hand / (1 - hand))
        else:
            for j in range(self.hidden):
                z += self.w2[j] * tanh(self.b1[j] + _dot(self.w + <Py_ssize_t>j * self.size, x, self.size))
        z = min(max(z, -60.0), 60.0)
        return 1.0 / (1.0 + exp(-z))

    @property
    def game(self):
        """The game's name it was trained on."""
        return self.data["game"]

    def check_game(self, game):
        """ValueError unless this evaluator reads `game` (a loaded game): the same game, options
        and features' size."""
        if game.name != self.data["game"]:
            raise ValueError(f"this evaluator is for {self.data['game']}, not {game.name}")
        ours, theirs = self.data["options"], dict(game.options)
        differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
        if differ:
            raise ValueError(f"this evaluator was trained on {game.name} with other options: "
                             + ", ".join(f"{k}={ours.get(k)!r} there, {theirs.get(k)!r} here" for k in differ))
        size = game.observation_features().size
        if size != self.size:
            raise ValueError(f"this evaluator reads {self.size} features; {game.name}'s are {size} here")

    def predict(self, GameState state, int player):
        """`player`'s expected return in `state` as the search computes it (the features by
        ``c_features``, the hand-written value from the heuristic)."""
        import numpy as np
        self.check_game(state.game)
        if not 0 <= player < state.c_num_players():
            raise ValueError(f"player {player} out of range")
        x = np.zeros(self.size, np.float32)
        cdef float[::1] view = x
        cdef double hand = 0.5
        cdef double[::1] h
        if state.c_features(player, &view[0], self.size) != 0:
            state._raise_failure(False)
            raise ValueError(f"{state.game.name}: the features of player {player} could not be computed")
        if self.on_hand_written:
            heur = np.zeros(state.c_num_players(), np.float64)
            h = heur
            state.c_heuristic(&h[0])
            state._raise_failure(False)
            hand = _soft_rank(player, state.c_num_players(), &h[0], self.hand_scale)
        return self.value(&view[0], hand)

    def __reduce__(self):
        return _learned_from_data, (self.data,)

    def __eq__(self, other):
        return type(other) is type(self) and (<LearnedValue>other).key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"LearnedValue({self.data['game']}, {'logistic' if self.hidden == 0 else f'{self.hidden} hidden'}, " \
               f"{self.key[:12]})"


cdef class Playout:
    """The play-out step and the evaluation where it stops: a policy, a cut-off and an evaluator.

    ``depth``: actions played out before evaluating (None or -1: to the end of the game);
    ``cutoff_scale``: how a cut-off is scored from the game's heuristic h: 0 ranks the players by
    h (the rank-based return of the end of a game); > 0 gives each player the mean over opponents
    of logistic((h_self - h_opponent) / cutoff_scale), a soft rank. ``end_scale``: how the end of
    a game is scored: 0 by the game's returns; > 0 by the same soft rank of the final scores
    (``c_scores``) at that scale, so a play-out won by a wide margin counts more than a narrow
    win (a score-margin reward, as in Pepels et al. 2014's quality-based rewards). ``learned``: a
    `LearnedValue` that scores a cut-off too (issue #44): each player's value there is
    ``eval_mix * learned + (1 - eval_mix) * hand-written`` (the hand-written alone for a player
    whose features cannot be computed); None: the hand-written alone. ``lead_weight`` w in [0, 1):
    each player's value v where a play-out stops (cut off or at the end) becomes ``(1 - w) * v +
    w * (1/2 + atan((lead - lead0) / s) / pi)``, its lead the game's heuristic less the others'
    mean there (in a one-player game the heuristic itself), lead0 its lead at the root of the iteration's world, s the ``cutoff_scale`` (1
    where 0): a utility for gaining on the position searched, steepest around it, so the search
    keeps telling moves apart where the win is all but decided and every value is near 0 or 1
    (a dynamic score utility, as in KataGo: Wu 2019). 0: off.

    The base class plays uniformly at random. A subclass (in Cython: ``cimport`` this class from
    ``metro_ai.bots.search``) overrides ``choose`` and may override ``evaluate``; both run without
    the GIL and must not create Python objects. A play-out holds settings only, since one object
    may serve several cores searching in parallel: scratch space and the random generator are the
    core's (``core.world``, ``core.probe``, ``core.legal``, ``core.heur``, ``core.rng``). A
    subclass whose constructor takes other arguments overrides ``settings``.
    """

    def __init__(self, depth=None, cutoff_scale=0.0, end_scale=0.0, learned=None, eval_mix=1.0, lead_weight=0.0):
        if learned is not None and not isinstance(learned, LearnedValue):
            raise ValueError(f"learned must be None or a LearnedValue, got {type(learned).__name__}")
        if isinstance(eval_mix, bool) or not isinstance(eval_mix, (int, float)) or not 0 <= eval_mix <= 1:
            raise ValueError(f"eval_mix must be a number in [0, 1], got {eval_mix!r}")
        if depth is None:
            depth = -1
        if isinstance(depth, bool) or not isinstance(depth, int) or not -1 <= depth < (1 << 31):
            raise ValueError(f"play-out depth must be None or -1 (to the end) or an int >= 0, got {depth!r}")
        if isinstance(cutoff_scale, bool) or not isinstance(cutoff_scale, (int, float)) or not cutoff_scale >= 0:
            raise ValueError(f"cutoff_scale must be a number >= 0, got {cutoff_scale!r}")
        if isinstance(end_scale, bool) or not isinstance(end_scale, (int, float)) or not 0 <= end_scale < float("inf"):
            raise ValueError(f"end_scale must be a finite number >= 0, got {end_scale!r}")
        if isinstance(lead_weight, bool) or not isinstance(lead_weight, (int, float)) or not 0 <= lead_weight < 1:
            raise ValueError(f"lead_weight must be a number in [0, 1), got {lead_weight!r}")
        self.depth = depth
        self.cutoff_scale = cutoff_scale
        self.end_scale = end_scale
        self.mast = False
        self.learned = learned
        self.eval_mix = eval_mix
        self.lead_weight = lead_weight

    cdef int choose(self, SearchCore core, int n) noexcept nogil:
        """The action to play in ``core.world``, whose ``n`` legal actions are ``core.legal[:n]``
        (n >= 1). Uniform here; subclasses choose otherwise."""
        return core.legal[rng_bounded(&core.rng, n)]

    cdef void evaluate(self, SearchCore core, double* out) noexcept nogil:
        """Each player's return in [0, 1] into ``out``, for ``core.world`` where the play-out
        stopped: at the end the game's returns (or, with ``end_scale``, the soft rank of the
        final scores), at a cut-off the rank (hard or soft) by its heuristic (1/2 for a player
        alone); then the learned value and the lead term, where set."""
        cdef int i, np = core.nplayers
        cdef double scale = self.cutoff_scale
        cdef bint cut = not core.world.c_is_terminal()
        if not cut and (self.end_scale == 0 or np < 2):
            core.world.c_returns(out)
        else:
            if not cut:
                core.world.c_scores(core.heur)
                scale = self.end_scale
            else:
                core.world.c_heuristic(core.heur)
            for i in range(np):
                if np < 2:          # alone there is no rank: 1/2, as the soft rank (the lead term can tell)
                    out[i] = 0.5
                else:
                    out[i] = rank_return(i, np, core.heur) if scale == 0 else _soft_rank(i, np, core.heur, scale)
            if cut and self.learned is not None:
                self._mix_learned(core, out)
        if self.lead_weight > 0:
            self._mix_lead(core, out, cut)

    cdef void _mix_lead(self, SearchCore core, double* out, bint have_heuristic) noexcept nogil:
        """Each player's value in ``out`` mixed with the utility of its lead over its lead at the
        root (``lead_weight``; ``core.lead0``, set where the iteration's world was dealt).
        ``have_heuristic``: ``core.heur`` holds the world's heuristic already (a cut-off)."""
        cdef int i, np = core.nplayers
        cdef double w = self.lead_weight, s = self.cutoff_scale if self.cutoff_scale > 0 else 1.0
        if not have_heuristic:
            core.world.c_heuristic(core.heur)
        _leads(np, core.heur, core.heur)
        for i in range(np):
            out[i] = (1.0 - w) * out[i] + w * (0.5 + atan((core.heur[i] - core.lead0[i]) / s) / M_PI)

    cdef void _mix_learned(self, SearchCore core, double* out) noexcept nogil:
        """At a cut-off whose hand-written values are in ``out`` (and the heuristic in
        ``core.heur``): each player's value mixed with the learned one (``eval_mix``)."""
        cdef int i, np = core.nplayers
        cdef double hand = 0.5
        for i in range(np):
            if core.world.c_features(i, core.feats, self.learned.size) != 0:
                continue                    # (a game written in Python whose encoder failed)
            if self.learned.on_hand_written:
                hand = _soft_rank(i, np, core.heur, self.learned.hand_scale)
            out[i] = self.eval_mix * self.learned.value(core.feats, hand) + (1.0 - self.eval_mix) * out[i]

    def settings(self):
        """The constructor's keyword arguments that make an equal play-out (``learned`` and
        ``eval_mix`` only where it has a learned value, ``lead_weight`` only where not 0)."""
        out = {"depth": None if self.depth < 0 else self.depth, "cutoff_scale": self.cutoff_scale,
               "end_scale": self.end_scale}
        if self.learned is not None:
            out.update(learned=self.learned, eval_mix=self.eval_mix)
        if self.lead_weight > 0:
            out["lead_weight"] = self.lead_weight
        return out

    def replace(self, **changes):
        """A play-out of the same kind with some settings changed, e.g. ``p.replace(depth=5)``."""
        unknown = sorted(set(changes) - set(self.settings()) - {"learned", "eval_mix", "lead_weight"})
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

    def __init__(self, depth=None, cutoff_scale=0.0, samples=3, end_scale=0.0, learned=None, eval_mix=1.0,
                 lead_weight=0.0):
        super().__init__(depth, cutoff_scale, end_scale, learned, eval_mix, lead_weight)
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
                 end_scale=0.0, learned=None, eval_mix=1.0, lead_weight=0.0):
        super().__init__(depth, cutoff_scale, end_scale, learned, eval_mix, lead_weight)
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
