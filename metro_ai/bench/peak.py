"""The memory section's child program: one ismcts search in a fresh process, its resident
memory before and at its peak. ``python -m metro_ai.bench.peak GAME PLAYERS ITERATIONS`` prints
one JSON line ``{"base_kib", "peak_kib", "nodes", "seconds"}`` (:func:`metro_ai.bench.memory.peak_memory`
runs it)."""
from __future__ import annotations

import resource
import sys

from metro_ai.bots.limit import Limit
from metro_ai.engine.datafile import dumps
from metro_ai.registry import load_game

from .common import DEAL, searcher


def status(field: str) -> int:
    """Linux: current (VmRSS) and peak (VmHWM) resident KiB; else the peak so far."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv: list[str]) -> None:
    game, players, iterations = argv[0], int(argv[1]), int(argv[2])
    s = load_game(game, players=players).new_state(DEAL)
    bot = searcher("ismcts", seed=1)
    base = status("VmRSS")
    r = bot.analyse(s, Limit(iterations=iterations))
    peak = status("VmHWM")
    print(dumps({"base_kib": base, "peak_kib": peak, "nodes": r.nodes, "seconds": r.seconds}))


if __name__ == "__main__":
    main(sys.argv[1:])
