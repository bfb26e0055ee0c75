"""``metro-ai bench --versus OTHER``: this build against another installed build of metro-ai, the
way chess engines are tested against their last version.

The other build runs as a subprocess, ``OTHER serve`` (its ``metro-ai`` executable) or ``OTHER -m
metro_ai serve`` (its Python), and is spoken to over stdio in the protocol of docs/protocol.md.
The game is owned by this build's engine; the other build keeps a copy of it (``new_game`` with
the same game, options and seed) into which every move is replayed (``apply``), and is asked only
for its moves (``go``). Before each of its moves its legal actions are compared with ours, and
after each move its player to move, the move's text and at the end its returns: any difference is
an error (the two builds do not play the same game) that names the game, the ply and what
differs.

Each deal is played twice with the seats swapped (same seed; the builds exchange seats); with
more than two players this build takes the even seats in the first game of a pair and the odd
seats in the second. A game's score for this build is the mean, over every (this build's seat,
the other build's seat) pair, of 1 if its return is higher, 1/2 if equal, 0 if lower: win 1, draw
1/2, loss 0 with two players; by rank among the two builds' seats with more.

With ``jobs`` above 1 that many pairs are played at a time, each on its own server of the other
build; the SPRT still reads the pairs in deal order, so a run stops where the same run one pair
at a time would (pairs under way beyond that are left out), and with an iteration budget it
gives the same games.

Statistics (fishtest's, for game pairs):

- the pair score (the mean of a pair's two game scores) takes the values of a grid, with two
  players the pentanomial 0, 1/4, 1/2, 3/4, 1; the SPRT's log-likelihood ratio is the
  generalised SPRT of fishtest (Van den Bergh): the pair scores' empirical distribution,
  re-weighted by maximum likelihood to the expected score of each hypothesis, each grid value
  given a small prior count. Pairs rather than games, because the two games of a deal share
  its cards and tiles, so they are not independent (the pentanomial model counts that; a
  trinomial over games would overstate the variance when seats matter, understate it when deals
  do);
- Elo is logistic: score = 1 / (1 + 10^(-elo/400));
- a fixed number of games reports the score with its 95% Wilson interval (over games) and the
  Elo with the interval of the pair scores' normal approximation (and of the Wilson bounds).
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import dumps
from metro_ai.play.ratings import wilson
from metro_ai.registry import DEFAULT_GAME, game_class, load_game
from metro_ai.version import __version__

__all__ = ["OtherBuild", "Sprt", "VersusError", "VersusSettings", "add_arguments", "compact_moves", "elo_from_score",
           "elo_interval", "execute", "game_score", "llr", "markdown", "pair_grid", "play_game", "report_json",
           "Interrupted", "run_pairs", "run_versus", "score_from_elo", "seats_of", "serve_command", "settings_from", "sprt_bounds",
           "summarise", "versus_only_given"]

DEFAULT_TIME = 0.05
MAX_JOBS = 256              # pairs at a time: a sanity cap (each is a server process of the other build)
PRIOR = 1e-3                # fishtest's prior count of every pair-score value (keeps the LLR finite)


class VersusError(RuntimeError):
    """The match cannot go on: the other build failed, refused a request, or plays another game."""


# ---------------------------------------------------------------- statistics

def score_from_elo(elo: float) -> float:
    """The expected score of a player `elo` logistic Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of an expected `score` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0      # + 0.0: no -0


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds (lower, upper) on the LLR: H0 is accepted at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def pair_grid(players: int = 2) -> list[float]:
    """The values a pair score can take: multiples of 1 / (4 a b), a and b the two builds' seat
    counts (a game score is a mean of a b outcomes 0, 1/2, 1; a pair score the mean of two games;
    with 2 players the pentanomial 0, 1/4, 1/2, 3/4, 1)."""
    a, b = (players + 1) // 2, players // 2
    n = 4 * a * b
    return [i / n for i in range(n + 1)]


