"""Search bots on the state contract: ISMCTS, determinised UCT (PIMC), flat Monte Carlo, greedy.

All of them decide from what their player may see: every search world is a
``determinize(player, seed)`` of the position, which depends only on that player's view, and the
greedy bot reads only public information. With a seed and an iteration budget, choices and
analyses are reproducible bit for bit, parallel search included.
"""
from __future__ import annotations

import math
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .baselines import Bot
from .limit import Limit
from .search import NODE_BYTES, SearchCore
from .seeding import derive


@dataclass
class ActionStats:
    action: int
    text: str
    visits: int
    mean: float          # mean return for the player to move, in [0, 1]
    share: float         # visits / root visits


@dataclass
class Analysis:
    """What a search found: per legal action its visits, mean value and share of visits; the
    chosen action; the expected line of play; iterations, time, worlds sampled, tree size."""
    player: int
    actions: list
    chosen: int
    chosen_text: str
    line: list = field(default_factory=list)     # [(player, action, text)] most-visited path
    iterations: int = 0
    seconds: float = 0.0
    worlds: int = 0
    nodes: int = 0
    workers: int = 1

    def to_dict(self):
        return {
            "player": self.player, "chosen": self.chosen, "chosen_text": self.chosen_text,
            "actions": [a.__dict__ for a in self.actions],
            "line": [{"player": p, "action": a, "text": t} for p, a, t in self.line],
            "iterations": self.iterations, "seconds": self.seconds, "worlds": self.worlds,
            "nodes": self.nodes, "workers": self.workers,
        }

    def table(self, top=10):
        rows = [f"player {self.player}: {self.chosen_text}  ({self.iterations} iterations, "
                f"{self.seconds:.2f} s, {self.worlds} worlds, {self.nodes} nodes, {self.workers} worker(s))"]
        for a in sorted(self.actions, key=lambda a: -a.visits)[:top]:
            rows.append(f"  {a.text:<28} visits {a.visits:>8}  share {a.share:6.1%}  mean {a.mean:.3f}")
        if self.line:
            rows.append("  line: " + " | ".join(f"P{p} {t}" for p, _, t in self.line))
        return "\n".join(rows)


