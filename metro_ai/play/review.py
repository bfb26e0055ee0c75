"""Game review: what each decision of a recorded game cost its player, and what luck did.

:func:`review` replays a match record (:func:`metro_ai.play.match.replay` checks it) and, at
every decision with a real choice (more than one legal action), searches the position with a
search bot from the mover's own information: the bot sees what that seat saw then and nothing
hidden from it, as in play. From that one search:

- each legal action's value is its mean return for the mover over the search (the expected
  return, a win chance in [0, 1]: 1 a win, 0 a loss, ranks between);
- the **best** move is the most visited one (the search's choice; the higher mean breaks a tie),
  the position's value for its mover is the best move's value, and the **loss** of the move played
  is ``max(0, value(best) - value(played))``;
- each action's **points** are the mover's mean score margin (its score less the mean of the
  others') where the search's play-outs through it stopped: the end of the game, or the
  play-out's cut-off (Breakthrough, Metro 2033: the score so far there). ``loss_points`` is the
  best move's less the move played: the loss in the game's own points (it can be negative: the
  move that wins most often need not score most);
- the search's **noise** at that budget is ``Z * sqrt(se(best)**2 + se(played)**2)``, where
  ``se = 0.5 / sqrt(visits)`` bounds the standard error of a mean of returns in [0, 1]; a loss is
  **marked** only when it is larger than its noise, by ``THRESHOLDS`` (see `mark_of`).

**Luck**, seat by seat and from that seat's information only: between two decisions of a seat
(or its last decision and the end), its win chance moves from the value of the move it played
to the value of its next position (its return, at the end). The other seats' mistakes in
between account for part of that (each loss shared equally among the other seats: exact for two
players, whose returns sum to one; an approximation for more), and the rest is luck: the draws
and deals, and the hidden parts of the game coming to light. So for each seat, from its first
decision to the end, the change in its win chance is exactly ``- its losses + its share of the
others' losses + its luck``. A ``Chance`` entry is counted at the ply where the seat's interval
closes (its next decision, or the end).

Reviews are reproducible: each decision is searched by a bot of its own, seeded by ``derive(seed,
ply)``, so the same record, bot, iteration budget and seed give the same review whatever
``workers`` is (a time budget is not reproducible, as in play).
"""
from __future__ import annotations

import math
import statistics
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from metro_ai.bots.catalogue import BotSpec, require_search
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.errors import MetroAIError
from metro_ai.play.match import limit_to_dict, replay_record
from metro_ai.play.terminal import describe

MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")
#: The least loss, in expected return (win chance), of each error class: lichess's classes are
#: drops of 10, 20 and 30 points of win percentage; games with chance and hidden cards are
#: noisier than chess, and their values are means over dealt worlds, so the classes start lower.
THRESHOLDS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
#: How many standard errors a loss must exceed to be marked at all.
Z = 2.0
#: Alternatives kept per decision (the most visited moves).
TOP = 3


class ReviewError(MetroAIError, ValueError):
    """A review that cannot be made: a bad number of workers, a seat out of range."""


class ReviewStopped(MetroAIError):
    """The review was stopped (its ``stop`` event set) before it was done."""


@dataclass(frozen=True)
class Move:
    """A legal move as the search valued it: its mean return for the mover, its visits and its
    points (the mover's mean score margin; see the module)."""
    action: int
    text: str
    value: float
    visits: int
    points: Optional[float] = None


