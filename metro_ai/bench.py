"""``metro-ai bench``: speed, memory and strength, every comparison measured in one run.

Sections (``--sections``, default all):

``engine``
    random full games per second: the Cython engine driven by its C-level play-out loop and from
    Python, against the game's pure-Python reference engine (``Game.reference``, shipped in the
    game's package), for every registered game that has one, at two player counts.
``options``
    random full games per second in the C-level loop of every game option set
    (``Game.option_sets``: each bool or choice option at its other values) next to the same game
    at its default options, timed in interleaved rounds: the ratio option / base.
``growth``
    how ``ismcts`` scales with the number of players and the stage of the game: iterations per
    second next to the engine's random play-outs per second from the same position, and tree
    bytes per iteration (ismcts, and mo-ismcts with its tree per player).
``parallel``
    iterations per second at 1, 2, ... workers (threads, and processes), speed-up against one
    worker, and how far past a 0.1 s time budget a search returns.
``memory``
    bytes per tree node, and the peak resident memory of a 1,000,000-iteration search in a fresh
    process.
``openspiel``
    our ``ismcts`` against OpenSpiel's ISMCTS on the same game, position and iteration budget
    (iterations per second); OpenSpiel's C++ bot if it runs on the bridged game (probed in a
    child process), else its Python bot; the table says which.  Extra ``openspiel``.
``strength``
    bot pairs (``--strength-pairs``, default ``ismcts:openspiel``: our ``ismcts`` against
    OpenSpiel's Python ISMCTS, extra ``openspiel``) at equal time per move (or equal iterations,
    ``--strength-iterations``), 2 players of ``--game`` (default: the default game) with game
    options ``--option NAME=VALUE``, 200 games a pair with the seats swapped on each deal; the
    first bot's win rate with a 95% Wilson interval.

Every game-specific fact (players, positions, reference engine, action space) comes from the game
classes in the registry; ``--games`` limits the per-game sections (engine, growth, memory) and
``--game`` picks the game of the others (parallel, openspiel, strength).

Writes a Markdown report and a JSON file (with the machine's description); ``--quick`` runs every
section briefly (CI uses it to keep them working; its figures are not for quoting).

Everything is seeded; timings and time-budgeted matches are wall clock, so they vary with the
machine and its load: the figures to quote are the ratios, measured side by side in one run.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import metro_ai
from metro_ai.bots.mcts import SearchBot
from metro_ai.bots.search import NODE_BYTES
from metro_ai.bots.seeding import derive
from metro_ai.engine.core import STAGES, build_info, random_playouts
from metro_ai.optionspec import parse_options
from metro_ai.play.loop import play_game
from metro_ai.play.ratings import wilson
from metro_ai.registry import DEFAULT_GAME, game_class, list_games

SECTIONS = ("engine", "options", "growth", "parallel", "memory", "openspiel", "strength")
DEAL = 11                                           # the deal of every fixed position
UCT_C = 0.7                                         # our default; returns are in [0, 1] for both
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
        base: dict = dict(seconds=0.1, repeats=1, rounds=1, memory_iterations=100_000, openspiel_iterations=50,
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


def searcher(name, seed=0, **options) -> SearchBot:
    """``make_bot`` for a search bot (the bench reads its ``analyse``); TypeError for another."""
    bot = metro_ai.make_bot(name, seed=seed, **options)
    if not isinstance(bot, SearchBot):
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


# ---- the machine -------------------------------------------------------------------------------

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
        "metro_ai": metro_ai.__version__, "build": build_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    for dist in ("numpy", "Cython", "open_spiel"):
        try:
            info[dist.lower()] = version(dist)
        except PackageNotFoundError:
            info[dist.lower()] = None
    return info


# ---- fixed positions and timing ----------------------------------------------------------------

def position(game, players, stage, seed=DEAL):
    """The game's benchmark position (``Game.benchmark_position``) at `stage` of deal `seed`."""
    return metro_ai.load_game(game, players=players).benchmark_position(stage, seed)


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
    r = bot.analyse(state, metro_ai.Limit(time=seconds))
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


# ---- sections ----------------------------------------------------------------------------------

def reference_of(game):
    """The game on its pure-Python reference engine (``Game.reference_game``), or None."""
    return game.reference_game()


def engine_section(cfg, progress):
    rows = []
    for name in cfg.game_names():
        for players in two_counts(name):
            game = metro_ai.load_game(name, players=players)
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


