"""Ratings from tournament results, on the Elo scale, with 95% intervals.

Two players: **Elo from a Bradley–Terry fit**. More players: **Plackett–Luce** strengths, fitted
by pairwise composite likelihood: each game is broken into all its pairs of seats, and under
Plackett–Luce the chance that i finishes above j is exactly the Bradley–Terry
``w_i / (w_i + w_j)`` whatever the other seats hold, so the same fit estimates the Plackett–Luce
strengths consistently (order-independent, ties and copies of a bot at one table handled), and
the bootstrap below gives honest intervals although a game's pairs are not independent.

The fit: maximum likelihood by ``choix.ilsr_pairwise_dense`` (choix: inference for Luce-family
models) on the matrix of wins, a tie counting half a win each way, plus a weak prior of one
virtual draw between every two bots that met (so a bot that wins every game still gets a finite
rating). Strengths θ go onto the Elo scale, ``R = 400·log10(e)·θ``: a 400-point gap means 10:1
odds of finishing above. Anchored so the mean rating is 1500 (or a named bot is 1500).
95% intervals: percentile bootstrap over *deals* (all games of one deal resampled together, as
they share the deal's luck), seeded, so the same results give the same intervals.

Intervals that cannot be estimated say so (``interval`` in each row, see :func:`bounds`). When a
group of bots finished above another in every pairing (say the strongest bot won all its games),
the likelihood keeps growing as that gap grows: only the prior holds it, every bootstrap resample
sees the same sweep, and a percentile interval would be a point (or any width the prior makes
it) where the data put no limit at all. Such a bot's rating has only a lower bound (``at-least``:
``low`` given, ``high`` None), or only an upper bound (``at-most``), or none (``none``: a bot
between two sweeps, measured from the mean of all). ``--anchor`` on a bot measures from it, so the
bots that beat it in every game get a lower bound and those it mixed results with a full interval.
An interval is also ``none`` when every resample gave the same ratings (every deal had the same
results): the bootstrap then has nothing to estimate a spread from.

For more than two players the report also gives openskill's ``PlackettLuce`` rating (Weng–Lin
Bayesian updates, games in schedule order, the model's own interval ``mu ± 1.96·sigma``) as a
cross-check from a maintained rating library; copies of one bot at a table share one openskill
rating, updated by the mean of the copies' updates.
"""
from __future__ import annotations

import math

# numpy is imported by the functions that use it, not here: `import metro_ai` (which every command
# line and child process pays for) does not load it.

ELO_PER_NAT = 400.0 / math.log(10.0)


def wilson(p, n, z=1.96):
    """The Wilson score interval (95% for z = 1.96) of a proportion ``p`` observed over ``n``
    trials, as ``(low, high)``; ``(0, 1)`` when ``n`` is 0."""
    if n == 0:
        return (0.0, 1.0)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _choix():
    try:
        import choix
    except ImportError:  # pragma: no cover - a dependency of metro-ai
        raise RuntimeError("ratings need choix: pip install choix") from None
    return choix


def pairwise_matrix(games, n_bots):
    """``m[i, j]``: wins of bot i over bot j (draws half), over every pair of seats of every game."""
    import numpy as np
    m = np.zeros((n_bots, n_bots))
    for g in games:
        seats, ret = g["seats"], g["returns"]
        for a in range(len(seats)):
            for b in range(len(seats)):
                i, j = seats[a], seats[b]
                if a == b or i == j:
                    continue
                if ret[a] > ret[b]:
                    m[i, j] += 1.0
                elif ret[a] == ret[b]:
                    m[i, j] += 0.5
    return m


def _connected(met):
    import numpy as np
    n = met.shape[0]
    seen, stack = {0}, [0]
    while stack:
        i = stack.pop()
        for j in np.nonzero(met[i])[0]:
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    return len(seen) == n