@dataclass(frozen=True)
class Decision:
    """One decision with a choice: ``ply`` (the index of the move in the record's actions), the
    ``player`` who made it, the move ``played`` and the ``best`` (action ids, with texts), each one's
    value for the player, the ``loss`` (>= 0) and the ``noise`` it is measured against, the
    ``mark`` (one of `MARKS`) and the ``alternatives`` (the most visited moves); the points of
    the two moves and ``loss_points`` (see the module; None where the search never tried the
    move played); the two moves in a person's words (``played_words``, ``best_words``: Metro
    2033's without station ids; the ``_text`` fields are the engine's, as in the record)."""
    ply: int
    player: int
    played: int
    played_text: str
    best: int
    best_text: str
    value_played: float
    value_best: float
    loss: float
    noise: float
    mark: str
    legal: int
    alternatives: tuple[Move, ...] = ()
    points_played: Optional[float] = None
    points_best: Optional[float] = None
    loss_points: Optional[float] = None
    played_words: str = ""
    best_words: str = ""


@dataclass(frozen=True)
class Chance:
    """The luck counted at ``ply`` (the position before the record's action ``ply``, or the end):
    one number per seat, 0 for the seats whose interval does not close there (see the module)."""
    ply: int
    luck: tuple[float, ...]


@dataclass(frozen=True)
class PlayerSummary:
    """A seat's review: its decisions reviewed, total and mean loss, its marks counted, its
    accuracy (0-100, see `accuracy`), its luck (the sum of its `Chance` entries) and its loss in
    points (the sum of its decisions' ``loss_points``, those the search could value)."""
    seat: int
    label: str
    decisions: int
    loss: float
    mean_loss: float
    marks: dict
    accuracy: Optional[float]
    luck: float
    loss_points: float = 0.0