def option_rates(name, option_set, seconds, repeats):
    """Random full games per second in the engine's C-level loop for game `name` with
    `option_set` and for the same player count at the default options, timed for ``seconds``
    each in ``repeats`` interleaved rounds: medians of the rates and of the rounds' ratios."""
    players = option_set["players"]
    base = metro_ai.load_game(name, players=players).new_state(seed=1)
    opt = metro_ai.load_game(name, **option_set).new_state(seed=1)
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
                mo = searcher("mo-ismcts", seed=1).analyse(s, metro_ai.Limit(iterations=MO_ITERATIONS))
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


def time_margin(state, budget, repeats):
    """(median, max) seconds past ``Limit(time=budget)`` that ``choose`` returns."""
    overs = []
    for i in range(repeats):
        bot = searcher("ismcts", seed=i)
        t0 = time.perf_counter()
        bot.choose(state, metro_ai.Limit(time=budget))
        overs.append(time.perf_counter() - t0 - budget)
    return statistics.median(overs), max(overs)


def parallel_section(cfg, progress):
    rows = []
    secs = max(cfg.seconds, 0.5 if not cfg.quick else 0.1)
    for players in two_counts(cfg.game):
        s = position(cfg.game, players, "opening")
        base = None
        for backend in ("threads", "processes"):
            for w in cfg.workers:
                if backend == "processes" and w == 1:
                    continue
                bot = searcher("ismcts", seed=1, workers=w, backend=backend)
                bot.analyse(s, metro_ai.Limit(iterations=100))     # start the workers before timing
                # processes pay a start-up per search: time them over twice as long
                r = search_rate(bot, s, secs * (2 if backend == "processes" else 1))[0]
                base = base or r
                rows.append({"players": players, "workers": w, "backend": backend, "rate": r, "speedup": r / base})
                _say(progress, f"  parallel {cfg.game} {players}p {backend} x{w}: {r:,.0f} it/s")
    med, worst = time_margin(position(cfg.game, two_counts(cfg.game)[0], "opening"), 0.1, 5 if cfg.quick else 20)
    return {
        "title": "Parallel search: ismcts iterations per second by workers",
        "note": (f"{game_class(cfg.game).title}, opening (deal {DEAL}), root-parallel search, one {secs} s search per row (processes "
                 f"{2 * secs} s, start-up included); speed-up against 1 thread. Time budget 0.1 s: the search "
                 f"returned {med * 1000:.1f} ms past it (median of {5 if cfg.quick else 20}), "
                 f"{worst * 1000:.1f} ms at worst. For 1-16 workers on a larger machine: "
                 "benches/device_metro.sh."),
        "game": cfg.game,
        "columns": [("players", "players", "{}"), ("workers", "workers", "{}"), ("backend", "backend", "{}"),
                    ("rate", "it/s", "{:,.0f}"), ("speedup", "speed-up", "{:.2f}x")],
        "rows": rows, "time_margin": {"budget": 0.1, "median_over": med, "max_over": worst}}


_PEAK = """
import json, resource, sys, metro_ai

def status(field):   # Linux: current (VmRSS) and peak (VmHWM) resident KiB; else the peak so far
    try:
        for line in open("/proc/self/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

game, players, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = metro_ai.load_game(game, players=players).new_state({deal})
bot = metro_ai.make_bot("ismcts", seed=1)
base = status("VmRSS")
r = bot.analyse(s, metro_ai.Limit(iterations=iterations))
peak = status("VmHWM")
print(json.dumps({{"base_kib": base, "peak_kib": peak, "nodes": r.nodes, "seconds": r.seconds}}))
""".format(deal=DEAL)


