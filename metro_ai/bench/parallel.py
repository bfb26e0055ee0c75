"""``metro-ai bench``'s parallel section: iterations per second at 1, 2, ... workers, and how far past
a time budget a search returns."""
from __future__ import annotations

import statistics
import time

from metro_ai.bots.limit import Limit
from metro_ai.registry import game_class

from .common import DEAL, _say, position, search_rate, searcher, two_counts


def time_margin(state, budget, repeats):
    """(median, max) seconds past ``Limit(time=budget)`` that ``choose`` returns."""
    overs = []
    for i in range(repeats):
        bot = searcher("ismcts", seed=i)
        t0 = time.perf_counter()
        bot.choose(state, Limit(time=budget))
        overs.append(time.perf_counter() - t0 - budget)
    return statistics.median(overs), max(overs)


def parallel_section(cfg, progress):
    rows = []
    secs = max(cfg.seconds, 0.5 if not cfg.quick else 0.1)
    for players in two_counts(cfg.game):
        s = position(cfg.game, players, "opening")
        base = None
        for backend in ("threads", "processes"):
            for w in cfg.workers:
                if backend == "processes" and w == 1:
                    continue
                bot = searcher("ismcts", seed=1, workers=w, backend=backend)
                bot.analyse(s, Limit(iterations=100))     # one-time start-ups (the process server) before timing
                # processes pay a start-up per search: time them over twice as long
                r = search_rate(bot, s, secs * (2 if backend == "processes" else 1))[0]
                base = base or r
                rows.append({"players": players, "workers": w, "backend": backend, "rate": r, "speedup": r / base})
                _say(progress, f"  parallel {cfg.game} {players}p {backend} x{w}: {r:,.0f} it/s")
    med, worst = time_margin(position(cfg.game, two_counts(cfg.game)[0], "opening"), 0.1, 5 if cfg.quick else 20)
    return {
        "title": "Parallel search: ismcts iterations per second by workers",
        "note": (f"{game_class(cfg.game).title}, opening (deal {DEAL}), root-parallel search, one {secs} s search per row (processes "
                 f"{2 * secs} s, start-up included); speed-up against 1 thread. Time budget 0.1 s: the search "
                 f"returned {med * 1000:.1f} ms past it (median of {5 if cfg.quick else 20}), "
                 f"{worst * 1000:.1f} ms at worst. For 1-16 workers on a larger machine: "
                 "benches/device_metro.sh."),
        "game": cfg.game,
        "columns": [("players", "players", "{}"), ("workers", "workers", "{}"), ("backend", "backend", "{}"),
                    ("rate", "it/s", "{:,.0f}"), ("speedup", "speed-up", "{:.2f}x")],
        "rows": rows, "time_margin": {"budget": 0.1, "median_over": med, "max_over": worst}}
