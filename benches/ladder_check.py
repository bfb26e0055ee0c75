"""Check a rating between two ladder levels: ``ismcts:elo=R`` against the two measured levels that
bracket R on the game's shipped ladder, in a gauntlet over duplicate deals, and its score against
each beside the score the ladder's ratings expect (the Elo formula).

    python benches/ladder_check.py metro 2 1500 [--deals 50] [--seed 77] [--jobs 1] [--db FILE]

Prints one line per opponent: the score with its 95% Wilson interval and pairings, and the
expected score. With iteration budgets the same arguments give the same games anywhere.
"""
from __future__ import annotations

import argparse
import json

from metro_ai import ladder as lad
from metro_ai.play.ratings import pairwise_matrix, wilson
from metro_ai.play.tournament import run_tournament


def check(game, players, elo, deals=50, seed=77, jobs=1, db=None):
    """``{"elo", "budget", "rows": [{"opponent", "opponent_elo", "pairings", "score", "low",
    "high", "expected"}]}`` for ``ismcts:elo=elo`` against the levels that bracket it."""
    ladder = lad.load_ladder(game, players, {})
    budget = lad.budget_for(ladder, elo)
    by_name = {lv["level"]: lv for lv in ladder["levels"]}
    opponents = list(dict.fromkeys(budget["between"]))
    bots = [f"ismcts:elo={elo:g}"] + [by_name[name]["spec"] for name in opponents]
    result = run_tournament(game=game, options={"players": players}, bots=bots, mode="gauntlet", deals=deals,
                            seed=seed, db=db, jobs=jobs)
    m = pairwise_matrix(result.games, len(bots))
    rows = []
    for j, name in enumerate(opponents, start=1):
        n = m[0, j] + m[j, 0]
        score = m[0, j] / n
        low, high = wilson(score, int(round(n)))
        rows.append({"opponent": name, "opponent_elo": by_name[name]["elo"], "pairings": int(round(n)),
                     "score": score, "low": low, "high": high,
                     "expected": 1 / (1 + 10 ** (-(elo - by_name[name]["elo"]) / 400))})
    return {"elo": elo, "budget": budget, "rows": rows}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("players", type=int)
    p.add_argument("elo", type=float)
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--seed", type=int, default=77)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--db", default=None, help="SQLite file of the games (default: in memory)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    out = check(args.game, args.players, args.elo, args.deals, args.seed, args.jobs, args.db)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    b = out["budget"]
    for r in out["rows"]:
        margin = "" if b.get("margin") is None else f", margin {b['margin']:g}"
        print(f"ismcts:elo={args.elo:g} ({b['iterations']} iterations, temperature {b['temperature']:g}{margin}) vs "
              f"{r['opponent']} ({r['opponent_elo']:.0f}): {r['score']:.1%} ({r['low']:.1%}-{r['high']:.1%}, "
              f"{r['pairings']} pairings); the ratings expect {r['expected']:.1%}")


if __name__ == "__main__":
    main()
