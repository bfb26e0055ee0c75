"""``metro-ai bench``'s growth section: how ismcts scales with the number of players and the stage of
the game."""
from __future__ import annotations

import statistics

from metro_ai.bots.limit import Limit
from metro_ai.bots.search import NODE_BYTES
from metro_ai.engine.core import STAGES
from metro_ai.registry import game_class

from .common import DEAL, SAME_PLAYOUTS, _say, playouts_per_second, position, search_rate, searcher


MO_ITERATIONS = 2000       # mo-ismcts tree size is measured on a fixed budget


def growth_section(cfg, progress):
    rows = []
    for name in cfg.game_names():
        for players in cfg.players_of(name):
            for stage in STAGES:
                s = position(name, players, stage)
                po, same, own, ratio = [], [], [], []
                for _ in range(cfg.rounds):        # interleaved, so drifts of the machine hit all three
                    po.append(playouts_per_second(s, cfg.seconds))
                    rate_same, nodes, its = search_rate(searcher("ismcts", seed=1, **SAME_PLAYOUTS), s,
                                                        cfg.seconds)
                    same.append(rate_same)
                    ratio.append(rate_same / po[-1])
                    own.append(search_rate(searcher("ismcts", seed=1), s, cfg.seconds)[0])
                mo = searcher("mo-ismcts", seed=1).analyse(s, Limit(iterations=MO_ITERATIONS))
                rows.append({"game": name, "players": players, "stage": stage, "legal_actions": len(s.legal_actions()),
                             "playouts": statistics.median(po), "ismcts": statistics.median(same),
                             "ratio": statistics.median(ratio), "ismcts_defaults": statistics.median(own),
                             "iterations": its, "nodes": nodes, "bytes_per_iteration": nodes * NODE_BYTES / its,
                             "mo_bytes_per_iteration": mo.nodes * NODE_BYTES / mo.iterations})
                _say(progress, f"  growth {name} {players}p {stage}: {rows[-1]['ismcts']:,.0f} it/s, "
                               f"play-outs {rows[-1]['playouts']:,.0f}/s")
    return {
        "title": "Growth: ismcts iterations per second and tree size by players and stage",
        "note": (f"Medians of {cfg.rounds} rounds, each one {cfg.seconds} s timing of the three, interleaved, per cell, "
                 f"from the game's benchmark position (deal {DEAL}; {_stages_note(cfg)}). 'ismcts' uses random "
                 "play-outs to the end, the same play-outs as the play-outs column, so their ratio (median of the "
                 "rounds' ratios) is the cost of the tree; 'game defaults' is ismcts with the game's own play-out "
                 f"settings ({_defaults_note(cfg)}). Tree bytes per "
                 f"iteration: {NODE_BYTES}-byte nodes of the last ismcts search, and of a {MO_ITERATIONS:,}-iteration "
                 "mo-ismcts search (one tree per player)."),
        "columns": [("game", "game", "{}"), ("players", "players", "{}"), ("stage", "stage", "{}"),
                    ("legal_actions", "legal actions", "{}"), ("playouts", "play-outs/s", "{:,.0f}"),
                    ("ismcts", "ismcts it/s", "{:,.0f}"), ("ratio", "ismcts / play-outs", "{:.2f}"),
                    ("ismcts_defaults", "ismcts it/s, game defaults", "{:,.0f}"),
                    ("bytes_per_iteration", "ismcts tree bytes / iteration", "{:,.0f}"),
                    ("mo_bytes_per_iteration", "mo-ismcts tree bytes / iteration", "{:,.0f}")],
        "rows": rows}


def _stages_note(cfg):
    parts = []
    for name in cfg.game_names():
        cls = game_class(name)
        if hasattr(cls, "benchmark_tiles"):
            parts.append(f"{name} after {'/'.join(str(cls.benchmark_tiles[s]) for s in STAGES)} tiles")
        else:
            parts.append(f"{name} after {'/'.join(str(cls.benchmark_moves[s]) for s in STAGES)} random actions")
    return "; ".join(parts)


def _defaults_note(cfg):
    return "; ".join(f"{name}: {game_class(name).search_defaults}" for name in cfg.game_names())
