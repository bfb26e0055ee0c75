"""The statistics of a versus run (see the package's note): logistic Elo, the generalised SPRT
over game pairs (fishtest's, Van den Bergh's) with Wald's bounds, the Elo interval of the pair
scores, and the figures of a run (`summarise`)."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from metro_ai.play.ratings import wilson

PRIOR = 1e-3                # fishtest's prior count of every pair-score value (keeps the LLR finite)


def score_from_elo(elo: float) -> float:
    """The expected score of a player `elo` logistic Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of an expected `score` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0      # + 0.0: no -0


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds (lower, upper) on the LLR: H0 is accepted at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def pair_grid(players: int = 2) -> list[float]:
    """The values a pair score can take: multiples of 1 / (4 a b), a and b the two builds' seat
    counts (a game score is a mean of a b outcomes 0, 1/2, 1; a pair score the mean of two games;
    with 2 players the pentanomial 0, 1/4, 1/2, 3/4, 1)."""
    a, b = (players + 1) // 2, players // 2
    n = 4 * a * b
    return [i / n for i in range(n + 1)]


def _mle(values: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution nearest (maximum likelihood) to `probs` over `values` with mean `s`:
    q_i = p_i / (1 + x (v_i - s)), x solving sum p_i (v_i - s) / (1 + x (v_i - s)) = 0."""
    d = [v - s for v in values]
    lo_d, hi_d = min(d), max(d)
    if not (lo_d < 0 < hi_d):
        raise ValueError(f"the expected score {s} is not inside the observed values")
    lo, hi = -1.0 / hi_d, -1.0 / lo_d        # where every 1 + x d_i stays positive
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def f(x: float) -> float:                # decreasing in x
        return sum(p * di / (1.0 + x * di) for p, di in zip(probs, d))
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    q = [p / (1.0 + x * di) for p, di in zip(probs, d)]
    total = sum(q)
    return [qi / total for qi in q]


def llr(counts: dict[float, float], elo0: float, elo1: float, prior: float = PRIOR,
        grid: Optional[Iterable[float]] = None) -> float:
    """The generalised SPRT's log-likelihood ratio of H1 (Elo `elo1`) against H0 (Elo `elo0`)
    given `counts` (pair score -> number of pairs): ``N sum p_i log(q1_i / q0_i)``, p the
    empirical distribution (each value of `grid`, default the observed values, with `prior`
    pairs added), q0 and q1 its maximum-likelihood re-weightings to the expected scores of elo0
    and elo1. 0 before any pair."""
    values = sorted(set(counts) | set(grid or ()))
    n = [counts.get(v, 0.0) + prior for v in values]
    total = sum(n)
    if sum(counts.values()) == 0 or total <= 0:
        return 0.0
    p = [c / total for c in n]
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    try:
        q0, q1 = _mle(values, p, s0), _mle(values, p, s1)
    except ValueError:
        return 0.0                           # one value only, without a prior: nothing to tell
    return total * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1) if pi > 0)


@dataclass
class Sprt:
    """A sequential probability ratio test over game pairs (see the module's note)."""
    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    players: int = 2
    counts: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT: elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"SPRT: {name} must be between 0 and 0.5, got {getattr(self, name)}")

    def add(self, pair_score: float) -> None:
        key = round(pair_score, 9)
        self.counts[key] = self.counts.get(key, 0) + 1

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    @property
    def llr(self) -> float:
        return llr(self.counts, self.elo0, self.elo1, grid=pair_grid(self.players))

    def verdict(self) -> Optional[str]:
        """"H1" (the stronger hypothesis accepted), "H0", or None (go on)."""
        lo, hi = self.bounds
        value = self.llr
        return "H1" if value >= hi else "H0" if value <= lo else None


def elo_interval(pair_scores: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """(Elo, low, high): the Elo of the mean pair score and of its normal-approximation interval.
    One pair shows no spread, so its interval is unbounded (as no pair's is)."""
    n = len(pair_scores)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(pair_scores) / n
    if n == 1:
        return elo_from_score(mean), -math.inf, math.inf
    sd = statistics.pstdev(pair_scores)
    half = z * sd / math.sqrt(n)
    return elo_from_score(mean), elo_from_score(mean - half), elo_from_score(mean + half)


def summarise(scores: list[float], sprt: Sprt) -> dict[str, Any]:
    """The figures of a run from its game scores (in order, pairs consecutive)."""
    games = len(scores)
    pairs = [(scores[i] + scores[i + 1]) / 2 for i in range(0, games - 1, 2)]
    score = sum(scores) / games if games else 0.5
    lo, hi = wilson(score, games)
    elo, elo_lo, elo_hi = elo_interval(pairs)
    penta: dict[str, int] = {}
    for v in pairs:
        penta[f"{v:g}"] = penta.get(f"{v:g}", 0) + 1
    return {"games": games, "pairs": len(pairs), "score": score,
            "wins": sum(s == 1.0 for s in scores), "draws": sum(s == 0.5 for s in scores),
            "losses": sum(s == 0.0 for s in scores), "pair_scores": dict(sorted(penta.items(), key=lambda kv: float(kv[0]))),
            "wilson_low": lo, "wilson_high": hi, "elo": elo, "elo_low": elo_lo, "elo_high": elo_hi,
            "elo_wilson_low": elo_from_score(lo), "elo_wilson_high": elo_from_score(hi),
            "llr": sprt.llr, "llr_bounds": list(sprt.bounds), "elo0": sprt.elo0, "elo1": sprt.elo1,
            "alpha": sprt.alpha, "beta": sprt.beta, "verdict": sprt.verdict()}
