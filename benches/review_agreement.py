"""How honest a game review's marks are (issue #43's measures), on games played here.

    python benches/review_agreement.py [--game metro] [--players 2] [--games 6] [--plant 0.1]
        [--bot hard] [--repeats 1] [--iterations N] [--reference-iterations 20000] [--workers 2] [--seed 1]

Plays `--games` games of `--bot` against itself, where seat 0 plays a random legal move instead
of the bot's at a share `--plant` of its decisions; reviews each game twice with `--bot`
(seeds 0 and 1) and once with a reference budget (`--reference-iterations`, seed 99), and prints:
- agreement of the two reviews: decisions given the same mark, and of the decisions either marked
  (inaccuracy or worse), the share both marked;
- planted moves that the reference finds bad (loss >= 0.10): the share each review marks;
- the bot's own moves (not planted): the share each review marks;
- review time per game (wall, with `--workers` threads).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import metro_ai
from metro_ai import Limit
from metro_ai.bots.seeding import derive
from metro_ai.play.match import match_record
from metro_ai.play.review import review


def planted_game(game, bot, seed, rate):
    """A game of `bot` against itself where seat 0 plays a random legal move instead of the
    bot's at each of its decisions with probability `rate`; (record, the planted plies)."""
    rng = random.Random(seed)
    bots = [metro_ai.BotSpec.parse(bot).make(seed=derive(seed, p)) for p in range(game.num_players)]
    s = game.new_state(seed)
    actions, planted = [], set()
    while not s.is_terminal():
        legal = s.legal_actions()
        if len(legal) == 1:
            a = legal[0]
        elif s.current_player == 0 and rng.random() < rate:
            a = rng.choice(legal)
            planted.add(len(actions))
        else:
            a = bots[s.current_player].choose(s)
        actions.append({"player": s.current_player, "action": a, "text": s.action_to_string(a), "seconds": 0.0})
        s.apply(a)
    return match_record(game, seed, [bot] * game.num_players, actions, s), planted


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="metro")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--plant", type=float, default=0.1, help="share of seat 0's decisions played at random")
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--reference-iterations", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1, help="searches a decision in the two reviews")
    ap.add_argument("--iterations", type=int, default=None, help="the two reviews' budget (default: the bot's)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    game = metro_ai.load_game(args.game, players=args.players)
    same = both = either = 0
    total = 0
    planted_bad = [0, 0, 0]          # found bad by the reference; marked by review 0; by review 1
    own = [0, 0, 0]                  # the bot's decisions; marked by review 0; by review 1
    walls = []
    for g in range(args.games):
        rec, plies = planted_game(game, args.bot, derive(args.seed, g) % 2**31, args.plant)
        t = time.perf_counter()
        budget = Limit(iterations=args.iterations) if args.iterations else None
        a = review(rec, bot=args.bot, limit=budget, workers=args.workers, seed=0, repeats=args.repeats)
        walls.append(time.perf_counter() - t)
        b = review(rec, bot=args.bot, limit=budget, workers=args.workers, seed=1, repeats=args.repeats)
        ref = review(rec, bot=args.bot, limit=Limit(iterations=args.reference_iterations), workers=args.workers, seed=99)
        marked = ("inaccuracy", "mistake", "blunder")
        for da, db, dr in zip(a.decisions, b.decisions, ref.decisions):
            total += 1
            same += da.mark == db.mark
            ma, mb = da.mark in marked, db.mark in marked
            either += ma or mb
            both += ma and mb
            if da.ply in plies:
                if dr.loss >= 0.10:
                    planted_bad[0] += 1
                    planted_bad[1] += ma
                    planted_bad[2] += mb
            else:
                own[0] += 1
                own[1] += ma
                own[2] += mb
        print(f"game {g}: {len(a.decisions)} decisions, {len(a.marked())} and {len(b.marked())} marked, "
              f"review {walls[-1]:.1f} s", flush=True)
    print(f"\n{args.game} {args.players} players, {args.games} games, bot {args.bot}, {args.repeats} x "
          f"{args.iterations or 'its'} iterations a decision, {args.workers} workers")
    print(f"same mark in both reviews: {same}/{total} = {same / total:.1%}")
    print(f"marked by either review: {either}; by both: {both} ({both / max(either, 1):.1%})")
    print(f"planted moves the reference ({args.reference_iterations:,} iterations) finds >= 0.10 worse: "
          f"{planted_bad[0]}; marked by review 0: {planted_bad[1]}, by review 1: {planted_bad[2]}")
    print(f"the bot's own decisions: {own[0]}; marked by review 0: {own[1]} ({own[1] / max(own[0], 1):.1%}), "
          f"by review 1: {own[2]} ({own[2] / max(own[0], 1):.1%})")
    print(f"review wall time a game: median {statistics.median(walls):.1f} s")


if __name__ == "__main__":
    main()
