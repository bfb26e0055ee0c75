"""Several versus runs of one match-up read as one: the figures of their game pairs together.

A strength figure is often the sum of runs (a first SPRT stopped early, then more deals with
another seed), so the pooled figure needs a command too: ``python benches/versus_pool.py A.json
B.json ...``. The pairs of every run are read as one sample: the score, the Elo with the interval
of the pair scores and the SPRT's log-likelihood ratio for the hypotheses given, computed as one
run of those pairs computes them (`metro_ai.bench.versus.sprt.summarise`). The LLR is that of a
fixed sample, not a sequential verdict: the runs stopped where their own tests said.

Runs are pooled only where pooling means something: the same game, options, number of players and
budget a move, each on deals of its own (a deal played in two runs would count twice). The bots'
specs and builds may differ (a default changed between runs, say): the result lists them.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any, Iterable

from metro_ai.bench.versus.report import format_elo
from metro_ai.bench.versus.sprt import Sprt, summarise

#: What pooled runs share, from each report's settings.
SAME = ("game", "options", "players", "time", "iterations")
#: More players than any game seats (the pair-score grid grows with them).
MAX_PLAYERS = 16
#: What pooling reads of each game: two whole numbers, then three numbers.
GAME_KEYS = ("deal", "seed", "score", "this_iterations", "other_iterations")


class PoolError(ValueError):
    """Runs that cannot be read as one, or a file that is not a versus report."""


def load_report(path: str | Path) -> dict[str, Any]:
    """A versus report (``metro-ai bench --versus ... --out FILE.json``), checked for what pooling
    reads."""
    try:
        report = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PoolError(f"{path}: cannot read a versus report: {exc}") from None
    if not isinstance(report, dict) or report.get("format") != "metro-ai-versus":
        raise PoolError(f"{path}: not a versus report (its format is not metro-ai-versus)")
    settings, games = report.get("settings"), report.get("games")
    if not isinstance(settings, dict) or not isinstance(games, list):
        raise PoolError(f"{path}: a versus report without its settings or games")
    for key in SAME + ("bot", "other_bot"):
        if key not in settings:
            raise PoolError(f"{path}: the report's settings lack {key!r}")
    players = settings["players"]
    if type(players) is not int or not 2 <= players <= MAX_PLAYERS:
        raise PoolError(f"{path}: players {players!r} is not a whole number from 2 to {MAX_PLAYERS}")
    if not (isinstance(settings["game"], str) and isinstance(settings["options"], dict)
            and all(isinstance(settings[k], str) for k in ("bot", "other_bot"))):
        raise PoolError(f"{path}: the report's game, options or bots are not what a versus run writes")
    for i, g in enumerate(games):
        if not isinstance(g, dict) or not all(k in g for k in GAME_KEYS):
            raise PoolError(f"{path}: game {i} lacks its deal, seed, score or iterations")
        if not all(isinstance(g[k], int) for k in ("deal", "seed")) or \
                not all(isinstance(g[k], (int, float)) for k in GAME_KEYS[2:]):
            raise PoolError(f"{path}: game {i}'s deal and seed are not whole numbers, or its score or "
                            "iterations not numbers")
        if not 0 <= g["score"] <= 1:
            raise PoolError(f"{path}: game {i}'s score {g['score']!r} is not between 0 and 1")
    return report


def _pairs(report: dict[str, Any]) -> tuple[list[tuple[float, float]], int]:
    """The report's game pairs (each deal's two game scores, in deal order) and how many games
    had no partner (an interrupted run's last deal)."""
    by_deal: dict[int, list[float]] = {}
    for g in report["games"]:
        by_deal.setdefault(g["deal"], []).append(float(g["score"]))
    pairs = [(s[0], s[1]) for _, s in sorted(by_deal.items()) if len(s) == 2]
    return pairs, sum(len(s) for s in by_deal.values() if len(s) != 2)


def _field(report: dict[str, Any], part: str, key: str) -> Any:
    """``report[part][key]`` where the report has it (what a run's own figures say, for the
    listing only), else None."""
    value = report.get(part)
    return value.get(key) if isinstance(value, dict) else None


def pool(reports: Iterable[tuple[str, dict[str, Any]]], elo0: float = 0.0, elo1: float = 30.0,
         alpha: float = 0.05, beta: float = 0.05) -> dict[str, Any]:
    """The pooled figures of `reports` (``(name, report)``, each as `load_report` gives it):
    ``summary`` (as one run's, over every run's pairs, with the LLR for elo0 against elo1),
    ``runs`` (each run's name, bots, games and Elo), ``left_out`` (games without their pair),
    ``median_iterations`` (this build's and the other's over every game) and the shared
    ``settings``. PoolError where the runs differ in `SAME` or share a deal."""
    runs = list(reports)
    if not runs:
        raise PoolError("no report to pool")
    first_name, first = runs[0]
    sprt = Sprt(elo0, elo1, alpha, beta, players=first["settings"]["players"])
    seen: dict[int, int] = {}
    scores: list[float] = []
    left_out = 0
    listed = []
    for index, (name, report) in enumerate(runs):
        cfg = report["settings"]
        for key in SAME:
            if cfg[key] != first["settings"][key]:
                raise PoolError(f"{name} and {first_name} differ in {key} ({cfg[key]!r} against "
                                f"{first['settings'][key]!r}): only runs of one match-up are pooled")
        for g in report["games"]:
            other = seen.setdefault(g["seed"], index)
            if other != index:
                raise PoolError(f"{name} and {runs[other][0]} both played the deal of seed {g['seed']}: pooled "
                                "runs are played on deals of their own (another --seed)")
        pairs, lone = _pairs(report)
        left_out += lone
        for a, b in pairs:
            scores += [a, b]
            sprt.add((a + b) / 2)
        listed.append({"name": name, "bot": cfg["bot"], "other_bot": cfg["other_bot"],
                       "this": _field(report, "this", "version"), "seed": cfg.get("seed"),
                       "games": 2 * len(pairs), "elo": _field(report, "summary", "elo")})
    summary = summarise(scores, sprt)
    games = [g for _, r in runs for g in r["games"]]
    return {"settings": {k: first["settings"][k] for k in SAME}, "runs": listed, "summary": summary,
            "left_out": left_out,
            "median_iterations": {"this": statistics.median([g["this_iterations"] for g in games] or [0]),
                                  "other": statistics.median([g["other_iterations"] for g in games] or [0])}}


def text(pooled: dict[str, Any]) -> str:
    """The pooled figures in a few lines, for the console and the notes of a result file."""
    cfg, s = pooled["settings"], pooled["summary"]
    budget = f"{cfg['iterations']} iterations" if cfg["iterations"] else f"{cfg['time']} s"
    opts = "".join(f", {k}={json.dumps(v)}" for k, v in cfg["options"].items())
    lines = [f"{len(pooled['runs'])} runs pooled: {cfg['game']}{opts}, {cfg['players']} players, {budget} a move"]
    for r in pooled["runs"]:
        lines.append(f"  {r['name']}: {r['bot']} against {r['other_bot']}, seed {r['seed']}, {r['games']} games, "
                     f"Elo {format_elo(r['elo']) if isinstance(r['elo'], (int, float)) else '?'}")
    lines.append(f"{s['games']} games ({s['pairs']} pairs), score {s['score']:.1%}, "
                 f"Elo {format_elo(s['elo'])} ({format_elo(s['elo_low'])} to {format_elo(s['elo_high'])}), "
                 f"LLR {s['llr']:.2f} for Elo {s['elo1']:g} against {s['elo0']:g} "
                 f"(bounds {s['llr_bounds'][0]:.2f}, {s['llr_bounds'][1]:.2f}: {s['verdict'] or 'neither'})")
    lines.append(f"median iterations a move: this {pooled['median_iterations']['this']:,.0f}, "
                 f"other {pooled['median_iterations']['other']:,.0f}")
    if pooled["left_out"]:
        lines.append(f"left out: {pooled['left_out']} games without their pair")
    return "\n".join(lines) + "\n"
