"""Tournament reports: standings, ratings, win-rate and first-place matrices, seat statistics;
as a terminal table, JSON, CSV and PNG plots (matplotlib, the ``plot`` extra); and the progress
line shown while a tournament runs.

Definitions (per *seat-game*: one bot in one seat of one game, so a bot with two copies at a
table counts twice):
- mean score, mean return: the game's score and rank-based return (win 1, loss 0, ties shared);
- first: the share of first place (1, or 1/k for a k-way tie for first);
- win rate ``W[i][j]``: over every pair of seats holding bot i and bot j in one game, the share
  where i finished above j (ties half);
- first place ``F[i][j]``: bot i's first-place share over its seat-games at tables with bot j.
"""
from __future__ import annotations

import csv
import math
import sys
from pathlib import Path
from typing import Any

from metro_ai.engine.datafile import finite_or_null
from metro_ai.play import ratings as _ratings


def places(values, tolerance=1e-9):
    """Competition ranking of `values` (higher is better): each entry's place is one more than
    the number of entries strictly better, so tied entries share a place and the next place is
    skipped (``[1.0, 0.5, 0.5, 0.0]`` -> ``[1, 2, 2, 4]``). Values within `tolerance` tie."""
    return [1 + sum(1 for w in values if w > v + tolerance) for v in values]


def place_labels(values, tolerance=1e-9):
    """:func:`places` as text, a shared place marked ``=``: ``[0.5, 0.5, 0.5]`` ->
    ``["=1", "=1", "=1"]``, ``[1.0, 0.5, 0.5, 0.0]`` -> ``["1", "=2", "=2", "4"]``."""
    ranks = places(values, tolerance)
    return [("=" if ranks.count(r) > 1 else "") + str(r) for r in ranks]


def _first_shares(returns):
    top = max(returns)
    k = sum(1 for r in returns if r == top)
    return [(1.0 / k if r == top else 0.0) for r in returns]