class SearchBot(Bot):
    """Common machinery: budgets, seeds per call, parallel workers, final choice, analysis."""
    default_limit = Limit(iterations=1000)

    def __init__(self, seed=0, c=0.7, rollout=None, rollout_depth=None, cutoff_scale=None, final="visits",
                 temperature=0.0, workers=1, backend="threads", max_nodes=5_000_000):
        super().__init__(seed)
        if final not in ("visits", "value"):
            raise ValueError(f"final must be 'visits' or 'value', got {final!r}")
        if not (isinstance(temperature, (int, float)) and temperature >= 0):
            raise ValueError(f"temperature must be >= 0, got {temperature!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        if backend not in ("threads", "processes"):
            raise ValueError(f"backend must be 'threads' or 'processes', got {backend!r}")
        if rollout not in (None, "random", "heuristic"):
            raise ValueError(f"rollout must be 'random' or 'heuristic', got {rollout!r}")
        if rollout_depth is not None and (isinstance(rollout_depth, bool) or not isinstance(rollout_depth, int) or rollout_depth < -1):
            raise ValueError(f"rollout_depth must be None (the game's default), -1 (to the end) or an int >= 0, "
                             f"got {rollout_depth!r}")
        if cutoff_scale is not None and not (isinstance(cutoff_scale, (int, float)) and cutoff_scale >= 0):
            raise ValueError(f"cutoff_scale must be None or >= 0, got {cutoff_scale!r}")
        if not (isinstance(c, (int, float)) and c >= 0):
            raise ValueError(f"c must be >= 0, got {c!r}")
        self.c = float(c)
        # None: the game's own play-out settings (game.search_defaults), else random to the end.
        self.playout = {"rollout": rollout, "rollout_depth": rollout_depth, "cutoff_scale": cutoff_scale}
        self.final, self.temperature = final, float(temperature)
        self.workers, self.backend, self.max_nodes = workers, backend, max_nodes
        self._calls = 0

    # -- what subclasses define --
    def _cores(self, state, player, seed):
        """The independent search cores of one search (their root statistics are summed)."""
        raise NotImplementedError

    def _n_cores(self):
        """How many cores _cores makes (one per worker unless a subclass says otherwise)."""
        return self.workers

    def _core_kwargs(self, state):
        """SearchCore options: the bot's, with the game's play-out defaults where left as None."""
        defaults = {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0,
                    **getattr(state.game, "search_defaults", {})}
        playout = {k: defaults[k] if v is None else v for k, v in self.playout.items()}
        if playout["rollout_depth"] == -1:
            playout["rollout_depth"] = None        # SearchCore: None plays to the end
        return dict(c=self.c, max_nodes=self.max_nodes, **playout)

    # -- the search --
    def _limit(self, limit):
        limit = limit or self.default_limit
        if limit.iterations is None and limit.time is None:
            limit = self.default_limit
        return limit

    def _search(self, state, limit):
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to choose")
        limit = self._limit(limit)
        player = state.current_player
        call_seed = derive(self.seed, self._calls)
        self._calls += 1
        t0 = time.perf_counter()
        if self.workers > 1 and self.backend == "processes":
            summaries = _run_processes(self, state, player, call_seed, limit, t0)
        else:
            cores = self._cores(state, player, call_seed)
            jobs = [(c, it) for c, it in zip(cores, _budgets(limit, len(cores))) if it != 0]
            remaining = _remaining(limit, t0)
            if self.workers == 1 or len(jobs) == 1:
                per = remaining / len(jobs) if remaining is not None else None   # cores share the time
                for core, it in jobs:
                    core.run(iterations=it, seconds=per)
            else:
                with ThreadPoolExecutor(max_workers=self.workers) as pool:
                    per = remaining / math.ceil(len(jobs) / self.workers) if remaining is not None else None
                    list(pool.map(lambda job: job[0].run(iterations=job[1], seconds=per), jobs))
            summaries = [_summary(core) for core, _ in jobs]
        return player, call_seed, summaries, time.perf_counter() - t0

    @staticmethod
    def _merge(summaries):
        merged: dict[int, list[float]] = {}     # action -> [visits, value]
        for s in summaries:
            for action, visits, value, _avail in s["stats"]:
                v = merged.setdefault(action, [0, 0.0])
                v[0] += visits
                v[1] += value
        return merged

    def _pick(self, merged, summaries, seed):
        visited = {a: v for a, v in merged.items() if v[0] > 0}
        if self.temperature > 0:
            rng = random.Random(derive(seed, 0xC401CE))
            acts = sorted(visited)
            top = max(visited[a][0] for a in acts)
            weights = [(visited[a][0] / top) ** (1.0 / self.temperature) for a in acts]
            return rng.choices(acts, weights=weights)[0]
        if self.final == "visits":
            return max(sorted(visited), key=lambda a: (visited[a][0], visited[a][1] / visited[a][0]))
        return max(sorted(visited), key=lambda a: (visited[a][1] / visited[a][0], visited[a][0]))

    def analyse(self, state, limit: Limit | None = None) -> Analysis:
        """Search `state` for the player to move and report what was found (see Analysis)."""
        player, seed, summaries, seconds = self._search(state, limit)
        merged = self._merge(summaries)
        chosen = self._pick(merged, summaries, seed)
        total = sum(v[0] for v in merged.values())
        acts = [ActionStats(a, state.action_to_string(a), v[0], v[1] / v[0] if v[0] else 0.0,
                            v[0] / total if total else 0.0) for a, v in sorted(merged.items())]
        lead = max(summaries, key=lambda s: s["root_visits"])
        line = [(p, a, _text(state, a)) for a, p in lead["line"]]
        return Analysis(player, acts, chosen, state.action_to_string(chosen), line,
                        iterations=sum(s["iterations"] for s in summaries), seconds=seconds,
                        worlds=sum(s["worlds"] for s in summaries), nodes=sum(s["nodes"] for s in summaries),
                        workers=self.workers)

    def choose(self, state, limit: Limit | None = None) -> int:
        actions = state.legal_actions()
        if len(actions) == 1:
            self._calls += 1
            return actions[0]
        return self.analyse(state, limit).chosen

    @property
    def bytes_per_node(self):
        return NODE_BYTES


def _text(state, action):
    try:
        return state.action_to_string(action)
    except ValueError:
        return str(action)


def _budgets(limit, n):
    """Iterations for each of n cores (None: no iteration limit)."""
    if limit.iterations is None:
        return [None] * n
    return [limit.iterations // n + (1 if i < limit.iterations % n else 0) for i in range(n)]


def _remaining(limit, t0):
    return None if limit.time is None else max(limit.time - (time.perf_counter() - t0), 1e-4)


def _summary(core):
    """What the merge and the analysis need from a finished core (picklable)."""
    return {"stats": core.root_stats(), "line": core.principal_variation(), "iterations": core.iterations,
            "worlds": core.worlds, "nodes": core.node_count, "root_visits": core.root_visits}


def _process_job(bot, state, player, call_seed, index, iterations, seconds):
    core = bot._cores(state, player, call_seed)[index]
    core.run(iterations=iterations, seconds=seconds)
    return _summary(core)


def _run_processes(bot, state, player, call_seed, limit, t0):
    """Run the cores in joblib worker processes; each rebuilds its own core from the state."""
    from joblib import Parallel, delayed
    n = bot._n_cores()
    budgets = _budgets(limit, n)
    remaining = _remaining(limit, t0)
    per = remaining / math.ceil(n / bot.workers) if remaining is not None else None
    return Parallel(n_jobs=bot.workers, backend="loky")(
        delayed(_process_job)(bot, state, player, call_seed, i, budgets[i], per) for i in range(n) if budgets[i] != 0)


class ISMCTSBot(SearchBot):
    """Single-observer ISMCTS: one tree over the searching player's information sets, a fresh
    determinisation every iteration, availability-aware UCB over the actions legal in each world.

    Options: ``c`` exploration constant (0.7); ``rollout`` "random" or "heuristic" (a light
    policy: best of three random actions by the game's public heuristic); ``rollout_depth``
    (-1: play to the end; n: cut off after n actions and score the game's heuristic);
    ``cutoff_scale`` (0: rank the players by the heuristic at the cut-off; > 0: a logistic soft
    rank with this scale); these three default to the game's ``search_defaults`` (Metro: random
    to the end; Breakthrough: see its module), else random to the end; ``final``
    "visits" or "value"; ``temperature`` (0 = best; > 0 samples by visits^(1/T)); ``workers``
    independent root searches merged by summing root statistics; ``backend`` "threads" (the
    core releases the GIL) or "processes" (joblib); ``max_nodes``.
    """
    name = "ismcts"
    preset: str         # the preset name, on bots metro_ai.make_bot makes from a preset

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), **self._core_kwargs(state)) for i in range(self.workers)]


