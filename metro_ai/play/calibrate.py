"""Calibrating difficulty levels in Elo: measuring a ladder (``metro-ai calibrate``).

A *ladder* is measured once per game and player count by :func:`calibrate` (``metro-ai
calibrate``): a list of levels, weakest first (random, then ISMCTS at growing budgets with the
presets among them, and greedy where it falls), plays a ladder tournament (each level against
the next two, over duplicate deals with the seats rotated; :mod:`metro_ai.play.tournament`),
and every level gets an Elo rating with its 95% interval from a Bradley–Terry fit of all the
games (:mod:`metro_ai.play.ratings`), on one scale with **random fixed at 0**: random is the one
level that means the same in every game, needs no budget and cannot drift with a change of
the code. The ladder also records, per level, how often it plays the strongest level's move on
a set of positions (:func:`agreement`), and which neighbours the results cannot tell apart.

The levels' budgets are iterations, not seconds, so a ladder holds on any machine; the machine
it was measured on is recorded all the same. Ladders for the games' default options ship with
the package (``metro_ai/bots/data/ladder-GAME-Np.json``); :func:`metro_ai.bots.elo.load_ladder` reads them or a user's
file.

``make_bot("ismcts", elo=1400)`` (or ``ismcts:elo=1400`` in a bot spec, the protocol or the
command line) is a :class:`metro_ai.bots.elo.EloBot`: at its first search it reads the ladder of the game it
plays and takes the iteration budget, the move-selection temperature and the margin that reach
the rating (:func:`metro_ai.bots.elo.budget_for`: between the two measured ISMCTS levels that bracket it, the
budget interpolated geometrically, the temperature and margin linearly). A rating outside the measured ISMCTS
levels is a clear error. Weak levels stay plausible rather than random: they sample the root's
moves by ``visits ** (1 / T)`` among only those whose mean value the search found within a
``margin`` (0.03) of its best move's, so they play worse moves, but not moves their search has
seen lose. (Below a game's weakest plausible level, which in Metro already beats random nearly
always, the rungs that reach down to random are weak by noise: too few iterations to tell the
moves apart. The tables of docs/guide/difficulty.md say which.)
"""
from __future__ import annotations

import os
import platform
import random
import time
from pathlib import Path

from metro_ai.bots.catalogue import PRESETS, BotSpec
from metro_ai.bots.elo import (LADDER_FORMAT, LADDER_VERSION, LadderError, _game_options, _ordered, chain,
                               check_ladder)
from metro_ai.bots.mcts import ISMCTSBot
from metro_ai.bots.seeding import derive
from metro_ai.play.match import replay
from metro_ai.play.report import require_matplotlib
from metro_ai.play.ratings import elo as fit_elo
from metro_ai.play.ratings import pairwise_matrix, wilson
from metro_ai.play.tournament import Tournament, TournamentConfig, TournamentError
from metro_ai.registry import game_class
from metro_ai.version import __version__

#: The levels of a calibration, weakest first: one family, ISMCTS whose sampled levels keep to
#: the moves within 0.03 of the best, at growing budgets and falling temperatures (the presets
#: easy, medium and hard among them), with greedy where it falls (short trial matches put it
#: near ISMCTS at 500 iterations in Metro and Breakthrough). At the bottom, 50 iterations with
#: no margin and then with one bridge the step from random, which every level with a margin
#: beats nearly always in Metro (a step no game can measure leaves the scale's anchor loose);
#: 500 at temperature 0.1 splits the step from medium to 500 at 0, which is wide in
#: Breakthrough. ``max`` (50,000 iterations on two threads) is left out of the default: its games
#: alone would cost hours of a two-core machine; ``--levels`` adds it.
DEFAULT_LEVELS = ("random", "ismcts:iterations=50,temperature=1", "ismcts:iterations=50,temperature=1,margin=0.03",
                  "easy", "medium",
                  "ismcts:iterations=500,temperature=0.1,margin=0.03", "ismcts:iterations=500",
                  "greedy", "ismcts:iterations=1500", "hard")


def default_levels(game: str) -> tuple[str, ...]:
    """The levels a calibration of `game` plays unless told otherwise: the game's own
    (``Game.ladder_levels``, where the default steps do not suit it: Breakthrough's), else
    :data:`DEFAULT_LEVELS`."""
    return tuple(game_class(game).ladder_levels or DEFAULT_LEVELS)


