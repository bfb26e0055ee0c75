"""Strength of bots, measured by matches with seats rotated over duplicate deals.

Each deal (seed) is played once with the tested bot in every seat, the other seats taken by the
opponent bot, so the luck of the tiles cancels out. Reports the tested bot's first-place rate
(a shared first place counts as 1/k), mean rank-based return, and 95% Wilson intervals.

Usage:
    python benches/strength.py --game metro --players 2 --bot ismcts --opponent greedy \
        --time 0.5 --games 200 --jobs 2 [--opponent-time 0.5] [--json out.json]

Bot options go with --bot-option/--opponent-option NAME=VALUE. Budgets: --time seconds per move
or --iterations per move (reproducible on any machine), for each side.

``--bot-peek PART`` (repeatable; "all", or the hidden parts a game can keep: "decks", "hands",
"choices") lets the tested bot, an ISMCTS bot, deal its worlds knowing those parts of what its
player cannot see: a measurement of what opponent modelling could give at most (issue #44), never
a bot to play with.
"""
import argparse
import json
import platform
import sys
import time

from joblib import Parallel, delayed

import metro_ai
from metro_ai.bench.versus.sprt import elo_from_score
from metro_ai.bots.mcts import ISMCTSBot
from metro_ai.bots.search import SearchCore
from metro_ai.bots.seeding import derive
from metro_ai.play.ratings import wilson


def limit_of(seconds, iterations):
    if seconds is None and iterations is None:
        return None
    return metro_ai.Limit(iterations=iterations, time=seconds)