@dataclass(frozen=True)
class Review:
    """What :func:`review` returns. ``win_chance[seat][p]`` is that seat's expected return at
    position ``p`` (0 the deal, ``len(actions)`` the end) as it valued it at its last decision up
    to ``p`` (after it moved: the value of its move), its return at the end, None before its first
    decision."""
    game: str
    options: dict
    bots: list
    bot: str
    limit: dict
    seed: int
    seats: tuple[int, ...]
    decisions: list
    chances: list
    players: list
    win_chance: list
    returns: Optional[list] = None
    iterations: int = 0
    seconds: float = 0.0
    repeats: int = 1
    thresholds: dict = field(default_factory=lambda: {name: low for name, low in THRESHOLDS})

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-ready data (what ``metro-ai review --json`` writes)."""
        out = asdict(self)
        out["format"] = "metro-ai-review"
        out["version"] = 1
        return out

    def marked(self, seat: Optional[int] = None) -> list:
        """The decisions marked inaccuracy, mistake or blunder (of one seat, if given)."""
        return [d for d in self.decisions if d.mark in MARKS[2:] and (seat is None or d.player == seat)]

    def describe(self, seed: Optional[int] = None) -> str:
        """Who reviewed, how: ``hard (2,500 iterations a decision, seed 0)`` (the review's seed,
        or `seed`: that of a bulk review, from which each game's derives)."""
        times = f"{self.repeats} searches of " if self.repeats > 1 else ""
        return f"{self.bot} ({times}{_budget(self.limit)} a decision, seed {self.seed if seed is None else seed})"

    def table(self) -> str:
        """The review as text: per reviewed seat its summary and its marked decisions."""
        rows = [f"review of {self.game} by {self.describe()}: "
                f"{len(self.decisions)} decisions, {self.iterations:,} iterations, {self.seconds:.1f} s"]
        for p in self.players:
            acc = "-" if p.accuracy is None else f"{p.accuracy:.1f}"
            counts = ", ".join(f"{p.marks[m]} {m}" for m in MARKS[2:])
            rows.append(f"\nseat {p.seat} ({p.label}): accuracy {acc}, loss {p.loss:.3f} over {p.decisions} "
                        f"decisions (mean {p.mean_loss:.3f}; {p.loss_points:+.1f} points), luck {p.luck:+.3f}; {counts}")
            for d in self.marked(p.seat):
                points = "" if d.loss_points is None else f", {d.loss_points:+.1f} points"
                rows.append(f"  ply {d.ply:>4}  {d.mark:<10} played {d.played_words or d.played_text}  "
                            f"better {d.best_words or d.best_text}  "
                            f"loss {d.loss:.3f} (win chance {d.value_best:.0%} -> {d.value_played:.0%}{points})")
        if self.returns is not None:
            rows.append("\nreturns: " + ", ".join(f"seat {s} {r:.3g}" for s, r in enumerate(self.returns)))
        return "\n".join(rows)


def mark_of(played: int, best: int, loss: float, noise: float) -> str:
    """The class of a decision: ``best`` if the best move was played; ``good`` if the loss is
    within the search's noise or under the least threshold; else the class of the largest
    threshold the loss reaches (inaccuracy 0.05, mistake 0.10, blunder 0.20 of win chance)."""
    if played == best:
        return "best"
    if loss <= noise:
        return "good"
    for name, low in THRESHOLDS:
        if loss >= low:
            return name
    return "good"


def accuracy(losses) -> Optional[float]:
    """A seat's accuracy, 0-100: the mean over its decisions of ``103.1668 * exp(-4.354 * loss) -
    3.1669`` clipped to [0, 100] (lichess's published per-move formula, with the loss in win
    chance rather than in win percentage points; exactly 100 for no loss), so a decision that loses nothing scores 100, a
    loss of 0.05 about 80, 0.1 about 64, 0.2 about 40. None for a seat without decisions."""
    losses = list(losses)
    if not losses:
        return None
    per = [100.0 if x <= 0 else min(100.0, max(0.0, 103.1668 * math.exp(-4.354 * x) - 3.1669)) for x in losses]
    return sum(per) / len(per)


def _budget(limit):
    parts = [f"{limit['iterations']:,} iterations" if limit.get("iterations") else "",
             f"{limit['time']} s" if limit.get("time") else ""]
    return " or ".join(p for p in parts if p) or "the bot's default budget"


def _se(visits):
    return 0.5 / math.sqrt(max(visits, 1))


def _decision(ply, state, action, analyses):
    """The `Decision` at `ply` from its searches' analyses: visits and returns summed over them;
    the noise from the visits, or, with several searches, from how much their losses differ
    where that is larger."""
    visits: dict[int, int] = {}
    total: dict[int, float] = {}
    margin: dict[int, float] = {}
    texts = {}
    for analysis in analyses:
        for a in analysis.actions:
            visits[a.action] = visits.get(a.action, 0) + a.visits
            total[a.action] = total.get(a.action, 0.0) + a.mean * a.visits
            if a.points is not None:
                margin[a.action] = margin.get(a.action, 0.0) + a.points * a.visits
            texts[a.action] = a.text
    if len(analyses) == 1:                         # (one search: its own means, to the last bit)
        mean = {a.action: a.mean for a in analyses[0].actions}
    else:
        mean = {a: total[a] / visits[a] if visits[a] else 0.0 for a in visits}
    best = max(visits, key=lambda a: (visits[a], mean[a]))
    value_played = mean.get(action, 0.0)
    loss = max(0.0, mean[best] - value_played) if action != best else 0.0
    noise = 0.0
    if action != best:
        se = math.hypot(_se(visits[best]), _se(visits.get(action, 0)))
        diffs = [_mean_of(a, best) - _mean_of(a, action) for a in analyses]
        if len(diffs) > 1:
            se = max(se, statistics.stdev(diffs) / math.sqrt(len(diffs)))
        noise = Z * se
    points = {a: margin[a] / visits[a] for a in margin if visits[a]}
    loss_points = 0.0 if action == best else (points[best] - points[action]
                                              if best in points and action in points else None)
    top = sorted(visits, key=lambda a: (-visits[a], -mean[a], a))[:TOP]
    return Decision(ply, state.current_player, action, state.action_to_string(action), best, texts[best],
                    value_played, mean[best], loss, noise, mark_of(action, best, loss, noise),
                    len(state.legal_actions()), tuple(Move(a, texts[a], mean[a], visits[a], points.get(a)) for a in top),
                    points.get(action), points.get(best), loss_points, describe(state, action), describe(state, best))


def _mean_of(analysis, action):
    """One search's mean return of `action` (0 if it never tried it)."""
    return next((a.mean for a in analysis.actions if a.action == action), 0.0)


def _luck(decisions, n, end, returns, reviewed):
    """The `Chance` entries and the win-chance series (see the module): per seat, interval by
    interval between its decisions."""
    by_ply = {d.ply: d for d in decisions}
    luck_at: dict[int, list] = {}
    win = [[None] * (end + 1) for _ in range(n)]
    for seat in reviewed:
        own = [d for d in decisions if d.player == seat]
        for k, d in enumerate(own):
            stop = own[k + 1].ply if k + 1 < len(own) else end
            for p in range(d.ply, stop + 1):
                win[seat][p] = d.value_best if p == d.ply else d.value_played
            if k + 1 < len(own):
                now = own[k + 1].value_best
            elif returns is not None:
                now = returns[seat]
            else:
                continue                 # an unfinished game: the last interval stays open
            gift = sum(by_ply[q].loss for q in range(d.ply + 1, stop) if q in by_ply) / max(n - 1, 1)
            luck_at.setdefault(stop, [0.0] * n)[seat] += now - d.value_played - gift
        if own and returns is not None:
            win[seat][end] = returns[seat]
    return [Chance(p, tuple(v)) for p, v in sorted(luck_at.items())], win


def review(record, bot: str | BotSpec = "hard", limit: Limit | None = None, workers: int = 1, seed: int = 0,
           seats=None, repeats: int = 1, progress: Callable[[int, int], Any] | None = None,
           stop: threading.Event | None = None, max_nodes: int | None = None) -> Review:
    """Review a recorded game (see the module): `record` is a match record (a dict, its JSON text
    or a path; ``metro-ai match --save``, ``play_match``), replayed and checked first.

    `bot` is a search bot or preset spec (default ``hard``); `limit` the budget of each decision's
    search (None: the spec's, else the bot's own); `workers` decisions searched at once (threads:
    the searches run without the GIL); `seed` seeds each decision's bot (``derive(seed, ply)``);
    `seats` the seats to review (default all; the others' decisions are then not searched, so
    their mistakes count in the reviewed seats' luck); `repeats` independent searches a decision
    (their visits and returns summed, the noise also read from how much their losses differ).
    ``progress(done, total)`` is called once before the first search and as searches finish; setting `stop` ends the review early
    with `ReviewStopped`; `max_nodes` lowers each search's tree to that many nodes (a server's
    limit, `Bot.cap`).
    """
    if isinstance(record, str) and not record.lstrip().startswith("{"):
        record = Path(record)                     # a path given as text
    for name, value in (("workers", workers), ("repeats", repeats)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ReviewError(f"{name} must be a positive int, got {value!r}")
    spec = bot if isinstance(bot, BotSpec) else BotSpec.parse(bot)
    probe = spec.make(seed=seed)
    require_search(spec, probe, "it cannot review")
    limit = limit or spec.limit or probe.default_limit
    data, states = replay_record(record)
    n = states[0].num_players
    seats = list(range(n)) if seats is None else list(seats)
    bad = [s for s in seats if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < n]
    if bad:
        raise ReviewError(f"seats must be 0-{n - 1} in a {n}-player game, got {bad}")
    reviewed = tuple(sorted(set(seats)))
    actions = [m["action"] for m in data["actions"]]
    todo = [i for i, s in enumerate(states[:-1]) if s.current_player in reviewed and len(s.legal_actions()) > 1]

    halt = threading.Event()             # set when the review ends early: searches not begun are skipped

    def one(ply, r):
        if halt.is_set() or (stop is not None and stop.is_set()):
            return None
        # (the first search's seed is the same whatever `repeats` is)
        searcher = spec.make(seed=derive(seed, ply) if r == 0 else derive(seed, ply, r))
        if max_nodes is not None:
            searcher.cap(max_nodes)
        return searcher.analyse(states[ply], limit, points=True)

    results: dict = {}
    tasks = [(ply, r) for ply in todo for r in range(repeats)]
    t0 = time.perf_counter()
    if progress is not None:
        progress(0, len(tasks))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = {pool.submit(one, *task): task for task in tasks}
        try:
            while pending:
                done, _ = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for f in done:
                    results[pending.pop(f)] = f.result()
                if done and progress is not None:
                    progress(len(results), len(tasks))
                if stop is not None and stop.is_set():
                    raise ReviewStopped(f"review stopped after {len(results)} of {len(tasks)} searches")
        except BaseException:
            halt.set()
            for f in pending:
                f.cancel()
            raise
    decisions = [_decision(ply, states[ply], actions[ply], [results[ply, r] for r in range(repeats)]) for ply in todo]
    end = len(actions)
    returns = states[-1].returns() if states[-1].is_terminal() else None
    chances, win = _luck(decisions, n, end, returns, reviewed)
    labels = data.get("bots") or [f"seat {s}" for s in range(n)]
    players = []
    for s in reviewed:
        own = [d for d in decisions if d.player == s]
        total = sum(d.loss for d in own)
        players.append(PlayerSummary(s, str(labels[s]) if s < len(labels) else f"seat {s}", len(own), total,
                                     total / len(own) if own else 0.0,
                                     {m: sum(d.mark == m for d in own) for m in MARKS}, accuracy(d.loss for d in own),
                                     sum(c.luck[s] for c in chances),
                                     sum(d.loss_points for d in own if d.loss_points is not None)))
    return Review(data["game"], dict(data.get("options") or {}), list(data.get("bots") or []), str(spec),
                  limit_to_dict(limit) or {}, seed, reviewed, decisions, chances, players, win, returns,
                  iterations=sum(r.iterations for r in results.values()), seconds=time.perf_counter() - t0,
                  repeats=repeats)


def _review_one(item):
    """One game of :func:`review_games` (a job: module level, so that it pickles)."""
    key, record, settings = item
    return key, review(record, seed=derive(settings.pop("seed"), key), **settings)


def review_games(records, bot: str | BotSpec = "hard", limit: Limit | None = None, seed: int = 0, repeats: int = 1,
                 workers: int = 1, jobs: int = 1, dask: str | None = None, keys=None,
                 progress: Callable[[int, int], Any] | None = None) -> list:
    """Review many recorded games (a tournament's, say) and return their `Review`s, in the order
    of `records` (each a record dict, its JSON text or a path, as :func:`review` takes it).

    Each game is one job: in this process (`jobs` 1), on `jobs` local processes (joblib; -1: one
    per core), or on the Dask cluster at `dask` (``"tcp://host:port"``, the ``dask`` extra), each
    job reviewing its game on `workers` threads. Game ``i`` is reviewed with the seed
    ``derive(seed, keys[i])`` (`keys` default: 0, 1, 2, ...; a tournament's game ids), so the
    reviews are the same wherever the jobs run. `bot`, `limit` and `repeats` as :func:`review`;
    ``progress(done, total)`` counts games. :func:`review_summary` sums the reviews up by bot."""
    from metro_ai.play.tournament.runner import dask_client, run_unordered
    records = list(records)
    keys = list(range(len(records))) if keys is None else list(keys)
    if len(keys) != len(records):
        raise ReviewError(f"{len(keys)} keys for {len(records)} records")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not (jobs >= 1 or jobs == -1):
        raise ReviewError(f"jobs must be a positive int or -1 (one per core), got {jobs!r}")
    spec = bot if isinstance(bot, BotSpec) else BotSpec.parse(bot)
    require_search(spec, spec.make(seed=seed), "it cannot review")     # before any job starts
    settings = {"bot": str(spec), "limit": limit, "seed": seed, "repeats": repeats, "workers": workers}
    items = [(k, r, dict(settings)) for k, r in zip(keys, records)]
    done: dict = {}
    if progress is not None:
        progress(0, len(items))
    with dask_client(dask) as client:
        for key, result in run_unordered(_review_one, items, jobs, client):
            done[key] = result
            if progress is not None:
                progress(len(done), len(items))
    return [done[k] for k in keys]


def review_summary(reviews) -> list:
    """The reviews of many games summed up per bot (the record's name of each reviewed seat),
    best accuracy first: ``bot``, ``games`` (seats reviewed), ``decisions``, ``accuracy`` (the
    mean of `accuracy`'s per-decision figure over all its decisions), ``mean_loss`` (per
    decision), ``marks`` counted, and ``luck`` (its mean per game)."""
    rows: dict = {}
    for r in reviews:
        for p in r.players:
            row = rows.setdefault(p.label, {"bot": p.label, "games": 0, "losses": [], "marks": dict.fromkeys(MARKS, 0),
                                            "luck": 0.0})
            row["games"] += 1
            row["luck"] += p.luck
            row["losses"] += [d.loss for d in r.decisions if d.player == p.seat]
            for m in MARKS:
                row["marks"][m] += p.marks[m]
    out = []
    for row in rows.values():
        losses = row.pop("losses")
        out.append({**row, "decisions": len(losses), "accuracy": accuracy(losses),
                    "mean_loss": sum(losses) / len(losses) if losses else 0.0, "luck": row["luck"] / row["games"]})
    return sorted(out, key=lambda row: (-(row["accuracy"] or 0.0), row["bot"]))


def summary_table(rows) -> str:
    """`review_summary`'s rows as a text table."""
    lines = [f"{'bot':<24} {'games':>5} {'decisions':>9} {'accuracy':>8} {'mean loss':>9} {'luck/game':>9}  "
             + "  ".join(MARKS[2:])]
    for row in rows:
        acc = "-" if row["accuracy"] is None else f"{row['accuracy']:.1f}"
        lines.append(f"{row['bot'][:24]:<24} {row['games']:>5} {row['decisions']:>9} {acc:>8} {row['mean_loss']:>9.4f} "
                     f"{row['luck']:>+9.3f}  " + "  ".join(f"{row['marks'][m]:>{len(m)}}" for m in MARKS[2:]))
    return "\n".join(lines)


def plot_review(result: Review, path) -> str:
    """Write the win-chance graph of `result` to `path` (PNG; matplotlib, the ``plot`` extra):
    each reviewed seat's win chance over the plies, its marked decisions as dots (at the value of
    the move played, coloured by class) and the plies where luck was counted as ticks along the
    bottom. Returns the path written."""
    from metro_ai.play.report import require_matplotlib
    plt = require_matplotlib()
    colours = {"inaccuracy": "#e0b000", "mistake": "#e07000", "blunder": "#d00000"}
    fig, ax = plt.subplots(figsize=(9, 4))
    for seat in result.seats:
        series = result.win_chance[seat]
        xs = [p for p, v in enumerate(series) if v is not None]
        line, = ax.step(xs, [series[p] for p in xs], where="post", label=f"seat {seat}")
        for d in result.marked(seat):
            ax.plot([d.ply], [d.value_played], "o", color=colours[d.mark], markeredgecolor=line.get_color())
    for c in result.chances:
        ax.plot([c.ply], [0.0], "|", color="grey", markersize=8)
    for name, colour in colours.items():
        ax.plot([], [], "o", color=colour, label=name)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("ply (move of the record)")
    ax.set_ylabel("win chance (expected return)")
    ax.set_title(f"{result.game}: review by {result.bot}")
    ax.legend(loc="upper left", fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)