DEFAULT_DEALS = 50
DEFAULT_SEED = 2026
DEFAULT_POSITIONS = 200
#: A move that loses at least this much of the chance of finishing above (by the strongest
#: level's values) counts as a blunder in the agreement table.
BLUNDER = 0.1



# ---- levels ----

def level_parameters(spec) -> dict | None:
    """``{"iterations", "temperature", "margin"}`` of a level that is plain single-threaded
    ISMCTS (the ``ismcts`` bot with an iteration budget and at most a temperature and a margin,
    or a preset that is one), which :func:`metro_ai.bots.elo.budget_for` can interpolate between; None for any
    other level. ``margin`` is None where the level has none."""
    spec = BotSpec.parse(spec)
    if spec.time is not None:
        return None
    if spec.name in PRESETS:
        opts, limit, _ = PRESETS[spec.name]
        options = {**opts, **spec.options}
        iterations = spec.iterations or limit.iterations
    elif spec.name == "ismcts":
        options, iterations = dict(spec.options), spec.iterations or ISMCTSBot.default_limit.iterations
    else:
        return None
    if set(options) - {"temperature", "margin"} or iterations is None:
        return None
    margin = options.get("margin")
    return {"iterations": int(iterations), "temperature": float(options.get("temperature", 0.0)),
            "margin": None if margin is None else float(margin)}


# ---- calibration ----

def _positions(records, seed):
    """One position from each record: a seeded random decision point with two or more legal
    actions, as a state."""
    rng = random.Random(seed)
    out = []
    for record in records:
        states = [s for s in replay(record)[:-1] if len(s.legal_actions()) > 1]
        if states:
            out.append(states[rng.randrange(len(states))])
    return out


def agreement(levels, positions, seed=DEFAULT_SEED):
    """How often each level plays the strongest (last) level's move, and what its move costs by
    that level's reckoning: per level ``{"level", "agree", "positions", "low", "high", "loss",
    "blunders"}``.

    The strongest level searches each position with one seed; its move is the reference, and if
    it searches, the mean value (chance of finishing above, 0–1) it found for each action prices
    the moves: a level's ``loss`` is the mean, over the positions, of the reference move's value
    less its own move's (an action the search never tried counts at the lowest value it found).
    ``blunders``: the share of its moves whose loss is :data:`BLUNDER` or more.
    Each level (the strongest too: its row is the ceiling that search noise leaves) chooses with
    another seed. ``low``/``high``: the 95% Wilson interval of ``agree``. `positions`: states."""
    specs = [BotSpec.parse(s) for s in levels]
    strongest = specs[-1]
    reference: list[int] = []
    values: list[dict | None] = []
    for i, state in enumerate(positions):
        bot = strongest.make(derive(seed, 0xA9E, i, 0))
        if bot.searches:
            found = bot.analyse(state, strongest.limit)
            reference.append(found.chosen)
            values.append({a.action: a.mean for a in found.actions if a.visits > 0})
        else:
            reference.append(bot.choose(state, strongest.limit))
            values.append(None)
    rows = []
    for j, spec in enumerate(specs):
        agree, losses = 0, []
        for i, state in enumerate(positions):
            pick = spec.make(derive(seed, 0xA9E, i, 1, j)).choose(state, spec.limit)
            agree += pick == reference[i]
            q = values[i]
            if q is not None:
                losses.append(q[reference[i]] - q.get(pick, min(q.values())))
        n = len(positions)
        lo, hi = wilson(agree / n, n) if n else (0.0, 1.0)
        rows.append({"level": spec.display, "agree": agree / n if n else None, "positions": n, "low": lo, "high": hi,
                     "loss": round(sum(losses) / len(losses), 4) if losses else None,
                     "blunders": round(sum(x >= BLUNDER - 1e-12 for x in losses) / len(losses), 4) if losses else None})
    return rows


def _head_to_head(games, labels):
    m = pairwise_matrix(games, len(labels))
    rows = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            n = m[i, j] + m[j, i]
            if n:
                score = m[j, i] / n
                lo, hi = wilson(score, int(round(n)))
                rows.append({"weaker": labels[i], "stronger": labels[j], "pairings": int(round(n)),
                             "score": float(score), "low": lo, "high": hi})
    return rows