def build_report(result, bootstrap=1000, seed=None, anchor=None):
    """A JSON-ready report of a :class:`~metro_ai.play.tournament.TournamentResult`: standings,
    ratings with `bootstrap` resamples for their 95% intervals (0: none), the win-rate and
    first-place matrices and the seats' statistics. The bootstrap is seeded with `seed`, by default
    the tournament's own seed, so the same file gives the same figures here and from
    ``metro-ai tournament``. `anchor`: the label of the bot rated 1500, the others measured from it
    (by default the ratings' mean is 1500)."""
    config = result.config
    if seed is None:
        seed = config.seed
    labels = config.labels
    n = len(labels)
    games = result.games
    per: list[dict[str, Any]] = [{"seat_games": 0, "games": set(), "score": [], "ret": 0.0, "first": 0.0} for _ in range(n)]
    win = [[[0.0, 0] for _ in range(n)] for _ in range(n)]
    first = [[[0.0, 0] for _ in range(n)] for _ in range(n)]
    seats = [{"seat": s, "games": 0, "ret": 0.0, "first": 0.0} for s in range(config.players)]
    for g in games:
        fs = _first_shares(g["returns"])
        present = set(g["seats"])
        for s, i in enumerate(g["seats"]):
            p = per[i]
            p["seat_games"] += 1
            p["games"].add(g["id"])
            p["score"].append(g["scores"][s])
            p["ret"] += g["returns"][s]
            p["first"] += fs[s]
            seats[s]["games"] += 1
            seats[s]["ret"] += g["returns"][s]
            seats[s]["first"] += fs[s]
            for j in present:
                if j != i:
                    first[i][j][0] += fs[s]
                    first[i][j][1] += 1
            for t, j in enumerate(g["seats"]):
                if t != s and j != i:
                    r, q = g["returns"][s], g["returns"][t]
                    win[i][j][0] += 1.0 if r > q else 0.5 if r == q else 0.0
                    win[i][j][1] += 1
    rating = _ratings.rate(games, labels, config.players, bootstrap=bootstrap, seed=seed, anchor=anchor)
    by_bot = {row["bot"]: row for row in rating["rows"]}
    skill = {row["bot"]: row for row in rating.get("openskill", {}).get("rows", [])}
    rows = []
    for i, lab in enumerate(labels):
        p = per[i]
        m = p["seat_games"]
        mean = sum(p["score"]) / m if m else math.nan
        sd = (math.sqrt(sum((x - mean) ** 2 for x in p["score"]) / (m - 1)) if m > 1 else math.nan)
        r = by_bot.get(lab, {})
        rows.append({"bot": lab, "spec": str(config.bots[i]), "games": len(p["games"]), "seat_games": m,
                     "mean_score": mean, "score_sd": sd, "mean_return": p["ret"] / m if m else math.nan,
                     "first": p["first"] / m if m else math.nan,
                     "rating": r.get("rating", math.nan), "rating_low": r.get("low", math.nan),
                     "rating_high": r.get("high", math.nan), "rating_interval": r.get("interval")})
        if skill:
            o = skill[lab]
            rows[-1].update({"openskill_mu": o["rating"], "openskill_low": o["low"], "openskill_high": o["high"]})
    key = (lambda row: -row["rating"]) if rating["rows"] else (lambda row: -_nz(row["mean_return"]))
    rows.sort(key=lambda row: (_nz(key(row)), row["bot"]))
    # competition ranking: bots level on the sorting value share a place ("=1")
    level = [-_nz(key(row)) for row in rows]
    for row, rank, label in zip(rows, places(level), place_labels(level)):
        row["rank"] = rank
        row["place"] = label

    def matrix(cells):
        return [[(c[0] / c[1] if c[1] else None) if i != j else None for j, c in enumerate(line)]
                for i, line in enumerate(cells)]

    return finite_or_null({                # strict JSON: no games, no rating: null
        "tournament": config.to_dict(),
        "description": config.describe(),
        "path": result.path,
        "games_total": result.total,
        "games_played": len(games),
        "games_failed": len(result.failures),
        "deals_played": len({g["deal"] for g in games}),
        "failures": result.failures[:20],
        "complete": result.complete,
        "seconds_played": sum(g.get("seconds") or 0.0 for g in games),
        "rating": {k: ({kk: vv for kk, vv in v.items() if kk != "rows"} if k == "openskill" else v)
                   for k, v in rating.items() if k != "rows"},
        "standings": rows,
        "bots": labels,
        "win_rate": matrix(win),
        "win_rate_games": [[c[1] for c in line] for line in win],
        "first_place": matrix(first),
        "seats": [{"seat": s["seat"], "seat_games": s["games"],
                   "mean_return": s["ret"] / s["games"] if s["games"] else None,
                   "first": s["first"] / s["games"] if s["games"] else None} for s in seats],
    })


def _nz(x):
    return 0.0 if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _f(x, fmt):
    return "-" if x is None else format(x, fmt)


