"""``metro-ai bench``'s memory section: bytes per tree node and the peak memory of a long search in a
fresh process (:mod:`metro_ai.bench.peak`), and what a protocol client's open games hold: per open
game, per move kept for ``undo`` and per move past that bound (:mod:`metro_ai.bench.gamemem`)."""
from __future__ import annotations

import json
import subprocess
import sys

from metro_ai.bots.search import NODE_BYTES
from metro_ai.registry import game_class

from .common import DEAL, _say


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


def game_memory(game, games, seed=DEAL):
    """What `games` open protocol games of `game` (default options) hold, measured in a fresh process
    (Linux VmRSS): bytes per open game, per move kept for undo (its state and its move) and per
    move past the ``max_undo`` bound (its move alone); None where too few moves were played to tell
    (games that end at once)."""
    out = subprocess.run([sys.executable, "-m", "metro_ai.bench.gamemem", game, str(games), str(seed)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"protocol memory probe failed: {out.stderr.strip()[-400:]}")
    m = json.loads(out.stdout)

    def per(kib, count):
        return kib * 1024 / count if count >= MIN_MOVES else None
    return {"game": game, "games": games, "max_undo": m["max_undo"],
            "per_game": (m["open_kib"] - m["base_kib"]) * 1024 / games,
            "steps": m["steps"], "per_step": per(m["steps_kib"] - m["open_kib"], m["steps"]),
            "moves": m["moves"], "per_move": per(m["moves_kib"] - m["steps_kib"], m["moves"]),
            "all_mib": (m["moves_kib"] - m["base_kib"]) / 1024}


MIN_MOVES = 500                 # fewer moves than this in a phase: no per-move figure (pages of 4 KiB)


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


def server_memory_section(cfg, progress):
    rows = []
    for game in cfg.game_names():
        rows.append(game_memory(game, cfg.server_games))
        _say(progress, f"  server memory {game}: {rows[-1]['per_game'] / 1024:.1f} KiB an open game")
    optional = "{:,.0f}"
    return {
        "title": f"Memory: {cfg.server_games} open protocol games",
        "note": (f"One protocol session (the server's own, default limits: max_undo {rows[0]['max_undo']}) opens "
                 f"{cfg.server_games} games of each game (default options, deals {DEAL} on) in a fresh process, then "
                 "plays random legal moves in each: max_undo moves (each keeps its state for undo), then max_undo "
                 "more (past the bound the oldest state is let go: each keeps its move, for the record, only). "
                 "Bytes are growths of resident memory (VmRSS) divided by the games or the moves; '-' where the "
                 f"games end before {MIN_MOVES} moves in all. A game holds at most its open cost, max_undo undo "
                 "steps, and its moves past them."),
        "columns": [("game", "game", "{}"), ("per_game", "bytes / open game", "{:,.0f}"),
                    ("steps", "moves kept", "{:,}"), ("per_step", "bytes / undo step", optional),
                    ("moves", "moves past", "{:,}"), ("per_move", "bytes / move past max_undo", optional),
                    ("all_mib", "all games, MiB", "{:.1f}")],
        "rows": rows}
