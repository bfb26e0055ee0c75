"""The search bots: SO-ISMCTS, MO-ISMCTS, flat Monte Carlo and determinised UCT (PIMC), on one
`SearchBot` (budgets, seeds per call, parallel workers, the final choice, `Analysis`).

All of them decide from what their player may see: every search world is a
``determinize(player, seed)`` of the position, which depends only on that player's view. With a
seed and an iteration budget, choices and analyses are reproducible bit for bit, parallel search
included.
"""
from __future__ import annotations

import pickle
import random
from dataclasses import dataclass, field

from metro_ai.engine.options import Option

from .background import SearchHandle, merge
from .base import Bot, Resources
from .baselines import GreedyBot
from .limit import Limit
from .remote import available, check_importable, remote_cores
from .search import NODE_BYTES, SearchCore
from .settings import SEARCH_OPTIONS, SearchSettings
from .seeding import derive



@dataclass
class ActionStats:
    action: int
    text: str
    visits: int
    mean: float          # mean return for the player to move, in [0, 1]
    share: float         # visits / root visits
    points: float | None = None   # analyse(points=True): mean score margin where the play-outs stopped


@dataclass
class Analysis:
    """What a search found: per legal action its visits, mean value and share of visits; the
    chosen action; the expected line of play; iterations, time, worlds sampled, tree size; and the
    tree's shape, summed over the workers' cores: ``expanded`` (iterations that added a node),
    ``terminal`` (play-outs that reached the end of the game rather than being cut off at the
    play-out depth and scored by the heuristic), ``depth_sum`` / ``depth_max`` (tree steps of an
    iteration, selection and expansion: summed, and the most in one iteration)."""
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
    expanded: int = 0
    terminal: int = 0
    depth_sum: int = 0
    depth_max: int = 0

    @property
    def depth_mean(self):
        """Mean tree steps per iteration (selection and expansion)."""
        return self.depth_sum / self.iterations if self.iterations else 0.0

    @property
    def expanded_share(self):
        """Share of iterations that added a node to the tree."""
        return self.expanded / self.iterations if self.iterations else 0.0

    @property
    def terminal_share(self):
        """Share of play-outs that reached the end of the game."""
        return self.terminal / self.iterations if self.iterations else 0.0

    def shape(self):
        """The tree's shape as plain data: what ``to_dict`` reports under ``"tree"``."""
        return {"depth_max": self.depth_max, "depth_mean": self.depth_mean, "expanded": self.expanded,
                "expanded_share": self.expanded_share, "terminal": self.terminal,
                "terminal_share": self.terminal_share, "nodes": self.nodes}

    def to_dict(self):
        return {
            "player": self.player, "chosen": self.chosen, "chosen_text": self.chosen_text,
            "actions": [{k: v for k, v in a.__dict__.items() if k != "points" or v is not None} for a in self.actions],
            "line": [{"player": p, "action": a, "text": t} for p, a, t in self.line],
            "iterations": self.iterations, "seconds": self.seconds, "worlds": self.worlds,
            "nodes": self.nodes, "workers": self.workers, "tree": self.shape(),
        }

    def table(self, top=10):
        rows = [f"player {self.player}: {self.chosen_text}  ({self.iterations} iterations, "
                f"{self.seconds:.2f} s, {self.worlds} worlds, {self.nodes} nodes, {self.workers} worker(s))"]
        for a in sorted(self.actions, key=lambda a: -a.visits)[:top]:
            rows.append(f"  {a.text:<28} visits {a.visits:>8}  share {a.share:6.1%}  mean {a.mean:.3f}")
        if self.line:
            rows.append("  line: " + " | ".join(f"P{p} {t}" for p, _, t in self.line))
        rows.append(f"  tree: depth max {self.depth_max}, mean {self.depth_mean:.2f}; expanded {self.expanded_share:.1%}"
                    f" of iterations; play-outs to the end {self.terminal_share:.1%}; {self.nodes} nodes")
        return "\n".join(rows)


