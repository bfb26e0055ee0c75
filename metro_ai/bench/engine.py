"""``metro-ai bench``'s engine section: random full games per second, the Cython engine (C-level loop
and Python loop) against the game's pure-Python reference."""
from __future__ import annotations

import random
import statistics

from metro_ai.engine.core import random_playouts
from metro_ai.registry import load_game

from .common import Skipped, _say, games_per_second, two_counts


def random_game_rates(game, rgame, seconds, repeats):
    """Random full games per second for the Cython engine driven by the C-level play-out loop
    (``c_loop``) and from Python (``python_loop``), and for the reference engine ``rgame``
    (``reference``), each timed for ``seconds``, in ``repeats`` interleaved rounds, so a drift in
    the machine's speed hits all three: medians of the rates, and medians of the rounds' ratios
    (``c_loop_ratio``, ``python_loop_ratio``); ``actions``: mean actions of the Python-loop games."""
    start = game.new_state(seed=1)
    lengths = []

    def c_loop(n):
        random_playouts(start, n, 7)

    def python_loop(g, n, count=False):
        rng = random.Random(2)
        for i in range(n):
            s = g.new_state(i)
            k = 0
            while not s.is_terminal():
                s.apply(rng.choice(s.legal_actions()))
                k += 1
            if count:
                lengths.append(k)

    rounds = [(games_per_second(c_loop, seconds), games_per_second(lambda n: python_loop(game, n, True), seconds),
               games_per_second(lambda n: python_loop(rgame, n), seconds)) for _ in range(repeats)]
    c, py, ref = (statistics.median(x) for x in zip(*rounds))
    return {"c_loop": c, "python_loop": py, "reference": ref,
            "c_loop_ratio": statistics.median(a / r for a, _, r in rounds),
            "python_loop_ratio": statistics.median(b / r for _, b, r in rounds),
            "actions": statistics.mean(lengths)}


def reference_of(game):
    """The game on its pure-Python reference engine (``Game.reference_game``), or None."""
    return game.reference_game()


def engine_section(cfg, progress):
    rows = []
    for name in cfg.game_names():
        for players in two_counts(name):
            game = load_game(name, players=players)
            rgame = reference_of(game)
            if rgame is None:
                continue
            rates = random_game_rates(game, rgame, cfg.seconds, cfg.repeats)
            rows.append({"game": name, "players": players, **rates})
            _say(progress, f"  engine {name} {players}p: C loop {rates['c_loop']:,.0f} games/s, "
                           f"reference {rates['reference']:,.2f}")
    if not rows:
        raise Skipped("no game of this run has a reference engine")
    return {
        "title": "Engines: random full games per second, Cython against the pure-Python reference",
        "note": (f"Medians of {cfg.repeats} interleaved rounds (rates, and the rounds' ratios), each rate timed for "
                 f"at least {cfg.seconds} s. Uniform random play to the end of the game (or its turn limit); "
                 "'actions' is the mean length of those games. 'C loop': the engine's own play-out loop "
                 "(what the search runs); 'Python loop': legal_actions/apply called from Python."),
        "columns": [("game", "game", "{}"), ("players", "players", "{}"), ("actions", "actions", "{:,.0f}"),
                    ("c_loop", "Cython, C loop", "{:,.0f}"),
                    ("python_loop", "Cython, Python loop", "{:,.1f}"), ("reference", "reference", "{:,.2f}"),
                    ("c_loop_ratio", "C loop / reference", "{:,.0f}x"),
                    ("python_loop_ratio", "Python loop / reference", "{:,.0f}x")],
        "rows": rows}
