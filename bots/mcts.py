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
from .base import Bot
from .baselines import GreedyBot
from .limit import Limit
from .remote import available, check_importable, remote_cores
from .search import NODE_BYTES, HeuristicPlayout, MastPlayout, Playout, RandomPlayout, SearchCore
from .seeding import derive

MAX_WORKERS = 256           # a fixed cap, so that a bot spec valid on one machine is valid on all
MAX_NODES = 1 << 30         # node arrays double up to this size without overflowing a C int
PLAYOUTS = {"random": RandomPlayout, "heuristic": HeuristicPlayout, "mast": MastPlayout}


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
            "actions": [a.__dict__ for a in self.actions],
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


def game_search_settings(game) -> dict:
    """``game.search_settings()``, checked: each key names a search option (`SearchBot.options`)
    and each value is one that option allows, so that a misspelt key or a value out of range in a
    game's ``search_defaults`` is an error naming the game, not a setting silently ignored."""
    settings = game.search_settings()
    declared = {o.name: o for o in SearchBot.options}
    owner = f"game {getattr(game, 'name', type(game).__name__)!r}, search_settings()"
    if not isinstance(settings, dict):
        raise ValueError(f"{owner} must be a dict of search options, got {type(settings).__name__}")
    for name, value in settings.items():
        if name not in declared:
            raise ValueError(f"{owner}: {name!r} is not a search option (the options: {', '.join(declared)})")
        declared[name].check(owner, value)
    return settings