def bradley_terry(wins, prior_draws=1.0, initial=None):
    """Bradley–Terry strengths (natural log scale, mean 0) from a win matrix; ``prior_draws``
    virtual draws are added between every two bots that met. Raises ValueError if the bots'
    games do not connect them all."""
    import numpy as np
    wins = np.asarray(wins, dtype=float)
    met = (wins + wins.T) > 0
    if wins.shape[0] < 2 or not _connected(met):
        raise ValueError("not enough games to rate: the bots' games do not connect them all")
    comp = wins + 0.5 * prior_draws * met
    theta = _choix().ilsr_pairwise_dense(comp, max_iter=10_000, tol=1e-9, initial_params=initial)
    return theta - theta.mean()


def _anchor(elo, anchor):
    return elo - (elo[anchor] if anchor is not None else elo.mean()) + 1500.0


def elo(games, labels, bootstrap=1000, seed=0, anchor=None, prior_draws=1.0):
    """Elo ratings (Bradley–Terry on every pair of seats) with 95% bootstrap intervals; see the
    module docstring.

    `games`: dicts with ``deal``, ``seats`` (bot index per seat), ``returns``. `anchor`: a label
    to fix at 1500 (default: the mean is 1500). Returns a dict: method, scale, notes and per-bot
    rows ``{"bot", "rating", "low", "high", "interval"}`` in label order; ``interval`` says which
    ends the results bound (see :func:`bounds`; None: no bootstrap was run), and ``low``/``high``
    are None where unbounded or not estimated.
    """
    import numpy as np
    n = len(labels)
    anchor_i = None
    if anchor is not None:
        if anchor not in labels:
            raise ValueError(f"anchor {anchor!r} is not one of the bots: {', '.join(labels)}")
        anchor_i = labels.index(anchor)
    deals = sorted({g["deal"] for g in games})
    per_deal = {d: np.zeros((n, n)) for d in deals}
    for g in games:
        per_deal[g["deal"]] += pairwise_matrix([g], n)
    stack = np.array([per_deal[d] for d in deals]) if deals else np.zeros((0, n, n))
    total = stack.sum(axis=0)
    notes = [f"{labels[i]} finished above {labels[j]} in all {int(total[i, j])} of their pairings: the gap shown "
             f"rests on the prior (one virtual draw) and its interval cannot show how much larger it may be"
             for i in range(n) for j in range(n) if i != j and total[i, j] > 0 and total[j, i] == 0]
    theta = bradley_terry(total, prior_draws)
    point = _anchor(theta * ELO_PER_NAT, anchor_i)
    samples = []
    if bootstrap and len(deals) > 1:
        rng = np.random.default_rng(seed)
        for _ in range(bootstrap):
            pick = rng.integers(0, len(deals), len(deals))
            try:
                fit = bradley_terry(stack[pick].sum(axis=0), prior_draws, initial=theta)   # warm start
                samples.append(_anchor(fit * ELO_PER_NAT, anchor_i))
            except ValueError:          # a resample that leaves a bot unconnected: skip it
                continue
    kinds: list = [None] * n
    lo = hi = np.full(n, np.nan)
    if samples:
        arr = np.array(samples)
        lo, hi = np.percentile(arr, [2.5, 97.5], axis=0)
        spread = np.ptp(arr, axis=0)
        kinds = bounds(total, anchor_i)
        flat = [labels[i] for i in range(n) if kinds[i] == "two-sided" and spread[i] < 1e-6]
        for i in range(n):
            if labels[i] in flat:
                kinds[i] = "none"
        if flat:
            notes.append(f"every bootstrap resample gave the same rating to {', '.join(flat)} (every deal had the "
                         "same results), so no interval can be estimated; play more --deals")
    rows = []
    for i in range(n):
        low = float(lo[i]) if kinds[i] in ("two-sided", "anchor", "at-least") else None
        high = float(hi[i]) if kinds[i] in ("two-sided", "anchor", "at-most") else None
        rows.append({"bot": labels[i], "rating": float(point[i]), "low": low, "high": high, "interval": kinds[i]})
    return {
        "method": "Bradley-Terry (choix ILSR), 95% percentile bootstrap over deals",
        "scale": "Elo: 400 points = 10:1 odds of finishing above; " + (f"{anchor} = 1500" if anchor else "mean 1500"),
        "bootstrap": len(samples),
        "notes": notes,
        "rows": rows,
    }