def peak_memory(game, players, iterations):
    """Memory of one ``iterations``-long ismcts search in a fresh process (Linux ``ru_maxrss``)."""
    out = subprocess.run([sys.executable, "-c", _PEAK, game, str(players), str(iterations)],
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


def _openspiel():
    try:
        from metro_ai.interop import openspiel as bridge
        from metro_ai.interop import openspiel_ismcts as osb
    except ImportError as exc:
        raise Skipped(f"needs OpenSpiel: pip install 'metro-ai[openspiel]' ({exc})") from exc
    return bridge, osb


_CPP_PROBE = """
import sys
from metro_ai.interop import openspiel as bridge, openspiel_ismcts as osb
import metro_ai
game = bridge.load(sys.argv[2], players=int(sys.argv[1]))
state = metro_ai.load_game(sys.argv[2], players=int(sys.argv[1])).new_state(11)
osb.cpp_bot(0, 0.7, 20).step(bridge.from_state(game, state))
"""


def openspiel_cpp_accepts(players, game=DEFAULT_GAME):
    """(True, 'ran') if OpenSpiel's C++ ISMCTS runs on the bridged `game`, tried in a child
    process (it may crash the interpreter); else (False, why)."""
    try:
        p = subprocess.run([sys.executable, "-c", _CPP_PROBE, str(players), game], capture_output=True, text=True,
                           timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    if p.returncode == 0:
        return True, "ran"
    if p.returncode < 0:
        return False, f"crashed (signal {-p.returncode})"
    return False, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:120]


def openspiel_section(cfg, progress):
    bridge, osb = _openspiel()
    rows = []
    for players in two_counts(cfg.game):
        ok, why = openspiel_cpp_accepts(players, cfg.game)
        state = metro_ai.load_game(cfg.game, players=players).new_state(DEAL)
        game = bridge.load(cfg.game, players=players)
        ours, theirs = [], []
        for rep in range(cfg.openspiel_repeats):
            r = searcher("ismcts", seed=rep, c=UCT_C).analyse(state, metro_ai.Limit(iterations=cfg.openspiel_iterations))
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
        "rows": rows, "game": cfg.game, "tables": _shared_section(cfg, progress)}


def _shared_section(cfg, progress):
    from metro_ai.bench_shared import shared_section    # it imports this module's helpers
    return shared_section(cfg, progress)


def parse_pairs(text):
    """Strength pairs from ``--strength-pairs``: comma-separated ``BOT:OPPONENT`` (bot names of
    ``metro-ai bots``, or ``openspiel`` as the opponent); ValueError says what is wrong."""
    pairs = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        bot, sep, opponent = (s.strip() for s in item.partition(":"))
        if not sep or not bot or not opponent:
            raise ValueError(f"--strength-pairs: expected BOT:OPPONENT, got {item!r}")
        for name in (bot, opponent):
            if name != OPENSPIEL and name not in metro_ai.list_bots():
                raise ValueError(f"--strength-pairs: unknown bot {name!r}; bots are "
                                 f"{', '.join(metro_ai.list_bots())} (and {OPENSPIEL} as the opponent)")
        if bot == OPENSPIEL:
            raise ValueError(f"--strength-pairs: {OPENSPIEL} plays the opponent's seat only ({item!r})")
        pairs.append((bot, opponent))
    if not pairs:
        raise ValueError("--strength-pairs: no pair given")
    return tuple(pairs)


def _pair_name(pair):
    return f"{pair[0]} vs {pair[1]}"


def _seat(name, seed, game_name, options, seconds, iterations, its):
    """A seat of a strength game (play_game's chooser): bot `name` seeded with `seed`; the
    iterations of each of its searches are appended to `its` (search bots and OpenSpiel's)."""
    if name == OPENSPIEL:
        bridge, osb = _openspiel()
        game = bridge.load(game_name, players=2, **options)
        theirs = osb.python_bot(game, seed, UCT_C, iterations=iterations, seconds=seconds)

        def their_seat(state, limit):
            action = osb.choose(theirs, game, state)
            its.append(iterations or theirs.last_simulations)
            return action
        return their_seat
    bot = metro_ai.make_bot(name, seed=seed)
    if not isinstance(bot, SearchBot):
        return lambda state, limit: bot.choose(state, limit)

    def our_seat(state, limit):
        r = bot.analyse(state, limit)
        its.append(r.iterations)
        return r.chosen
    return our_seat


def strength_game(seed, index, seconds=None, iterations=None, game_name=DEFAULT_GAME, pair=DEFAULT_PAIRS[0],
                  options=None):
    """One 2-player game of `game_name` (with game `options`): bot ``pair[0]`` in seat
    ``index % 2`` of deal ``index // 2`` against ``pair[1]`` (``openspiel``: OpenSpiel's Python
    ISMCTS), both with ``seconds`` or both with ``iterations`` per move (bots that do not search
    ignore the budget); a player with a single legal action plays it without a search.
    ``first``: 1 if the tested bot scored more, 0.5 on a tie, else 0."""
    options = dict(options or {})
    deal, seat = divmod(index, 2)
    state = metro_ai.load_game(game_name, players=2, **options).new_state(derive(seed, deal))
    its: dict[str, list] = {"bot": [], "opponent": []}
    seats = [_seat(pair[1], derive(seed, deal, seat, 2), game_name, options, seconds, iterations, its["opponent"])] * 2
    seats[seat] = _seat(pair[0], derive(seed, deal, seat, 1), game_name, options, seconds, iterations, its["bot"])
    play_game(state, seats, [metro_ai.Limit(time=seconds, iterations=iterations)] * 2, play_forced=True)
    scores = state.scores()
    first = 1.0 if scores[seat] > scores[1 - seat] else 0.5 if scores[seat] == scores[1 - seat] else 0.0
    return {"pair": _pair_name(pair), "deal": deal, "seat": seat, "scores": list(scores), "first": first,
            "bot_iterations": statistics.median(its["bot"]) if its["bot"] else 0,
            "opponent_iterations": statistics.median(its["opponent"]) if its["opponent"] else 0}


