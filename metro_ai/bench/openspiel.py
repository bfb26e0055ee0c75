"""``metro-ai bench``'s openspiel section: our ismcts against OpenSpiel's ISMCTS on the same game,
position and budget (and :mod:`metro_ai.bench.shared`'s rows on games OpenSpiel has too)."""
from __future__ import annotations

import statistics
import subprocess
import sys
import time

from metro_ai.bots.limit import Limit
from metro_ai.registry import DEFAULT_GAME, game_class, load_game

from . import common
from .common import DEAL, UCT_C, _say, searcher, two_counts
from .shared import shared_section


def openspiel_cpp_accepts(players, game=DEFAULT_GAME):
    """(True, 'ran') if OpenSpiel's C++ ISMCTS runs on the bridged `game`, tried in a child
    process (it may crash the interpreter); else (False, why)."""
    try:
        p = subprocess.run([sys.executable, "-m", "metro_ai.bench.cpp_probe", str(players), game], capture_output=True, text=True,
                           timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    if p.returncode == 0:
        return True, "ran"
    if p.returncode < 0:
        return False, f"crashed (signal {-p.returncode})"
    return False, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:120]


def openspiel_section(cfg, progress):
    bridge, osb = common._openspiel()
    rows = []
    for players in two_counts(cfg.game):
        ok, why = openspiel_cpp_accepts(players, cfg.game)
        state = load_game(cfg.game, players=players).new_state(DEAL)
        game = bridge.load(cfg.game, players=players)
        ours, theirs = [], []
        for rep in range(cfg.openspiel_repeats):
            r = searcher("ismcts", seed=rep, c=UCT_C).analyse(state, Limit(iterations=cfg.openspiel_iterations))
            ours.append(r.iterations / r.seconds)
            bot = (osb.cpp_bot(rep, UCT_C, cfg.openspiel_iterations) if ok else
                   osb.python_bot(game, rep, UCT_C, iterations=cfg.openspiel_iterations))
            t0 = time.perf_counter()
            osb.choose(bot, game, state)
            theirs.append(cfg.openspiel_iterations / (time.perf_counter() - t0))
        a, b = statistics.median(ours), statistics.median(theirs)
        rows.append({"players": players, "ours": a, "openspiel": b, "ratio": a / b,
                     "openspiel_bot": "C++ pyspiel.ISMCTSBot" if ok else "Python ismcts.ISMCTSBot",
                     "cpp_probe": why})
        _say(progress, f"  openspiel {cfg.game} {players}p: ours {a:,.0f} it/s, OpenSpiel {b:,.0f} it/s")
    return {
        "title": "Against OpenSpiel's ISMCTS: iterations per second, same game, position and budget",
        "note": (f"{game_class(cfg.game).title}, opening (deal {DEAL}), {cfg.openspiel_iterations:,} iterations per search, uct_c {UCT_C}, "
                 f"random play-outs to the end, one thread, median of {cfg.openspiel_repeats}. OpenSpiel searches "
                 "the same engine through the bridge (metro_ai.interop.openspiel), sampling worlds with our "
                 "determinize; its C++ bot is used where it runs on the bridged game (probed in a child process)."),
        "columns": [("players", "players", "{}"), ("ours", "metro-ai ismcts it/s", "{:,.0f}"),
                    ("openspiel", "OpenSpiel ISMCTS it/s", "{:,.0f}"), ("ratio", "ratio", "{:,.0f}x"),
                    ("openspiel_bot", "OpenSpiel bot", "{}"), ("cpp_probe", "C++ bot probe", "{}")],
        "rows": rows, "game": cfg.game, "tables": shared_section(cfg, progress)}