def format_report(report, matrices=True):
    """A report of :func:`build_report` (or :meth:`TournamentResult.report
    <metro_ai.TournamentResult.report>`) as the table ``metro-ai tournament`` prints: the
    standings, the rating's method, and with `matrices` the win-rate and first-place matrices."""
    lines = [report["description"],
             f"games played: {report['games_played']}/{report['games_total']}"
             + (f", {report['games_failed']} failed" if report["games_failed"] else "")
             + ("" if report["complete"] else "  (incomplete: continue with --resume)")]
    rating = report["rating"]
    if rating.get("method"):
        lines.append(f"rating: {rating['method']}; {rating['scale']}")
        deals = report.get("deals_played")
        if deals is not None and deals < 10:
            lines.append(f"  (only {deals} deal(s) played: the bootstrap intervals are rough; play more --deals)")
        for note in rating.get("notes", []):
            lines.append(f"  note: {note}")
    elif rating.get("note"):
        lines.append(f"rating: {rating['note']}")
    name_w = max([len("bot")] + [len(r["bot"]) for r in report["standings"]])
    elo = bool(rating.get("method"))
    head = (f"{'#':>2}  {'bot':<{name_w}}  {'games':>5}  {'mean score':>12}  {'return':>6}  {'first':>6}  "
            f"{'Elo' if elo else 'rating':>7}  {'95% interval':>16}")
    lines += ["", head, "-" * len(head)]
    for r in report["standings"]:
        score = "-" if r["mean_score"] is None else (
            f"{r['mean_score']:.1f}" + (f" ±{r['score_sd']:.1f}" if r["score_sd"] is not None else ""))
        rfmt = ".0f" if elo else ".2f"
        interval = _interval(r, rfmt)
        lines.append(f"{r.get('place', r['rank']):>2}  {r['bot']:<{name_w}}  {r['games']:>5}  {score:>12}  "
                     f"{_f(r['mean_return'], '.3f'):>6}  {_f(r['first'] if r['first'] is None else 100 * r['first'], '.1f') + '%':>6}  "
                     f"{_f(r['rating'], rfmt):>7}  {interval:>16}")
    kinds = {r.get("rating_interval") for r in report["standings"]}
    if kinds & {"at-least", "at-most", "none"}:
        lines.append("intervals: [x, ∞) or (-∞, x]: the results bound only that end (a bot that finished above, or "
                     "below, others in all their pairings); n/a: they bound neither; see the notes"
                     + ("" if "anchor" in kinds else "; --anchor BOT measures the others from one bot"))
    if report["standings"] and "openskill_mu" in report["standings"][0]:
        lines.append("openskill Plackett-Luce mu [mu +/- 1.96 sigma]: " + ", ".join(
            f"{r['bot']} {r['openskill_mu']:.1f} [{r['openskill_low']:.1f}, {r['openskill_high']:.1f}]"
            for r in report["standings"]))
    if matrices and report["games_played"]:
        order = [r["bot"] for r in report["standings"]]
        idx = [report["bots"].index(b) for b in order]
        tables = [("win rate: row finished above column (ties half)", "win_rate")]
        if len(report["seats"]) > 2:            # with two seats first place is the win rate
            tables.append(("first place: row's first-place share at tables with column", "first_place"))
        for title, key in tables:
            lines += ["", title, " " * (name_w + 4) + "".join(f"{k:>7}" for k in range(1, len(order) + 1))]
            for k, i in enumerate(idx, 1):
                cells = [report[key][i][j] for j in idx]
                lines.append(f"{k:>2}  {report['bots'][i]:<{name_w}}" + "".join(
                    f"{'-' if c is None else format(c, '.3f'):>7}" for c in cells))
        lines += ["", "by seat: " + ", ".join(
            f"seat {s['seat']} return {_f(s['mean_return'], '.3f')} first {_f(s['first'], '.1%')}"
            for s in report["seats"])]
    return "\n".join(lines)


def _interval(row, fmt):
    """The interval column: ``[low, high]``, a one-sided ``[low, ∞)`` / ``(-∞, high]``, ``n/a`` when the
    results bound neither end, ``anchor`` for the anchored bot, ``-`` when none was computed."""
    kind, low, high = row.get("rating_interval"), row["rating_low"], row["rating_high"]
    if kind == "anchor":
        return "anchor"
    if kind == "none":
        return "n/a"
    if kind == "at-least" and low is not None:
        return f"[{format(low, fmt)}, ∞)"
    if kind == "at-most" and high is not None:
        return f"(-∞, {format(high, fmt)}]"
    if low is None or high is None:
        return "-"
    return f"[{format(low, fmt)}, {format(high, fmt)}]"


STANDINGS_FIELDS = ["rank", "bot", "spec", "games", "seat_games", "mean_score", "score_sd", "mean_return", "first",
                    "rating", "rating_low", "rating_high", "rating_interval", "openskill_mu", "openskill_low",
                    "openskill_high", "place"]