class SearchBot(Bot):
    """Common machinery: budgets, seeds per call, parallel workers, final choice, analysis.

    The play-out settings ``rollout``, ``rollout_depth``, ``cutoff_scale`` and ``end_scale`` left
    as None take the value of the same key in the game's ``search_settings()`` (its
    ``search_defaults``, adjusted to its options), else random play-outs to the end scored by the
    game's returns. ``rollout`` may also be a `Playout` object (from the bot's options or the
    game's ``search_settings()``), e.g. ``HeuristicPlayout(depth=10, cutoff_scale=1.0)`` or a
    game's own subclass: it keeps its own settings, except that a ``rollout_depth``,
    ``cutoff_scale`` or ``end_scale`` given to the bot besides replaces that one. ``prior`` and
    ``minimax`` left as None are the game's ``search_settings()`` of that name, else 0 (off).
    """
    default_limit = Limit(iterations=1000)
    workers: int                        # set from the declared options (see bots/base.py)
    backend: str
    options: tuple[Option, ...] = (
        Option.number("c", 0.7, "UCB exploration constant", low=0, finite=True),
        Option.custom("rollout", None, "play-out policy: uniform, the best of three random actions by the "
                      "game's heuristic, or MAST (epsilon-greedy on the search's mean return per action)",
                      "None (the game's default) or 'random' or 'heuristic' or 'mast' or a Playout",
                      lambda v: v is None or (isinstance(v, str) and v in PLAYOUTS) or isinstance(v, Playout)),
        Option.integer("rollout_depth", None, "actions played out before the game's heuristic scores the "
                       "position", low=-1, none="the game's default",
                       words="-1 (to the end) or an int >= 0"),
        Option.number("cutoff_scale", None, "scoring at a cut-off: 0 ranks the players by the heuristic, "
                      "> 0 is a logistic soft rank with this scale", low=0, none="the game's default"),
        Option.number("end_scale", None, "scoring at the end of a play-out: 0 by the game's returns, > 0 a "
                      "logistic soft rank of the final scores with this scale (a wide win counts more)", low=0,
                      finite=True, none="the game's default"),
        Option.choice("final", "visits", "the action played: the most visited, or the best mean value",
                      ("visits", "value")),
        Option.number("temperature", 0.0, "0 plays the best action; > 0 samples by visits^(1/T)", low=0),
        Option.number("margin", None, "with a temperature, sample only among the actions whose mean value is "
                      "within this much of the most visited action's (a weak level's guard against blunders)",
                      low=0, high=1, none="no filter"),
        Option.integer("workers", 1, "independent root searches, merged by summing root statistics",
                       low=1, high=MAX_WORKERS),
        Option.choice("backend", "threads", "where workers run: threads (the search releases the GIL) "
                      "or processes (one per worker, kept idle between searches)", ("threads", "processes")),
        Option.integer("max_nodes", 5_000_000, "nodes, all trees together, at which the tree stops growing",
                       low=2, high=MAX_NODES),
        Option.number("widen", 0.0, "progressive widening: a node of n visits grows a new child only while "
                      "it has fewer than widen * (n + 1) ** widen_power children (0: off)", low=0, finite=True),
        Option.number("widen_power", 0.5, "the exponent of progressive widening", low=0, high=1),
        Option.number("prior", None, "progressive bias at the root: weight w of w * P / (visits + 1), P the "
                      "action's one-ply greedy value (the greedy bot's), scaled to [0, 1] over the root's "
                      "actions; untried root actions are expanded best P first (0: off)", low=0, finite=True,
                      none="the game's default, else 0"),
        Option.integer("prior_worlds", 1, "determinisations the root prior averages each action over", low=1,
                       high=64),
        Option.number("minimax", None, "implicit minimax back-ups (Lanctot et al. 2014): each node keeps the "
                      "max^n of the evaluations of new leaves below it (the game's heuristic as a cut-off scores "
                      "it), and selection reads (1 - w) * mean + w * that value (0: off)", low=0, high=1,
                      none="the game's default, else 0"),
        Option.boolean("chance_keys", False, "key the tree's children by what chance has shown the observer too "
                       "(the game's chance key: Leduc's public card, Metro 2033's threats and draws), so worlds "
                       "the observer could tell apart do not share a node"),
    )

    def __init__(self, seed=0, **options):
        super().__init__(seed, **options)
        self._calls = 0

    # -- what subclasses define --
    def _cores(self, state, player, seed):
        """The independent search cores of one search (their root statistics are summed)."""
        raise NotImplementedError

    def _n_cores(self):
        """How many cores _cores makes (one per worker unless a subclass says otherwise)."""
        return self.workers

    def search_cores(self, state, player, seed):
        """The `SearchCore` objects of one search of `state` for `player` from `seed` (the
        subclass's ``_cores``), each given the root prior if the bot has one: what a search runs,
        in this process or in a worker process (bots/remote.py)."""
        cores = self._cores(state, player, seed)
        weight = self._game_default(state, "prior")
        if weight > 0:
            prior = root_prior(state, derive(seed, 0xB1A5), self.prior_worlds)
            for core in cores:
                core.set_prior(prior, weight)
        return cores

    def _game_default(self, state, name):
        """The bot's option `name`, or where it is None the game's ``search_settings()[name]``, else 0."""
        value = getattr(self, name)
        return value if value is not None else game_search_settings(state.game).get(name, 0.0)

    def _playout(self, state):
        """The `Playout` of a search of `state`: each play-out option the bot's, else the game's
        ``search_settings()``', else random to the end with the hard rank at a cut-off. A `Playout`
        object given to the bot keeps its own settings except those the bot's options give."""
        game = game_search_settings(state.game)
        rollout = self.rollout if self.rollout is not None else game.get("rollout")
        fallback = {} if isinstance(self.rollout, Playout) else game
        depth, scale, end = (getattr(self, k) if getattr(self, k) is not None else fallback.get(k)
                             for k in ("rollout_depth", "cutoff_scale", "end_scale"))
        if isinstance(rollout, Playout):
            changes = {}
            if depth is not None:
                changes["depth"] = None if depth == -1 else depth
            if scale is not None:
                changes["cutoff_scale"] = scale
            if end is not None:
                changes["end_scale"] = end
            return rollout.replace(**changes) if changes else rollout
        rollout = "random" if rollout is None else rollout
        if rollout not in PLAYOUTS:
            raise ValueError(f"rollout must be 'random', 'heuristic', 'mast' or a Playout, got {rollout!r}")
        return PLAYOUTS[rollout](depth=None if depth == -1 else depth, cutoff_scale=0.0 if scale is None else scale,
                                 end_scale=0.0 if end is None else end)

    def _core_kwargs(self, state):
        """SearchCore options common to every core of a search of `state`."""
        return dict(c=self.c, max_nodes=self.max_nodes, playout=self._playout(state), widen=self.widen,
                    widen_power=self.widen_power, chance_keys=self.chance_keys,
                    minimax=self._game_default(state, "minimax"))

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

    def analyse(self, state, limit: Limit | None = None) -> Analysis:
        """Search `state` for the player to move and report what was found (see Analysis): the
        `Analysis` of ``start(state, limit, analyse=True)``, waited for."""
        handle = self.start(state, limit, analyse=True)
        _wait(handle)
        return handle.analysis()

    def _analysis(self, state, player, seed, summaries, seconds) -> Analysis:
        """The `Analysis` of a search of `state` from the cores' summaries."""
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
                        workers=self.workers, expanded=sum(s["expanded"] for s in summaries),
                        terminal=sum(s["terminal"] for s in summaries),
                        depth_sum=sum(s["depth_sum"] for s in summaries),
                        depth_max=max((s["depth_max"] for s in summaries), default=0))

    def choose(self, state, limit: Limit | None = None) -> int:
        """The action chosen by a search of `state` within `limit` (the bot's default budget if
        None); a forced move is played without searching. This is ``start(state,
        limit).result()``: the same search, waited for."""
        return _wait(self.start(state, limit))

    def start(self, state, limit: Limit | None = None, *, analyse: bool = False, chunk: int | None = None):
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
        iterations per core between checks (None: sized to about 20 ms)."""
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
            payload = pickle.dumps((self, root, player, call_seed))     # the bot as it is now

            def cores(indices):
                return remote_cores(payload, indices, self.workers)
        else:
            def cores(indices):
                made = self.search_cores(root, player, call_seed)
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


def root_prior(state, seed, worlds):
    """action -> the greedy bot's one-ply value of it (`GreedyBot.scores`, over `worlds`
    determinisations drawn from `seed`), scaled to [0, 1] over the legal actions (all 0.5 when
    they are equal): the prior of progressive bias at the root."""
    scored = GreedyBot.scores(state, seed, worlds)
    low = min(v for v, _ in scored)
    high = max(v for v, _ in scored)
    return {a: (v - low) / (high - low) if high > low else 0.5 for v, a in scored}


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
    ``rollout`` "random", "heuristic" (a light policy: best of three random actions by the game's
    public heuristic), "mast" (`MastPlayout`: epsilon-greedy on the search's mean return per
    player and action, no state copied) or a `Playout`; ``rollout_depth`` (-1: play to the end; n: cut off after n
    actions and score the game's heuristic); ``cutoff_scale`` (0: rank the players by the
    heuristic at the cut-off; > 0: a logistic soft rank with this scale); ``end_scale`` (0: the
    game's returns at the end of a play-out; > 0: the soft rank of the final scores); these four
    default to the game's ``search_settings()``, else random to the end, scored by the returns;
    ``final`` "visits" or "value";
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

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), **self._core_kwargs(state)) for i in range(self.workers)]


class MOISMCTSBot(ISMCTSBot):
    """Multi-observer ISMCTS: one tree per player. The player to move selects in their own tree;
    the other trees follow the move as each of those players observes it (the game's
    ``c_observed_action``), so opponents decide on what they could have seen rather than on the
    searching player's information. Where every move is public the trees coincide and it
    chooses exactly as ``ismcts`` does (a test checks this) at n times the memory. Options as
    ``ismcts``."""
    name = "mo-ismcts"

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), multi_observer=True, **self._core_kwargs(state))
                for i in range(self.workers)]


class FlatMCBot(SearchBot):
    """Flat Monte Carlo over determinisations: no tree below the root; root actions are tried in
    turn (least visited first), each iteration in a fresh world with a play-out. Options as
    ``ismcts``."""
    name = "flat-mc"

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i), selection="uniform", tree_depth=1, **self._core_kwargs(state))
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

    def _cores(self, state, player, seed):
        return [SearchCore(state, player, derive(seed, i, 1),
                           fixed_world=state.determinize(player, derive(seed, i, 2)), **self._core_kwargs(state))
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
