"""Who wins Metro 2033 between equal bots: wins by seat and by faction.

    python benches/metro2033_factions.py [--bot hard] [--iterations 3000] [--players 2]
        [--games 16] [--seed 2000] [--jobs 1] [--option NAME=VALUE ...]

Every seat plays the same bot with the same iteration budget (so every figure repeats from the
seed), and the faction each seat drafted (G6: seat 0 first) is read from the game's record. A
game's winners are its seats of the best return (a shared first place counts for each). With two
players a seat's share far from one half says the deal decides the game rather than the play,
and then a strength measurement of two bots at two players has pairs without spread.
"""
import argparse
import collections
import sys

from joblib import Parallel, delayed

import metro_ai
from metro_ai.bots.seeding import derive
from metro_ai.optionspec import parse_options


def play(bot, iterations, players, seed, options):
    """One game of `bot` in every seat: each seat's faction and whether it won."""
    game = metro_ai.load_game("metro2033", players=players, **options)
    rec = metro_ai.play_match(game, [f"{bot}:iterations={iterations}"] * players, seed=seed)
    factions = {}
    for a in rec["actions"]:
        if a["text"].startswith("faction "):
            factions[a["player"]] = a["text"][len("faction "):]
    best = max(rec["returns"])
    return [(p, factions[p], rec["returns"][p] == best) for p in range(players)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--seed", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a game option, e.g. cards=FILE (benches/metro2033_measurement_cards.py writes one)")
    args = ap.parse_args(argv)
    try:
        options = parse_options(args.option)
        metro_ai.load_game("metro2033", players=args.players, **options)      # a bad option fails here, once
    except ValueError as exc:
        ap.error(str(exc))
    games = Parallel(n_jobs=args.jobs)(delayed(play)(args.bot, args.iterations, args.players, derive(args.seed, g),
                                                     options) for g in range(args.games))
    seat_wins = collections.Counter()
    played, won = collections.Counter(), collections.Counter()
    for rows in games:
        for p, faction, win in rows:
            seat_wins[p] += win
            played[(p, faction)] += 1
            won[(p, faction)] += win
    given = "".join(f", {k}={v}" for k, v in options.items())
    print(f"`{args.bot}` with {args.iterations} iterations a move in every seat, {args.players} players{given}, "
          f"{args.games} games from seed {args.seed}.\n")
    print("| seat | wins |\n|---:|---:|")
    for p in range(args.players):
        print(f"| {p} | {seat_wins[p]} of {args.games} |")
    print("\n| seat | faction | games | wins |\n|---:|---|---:|---:|")
    for (p, faction) in sorted(played):
        print(f"| {p} | {faction} | {played[(p, faction)]} | {won[(p, faction)]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