class SearchBot(Bot):
    """Common machinery: budgets, seeds per call, parallel workers, final choice, analysis.

    Its options are the search's (`metro_ai.bots.settings.SEARCH_OPTIONS`, declared once). A
    search reads them as one frozen `SearchSettings` resolved for the game (``settings_for``),
    handed whole to each core: the play-out options (``rollout``, ``rollout_depth``,
    ``cutoff_scale``, ``end_scale``), ``prior``, ``minimax`` and ``leaf_mix`` left as None take the
    game's ``search_settings()``, else random play-outs to the end scored by the returns, no prior,
    no minimax, no leaf value. ``rollout`` may also be a `Playout` object, e.g.
    ``HeuristicPlayout(depth=10, cutoff_scale=1.0)`` or a game's own subclass: it keeps its own
    settings, except that a ``rollout_depth``, ``cutoff_scale`` or ``end_scale`` given to the bot
    besides replaces that one.
    """
    default_limit: Limit = Limit(iterations=1000)
    searches = True
    workers: int                        # set from the declared options (see bots/base.py)
    backend: str
    max_nodes: int
    options: tuple[Option, ...] = SEARCH_OPTIONS

    def __init__(self, seed=0, **options):
        super().__init__(seed, **options)
        self._calls = 0

    # -- what subclasses define --
    def _cores(self, state, player, seed, settings):
        """The independent search cores of one search with `settings` (their root statistics are
        summed)."""
        raise NotImplementedError

    def _n_cores(self):
        """How many cores _cores makes (one per worker unless a subclass says otherwise)."""
        return self.workers

    def resources(self) -> Resources:
        return Resources(workers=self.workers, backend=self.backend, max_nodes=self.max_nodes)

    def cap(self, max_nodes: int) -> None:
        self.max_nodes = min(self.max_nodes, max_nodes)

    def settings_for(self, game) -> SearchSettings:
        """The settings of a search of `game` by this bot: its search options, those left as None
        resolved from the game's (`SearchSettings.for_game`)."""
        return SearchSettings.for_game(game, **{o.name: getattr(self, o.name) for o in SEARCH_OPTIONS})

    def search_cores(self, state, player, seed, points=False):
        """The `SearchCore` objects of one search of `state` for `player` from `seed` (the
        subclass's ``_cores``, given the bot's settings for the game), each given the root prior if
        the settings have one, and keeping the root's points with `points`: what a search runs, in
        this process or in a worker process (bots/remote.py)."""
        settings = self.settings_for(state.game)
        cores = self._cores(state, player, seed, settings)
        if settings.prior > 0:
            prior = root_prior(state, derive(seed, 0xB1A5), settings.prior_worlds, settings.opponents == "model")
            for core in cores:
                core.set_prior(prior, settings.prior)
        if points:
            for core in cores:
                core.keep_points()
        return cores

    # -- the search --
    def _limit(self, limit):
        if limit is not None and not isinstance(limit, Limit):
            raise TypeError(f"a search budget is a metro_ai.Limit (or None: the bot's default), got {limit!r}")
        limit = limit or self.default_limit
        if limit.iterations is None and limit.time is None:
            limit = self.default_limit
        return limit

    @staticmethod
    def _merge(summaries):
        return merge(summaries)

    def _pick(self, merged, summaries, seed):
        visited = {a: v for a, v in merged.items() if v[0] > 0}
        if self.margin is not None:
            # Only the actions the search found nearly as good as its own choice (by mean value,
            # the chance of finishing above, within `margin`) stay candidates.
            top = max(sorted(visited), key=lambda a: (visited[a][0], visited[a][1] / visited[a][0]))
            floor = visited[top][1] / visited[top][0] - self.margin
            visited = {a: v for a, v in visited.items() if v[1] / v[0] >= floor - 1e-12}
        if self.temperature > 0:
            rng = random.Random(derive(seed, 0xC401CE))
            acts = sorted(visited)
            top = max(visited[a][0] for a in acts)
            weights = [(visited[a][0] / top) ** (1.0 / self.temperature) for a in acts]
            return rng.choices(acts, weights=weights)[0]
        if self.final == "visits":
            return max(sorted(visited), key=lambda a: (visited[a][0], visited[a][1] / visited[a][0]))
        return max(sorted(visited), key=lambda a: (visited[a][1] / visited[a][0], visited[a][0]))

    def analyse(self, state, limit: Limit | None = None, *, points: bool = False) -> Analysis:
        """Search `state` for the player to move and report what was found (see Analysis): the
        `Analysis` of ``start(state, limit, analyse=True, points=points)``, waited for. A forced
        move (one legal action) is reported at once, unsearched: that action, no visits, no
        iterations. With `points`, each action's ``points`` is the mover's mean score margin (its
        score less the others' mean) where the play-outs through it stopped (the end of the game,
        or the play-out's cut-off); the search itself is the same, choice for choice."""
        legal = state.legal_actions()
        if len(legal) == 1:
            text = state.action_to_string(legal[0])
            return Analysis(state.current_player, [ActionStats(legal[0], text, 0, 0.0, 1.0)], legal[0], text,
                            workers=self.resources().workers)
        handle = self.start(state, limit, analyse=True, points=points)
        _wait(handle)
        return handle.analysis()

    def _analysis(self, state, player, seed, summaries, seconds) -> Analysis:
        """The `Analysis` of a search of `state` from the cores' summaries."""
        merged = self._merge(summaries)
        chosen = self._pick(merged, summaries, seed)
        total = sum(v[0] for v in merged.values())
        points = _merge_points(summaries)
        acts = [ActionStats(a, state.action_to_string(a), v[0], v[1] / v[0] if v[0] else 0.0,
                            v[0] / total if total else 0.0, points.get(a)) for a, v in sorted(merged.items())]
        lead = max(summaries, key=lambda s: s["root_visits"])
        line = [(p, a, _text(state, a)) for a, p in lead["line"]]
        return Analysis(player, acts, chosen, state.action_to_string(chosen), line,
                        iterations=sum(s["iterations"] for s in summaries), seconds=seconds,
                        worlds=sum(s["worlds"] for s in summaries), nodes=sum(s["nodes"] for s in summaries),
                        workers=self.workers, expanded=sum(s["expanded"] for s in summaries),
                        terminal=sum(s["terminal"] for s in summaries),
                        depth_sum=sum(s["depth_sum"] for s in summaries),
                        depth_max=max((s["depth_max"] for s in summaries), default=0))

    def choose(self, state, limit: Limit | None = None) -> int:
        """The action chosen by a search of `state` within `limit` (the bot's default budget if
        None); a forced move is played without searching. This is ``start(state,
        limit).result()``: the same search, waited for."""
        return _wait(self.start(state, limit))

    def start(self, state, limit: Limit | None = None, *, analyse: bool = False, chunk: int | None = None,
              points: bool = False):
        """Start searching `state` in a background thread and return its `SearchHandle` at once:
        ``stop()`` ends the search early and returns the best action so far (UCI's ``stop``),
        ``progress()`` reads iterations and the best action so far, ``result()`` waits for the
        action, ``await handle`` waits without blocking an event loop. ``choose`` and
        ``analyse`` are this search, waited for.

        The search runs in chunks of iterations, checking for ``stop`` between chunks; each core
        keeps its own generator, so chunking changes nothing: with the same seed and an
        iteration budget the trees, the action and the analysis are the same whatever the
        chunks, workers' threads or processes (``analyse=True`` searches even a forced move).
        An iteration budget is split evenly over the cores; with a time budget every worker
        searches until the deadline. The search works on a copy of `state`. With ``backend=
        "processes"`` (and more than one worker) the cores live in worker processes
        (`metro_ai.bots.remote`; idle ones from earlier searches are reused; threads where this
        process cannot start processes, e.g. inside a joblib worker). `chunk`:
        iterations per core between checks (None: sized to about 20 ms). `points`: the cores keep
        each root action's score margin for the analysis (see `analyse`)."""
        actions = state.legal_actions()
        if not analyse and len(actions) == 1:
            self._calls += 1
            return SearchHandle.finished(actions[0], state.action_to_string(actions[0]))
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to choose")
        limit = self._limit(limit)
        root = state.clone()
        player = root.current_player
        processes = self.workers > 1 and self.backend == "processes"
        if processes:
            check_importable(root)
            processes = available()
        call_seed = derive(self.seed, self._calls)
        self._calls += 1
        if processes:
            payload = pickle.dumps((self, root, player, call_seed, points))     # the bot as it is now

            def cores(indices):
                return remote_cores(payload, indices, self.workers)
        else:
            def cores(indices):
                made = self.search_cores(root, player, call_seed, points)
                return [made[i] for i in indices]

        def finish(summaries, seconds):
            return self._analysis(root, player, call_seed, summaries, seconds)

        return SearchHandle.searching(root, cores, _budgets(limit, self._n_cores()), limit, finish,
                                      workers=self.workers, chunk=chunk,
                                      pick=lambda summaries: self._pick(self._merge(summaries), summaries, call_seed))

    @property
    def bytes_per_node(self):
        """Bytes per tree node."""
        return NODE_BYTES