def bounds(wins, anchor=None):
    """Which ends of each bot's rating interval the results can bound, from the win matrix
    (``wins[i, j] > 0``: i finished above j at least once; a tie counts both ways). One of
    ``"two-sided"``; ``"at-least"`` (only a lower bound); ``"at-most"`` (only an upper bound);
    ``"none"``; ``"anchor"`` for the `anchor` bot (index; its rating is 1500 by definition).

    Bots that reach each other by "finished above at least once" form groups with finite gaps
    between them; between groups the likelihood rises without limit as the gap grows. Bot i's
    group and every group above it (that reaches it) can move up together, and it and every group
    below it down, without losing likelihood: its rating (measured from the `anchor`, else from
    the mean of all bots) has no upper bound unless that upward set holds the anchor (or every
    bot), and no lower bound unless the downward set does.
    """
    import numpy as np
    beat = np.asarray(wins) > 0
    n = beat.shape[0]
    reach = beat | np.eye(n, dtype=bool)
    for k in range(n):                                   # transitive closure (Floyd-Warshall)
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    out = []
    for i in range(n):
        up = reach[:, i]                                 # bots that reach i: i's group and those above
        down = reach[i, :]                               # i's group and those below
        if anchor is not None:
            if i == anchor:
                out.append("anchor")
                continue
            upper, lower = bool(up[anchor]), bool(down[anchor])
        else:
            upper, lower = bool(up.all()), bool(down.all())
        out.append("two-sided" if upper and lower else "at-least" if lower else "at-most" if upper else "none")
    return out


def plackett_luce(games, labels):
    """openskill Plackett–Luce ratings (mu) with the model's 95% interval mu ± 1.96 sigma; games
    in the given order. Returns a dict like :func:`elo`'s."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - a dependency of metro-ai
        raise RuntimeError("multiplayer ratings need openskill: pip install openskill") from None
    model = PlackettLuce()
    ratings = [model.rating(name=lab) for lab in labels]
    for g in games:
        seats, ret = g["seats"], g["returns"]
        ranks: list[float] = [1 + sum(1 for r in ret if r > mine) for mine in ret]
        teams = [[model.rating(mu=ratings[i].mu, sigma=ratings[i].sigma)] for i in seats]
        new = model.rate(teams, ranks=ranks)
        for i in set(seats):
            copies = [new[s][0] for s in range(len(seats)) if seats[s] == i]
            ratings[i] = model.rating(mu=sum(c.mu for c in copies) / len(copies),
                                      sigma=sum(c.sigma for c in copies) / len(copies), name=labels[i])
    return {
        "method": "Plackett-Luce (openskill PlackettLuce), model's 95% interval mu +/- 1.96 sigma",
        "scale": f"openskill mu (a new bot starts at {model.mu:g})",
        "bootstrap": 0,
        "rows": [{"bot": labels[i], "rating": float(r.mu), "low": float(r.mu - 1.96 * r.sigma),
                  "high": float(r.mu + 1.96 * r.sigma), "sigma": float(r.sigma)} for i, r in enumerate(ratings)],
    }


def rate(games, labels, players, bootstrap=1000, seed=0, anchor=None):
    """Elo ratings for any number of players (Bradley–Terry for two, Plackett–Luce by pairwise
    composite likelihood for more), plus openskill's Plackett–Luce for more than two. When the
    games so far cannot rate every bot, "rows" is empty and "note" says why."""
    try:
        out = elo(games, labels, bootstrap=bootstrap, seed=seed, anchor=anchor)
    except ValueError as exc:
        if "anchor" in str(exc):
            raise
        out = {"method": None, "note": str(exc), "rows": []}
    else:
        if players > 2:
            out["method"] = "Plackett-Luce by pairwise composite likelihood (choix ILSR), " \
                            "95% percentile bootstrap over deals"
    if players > 2 and games:
        out["openskill"] = plackett_luce(games, labels)
    return out
