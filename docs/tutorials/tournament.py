"""A bot tournament with metro_ai.Tournament: set it up, stop it part-way, resume it from its
SQLite file, and read its standings and ratings.

    python docs/tutorials/tournament.py                       # Metro, 2 players, ismcts, greedy, random
    python docs/tutorials/tournament.py --deals 30 --jobs -1  # longer, on every core
    python docs/tutorials/tournament.py --bots hard medium easy greedy --db ladder.sqlite

The first run plays ``--first`` games and stops, as an interrupted run would; the second,
made from the file alone, plays the rest. Run it again and it plays nothing: the file holds the
finished tournament (``--fresh`` starts afresh). With iteration budgets (``--iterations``, or
``iterations=`` in a bot spec) the same ``--seed`` plays the same games with the same results on
any machine. ``python docs/tutorials/tournament.py --help`` lists the options.
"""
from __future__ import annotations

import argparse

import metro_ai


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a bot tournament, resume it, and read its ratings.")
    parser.add_argument("--game", default="metro", help="the game (default metro)")
    parser.add_argument("--players", type=int, default=2, help="players a game (default 2)")
    parser.add_argument("--bots", nargs="+", default=["ismcts", "greedy", "random"], metavar="SPEC",
                        help="the bots, as bot specs (default: ismcts greedy random)")
    parser.add_argument("--deals", type=int, default=10, help="deals, each played in every seating (default 10)")
    parser.add_argument("--iterations", type=int, default=1000,
                        help="search iterations a move for bots whose spec has no budget (default 1000)")
    parser.add_argument("--first", type=int, default=5, help="games the first run plays before it stops (default 5)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; -1: one per core)")
    parser.add_argument("--seed", type=int, default=1, help="the tournament's seed (default 1)")
    parser.add_argument("--db", default="tournament.sqlite", help="the SQLite file (default tournament.sqlite)")
    parser.add_argument("--fresh", action="store_true", help="discard what --db holds and start afresh")
    args = parser.parse_args()

    # 1. The tournament: every pair of bots (a round robin), on each deal, in each seating.
    tournament = metro_ai.Tournament(game=args.game, options={"players": args.players}, bots=args.bots,
                                     deals=args.deals, seed=args.seed,
                                     limit=metro_ai.Limit(iterations=args.iterations), db=args.db)
    print(tournament.config.describe())

    # 2. A first run that stops after --first games, as Ctrl-C or a killed process would: every
    #    game finished is in the file already.
    first = tournament.run(jobs=args.jobs, max_games=args.first, overwrite=args.fresh)
    print(f"first run: {len(first.games)} of {first.total} games stored in {args.db}")

    # 3. Resume from the file alone (another process, another day): the games not yet done.
    result = metro_ai.Tournament(db=args.db).resume(jobs=args.jobs)
    print(f"resumed: {len(result.games)} of {result.total} games stored, complete: {result.complete}")

    # 4. The report: a JSON-ready dict; format_report makes the table of metro-ai tournament. The
    #    intervals come from a bootstrap seeded with the tournament's seed, as on the command line.
    report = result.report()
    print()
    print(metro_ai.format_report(report))
    print()
    top = report["standings"][0]
    print(f"the strongest here: {top['bot']}, Elo {top['rating']:.0f}, mean return {top['mean_return']:.3f}, "
          f"first in {top['first']:.0%} of its games")

    # 5. Every game's full record is in the file too: replay one.
    record = metro_ai.Tournament(db=args.db).records([0])[0]
    final = metro_ai.replay(record)[-1]
    print(f"game 0 replayed: {len(record['actions'])} moves by {', '.join(record['bots'])}; "
          f"final scores {final.scores()}")


if __name__ == "__main__":
    main()