def _mle(values: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution nearest (maximum likelihood) to `probs` over `values` with mean `s`:
    q_i = p_i / (1 + x (v_i - s)), x solving sum p_i (v_i - s) / (1 + x (v_i - s)) = 0."""
    d = [v - s for v in values]
    lo_d, hi_d = min(d), max(d)
    if not (lo_d < 0 < hi_d):
        raise ValueError(f"the expected score {s} is not inside the observed values")
    lo, hi = -1.0 / hi_d, -1.0 / lo_d        # where every 1 + x d_i stays positive
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def f(x: float) -> float:                # decreasing in x
        return sum(p * di / (1.0 + x * di) for p, di in zip(probs, d))
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    q = [p / (1.0 + x * di) for p, di in zip(probs, d)]
    total = sum(q)
    return [qi / total for qi in q]


def llr(counts: dict[float, float], elo0: float, elo1: float, prior: float = PRIOR,
        grid: Optional[Iterable[float]] = None) -> float:
    """The generalised SPRT's log-likelihood ratio of H1 (Elo `elo1`) against H0 (Elo `elo0`)
    given `counts` (pair score -> number of pairs): ``N sum p_i log(q1_i / q0_i)``, p the
    empirical distribution (each value of `grid`, default the observed values, with `prior`
    pairs added), q0 and q1 its maximum-likelihood re-weightings to the expected scores of elo0
    and elo1. 0 before any pair."""
    values = sorted(set(counts) | set(grid or ()))
    n = [counts.get(v, 0.0) + prior for v in values]
    total = sum(n)
    if sum(counts.values()) == 0 or total <= 0:
        return 0.0
    p = [c / total for c in n]
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    try:
        q0, q1 = _mle(values, p, s0), _mle(values, p, s1)
    except ValueError:
        return 0.0                           # one value only, without a prior: nothing to tell
    return total * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1) if pi > 0)


@dataclass
class Sprt:
    """A sequential probability ratio test over game pairs (see the module's note)."""
    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    players: int = 2
    counts: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.elo1 > self.elo0:
            raise ValueError(f"SPRT: elo1 ({self.elo1}) must be above elo0 ({self.elo0})")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"SPRT: {name} must be between 0 and 0.5, got {getattr(self, name)}")

    def add(self, pair_score: float) -> None:
        key = round(pair_score, 9)
        self.counts[key] = self.counts.get(key, 0) + 1

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    @property
    def llr(self) -> float:
        return llr(self.counts, self.elo0, self.elo1, grid=pair_grid(self.players))

    def verdict(self) -> Optional[str]:
        """"H1" (the stronger hypothesis accepted), "H0", or None (go on)."""
        lo, hi = self.bounds
        value = self.llr
        return "H1" if value >= hi else "H0" if value <= lo else None


def elo_interval(pair_scores: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """(Elo, low, high): the Elo of the mean pair score and of its normal-approximation interval.
    One pair shows no spread, so its interval is unbounded (as no pair's is)."""
    n = len(pair_scores)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(pair_scores) / n
    if n == 1:
        return elo_from_score(mean), -math.inf, math.inf
    sd = statistics.pstdev(pair_scores)
    half = z * sd / math.sqrt(n)
    return elo_from_score(mean), elo_from_score(mean - half), elo_from_score(mean + half)


def seats_of(players: int, swapped: bool) -> list[int]:
    """This build's seats: the even ones, or the odd ones in the swapped game of a pair."""
    return [s for s in range(players) if s % 2 == (1 if swapped else 0)]


def game_score(returns: list[float], ours: list[int]) -> float:
    """This build's score in a game: over every (our seat, their seat) pair, 1 if our return is
    higher, 1/2 if equal, 0 if lower; the mean."""
    theirs = [s for s in range(len(returns)) if s not in ours]
    outcomes = [1.0 if returns[a] > returns[b] else 0.5 if returns[a] == returns[b] else 0.0
                for a in ours for b in theirs]
    return sum(outcomes) / len(outcomes)


def summarise(scores: list[float], sprt: Sprt) -> dict[str, Any]:
    """The figures of a run from its game scores (in order, pairs consecutive)."""
    games = len(scores)
    pairs = [(scores[i] + scores[i + 1]) / 2 for i in range(0, games - 1, 2)]
    score = sum(scores) / games if games else 0.5
    lo, hi = wilson(score, games)
    elo, elo_lo, elo_hi = elo_interval(pairs)
    penta: dict[str, int] = {}
    for v in pairs:
        penta[f"{v:g}"] = penta.get(f"{v:g}", 0) + 1
    return {"games": games, "pairs": len(pairs), "score": score,
            "wins": sum(s == 1.0 for s in scores), "draws": sum(s == 0.5 for s in scores),
            "losses": sum(s == 0.0 for s in scores), "pair_scores": dict(sorted(penta.items(), key=lambda kv: float(kv[0]))),
            "wilson_low": lo, "wilson_high": hi, "elo": elo, "elo_low": elo_lo, "elo_high": elo_hi,
            "elo_wilson_low": elo_from_score(lo), "elo_wilson_high": elo_from_score(hi),
            "llr": sprt.llr, "llr_bounds": list(sprt.bounds), "elo0": sprt.elo0, "elo1": sprt.elo1,
            "alpha": sprt.alpha, "beta": sprt.beta, "verdict": sprt.verdict()}


class Interrupted(Exception):
    """A run stopped by the user (Ctrl-C): `scores` are those of the pairs read before it."""

    def __init__(self, scores: list[float]):
        super().__init__(f"interrupted after {len(scores)} games")
        self.scores = scores


def run_pairs(play_pair: Callable[[int], tuple[float, float]], sprt: Sprt, pairs: Optional[int] = None,
              max_pairs: Optional[int] = None, report: Optional[Callable[[int, list[float]], None]] = None,
              jobs: int = 1) -> list[float]:
    """Play pairs ``play_pair(i)`` (this build's two game scores) until `pairs` are played (fixed
    mode) or, with ``pairs=None``, until the SPRT decides or `max_pairs` are played; the game
    scores in order. ``report(i, scores)`` after each pair. With `jobs` above 1, that many pairs
    are played at a time in threads, and their scores are read in pair order all the same: the
    SPRT stops at the pair it would stop at one at a time, and pairs under way past it are
    waited for and left out. A pair's error is raised when its turn comes. Ctrl-C raises
    `Interrupted` with the scores read so far; pairs under way are abandoned, not waited for."""
    if (pairs is None) == (max_pairs is None):
        raise ValueError("give pairs (a fixed number) or max_pairs (an SPRT's cap), one of them")
    scores: list[float] = []
    most = pairs if pairs is not None else max_pairs
    assert most is not None

    def take(result: tuple[float, float]) -> bool:
        """Add one pair's scores; True if the run is over."""
        a, b = result
        scores.extend((a, b))
        sprt.add((a + b) / 2)
        if report is not None:
            report(len(scores) // 2, scores)
        return pairs is None and sprt.verdict() is not None

    if jobs <= 1:
        try:
            for i in range(most):
                if take(play_pair(i)):
                    break
        except KeyboardInterrupt:
            raise Interrupted(scores) from None
        return scores
    futures: dict[int, Future] = {}
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="versus-pair")
    try:
        done = queued = 0
        while done < most:
            # keep `jobs` pairs running, and never run far ahead of the next pair to read
            while queued < most and queued < done + 4 * jobs and \
                    sum(not f.done() for f in futures.values()) < jobs:
                futures[queued] = pool.submit(play_pair, queued)
                queued += 1
            if not futures[done].done():
                wait([f for f in futures.values() if not f.done()], return_when=FIRST_COMPLETED)
                continue
            over = take(futures.pop(done).result())
            done += 1
            if over:
                break
    except KeyboardInterrupt:
        # the pairs under way end when their servers close (the caller's); not waited for here
        pool.shutdown(wait=False, cancel_futures=True)
        raise Interrupted(scores) from None
    finally:
        for f in futures.values():
            f.cancel()
    pool.shutdown(wait=True)
    return scores


# ---------------------------------------------------------------- the other build

def serve_command(other: str) -> list[str]:
    """The command that starts `other`'s protocol server over stdio: ``OTHER serve`` for a
    ``metro-ai`` executable, ``OTHER -m metro_ai serve`` for a Python; a virtual environment's
    folder is read as its ``bin/metro-ai``. ValueError if there is no such program."""
    path = Path(other).expanduser()
    if path.is_dir():
        for candidate in (path / "bin" / "metro-ai", path / "Scripts" / "metro-ai.exe"):
            if candidate.exists():
                path = candidate
                break
        else:
            raise ValueError(f"--versus {other}: a folder without bin/metro-ai (give the other build's "
                             "metro-ai executable or its python)")
    if not path.exists():
        found = shutil.which(other)
        if found is None:
            raise ValueError(f"--versus {other}: no such file (give the other build's metro-ai executable "
                             "or its python, e.g. /path/.venv/bin/metro-ai)")
        path = Path(found)
    if not os.access(path, os.X_OK):
        raise ValueError(f"--versus {other}: not an executable file")
    path = path.absolute()     # the servers start in a folder of their own: a relative path would not lead there
    if re.fullmatch(r"python[0-9.]*(\.exe)?", path.name):
        return [str(path), "-m", "metro_ai", "serve"]
    return [str(path), "serve"]


class OtherBuild:
    """The other build's ``serve`` over stdio: ``call(method, **params)`` returns a result or
    raises VersusError with the server's error. A context manager (closes the server)."""

    def __init__(self, other: str, startup_seconds: float = 120.0):
        self.command = serve_command(other)
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            # Run outside any checkout: `python -m` looks in the working directory first.
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, cwd=tempfile.gettempdir(), bufsize=0)
        except OSError as exc:
            raise ValueError(f"--versus: cannot start {' '.join(self.command)}: {exc}") from None
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0
        self.hello = self.call("hello", timeout=startup_seconds, client="metro-ai bench --versus")
        if self.hello.get("protocol") != "metro-ai":
            raise VersusError(f"{' '.join(self.command)} does not speak the metro-ai protocol")

    def _read(self):
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-2000:]

    def call(self, method: str, timeout: float = 120.0, **params) -> Any:
        self._next += 1
        request = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((dumps(request, compact=True) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as exc:
            raise VersusError(f"the other build ({' '.join(self.command)}) stopped: {exc}\n{self._stderr_tail()}") from None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise VersusError(f"the other build did not answer {method} within {timeout:g} s") from None
            if line is None:
                raise VersusError(f"the other build ({' '.join(self.command)}) ended while asked {method}:\n"
                                  f"{self._stderr_tail()}")
            message = json.loads(line)
            if message.get("id") != self._next:
                continue                          # a progress notification (or a stray answer)
            if "error" in message:
                err = message["error"]
                raise VersusError(f"the other build refused {method} ({err.get('code')}): {err.get('message')}")
            return message["result"]

    def close(self):
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()           # stdio: the server ends when its input ends
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------- the match

@dataclass
class VersusSettings:
    other: str
    game: str = DEFAULT_GAME
    options: dict = field(default_factory=dict)
    players: int = 2
    bot: str = "hard"
    other_bot: Optional[str] = None          # None: the same spec as bot
    time: Optional[float] = None             # seconds per move (default DEFAULT_TIME unless iterations)
    iterations: Optional[int] = None
    games: Optional[int] = None              # fixed mode (rounded up to even); None: SPRT
    max_games: int = 1000
    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    seed: int = 2026
    jobs: int = 1                            # pairs at a time (0: one per CPU)

    def __post_init__(self):
        if self.other_bot is None:
            self.other_bot = self.bot
        for spec in (self.bot, self.other_bot):
            try:
                BotSpec.parse(spec)
            except BotSpecError as exc:
                raise ValueError(str(exc)) from None
        if self.time is not None and self.iterations is not None:
            raise ValueError("give --time or --iterations, not both")
        if self.time is None and self.iterations is None:
            self.time = DEFAULT_TIME
        if self.time is not None and not (0 < self.time < math.inf):
            raise ValueError(f"--time must be a positive number of seconds, not {self.time}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"--iterations must be positive, not {self.iterations}")
        if self.games is not None and self.games < 1:
            raise ValueError(f"--games must be positive, not {self.games}")
        if self.max_games < 2:
            raise ValueError(f"--max-games must be at least 2, not {self.max_games}")
        if self.jobs == 0:
            self.jobs = os.cpu_count() or 1
        if not 1 <= self.jobs <= MAX_JOBS:
            raise ValueError(f"--jobs must be 0 (one per CPU) or 1 to {MAX_JOBS} pairs at a time, not {self.jobs}")
        if "players" in self.options:
            raise ValueError("give the player count with --players, not --option players")
        cls = game_class(self.game)          # ValueError naming the games
        if not cls.min_players <= self.players <= cls.max_players or self.players < 2:
            raise ValueError(f"--players {self.players}: {self.game} takes {max(2, cls.min_players)} to "
                             f"{cls.max_players} players")
        load_game(self.game, players=self.players, **self.options)      # ValueError naming a bad option
        Sprt(self.elo0, self.elo1, self.alpha, self.beta)                # ValueError for bad hypotheses

    @property
    def limit(self) -> Limit:
        return Limit(iterations=self.iterations, time=self.time)

    def budget_text(self) -> str:
        return f"{self.iterations:,} iterations" if self.iterations else f"{self.time:g} s"


def _check_server(other: OtherBuild, cfg: VersusSettings) -> None:
    """Refuse, before any game, what the other build would refuse: an unknown game or a time per
    move over its ``max_search_seconds``."""
    hello = other.hello
    if cfg.game not in hello.get("games", {}):
        raise VersusError(f"the other build has no game {cfg.game!r}; it has {', '.join(hello.get('games', {}))}")
    limits = hello.get("limits", {})
    most = limits.get("max_search_seconds")
    if most is not None and cfg.time is not None and cfg.time > most:
        raise VersusError(f"--time {cfg.time:g} is over the other build's max_search_seconds ({most:g})")
    workers = BotSpec.parse(cfg.other_bot).options.get("workers")
    if workers is not None and limits.get("max_workers") is not None and workers > limits["max_workers"]:
        raise VersusError(f"--other-bot {cfg.other_bot}: workers={workers} is over the other build's max_workers "
                          f"({limits['max_workers']}; `metro-ai serve --max-workers N` raises it)")


def _disagree(where: str, what: str, ours: Any, theirs: Any) -> VersusError:
    return VersusError(f"the two builds disagree {where}: {what}: this build {ours!r}, the other {theirs!r}; "
                       "they do not play the same game (a rules change?), so they cannot be compared this way")


def play_game(cfg: VersusSettings, other: OtherBuild, deal: int, swapped: bool) -> dict[str, Any]:
    """One game of deal `deal`; this build in ``seats_of(players, swapped)``. The record."""
    seed = derive(cfg.seed, deal)
    game = load_game(cfg.game, players=cfg.players, **cfg.options)
    state = game.new_state(seed)
    ours = seats_of(cfg.players, swapped)
    opened = other.call("new_game", game=cfg.game, options={"players": cfg.players, **cfg.options}, seed=seed)
    gid = opened["game_id"]
    label = f"deal {deal}{' (swapped)' if swapped else ''}"
    limit = cfg.limit
    wire_limit = {"iterations": cfg.iterations} if cfg.iterations else {"time": cfg.time}
    timeout = 60.0 + (cfg.time or other.hello.get("limits", {}).get("max_search_seconds", 60.0))
    spec_ours = BotSpec.parse(cfg.bot)
    moves: list[dict[str, Any]] = []
    iterations: dict[str, list[int]] = {"this": [], "other": []}
    t0 = time.perf_counter()
    try:
        if opened.get("current_player") != state.current_player:
            raise _disagree(f"at the start of {label}", "the player to move", state.current_player,
                            opened.get("current_player"))
        while not state.is_terminal():
            ply = len(moves)
            where = f"in {label} at ply {ply}"
            player = state.current_player
            legal = list(state.legal_actions())
            theirs = [a["id"] for a in other.call("legal_actions", game_id=gid, text=False)["actions"]]
            if sorted(theirs) != sorted(legal):
                only_ours, only_theirs = sorted(set(legal) - set(theirs)), sorted(set(theirs) - set(legal))
                raise _disagree(where, "the legal actions (ids only in one build's list)", only_ours[:10],
                                only_theirs[:10])
            by = "this" if player in ours else "other"
            if len(legal) == 1:                  # forced: played without asking either build
                action, by = legal[0], "forced"
            elif by == "this":
                bot = spec_ours.make(derive(seed, 1, ply))
                if bot.searches:
                    found = bot.analyse(state, limit)
                    action = found.chosen
                    iterations["this"].append(found.iterations)
                else:
                    action = bot.choose(state, limit)
            else:
                answer = other.call("go", timeout=timeout, game_id=gid, bot=cfg.other_bot, limit=wire_limit,
                                    seed=derive(seed, 2, ply), progress=False)
                action = answer["action"]
                if answer.get("iterations"):
                    iterations["other"].append(answer["iterations"])
                if action not in legal:
                    raise _disagree(where, "the other build's move is not legal here", legal[:10], action)
            text = state.action_to_string(action)
            state.apply(action)
            applied = other.call("apply", game_id=gid, action=action)
            if applied.get("text") != text:
                raise _disagree(where, f"the text of action {action}", text, applied.get("text"))
            now = applied["state"]
            if now.get("current_player") != state.current_player or bool(now.get("terminal")) != state.is_terminal():
                raise _disagree(where, "(player to move, game over) after the move",
                                (state.current_player, state.is_terminal()),
                                (now.get("current_player"), now.get("terminal")))
            moves.append({"player": player, "action": action, "by": by})
        returns = [float(r) for r in state.returns()]
        theirs_end = now["returns"] if moves else other.call("state", game_id=gid)["returns"]
        if theirs_end is None or [round(float(r), 9) for r in theirs_end] != [round(r, 9) for r in returns]:
            raise _disagree(f"at the end of {label}", "the returns", returns, theirs_end)
    finally:
        try:
            other.call("close", game_id=gid)
        except VersusError:
            pass
    return {"deal": deal, "seed": seed, "swapped": swapped, "this_seats": ours,
            "returns": returns, "scores": [float(s) for s in state.scores()],
            "score": game_score(returns, ours), "plies": len(moves), "seconds": round(time.perf_counter() - t0, 3),
            "this_iterations": statistics.median(iterations["this"]) if iterations["this"] else 0,
            "other_iterations": statistics.median(iterations["other"]) if iterations["other"] else 0,
            **compact_moves(moves)}


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


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


def run_versus(cfg: VersusSettings, progress: bool = True) -> dict[str, Any]:
    """Play the match of `cfg`; the report (settings, both builds, the games, the figures)."""
    from .common import machine
    sprt = Sprt(cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta, players=cfg.players)
    by_pair: dict[int, list[dict]] = {}
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        servers = _start_servers(cfg.other, cfg.jobs, stack)
        other = servers[0]
        _check_server(other, cfg)
        _say(progress, f"versus: this build ({__version__}) {cfg.bot} against {' '.join(other.command)} "
                       f"({other.hello.get('version')}) {cfg.other_bot}, {cfg.game} {cfg.players}p, "
                       f"{cfg.budget_text()} a move, " +
                       (f"{cfg.games + cfg.games % 2} games" if cfg.games else
                        f"SPRT elo0 {cfg.elo0:g} elo1 {cfg.elo1:g} alpha {cfg.alpha:g} beta {cfg.beta:g}, "
                        f"at most {cfg.max_games + cfg.max_games % 2} games") +
                       (f", {cfg.jobs} pairs at a time" if cfg.jobs > 1 else ""))
        if cfg.jobs > (os.cpu_count() or 1):
            _say(progress, f"versus: warning: {cfg.jobs} pairs at a time on {os.cpu_count()} CPUs: the searches "
                           "share the CPUs, so a time budget buys fewer iterations than it says")
        idle: queue.Queue = queue.Queue()
        for server in servers:
            idle.put(server)

        def play_pair(i: int) -> tuple[float, float]:
            server = idle.get()
            try:
                pair = [play_game(cfg, server, i, False), play_game(cfg, server, i, True)]
            finally:
                idle.put(server)
            by_pair[i] = pair
            return pair[0]["score"], pair[1]["score"]

        def report(i: int, scores: list[float]) -> None:
            s = summarise(scores, sprt)
            lo, hi = s["llr_bounds"]
            _say(progress, f"  pair {i}: games {s['games']}, score {s['score']:.1%} "
                           f"[{s['wilson_low']:.1%}, {s['wilson_high']:.1%}], Elo {s['elo']:+.0f} "
                           f"[{s['elo_low']:+.0f}, {s['elo_high']:+.0f}], LLR {s['llr']:.2f} [{lo:.2f}, {hi:.2f}], "
                           f"{time.perf_counter() - t0:.0f} s")
        interrupted = False
        try:
            if cfg.games:
                scores = run_pairs(play_pair, sprt, pairs=(cfg.games + 1) // 2, report=report, jobs=cfg.jobs)
            else:
                scores = run_pairs(play_pair, sprt, max_pairs=(cfg.max_games + 1) // 2, report=report,
                                   jobs=cfg.jobs)
        except Interrupted as stop:
            scores, interrupted = stop.scores, True
            _say(progress, f"versus: interrupted after {len(scores)} games: the report holds them")
        other_version = other.hello.get("version")
        other_command = other.command
    records = [game for i in range(len(scores) // 2) for game in by_pair[i]]
    summary = summarise(scores, sprt)
    if interrupted:
        summary["verdict"] = summary["verdict"] or "interrupted"
        summary["interrupted"] = True
    elif cfg.games is None and summary["verdict"] is None:
        summary["verdict"] = "inconclusive"
    return {"format": "metro-ai-versus", "machine": machine(), "settings": asdict(cfg),
            "this": {"version": __version__, "python": sys.executable},
            "other": {"version": other_version, "command": other_command},
            "mode": "fixed" if cfg.games else "sprt", "summary": summary,
            "wall_seconds": round(time.perf_counter() - t0, 1), "games": records}


def _start_servers(other: str, jobs: int, stack: contextlib.ExitStack) -> list[OtherBuild]:
    """`jobs` servers of the other build, started side by side, each closed with `stack`."""
    with ThreadPoolExecutor(max_workers=min(jobs, 16)) as pool:
        started = [pool.submit(OtherBuild, other) for _ in range(jobs)]
    servers, failed = [], None
    for f in started:
        try:
            servers.append(stack.enter_context(f.result()))
        except (ValueError, VersusError) as exc:
            failed = failed or exc
    if failed is not None:
        raise failed
    return servers


def _fmt_elo(x: float) -> str:
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


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
              f"{s['wilson_low']:.1%} – {s['wilson_high']:.1%} | {_fmt_elo(s['elo'])} | "
              f"{_fmt_elo(s['elo_low'])} – {_fmt_elo(s['elo_high'])} | {s['llr']:.2f} | "
              f"{s['llr_bounds'][0]:.2f}, {s['llr_bounds'][1]:.2f} | {s['verdict'] or '–'} |", "",
              f"Pair scores (pentanomial with two players): "
              + ", ".join(f"{k}: {v}" for k, v in s["pair_scores"].items()) + ". "
              f"SPRT hypotheses: H0 Elo {s['elo0']:g}, H1 Elo {s['elo1']:g} (logistic), alpha {s['alpha']:g}, "
              f"beta {s['beta']:g}; {report['mode']} mode. Wall time {report['wall_seconds']:.0f} s; median "
              f"iterations a move: this {statistics.median([g['this_iterations'] for g in report['games']] or [0]):,.0f}, "
              f"other {statistics.median([g['other_iterations'] for g in report['games']] or [0]):,.0f}."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- command line

def add_arguments(p, bench: bool = False) -> None:
    """The options of ``benches/versus.py``; with `bench`, those ``metro-ai bench`` lacks (it has
    --game, --option, --seed, --quiet, --json, --markdown and --games, read as a count here)."""
    if not bench:
        p.add_argument("other", metavar="OTHER", help="the other build's metro-ai executable or its python")
        p.add_argument("--game", default=DEFAULT_GAME, help=f"the game (default {DEFAULT_GAME})")
        p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option; repeat it")
        p.add_argument("--seed", type=int, default=2026, help="seed of the deals (default 2026)")
        p.add_argument("--games", type=int, default=None, metavar="N",
                       help="play N games (rounded up to even) and report; default: an SPRT")
        p.add_argument("--out", default=None, metavar="FILE.json", help="the JSON result file")
        p.add_argument("--markdown", default=None, metavar="FILE.md", help="the Markdown summary (also printed)")
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
        p.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="pairs of games at a time, each with its own server of the other build (default 1; "
                            "0: one per CPU); more than the CPUs makes a time budget buy fewer iterations")
        g = p
    else:
        g = p.add_argument_group("versus (with --versus OTHER; --games N is then the number of games, "
                                 "--json and --markdown the result files)")
        g.add_argument("--versus", default=None, metavar="OTHER",
                       help="play this build against another build: its metro-ai executable or its python")
        g.add_argument("--out", default=None, metavar="FILE.json", help="with --versus: the JSON result file "
                       "(instead of --json)")
    d = (lambda value: None) if bench else (lambda value: value)     # bench: None, to tell what was given
    g.add_argument("--bot", default=d("hard"), metavar="SPEC", help="this build's bot spec (default hard)")
    g.add_argument("--other-bot", default=None, metavar="SPEC", help="the other build's bot spec (default: --bot)")
    g.add_argument("--players", type=int, default=d(2), metavar="N", help="players (default 2)")
    g.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per move, both sides (default {DEFAULT_TIME})")
    g.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="instead of --time: iterations per move, both sides")
    g.add_argument("--max-games", type=int, default=d(1000), metavar="N", help="an SPRT's cap on games (default 1000)")
    g.add_argument("--elo0", type=float, default=d(0.0), metavar="ELO", help="the SPRT's H0 Elo (default 0)")
    g.add_argument("--elo1", type=float, default=d(30.0), metavar="ELO", help="the SPRT's H1 Elo (default 30)")
    g.add_argument("--alpha", type=float, default=d(0.05), metavar="P", help="the SPRT's false-H1 rate (default 0.05)")
    g.add_argument("--beta", type=float, default=d(0.05), metavar="P", help="the SPRT's false-H0 rate (default 0.05)")


VERSUS_ONLY = ("out", "bot", "other_bot", "players", "time", "iterations", "max_games", "elo0", "elo1", "alpha", "beta")
DEFAULTS = {"bot": "hard", "players": 2, "max_games": 1000, "elo0": 0.0, "elo1": 30.0, "alpha": 0.05, "beta": 0.05}


def versus_only_given(args) -> list[str]:
    """The versus options given to ``metro-ai bench`` (an error without ``--versus``)."""
    return ["--" + k.replace("_", "-") for k in VERSUS_ONLY if getattr(args, k, None) is not None]


def settings_from(args) -> VersusSettings:
    from metro_ai.optionspec import parse_options
    games = args.games
    if isinstance(games, str):                 # metro-ai bench's --games is text
        try:
            games = int(games)
        except ValueError:
            raise ValueError(f"--games with --versus is a number of games, not {games!r}") from None
    other = getattr(args, "versus", None) or getattr(args, "other", None)
    if not other:
        raise ValueError("name the other build: its metro-ai executable or its python")
    given = {k: getattr(args, k) for k in DEFAULTS}
    given = {k: DEFAULTS[k] if v is None else v for k, v in given.items()}
    jobs = getattr(args, "jobs", None)
    return VersusSettings(other=str(other), game=args.game, options=parse_options(args.option),
                          other_bot=args.other_bot, time=args.time, iterations=args.iterations, games=games,
                          seed=args.seed, jobs=1 if jobs is None else jobs, **given)


def execute(args, command: Optional[str] = None) -> int:
    """Run from parsed arguments (``benches/versus.py`` or ``metro-ai bench --versus``): print the
    Markdown, write the files; 0 (1 if the builds could not be compared, or if the run was
    interrupted: the files then hold the games played)."""
    cfg = settings_from(args)
    out = getattr(args, "out", None)
    md = getattr(args, "markdown", None)
    if getattr(args, "versus", None) and not out:   # metro-ai bench --versus: the bench's report files
        out, md = getattr(args, "json", None), md or "bench.md"
    for path in (out, md):
        if path and not Path(path).resolve().parent.is_dir():
            raise ValueError(f"cannot write {path}: no such directory")
    serve_command(cfg.other)                    # a missing program: a usage error now
    try:
        report = run_versus(cfg, progress=not args.quiet)
    except VersusError as exc:
        print(f"versus: {exc}", file=sys.stderr)
        return 1
    text = markdown(report, command)
    if out:
        Path(out).write_text(report_json(report))
    if md:
        Path(md).write_text(text)
    print(text)
    return 1 if report["summary"].get("interrupted") else 0