class MOISMCTSBot(ISMCTSBot):
    """Multi-observer ISMCTS: one tree per player. The player to move selects in their own tree;
    the other trees follow the move as each of those players observes it (the game's
    ``c_observed_action``), so opponents decide on what they could have seen rather than on the
    searching player's information. Where every move is public, as in Metro and in this
    project's Breakthrough encoding, the trees coincide and it chooses exactly as ``ismcts``
    does (a test checks this) at n times the memory. Options as ``ismcts``."""
    name = "mo-ismcts"

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), multi_observer=True, **self._core_kwargs(state))
                for i in range(self.workers)]


class FlatMCBot(SearchBot):
    """Flat Monte Carlo over determinisations: no tree below the root; root actions are tried in
    turn (least visited first), each iteration in a fresh world with a play-out to the end."""
    name = "flat-mc"

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), selection="uniform", tree_depth=1, **self._core_kwargs(state))
                for i in range(self.workers)]


class PIMCBot(SearchBot):
    """Determinised UCT (perfect-information Monte Carlo): ``worlds`` determinisations, a plain
    UCT tree searched in each, the budget split evenly; the trees vote for their most-visited
    action and the most votes wins (ties: most visits in all trees)."""
    name = "pimc"

    def __init__(self, seed=0, worlds=8, **options):
        super().__init__(seed, **options)
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a positive int, got {worlds!r}")
        self.n_worlds = worlds

    def _n_cores(self):
        return self.n_worlds

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i, 1),
                           fixed_world=state.determinize(player, derive(seed, i, 2)), **self._core_kwargs(state))
                for i in range(self.n_worlds)]

    def _pick(self, merged, summaries, seed):
        if self.temperature > 0:
            return super()._pick(merged, summaries, seed)
        votes: dict[int, int] = {}
        for summary in summaries:
            stats = [s for s in summary["stats"] if s[1] > 0]
            if stats:
                best = max(stats, key=lambda s: (s[1], s[2] / s[1], -s[0]))[0]
                votes[best] = votes.get(best, 0) + 1
        return max(sorted(votes), key=lambda a: (votes[a], merged[a][0]))


class GreedyBot(Bot):
    """One-ply look-ahead on the game's public heuristic (for Metro: each player's score plus three
    times the tiles their open lines already pass: it extends its own lines, closes its
    opponents' and keeps its own open). Picks the action maximising own value minus the
    best opponent's, averaged over ``worlds`` determinisations (so actions whose outcome is
    hidden, like Metro's draw, are judged by expectation); when the same player moves again
    (placing a drawn tile) it takes the best follow-up. Ties are broken by the seeded generator."""
    name = "greedy"

    def __init__(self, seed=0, worlds=4):
        super().__init__(seed)
        self.n_worlds = worlds
        self._rng = random.Random(self.seed)
        self._calls = 0

    @staticmethod
    def _value(s, me):
        h = s.heuristic()
        return h[me] - max(v for p, v in enumerate(h) if p != me)

    def _best(self, s, me, depth):
        if s.is_terminal() or s.current_player != me or depth == 0:
            return self._value(s, me)
        best = -math.inf
        for a in s.legal_actions():
            t = s.clone()
            t.apply(a)
            best = max(best, self._best(t, me, depth - 1))
        return best

    def choose(self, state, limit=None):
        actions = state.legal_actions()
        if not actions:
            raise ValueError("the game is over: there is nothing to choose")
        me = state.current_player
        seed = derive(self.seed, self._calls)
        self._calls += 1
        worlds = [state.determinize(me, derive(seed, i)) for i in range(self.n_worlds)]
        scored = []
        for a in actions:
            total = 0.0
            for w in worlds:
                t = w.clone()
                t.apply(a)
                total += self._best(t, me, 1)
            scored.append((total / len(worlds), a))
        top = max(v for v, _ in scored)
        best = [a for v, a in scored if v >= top - 1e-9]
        return best[random.Random(seed).randrange(len(best))]
