"""Screen the constant of Breakthrough's one-ply evaluation for the greedy bot: greedy with
``state.greedy_values(card_value)`` (the heuristic plus ``card_value`` per card in the
player's tableau) against greedy-classic, 2 players, each deal played with the seats swapped
(deal seeds 1000 on, not the bench's), mean return of the tested bot.

    python benches/greedy_screen.py 0.1 0.2 0.35 0.5 [--deals 50]

How BT_GREEDY_CARD_VALUE (engine/breakthrough/state.pyx) was picked; benches/results/greedy.md.
"""
from __future__ import annotations

import argparse

import metro_ai
from metro_ai.bots.baselines import GreedyBot, GreedyClassicBot
from metro_ai.play.match import play_match


def screen(card_value, deals=50):
    """Mean return of greedy at `card_value` against greedy-classic over ``2 * deals`` games."""
    class Screened(GreedyBot):
        name = "greedy-screened"

        @staticmethod
        def _value(s, me):
            values = s.greedy_values(card_value)
            others = [v for p, v in enumerate(values) if p != me]
            return values[me] - sum(others) / len(others)

    game = metro_ai.load_game("breakthrough", players=2)
    total = 0.0
    for d in range(deals):
        for seat in (0, 1):
            bots = [GreedyClassicBot(seed=d), GreedyClassicBot(seed=d + 999)]
            bots[seat] = Screened(seed=d + 7)
            total += play_match(game, bots, seed=1000 + d)["returns"][seat]
    return total / (2 * deals)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("values", type=float, nargs="+")
    p.add_argument("--deals", type=int, default=50)
    args = p.parse_args(argv)
    for v in args.values:
        print(f"card value {v:g}: {screen(v, args.deals):.3f} over {2 * args.deals} games", flush=True)


if __name__ == "__main__":
    main()
