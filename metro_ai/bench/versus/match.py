"""Playing a versus match: each deal twice with the seats swapped (`play_game`: this build's
engine owns the game, the other build replays every move and is asked only for its own, every
difference an error), pairs played one or `jobs` at a time and read in deal order until their
number or the SPRT's verdict (`run_pairs`), the run and its report (`run_versus`), and the
command (`execute`)."""
from __future__ import annotations

import contextlib
import os
import queue
import statistics
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Optional

from metro_ai.bots.catalogue import BotSpec
from metro_ai.bots.seeding import derive
from metro_ai.registry import load_game
from metro_ai.version import __version__

from .other import OtherBuild, VersusError, serve_command
from .report import compact_moves, markdown, report_json
from .settings import VersusSettings, settings_from
from .sprt import Sprt, summarise

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
    opened = other.call("new_game", game=cfg.game, options={"players": cfg.players, **cfg.other_game()[1]}, seed=seed)
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


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


def run_versus(cfg: VersusSettings, progress: bool = True) -> dict[str, Any]:
    """Play the match of `cfg`; the report (settings, both builds, the games, the figures)."""
    from ..common import machine
    sprt = Sprt(cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta, players=cfg.players)
    by_pair: dict[int, list[dict]] = {}
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        servers = _start_servers(cfg.other, cfg.jobs, stack, cfg.other_game()[0])
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


def _start_servers(other: str, jobs: int, stack: contextlib.ExitStack,
                   data_dir: Optional[str] = None) -> list[OtherBuild]:
    """`jobs` servers of the other build (reading files from `data_dir`), started side by side,
    each closed with `stack`."""
    with ThreadPoolExecutor(max_workers=min(jobs, 16)) as pool:
        started = [pool.submit(OtherBuild, other, data_dir=data_dir) for _ in range(jobs)]
    servers, failed = [], None
    for f in started:
        try:
            servers.append(stack.enter_context(f.result()))
        except (ValueError, VersusError) as exc:
            failed = failed or exc
    if failed is not None:
        raise failed
    return servers


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
