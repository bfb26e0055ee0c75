"""``metro-ai bench``'s options section: random games per second of every game option set next to the
game at its defaults."""
from __future__ import annotations

import json
import statistics

from metro_ai.engine.core import random_playouts
from metro_ai.registry import game_class, load_game

from .common import _say, games_per_second


def option_rates(name, option_set, seconds, repeats):
    """Random full games per second in the engine's C-level loop for game `name` with
    `option_set` and for the same player count at the default options, timed for ``seconds``
    each in ``repeats`` interleaved rounds: medians of the rates and of the rounds' ratios."""
    players = option_set["players"]
    base = load_game(name, players=players).new_state(seed=1)
    opt = load_game(name, **option_set).new_state(seed=1)
    rounds = [(games_per_second(lambda n: random_playouts(base, n, 7), seconds),
               games_per_second(lambda n: random_playouts(opt, n, 7), seconds)) for _ in range(repeats)]
    b, o = (statistics.median(x) for x in zip(*rounds))
    return {"base": b, "option": o, "ratio": statistics.median(y / x for x, y in rounds)}


def options_section(cfg, progress):
    rows = []
    for name in cfg.game_names():
        for option_set in game_class(name).option_sets():
            changed = {k: v for k, v in option_set.items() if k != "players"}
            if not changed:
                continue
            rates = option_rates(name, option_set, cfg.seconds, cfg.repeats)
            rows.append({"game": name, "players": option_set["players"],
                         "options": ", ".join(f"{k}={json.dumps(v)}" for k, v in changed.items()), **rates})
            _say(progress, f"  options {name} {option_set['players']}p {rows[-1]['options']}: "
                           f"{rates['option']:,.0f} games/s, base {rates['base']:,.0f} ({rates['ratio']:.2f}x)")
    return {
        "title": "Options: random full games per second of each game option against the base game",
        "note": (f"The engine's C-level play-out loop (what the search runs), uniform random play from the deal of "
                 f"seed 1 to the end; each option set (`Game.option_sets`: every bool or choice option at each "
                 f"other value, at the fewest and most players) timed next to the same game at its default "
                 f"options and player count, in {cfg.repeats} interleaved rounds of at least {cfg.seconds} s each: "
                 "medians of the rates and of the rounds' ratios (option / base; below 1: slower)."),
        "columns": [("game", "game", "{}"), ("players", "players", "{}"), ("options", "options", "{}"),
                    ("option", "games/s, option", "{:,.0f}"), ("base", "games/s, base game", "{:,.0f}"),
                    ("ratio", "option / base", "{:.2f}")],
        "rows": rows}