def _options_note(options):
    return (" with " + ", ".join(f"{k}={json.dumps(v)}" for k, v in options.items())) if options else ""


def strength_section(cfg, progress):
    if any(OPENSPIEL in pair for pair in cfg.strength_pairs):
        _openspiel()
    from joblib import Parallel, delayed
    games = cfg.strength_games + cfg.strength_games % 2
    jobs = cfg.jobs or os.cpu_count() or 1
    options = dict(cfg.options)
    metro_ai.load_game(cfg.game, players=2, **options)          # bad options fail before any game
    if cfg.strength_iterations:
        budget, per_move = (None, cfg.strength_iterations), f"{cfg.strength_iterations:,} iterations"
    else:
        budget, per_move = (cfg.strength_time, None), f"{cfg.strength_time} s"
    rows, out = [], []
    for pair in cfg.strength_pairs:
        done, t0 = [], time.perf_counter()
        results = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(strength_game)(cfg.seed, i, *budget, cfg.game, pair, options) for i in range(games))
        bar = _bar(progress, games, f"  strength {_pair_name(pair)}")
        for i, r in enumerate(results, 1):
            done.append(r)
            if bar is not None:
                bar.set_postfix_str(f"first {sum(x['first'] for x in done) / i:.1%}", refresh=False)
                bar.update(1)
        if bar is not None:
            bar.close()
        _say(progress, f"  strength {_pair_name(pair)} {games}/{games} games, first "
                       f"{sum(x['first'] for x in done) / games:.1%}, {time.perf_counter() - t0:.0f} s")
        first = sum(r["first"] for r in done) / games
        lo, hi = wilson(first, games)
        rows.append({"pair": _pair_name(pair), "players": 2, "games": games, "budget": per_move,
                     "wins": sum(r["first"] == 1.0 for r in done), "draws": sum(r["first"] == 0.5 for r in done),
                     "losses": sum(r["first"] == 0.0 for r in done), "first_rate": first, "ci_low": lo, "ci_high": hi,
                     "bot_iterations": statistics.median(r["bot_iterations"] for r in done),
                     "opponent_iterations": statistics.median(r["opponent_iterations"] for r in done),
                     "wall_seconds": time.perf_counter() - t0})
        out += done
    openspiel = ("OpenSpiel's Python ISMCTSBot (its C++ bot does not run on games registered from Python) "
                 f"searches the same engine through the bridge, random play-outs, uct_c {UCT_C}, for the same "
                 "budget. " if any(OPENSPIEL in pair for pair in cfg.strength_pairs) else "")
    return {
        "title": ("Strength at equal " + ("iterations" if cfg.strength_iterations else "time") + " per move: " +
                  ", ".join(_pair_name(p) for p in cfg.strength_pairs)),
        "note": (f"{game_class(cfg.game).title}{_options_note(options)}, 2 players, {games} games a pair: "
                 f"{games // 2} deals (seeds derived from {cfg.seed}), each played twice with the seats swapped; "
                 f"{per_move} per move for both sides (greedy and random ignore it), {jobs} games at a time. "
                 "Our search bots at their defaults (uct_c 0.7, the game's play-out settings). " + openspiel +
                 "The win rate is the first-named bot's; a draw counts one half. 95% Wilson interval. "
                 "'Iterations a move': median over games of each side's median (0: the bot does not search). " +
                 ("Iteration budgets: the same seed plays the same games." if cfg.strength_iterations else
                  "Time budgets are not reproducible bit for bit.")),
        "columns": [("pair", "match", "{}"), ("players", "players", "{}"), ("games", "games", "{}"),
                    ("budget", "budget a move", "{}"), ("wins", "wins", "{}"), ("draws", "draws", "{}"),
                    ("losses", "losses", "{}"), ("first_rate", "win rate", "{:.1%}"),
                    ("ci_low", "95% low", "{:.1%}"), ("ci_high", "95% high", "{:.1%}"),
                    ("bot_iterations", "bot iterations a move", "{:,.0f}"),
                    ("opponent_iterations", "opponent iterations a move", "{:,.0f}"),
                    ("wall_seconds", "wall s", "{:,.0f}")],
        "rows": rows, "games": out, "game": cfg.game, "options": options}