def root_prior(state, seed, worlds, model=False):
    """action -> the greedy bot's one-ply value of it (`GreedyBot.scores`, over `worlds`
    determinisations drawn from `seed`, the others' secret choices from the game's model of them
    with `model`, as the search's worlds with ``opponents="model"``), scaled to [0, 1] over the
    legal actions (all 0.5 when they are equal): the prior of progressive bias at the root."""
    scored = GreedyBot.scores(state, seed, worlds, model)
    low = min(v for v, _ in scored)
    high = max(v for v, _ in scored)
    return {a: (v - low) / (high - low) if high > low else 0.5 for v, a in scored}


def _merge_points(summaries):
    """{action: mean score margin} over the cores' kept points (empty when none kept them)."""
    sums: dict = {}
    for s in summaries:
        for a, (total, n) in (s.get("points") or {}).items():
            t, k = sums.get(a, (0.0, 0))
            sums[a] = (t + total, k + n)
    return {a: t / k for a, (t, k) in sums.items() if k}


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


def _wait(handle):
    """The action of `handle`, waited for; an interruption (KeyboardInterrupt) stops the search."""
    try:
        return handle.result()
    except BaseException:
        handle.request_stop()
        raise


class ISMCTSBot(SearchBot):
    """Single-observer ISMCTS: one tree over the searching player's information sets, a fresh
    determinisation every iteration, availability-aware UCB over the actions legal in each world.

    Options (``ISMCTSBot.options`` says each one's default and range): ``c`` exploration constant;
    ``rollout`` "random", "heuristic" (a light policy: the best of ``rollout_samples`` random
    actions by the game's public heuristic), "mast" (`MastPlayout`: epsilon-greedy on the search's
    mean return per player and action, epsilon ``rollout_epsilon``, or softmax at temperature
    ``rollout_tau``; no state copied) or a `Playout`; ``rollout_depth`` (-1: play to the end; n:
    cut off after n actions and score the game's heuristic); ``cutoff_scale`` (0: rank the
    players by the heuristic at the cut-off; > 0: a logistic soft rank with this scale);
    ``end_scale`` (0: the game's returns at the end of a play-out; > 0: the soft rank of the final
    scores); these five default to the game's ``search_settings()``, else random to the end,
    scored by the returns; ``final`` "visits" or "value";
    ``temperature`` (0 = best; > 0 samples by visits^(1/T)); ``margin`` (None, or with a
    temperature: sample only among the actions whose mean value is within this much of the most
    visited action's, so a weak level plays worse moves rather than blunders); ``workers``
    independent root searches merged by summing root statistics; ``backend`` "threads" (the
    core releases the GIL) or "processes" (one worker process per worker, kept idle between
    searches); ``max_nodes``; ``widen``, ``widen_power`` (progressive widening); ``prior``,
    ``prior_worlds`` (progressive bias at the root from the greedy bot's one-ply values; None:
    the game's ``search_settings()``, else off); ``minimax`` (implicit minimax back-ups of the
    heuristic's evaluations of new leaves, the weight selection gives them; None: the game's
    ``search_settings()``, else off); ``chance_keys`` (children keyed by the game's chance
    key as the tree's observer sees it too; off by default, having measured weaker).
    """
    name = "ismcts"
    preset: str         # the preset name, on bots metro_ai.make_bot makes from a preset

    def _cores(self, state, player, seed, settings):
        return [SearchCore(state, player, derive(seed, i), settings) for i in range(self.workers)]