def neighbours(levels: list[dict], head_to_head: list[dict]) -> list[dict]:
    """The levels in rating order, each with the next: whether their 95% rating intervals are
    apart (an unbounded end counts as overlapping), and their direct score if they met."""
    ranked = sorted(levels, key=lambda lv: lv["elo"])
    h2h = {(r["weaker"], r["stronger"]): r for r in head_to_head}
    out = []
    for a, b in zip(ranked, ranked[1:]):
        apart = a.get("high") is not None and b.get("low") is not None and a["high"] < b["low"]
        direct = h2h.get((a["level"], b["level"]))
        reverse = h2h.get((b["level"], a["level"]))       # the list had them the other way round
        if direct is None and reverse is not None:
            direct = {**reverse, "score": 1 - reverse["score"], "low": 1 - reverse["high"], "high": 1 - reverse["low"]}
        out.append({"lower": a["level"], "upper": b["level"], "gap": b["elo"] - a["elo"], "intervals_apart": apart,
                    **{k: None if direct is None else direct[f] for k, f in
                       (("score", "score"), ("pairings", "pairings"), ("score_low", "low"), ("score_high", "high"))}})
    return out


def calibrate(game: str = "metro", players: int = 2, options: dict | None = None, levels=None,
              deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED, jobs: int = 1, db=None, dask: str | None = None,
              positions: int = DEFAULT_POSITIONS, bootstrap: int = 1000, progress=None, command: str | None = None) -> dict:
    """Measure a ladder (see the module docstring) and return it, JSON-ready.

    `levels`: bot specs weakest first (default :func:`default_levels`; the first is the anchor,
    at 0: random unless you list another first); `deals`: duplicate deals per pairing; `db`: the
    tournament's SQLite file (resumable: an interrupted calibration goes on where it stopped);
    `positions`: positions for the agreement table; `jobs`, `dask` (``"tcp://host:port"``: play
    the games on that Dask cluster, `jobs` then unused) and `progress`: as for tournaments
    (:meth:`metro_ai.play.tournament.Tournament.run`). Every game's seeds derive from `seed`
    alone, so the ladder is the same wherever its games ran (the timings and date aside)."""
    options = dict(options or {})
    if players < 2:
        raise LadderError(f"an Elo ladder needs two or more players; {game} with {players} has no opponent to rate against")
    levels = list(default_levels(game) if levels is None else levels)
    if len(levels) < 2:
        raise LadderError(f"a ladder needs at least two levels, got {len(levels)}")
    try:
        config = TournamentConfig(game, {"players": players, **options}, levels, mode="ladder", deals=deals, seed=seed)
    except TournamentError as exc:
        raise LadderError(str(exc)) from None
    t0 = time.perf_counter()
    tournament = Tournament(config, db)
    result = tournament.run(jobs=jobs, dask=dask, progress=progress)
    seconds = time.perf_counter() - t0
    if not result.complete:
        raise LadderError(f"{len(result.failures)} game(s) of the calibration failed: {result.failures[:1]}")
    labels = config.labels
    fit = fit_elo(result.games, labels, bootstrap=bootstrap, seed=seed, anchor=labels[0])
    def shift(v):                               # the fit's scale has its anchor at 1500
        return None if v is None else round(v - 1500.0, 1)

    rows = []
    for spec, r in zip(config.bots, fit["rows"]):
        params = level_parameters(spec)
        rows.append({"level": spec.display, "spec": str(spec), "elo": shift(r["rating"]), "low": shift(r["low"]),
                     "high": shift(r["high"]), "interval": r["interval"],
                     "iterations": None if params is None else params["iterations"],
                     "temperature": None if params is None else params["temperature"],
                     "margin": None if params is None else params["margin"]})
    h2h = _head_to_head(result.games, labels)
    picked = sorted({result.games[k * len(result.games) // positions]["id"] for k in range(positions)}) \
        if positions else []
    states = _positions(tournament.records(picked), derive(seed, 0x9051))
    ladder = {
        "format": LADDER_FORMAT, "version": LADDER_VERSION,
        "game": game, "players": players, "options": _game_options(config._game),
        "anchor": f"{labels[0]} = 0",
        "scale": "Elo: 400 points = 10:1 odds of finishing above; " + fit["method"],
        "levels": rows,
        "neighbours": neighbours(rows, h2h),
        "head_to_head": h2h,
        "agreement": agreement(levels, states, seed),
        "notes": fit["notes"],
        "tournament": config.to_dict(),
        "games": len(result.games),
        "game_seconds": round(sum(g["seconds"] or 0.0 for g in result.games), 1),
        "seconds": round(seconds, 1),
        "machine": _machine() + "; budgets are iterations, so the ladder holds on any machine",
        "created": time.strftime("%Y-%m-%d", time.gmtime()),
        "command": command,
    }
    ladder["metro_ai"] = __version__
    return check_ladder(ladder, "made")


def _machine() -> str:
    """The machine a ladder was measured on, in words."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"


def format_ladder(ladder: dict) -> str:
    """The ladder as Markdown tables: levels with ratings, neighbours, agreement."""
    def num(v, fmt="{:.0f}"):
        return "–" if v is None else fmt.format(v)
    agree = {a["level"]: a for a in ladder.get("agreement", [])}
    lines = [f"{ladder['game']}, {ladder['players']} players ({ladder['anchor']}; {ladder.get('games', '?')} games)", "",
             "| level | Elo | 95% interval | iterations | temperature | margin | plays the strongest level's move | "
             f"mean loss | blunders (loss ≥ {BLUNDER:g}) |",
             "|---|---:|---|---:|---:|---:|---|---:|---:|"]
    for lv in sorted(ladder["levels"], key=lambda lv: lv["elo"]):
        kind = lv.get("interval")
        interval = ("anchor" if kind == "anchor" else f"{num(lv['low'])} … {num(lv['high'])}"
                    if lv.get("low") is not None or lv.get("high") is not None else "not bounded")
        a = agree.get(lv["level"])
        agreed = "–" if a is None or a["agree"] is None else f"{a['agree']:.0%} ({a['low']:.0%}–{a['high']:.0%})"
        loss = "–" if a is None else num(a.get("loss"), "{:.3f}")
        blunders = "–" if a is None else num(a.get("blunders"), "{:.0%}")
        lines.append(f"| {lv['level']} | {num(lv['elo'])} | {interval} | {num(lv.get('iterations'), '{:d}')} | "
                     f"{num(lv.get('temperature'), '{:g}')} | {num(lv.get('margin'), '{:g}')} | {agreed} | {loss} | {blunders} |")
    kept, left_out = chain(ladder)
    if not _ordered(kept, left_out):
        lines += ["", "`ismcts:elo=` refuses this ladder: its results do not rank its ISMCTS levels by budget."]
    elif left_out:
        lines += ["", "Left out of `ismcts:elo=` (rated at or below a level of smaller budget): "
                  + ", ".join(f"{lv['level']} ({lv['elo']:.0f})" for lv in left_out) + "."]
    lines += ["", "| neighbours | gap | intervals apart | direct score of the upper (95%) |", "|---|---:|---|---|"]
    for nb in ladder.get("neighbours", []):
        score = "did not meet" if nb["score"] is None else \
            f"{nb['score']:.1%} ({nb['score_low']:.1%}–{nb['score_high']:.1%}, {nb['pairings']} pairings)"
        lines.append(f"| {nb['lower']} < {nb['upper']} | {nb['gap']:.0f} | {'yes' if nb['intervals_apart'] else 'no'} | {score} |")
    return "\n".join(lines)


def plot_ladder(ladder: dict, path) -> str:
    """Draw the ladder (ratings with 95% intervals) to a PNG at `path`; returns the path."""
    plt = require_matplotlib()
    levels = sorted(ladder["levels"], key=lambda lv: lv["elo"])
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(levels) + 1.4))
    ys = list(range(len(levels)))
    vals = [lv["elo"] for lv in levels]
    lo = [lv["elo"] - lv["low"] if lv.get("low") is not None else 0 for lv in levels]
    hi = [lv["high"] - lv["elo"] if lv.get("high") is not None else 0 for lv in levels]
    ax.errorbar(vals, ys, xerr=[lo, hi], fmt="o", capsize=4)
    ax.set_yticks(ys)
    ax.set_yticklabels([lv["level"] for lv in levels], fontsize=8)
    ax.set_xlabel(f"Elo, 95% interval ({ladder['anchor']})")
    ax.set_title(f"{ladder['game']}, {ladder['players']} players: difficulty ladder", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