RUNNERS = {"engine": engine_section, "options": options_section, "growth": growth_section, "parallel": parallel_section,
           "memory": memory_section, "openspiel": openspiel_section, "strength": strength_section}


# ---- the run and its report ---------------------------------------------------------------------

def check_sections(sections):
    """``sections`` if every one is known and there is at least one; else ValueError."""
    bad = [s for s in sections if s not in RUNNERS]
    if bad or not sections:
        raise ValueError(f"unknown bench section(s) {', '.join(map(repr, bad)) or '(none given)'}; "
                         f"sections are {', '.join(SECTIONS)}")
    return sections


def run(cfg: Settings, progress=True):
    """Run ``cfg.sections``; a dict with the machine, the settings and each section's result
    (``{"skipped": why}`` for a section that cannot run here)."""
    check_sections(cfg.sections)
    report = {"machine": machine(), "settings": asdict(cfg), "sections": {}}
    for name in cfg.sections:
        _say(progress, f"[{name}]")
        t0 = time.perf_counter()
        try:
            result = RUNNERS[name](cfg, progress)
        except Skipped as why:
            result = {"skipped": str(why)}
            _say(progress, f"  skipped: {why}")
        result["wall_seconds"] = time.perf_counter() - t0
        report["sections"][name] = result
    return report


def markdown(report, command=None):
    """The report as Markdown: the machine, then one table per section."""
    m = report["machine"]
    about = (f"{m['date']}; metro-ai {m['metro_ai']}; {m['python']}; {m['cpu']}, {m['usable_cpus']} of "
             f"{m['logical_cpus']} CPUs usable, {m['memory_gib']} GiB; {m['platform']}; numpy {m['numpy']}, "
             f"Cython {m['cython']}, open_spiel {m['open_spiel'] or 'not installed'}; built optimized: "
             f"{m['build'].get('optimized')}.")
    lines = ["# metro-ai bench", "", about]
    if report["settings"].get("quick"):
        lines += ["", "**Quick mode: short timings, few games; not figures to quote.**"]
    if command:
        lines += ["", f"Command: `{command}`"]
    for name, sec in report["sections"].items():
        lines += ["", f"## {sec.get('title', name)}", ""]
        if "skipped" in sec:
            lines.append(f"Skipped: {sec['skipped']}")
            continue
        for i, table in enumerate([sec, *sec.get("tables", [])]):     # a section may add tables
            if i:
                lines += ["", f"### {table['title']}", ""]
            cols = table["columns"]
            lines.append("| " + " | ".join(h for _, h, _ in cols) + " |")
            lines.append("|" + "---|" * len(cols))
            for row in table["rows"]:
                lines.append("| " + " | ".join(fmt.format(row[key]) for key, _, fmt in cols) + " |")
            lines += ["", table["note"]]
    return "\n".join(lines) + "\n"


def _json_ready(report):
    """The report without the column formats (tuples of format strings)."""
    out = {k: v for k, v in report.items() if k != "sections"}
    def table(sec):
        return {k: v for k, v in sec.items() if k not in ("columns", "tables")} | (
            {"columns": [key for key, _, _ in sec["columns"]]} if "columns" in sec else {}) | (
            {"tables": [table(t) for t in sec["tables"]]} if "tables" in sec else {})
    out["sections"] = {name: table(sec) for name, sec in report["sections"].items()}
    return out


