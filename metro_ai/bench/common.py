"""Settings, constants and helpers shared by the sections of ``metro-ai bench``."""
from __future__ import annotations

import datetime
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from metro_ai.bots.catalogue import make_bot
from metro_ai.bots.limit import Limit
from metro_ai.bots.settings import DEFAULT_C
from metro_ai.bots.base import Bot
from metro_ai.engine.core import build_info, random_playouts
from metro_ai.registry import DEFAULT_GAME, game_class, list_games, load_game
from metro_ai.version import __version__


SECTIONS = ("engine", "options", "growth", "parallel", "memory", "server-memory", "openspiel", "strength")
DEAL = 11                                           # the deal of every fixed position
UCT_C = DEFAULT_C                                   # the search's own default c, given to both sides; returns in [0, 1] for both
SAME_PLAYOUTS = {"rollout": "random", "rollout_depth": -1, "cutoff_scale": 0}   # random to the end
OPENSPIEL = "openspiel"                             # in a strength pair: OpenSpiel's Python ISMCTS
DEFAULT_PAIRS = (("ismcts", OPENSPIEL),)            # the strength section's pairs unless told


class Skipped(Exception):
    """A section that cannot run here (a missing optional dependency, no reference engines)."""


@dataclass
class Settings:
    """What one ``metro-ai bench`` run measures; ``Settings.quick_run()`` for the short CI run."""
    sections: tuple = SECTIONS
    seconds: float = 1.0                  # per timing of a search or of play-outs
    repeats: int = 5                      # timed repeats (medians) for the engine section
    rounds: int = 3                       # interleaved timing rounds (medians) for the growth section
    workers: tuple = (1, 2)
    game: str = DEFAULT_GAME              # the game of the parallel, openspiel and strength sections
    games: tuple = ()                     # the games of the engine, growth, memory sections (): all
    growth_players: dict | None = None    # game -> player counts for growth (None: every count)
    memory_iterations: int = 1_000_000
    server_games: int = 256               # open protocol games of the server-memory section (a session's max_games)
    openspiel_iterations: int = 1000
    openspiel_repeats: int = 3
    strength_games: int = 200
    strength_time: float = 0.1            # seconds per move, both sides
    strength_iterations: int | None = None   # instead: iterations per move, both sides (reproducible)
    strength_pairs: tuple = DEFAULT_PAIRS  # (tested bot, opponent) of each strength figure
    options: dict = field(default_factory=dict)   # game options of the strength section's games
    jobs: int = 0                         # strength games in parallel; 0: one per CPU
    seed: int = 2026
    quick: bool = False

    @classmethod
    def quick_run(cls, **kw):
        base: dict = dict(seconds=0.1, repeats=1, rounds=1, memory_iterations=100_000, server_games=16,
                          openspiel_iterations=50,
                    openspiel_repeats=1, strength_games=4, strength_time=0.01, quick=True)
        base.update(kw)
        return cls(**base)

    def game_names(self):
        """The games of the per-game sections: ``games``, or every registered game."""
        return tuple(self.games) or tuple(list_games())

    def players_of(self, name):
        """Player counts of `name` for the growth section: ``growth_players[name]``, else every
        count the game allows (quick: two)."""
        if self.growth_players and name in self.growth_players:
            return tuple(self.growth_players[name])
        return two_counts(name) if self.quick else tuple(range(game_class(name).min_players,
                                                                game_class(name).max_players + 1))


def two_counts(name):
    """Two player counts of game `name` to compare: its smallest, and two more where allowed."""
    cls = game_class(name)
    return tuple(sorted({cls.min_players, min(cls.min_players + 2, cls.max_players)}))


def searcher(name, seed=0, **options) -> Bot:
    """``make_bot`` for a search bot (the bench reads its ``analyse``); TypeError for another."""
    bot = make_bot(name, seed=seed, **options)
    if not bot.searches:
        raise TypeError(f"{name!r} is not a search bot")
    return bot


def _say(progress, text):
    if progress:
        print(text, file=sys.stderr, flush=True)


def _bar(progress, total, what):
    """A live progress bar (tqdm: count, rate, ETA) on stderr for a long loop, drawn only on a
    terminal; None otherwise (a log gets the section's summary lines only)."""
    if not progress or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=total, desc=what, unit="game", file=sys.stderr, mininterval=0.1, leave=False)


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2 ** 20, 1)
    except OSError:
        pass
    return None


def machine():
    """A description of this machine and of the software measured."""
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu": _cpu_model(), "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gib": _memory_gib(), "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "metro_ai": __version__, "build": build_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    for dist in ("numpy", "Cython", "open_spiel"):
        try:
            info[dist.lower()] = version(dist)
        except PackageNotFoundError:
            info[dist.lower()] = None
    return info


def position(game, players, stage, seed=DEAL):
    """The game's benchmark position (``Game.benchmark_position``) at `stage` of deal `seed`."""
    return load_game(game, players=players).benchmark_position(stage, seed)


def playouts_per_second(state, seconds):
    """Random play-outs to the end per second from ``state`` (the engine's C-level loop)."""
    n, t0 = 0, time.perf_counter()
    batch = 50
    while True:
        random_playouts(state, batch, n)
        n += batch
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n / elapsed


def search_rate(bot, state, seconds):
    """(iterations per second, tree nodes, iterations) of one ``seconds``-long search."""
    r = bot.analyse(state, Limit(time=seconds))
    return r.iterations / r.seconds, r.nodes, r.iterations


def games_per_second(fn, seconds):
    """Calls of ``fn(n)`` (n doubling from 1) until ``seconds`` have passed: games per second."""
    n, done, spent = 1, 0, 0.0
    while True:
        t0 = time.perf_counter()
        fn(n)
        spent += time.perf_counter() - t0
        done += n
        if spent >= seconds:
            return done / spent
        n *= 2


def _openspiel():
    try:
        from metro_ai.interop import openspiel as bridge
        from metro_ai.interop import openspiel_ismcts as osb
    except ImportError as exc:
        raise Skipped(f"needs OpenSpiel: pip install 'metro-ai[openspiel]' ({exc})") from exc
    return bridge, osb