class MOISMCTSBot(ISMCTSBot):
    """Multi-observer ISMCTS: one tree per player. The player to move selects in their own tree;
    the other trees follow the move as each of those players observes it (the game's
    ``c_observed_action``), so opponents decide on what they could have seen rather than on the
    searching player's information. Where every move is public the trees coincide and it
    chooses exactly as ``ismcts`` does (a test checks this) at n times the memory. Options as
    ``ismcts``."""
    name = "mo-ismcts"

    def _cores(self, state, player, seed, settings):
        return [SearchCore(state, player, derive(seed, i), settings, multi_observer=True)
                for i in range(self.workers)]


class FlatMCBot(SearchBot):
    """Flat Monte Carlo over determinisations: no tree below the root; root actions are tried in
    turn (least visited first), each iteration in a fresh world with a play-out. Options as
    ``ismcts``."""
    name = "flat-mc"

    def _cores(self, state, player, seed, settings):
        return [SearchCore(state, player, derive(seed, i), settings, selection="uniform", tree_depth=1)
                for i in range(self.workers)]


class PIMCBot(SearchBot):
    """Determinised UCT (perfect-information Monte Carlo): ``worlds`` determinisations, a plain
    UCT tree searched in each, the budget split evenly; the trees vote for their most-visited
    action and the most votes wins (ties: most visits in all trees). Options as ``ismcts``, and
    ``worlds``."""
    name = "pimc"
    options = SearchBot.options + (
        Option.integer("worlds", 8, "determinisations, each searched by its own plain UCT tree with an "
                       "even share of the budget", low=1),
    )

    def _n_cores(self):
        return self.worlds

    def _cores(self, state, player, seed, settings):
        return [SearchCore(state, player, derive(seed, i, 1), settings,
                           fixed_world=state.determinize(player, derive(seed, i, 2),
                                                         model=settings.opponents == "model"))
                for i in range(self.worlds)]

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