def add_arguments(p):
    p.add_argument("--sections", default=None, metavar="LIST",
                   help="comma-separated sections to run (default: all): " + ", ".join(SECTIONS))
    p.add_argument("--quick", action="store_true", help="every section briefly (CI); figures not for quoting")
    p.add_argument("--seconds", type=float, default=None, help="seconds per timing (default 1; quick 0.1)")
    p.add_argument("--workers", type=int, nargs="+", default=None, metavar="N",
                   help="worker counts for the parallel section (default: 1 2)")
    p.add_argument("--memory-iterations", type=int, default=None, metavar="N",
                   help="iterations of the memory search (default 1,000,000; quick 100,000)")
    p.add_argument("--openspiel-iterations", type=int, default=None, metavar="N",
                   help="iterations per search in the OpenSpiel speed comparison (default 1,000)")
    p.add_argument("--strength-games", type=int, default=None, metavar="N",
                   help="games against OpenSpiel's ISMCTS, rounded up to even (default 200; quick 4)")
    p.add_argument("--strength-time", type=float, default=None, metavar="SECONDS",
                   help="seconds per move for both sides in the strength games (default 0.1)")
    p.add_argument("--strength-iterations", type=int, default=None, metavar="N",
                   help="instead of --strength-time: N iterations per move for both sides (reproducible)")
    p.add_argument("--strength-pairs", default=None, metavar="LIST",
                   help="comma-separated BOT:OPPONENT pairs of the strength section, each a figure (default "
                        "ismcts:openspiel; openspiel: OpenSpiel's Python ISMCTS), e.g. ismcts:greedy,mo-ismcts:ismcts")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option of the strength section's games (e.g. companies=true); repeat it for more")
    p.add_argument("--jobs", type=int, default=0, help="strength games at a time (default 0: one per CPU)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the strength deals (default 2026)")
    p.add_argument("--game", default=DEFAULT_GAME, metavar="GAME",
                   help=f"the game of the parallel, openspiel and strength sections (default: {DEFAULT_GAME})")
    p.add_argument("--games", default=None, metavar="LIST",
                   help="comma-separated games of the engine, growth and memory sections (default: all): "
                        + ", ".join(list_games()))
    p.add_argument("--markdown", default="bench.md", metavar="FILE", help="Markdown report (default bench.md)")
    p.add_argument("--json", default="bench.json", metavar="FILE", help="JSON report (default bench.json)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def settings_from(args):
    """Settings from parsed arguments; ValueError says what is wrong."""
    names = SECTIONS if args.sections is None else (s.strip() for s in args.sections.split(","))
    sections = check_sections(tuple(s for s in names if s))
    given = {k: v for k, v in {
        "seconds": args.seconds, "workers": tuple(args.workers) if args.workers else None,
        "memory_iterations": args.memory_iterations, "openspiel_iterations": args.openspiel_iterations,
        "strength_games": args.strength_games, "strength_time": args.strength_time,
        "strength_iterations": args.strength_iterations}.items() if v is not None}
    for k, v in given.items():
        if k not in ("workers", "options", "strength_pairs") and v <= 0:
            raise ValueError(f"--{k.replace('_', '-')} must be positive, not {v}")
    if any(w < 1 for w in given.get("workers", ())):
        raise ValueError("--workers: every count must be at least 1")
    if args.strength_time is not None and args.strength_iterations is not None:
        raise ValueError("give --strength-time or --strength-iterations, not both")
    if args.jobs < 0:
        raise ValueError("--jobs must be 0 (one per CPU) or positive")
    games = () if args.games is None else tuple(g.strip() for g in args.games.split(",") if g.strip())
    for g in (*games, args.game):
        game_class(g)                  # ValueError naming the games
    options = parse_options(args.option)
    if "players" in options:
        raise ValueError("--option players: the strength games are 2-player games")
    if options:
        metro_ai.load_game(args.game, players=2, **options)      # ValueError naming a bad option
        given["options"] = options
    if args.strength_pairs is not None:
        given["strength_pairs"] = parse_pairs(args.strength_pairs)
    common = dict(sections=sections, jobs=args.jobs, seed=args.seed, game=args.game, games=games, **given)
    return Settings.quick_run(**common) if args.quick else Settings(**common)


def execute(args, command=None):
    """Run from parsed arguments, write the reports, print the Markdown; the exit code.
    Bad settings raise ValueError before anything runs (the command line's usage error)."""
    cfg = settings_from(args)
    for path in (args.markdown, args.json):        # fail now, not after a long run
        if not Path(path).resolve().parent.is_dir():
            raise ValueError(f"cannot write {path}: no such directory")
    report = run(cfg, progress=not args.quiet)
    text = markdown(report, command)
    Path(args.markdown).write_text(text)
    Path(args.json).write_text(json.dumps(_json_ready(report), indent=2) + "\n")
    print(text)
    print(f"wrote {args.markdown} and {args.json}", file=sys.stderr)
    skipped = [n for n, s in report["sections"].items() if "skipped" in s]
    return 1 if (args.sections is not None and skipped) else 0