def _value(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_options(pairs):
    return {k: _value(v) for k, v in (p.split("=", 1) for p in pairs)}


class Budgeted:
    """A bot with its own budget, whatever limit the match passes."""

    def __init__(self, bot, limit):
        self.bot, self.limit, self.name = bot, limit, bot.name

    def choose(self, state, limit=None):
        return self.bot.choose(state, self.limit)


class PeekingISMCTSBot(ISMCTSBot):
    """An ISMCTS bot whose worlds keep the hidden parts `peek` as they really are (SearchCore's
    ``peek``): for measuring what knowing them is worth, never for play."""

    def __init__(self, peek, seed=0, **options):
        super().__init__(seed, **options)
        self.peek = tuple(peek)

    def _cores(self, state, player, seed, settings):
        return [SearchCore(state, player, derive(seed, i), settings, peek=self.peek)
                for i in range(self.workers)]


def peeking(bot, peek):
    """`bot` (an ISMCTS bot, a preset's included) made a PeekingISMCTSBot with its options."""
    if type(bot)._cores is not ISMCTSBot._cores:
        raise ValueError(f"--bot-peek needs a single-observer ISMCTS bot, not {type(bot).__name__}")
    return PeekingISMCTSBot(peek, bot.seed, **{o.name: getattr(bot, o.name) for o in bot.options})


def play_one(spec, game_index):
    game = metro_ai.load_game(spec["game"], **spec["options"])
    n = game.num_players
    deal, seat = divmod(game_index, n)
    seed = derive(spec["seed"], deal)
    bots = []
    for p in range(n):
        bseed = derive(spec["seed"], deal, p, 1)
        if p == seat:
            bot = metro_ai.make_bot(spec["bot"], seed=bseed, **spec["bot_options"])
            if spec.get("peek"):
                bot = peeking(bot, spec["peek"])
            bots.append(Budgeted(bot, limit_of(spec["time"], spec["iterations"])))
        else:
            bot = metro_ai.make_bot(spec["opponent"], seed=bseed, **spec["opponent_options"])
            bots.append(Budgeted(bot, limit_of(spec["opponent_time"], spec["opponent_iterations"])))
    t0 = time.perf_counter()
    rec = metro_ai.play_match(game, bots, seed=seed)
    scores = rec["scores"]
    top = max(scores)
    leaders = [p for p in range(n) if scores[p] == top]
    return {"deal": deal, "seat": seat, "scores": scores, "return": rec["returns"][seat],
            "first": (1.0 / len(leaders)) if seat in leaders else 0.0, "seconds": time.perf_counter() - t0,
            "bot_seconds": sum(m["seconds"] for m in rec["actions"] if m["player"] == seat),
            "bot_moves": sum(1 for m in rec["actions"] if m["player"] == seat)}


def run(spec, games, jobs, progress=True):
    out = []
    results = Parallel(n_jobs=jobs, return_as="generator")(delayed(play_one)(spec, g) for g in range(games))
    t0 = time.perf_counter()
    for i, r in enumerate(results, 1):
        out.append(r)
        if progress and (i % max(1, games // 20) == 0 or i == games):
            first = sum(x["first"] for x in out) / len(out)
            print(f"  {i}/{games} games, first {first:.1%}, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return summarise(spec, out)


def return_interval(out, z=1.96):
    """The mean rank-based return of `out` (a game's rows) with its normal-approximation 95%
    interval, over deals (a deal's seats played by one bot are not independent), and the Elo
    difference a two-player score of that mean would mean (equal bots score 0.5 at any count)."""
    deals = {}
    for r in out:
        deals.setdefault(r["deal"], []).append(r["return"])
    means = [sum(v) / len(v) for v in deals.values()]
    m = sum(means) / len(means)
    sd = (sum((x - m) ** 2 for x in means) / max(1, len(means) - 1)) ** 0.5
    half = z * sd / len(means) ** 0.5
    return {"mean_return": m, "mean_return_ci95": [m - half, m + half], "elo": elo_from_score(m),
            "elo_ci95": [elo_from_score(m - half), elo_from_score(m + half)]}


def summarise(spec, out):
    n = len(out)
    first = sum(r["first"] for r in out) / n
    mean_return = sum(r["return"] for r in out) / n
    wins = sum(1 for r in out if r["first"] == 1.0)
    ties = sum(1 for r in out if 0 < r["first"] < 1.0)
    lo, hi = wilson(first, n)
    moves = sum(r["bot_moves"] for r in out)
    return {**{k: v for k, v in spec.items()}, "games_played": n, "first_rate": first, "first_ci95": [lo, hi],
            "wins": wins, "shared_firsts": ties, "mean_return": mean_return,
            **{k: v for k, v in return_interval(out).items() if k != "mean_return"},
            "bot_seconds_per_move": sum(r["bot_seconds"] for r in out) / max(1, moves), "results": out}


def describe(s):
    b = f"{s['bot']}" + (f" {s['bot_options']}" if s["bot_options"] else "")
    b += f" peeking at {'+'.join(s['peek'])}" if s.get("peek") else ""
    o = f"{s['opponent']}" + (f" {s['opponent_options']}" if s["opponent_options"] else "")
    budget = f"{s['time']} s" if s["time"] else f"{s['iterations']} it" if s["iterations"] else "preset budget"
    return (f"{s['game']} {s['options']}: {b} ({budget} a move) vs {o}: first {s['first_rate']:.1%} "
            f"[95% {s['first_ci95'][0]:.1%}-{s['first_ci95'][1]:.1%}], {s['wins']} wins, {s['shared_firsts']} shared, "
            f"mean return {s['mean_return']:.3f} [95% {s['mean_return_ci95'][0]:.3f}-{s['mean_return_ci95'][1]:.3f}], "
            f"Elo {s['elo']:+.0f} [{s['elo_ci95'][0]:+.0f} to {s['elo_ci95'][1]:+.0f}], {s['games_played']} games, "
            f"{s['bot_seconds_per_move']:.3f} s/move")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Strength of a bot against an opponent bot, seats rotated.")
    ap.add_argument("--game", default="metro")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--option", action="append", default=[], help="game option NAME=VALUE")
    ap.add_argument("--bot", default="ismcts")
    ap.add_argument("--bot-option", action="append", default=[])
    ap.add_argument("--bot-peek", action="append", default=[], metavar="PART",
                    help="measurement only: the bot deals its worlds knowing this hidden part (all, decks, hands, choices)")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--opponent-option", action="append", default=[])
    ap.add_argument("--time", type=float, help="seconds per move for the bot")
    ap.add_argument("--iterations", type=int, help="iterations per move for the bot")
    ap.add_argument("--opponent-time", type=float)
    ap.add_argument("--opponent-iterations", type=int)
    ap.add_argument("--games", type=int, default=200, help="games (a multiple of the player count)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", help="append the summary (one JSON line) to this file")
    args = ap.parse_args(argv)
    spec = {"game": args.game, "options": {"players": args.players, **parse_options(args.option)},
            "bot": args.bot, "bot_options": parse_options(args.bot_option), "opponent": args.opponent,
            "opponent_options": parse_options(args.opponent_option), "time": args.time,
            "iterations": args.iterations, "opponent_time": args.opponent_time,
            "opponent_iterations": args.opponent_iterations, "seed": args.seed, "peek": args.bot_peek,
            "machine": platform.platform(), "jobs": args.jobs}
    s = run(spec, args.games, args.jobs)
    print(describe(s))
    if args.json:
        with open(args.json, "a") as fh:
            fh.write(json.dumps(s) + "\n")


if __name__ == "__main__":
    main()