def write_csv(report, path):
    """The standings as CSV, one row per bot."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=STANDINGS_FIELDS + ["rating_method"], extrasaction="ignore")
        w.writeheader()
        for r in report["standings"]:
            w.writerow({**r, "rating_method": report["rating"].get("method") or ""})


def write_games_csv(result, path):
    """Every game played, one row per seat: id, deal, table, seating, seat, bot, score, return, seconds."""
    labels = result.config.labels
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["game", "deal", "table", "seating", "seat", "bot", "score", "return", "game_seconds"])
        for g in result.games:
            for s, i in enumerate(g["seats"]):
                w.writerow([g["id"], g["deal"], g["table"], g["seating"], s, labels[i], g["scores"][s],
                            g["returns"][s], g.get("seconds")])


def require_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("plots need matplotlib: pip install 'metro-ai[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(report, directory):
    """Write ``ratings.png`` (ratings with 95% intervals) and ``winrate.png`` (win-rate heat map)
    into `directory`; returns their paths."""
    plt = require_matplotlib()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    rows = [r for r in report["standings"] if r["rating"] is not None][::-1]
    if rows:
        fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.6))
        ys = range(len(rows))
        vals = [r["rating"] for r in rows]
        lo = [r["rating"] - r["rating_low"] if r["rating_low"] is not None else 0 for r in rows]
        hi = [r["rating_high"] - r["rating"] if r["rating_high"] is not None else 0 for r in rows]
        ax.errorbar(vals, list(ys), xerr=[lo, hi], fmt="o", capsize=4)
        # an end the results do not bound: an arrow off that side
        span = max([1.0] + [abs(a - b) for a in vals for b in vals]) * 0.15
        for y, r in zip(ys, rows):
            kind = r.get("rating_interval")
            ends = {"at-least": (1,), "at-most": (-1,), "none": (-1, 1)}.get(kind or "", ())
            for d in ends:
                ax.annotate("", xy=(r["rating"] + d * span, y), xytext=(r["rating"], y),
                            arrowprops={"arrowstyle": "->", "color": "C0"})
        ax.set_yticks(list(ys))
        ax.set_yticklabels([r["bot"] for r in rows])
        ax.set_xlabel("Elo with 95% interval (" + (report["rating"].get("method") or "").split(" (")[0] + ")")
        ax.set_title(report["description"], fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        paths.append(out / "ratings.png")
        fig.savefig(paths[-1], dpi=120)
        plt.close(fig)
    order = [r["bot"] for r in report["standings"]]
    idx = [report["bots"].index(b) for b in order]
    data = [[(report["win_rate"][i][j] if report["win_rate"][i][j] is not None else float("nan")) for j in idx]
            for i in idx]
    fig, ax = plt.subplots(figsize=(1.1 * len(order) + 2.5, 0.9 * len(order) + 1.8))
    im = ax.imshow(data, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order, rotation=30, ha="right")
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(order)
    for a in range(len(order)):
        for b in range(len(order)):
            if not math.isnan(data[a][b]):
                ax.text(b, a, f"{data[a][b]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("win rate: row finished above column", fontsize=9)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    paths.append(out / "winrate.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return [str(p) for p in paths]


class ProgressLine:
    """A live progress bar (tqdm) on a stream (stderr) while games are played: games done/total,
    rate, elapsed and ETA, and the current standings by mean return. Drawn only on a terminal
    (at most 10 redraws a second); quiet when the stream is not one (a log, a pipe). `unit`
    names what is counted (games; a review's decisions)."""

    def __init__(self, stream=None, already=0, unit="game"):
        self.stream = stream or sys.stderr
        self.unit = unit
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.already = already
        self.bar = None

    @staticmethod
    def standings(result):
        """The bots by mean return so far, e.g. "greedy 0.750, random 0.250"."""
        if result is None or not result.games:
            return ""
        totals: dict = {}
        for g in result.games:
            for s, i in enumerate(g["seats"]):
                t = totals.setdefault(i, [0.0, 0])
                t[0] += g["returns"][s]
                t[1] += 1
        ranked = sorted(totals, key=lambda i: -totals[i][0] / totals[i][1])
        return ", ".join(f"{result.config.labels[i]} {totals[i][0] / totals[i][1]:.3f}" for i in ranked)

    def __call__(self, done, total, result=None):
        if not self.tty:
            return
        if self.bar is None:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=self.already, file=self.stream, unit=self.unit,
                            mininterval=0.1, dynamic_ncols=True, leave=True)
        text = self.standings(result)
        if text:
            self.bar.set_postfix_str("mean return: " + text, refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
