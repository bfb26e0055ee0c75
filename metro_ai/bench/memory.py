"""``metro-ai bench``'s memory section: bytes per tree node and the peak memory of a long search in a
fresh process (:mod:`metro_ai.bench.peak`)."""
from __future__ import annotations

import json
import subprocess
import sys

from metro_ai.bots.search import NODE_BYTES
from metro_ai.registry import game_class

from .common import _say


def peak_memory(game, players, iterations):
    """Memory of one ``iterations``-long ismcts search in a fresh process (Linux ``ru_maxrss``)."""
    out = subprocess.run([sys.executable, "-m", "metro_ai.bench.peak", game, str(players), str(iterations)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"memory probe failed: {out.stderr.strip()[-400:]}")
    m = json.loads(out.stdout)
    search = (m["peak_kib"] - m["base_kib"]) * 1024
    return {"game": game, "players": players, "iterations": iterations, "nodes": m["nodes"],
            "seconds": m["seconds"], "peak_mib": m["peak_kib"] / 1024, "search_mib": search / 2 ** 20,
            "tree_mib": m["nodes"] * NODE_BYTES / 2 ** 20, "measured_bytes_per_node": search / max(1, m["nodes"])}


def memory_section(cfg, progress):
    rows = []
    for game in cfg.game_names():
        rows.append(peak_memory(game, game_class(game).min_players, cfg.memory_iterations))
        _say(progress, f"  memory {game}: {rows[-1]['peak_mib']:.0f} MiB peak")
    return {
        "title": f"Memory: a {cfg.memory_iterations:,}-iteration ismcts search",
        "note": (f"A tree node is {NODE_BYTES} bytes (a flat array of structs that grows by doubling). Each "
                 "search runs in a fresh process from the opening (fewest players, deal 11, game defaults); "
                 "'search' is peak resident memory during the search less the resident memory before it, 'measured bytes / node' "
                 "divides it by the nodes (it includes the array's doubling slack)."),
        "columns": [("game", "game", "{}"), ("iterations", "iterations", "{:,}"), ("nodes", "nodes", "{:,}"),
                    ("tree_mib", "tree MiB", "{:.1f}"), ("search_mib", "search MiB", "{:.1f}"),
                    ("measured_bytes_per_node", "measured bytes / node", "{:.1f}"),
                    ("peak_mib", "process peak MiB", "{:.1f}"), ("seconds", "seconds", "{:.1f}")],
        "rows": rows, "node_bytes": NODE_BYTES}
