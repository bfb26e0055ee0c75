"""A versus run's report as files: strict JSON (`report_json`, one line a game, each game's
moves kept compact) and Markdown for benches/results/ (`markdown`)."""
from __future__ import annotations

import json
import math
import statistics
from typing import Any, Optional

from metro_ai.bench.versus.sprt import pair_grid
from metro_ai.engine.datafile import dumps
from metro_ai.registry import game_class

BY = {"this": "t", "other": "o", "forced": "f"}


def compact_moves(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """A game's moves as the record keeps them: ``actions`` (ids, in order) and ``by``, a letter a
    move (t this build, o the other, f forced); the players replay from the deal."""
    return {"actions": [m["action"] for m in moves], "by": "".join(BY[m["by"]] for m in moves)}


def report_json(report: dict[str, Any]) -> str:
    """The report as strict JSON text: indented, one line a game; an Elo bound that is unbounded
    (±infinity: one pair played, or every pair won or lost) is written as null."""
    head = dumps({k: v for k, v in report.items() if k != "games"}, indent=1)
    games = ",\n".join("  " + dumps(g, compact=True) for g in report["games"])
    return head[:-2] + ',\n "games": [\n' + games + "\n ]\n}\n"


def format_elo(x: float) -> str:
    """An Elo figure as the reports write it: signed and whole, or inf / -inf where unbounded."""
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def _grid_text(players: int) -> str:
    """What a pair score can be (sprt.pair_grid), in words for the report."""
    if players == 2:
        return "pentanomial with two players"
    steps = len(pair_grid(players)) - 1
    return (f"multiples of 1/{steps} with {players} players: a game's score is the mean of this build's "
            "seats set against the other's, 1 above, 1/2 level, 0 below")


def markdown(report: dict[str, Any], command: Optional[str] = None) -> str:
    """The report as Markdown for benches/results/."""
    cfg, s = report["settings"], report["summary"]
    m = report["machine"]
    opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in cfg["options"].items())
    lines = ["# metro-ai versus another build", "",
             f"{m['date']}; {m['cpu']}, {m['usable_cpus']} of {m['logical_cpus']} CPUs usable; {m['python']}.", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += [f"This build ({report['this']['version']}), `{cfg['bot']}`, against `{' '.join(report['other']['command'])}` "
              f"({report['other']['version']}), `{cfg['other_bot']}`: {game_class(cfg['game']).title}"
              f"{' with ' + opts if opts else ''}, {cfg['players']} players, "
              f"{(str(cfg['iterations']) + ' iterations') if cfg['iterations'] else str(cfg['time']) + ' s'} a move "
              f"for both; seeds derived from {cfg['seed']}; each deal played twice with the seats swapped"
              f"{'; ' + str(cfg.get('jobs', 1)) + ' pairs at a time' if cfg.get('jobs', 1) > 1 else ''}.", "",
              "| games | wins | draws | losses | score | 95% Wilson | Elo | Elo 95% (pairs) | LLR | bounds | verdict |",
              "|---:|---:|---:|---:|---:|---|---:|---|---:|---|---|",
              f"| {s['games']} | {s['wins']} | {s['draws']} | {s['losses']} | {s['score']:.1%} | "
              f"{s['wilson_low']:.1%} – {s['wilson_high']:.1%} | {format_elo(s['elo'])} | "
              f"{format_elo(s['elo_low'])} – {format_elo(s['elo_high'])} | {s['llr']:.2f} | "
              f"{s['llr_bounds'][0]:.2f}, {s['llr_bounds'][1]:.2f} | {s['verdict'] or '–'} |", "",
              f"Pair scores ({_grid_text(cfg['players'])}): "
              + ", ".join(f"{k}: {v}" for k, v in s["pair_scores"].items()) + ". "
              f"SPRT hypotheses: H0 Elo {s['elo0']:g}, H1 Elo {s['elo1']:g} (logistic), alpha {s['alpha']:g}, "
              f"beta {s['beta']:g}; {report['mode']} mode. Wall time {report['wall_seconds']:.0f} s; median "
              f"iterations a move: this {statistics.median([g['this_iterations'] for g in report['games']] or [0]):,.0f}, "
              f"other {statistics.median([g['other_iterations'] for g in report['games']] or [0]):,.0f}."]
    return "\n".join(lines) + "\n"
