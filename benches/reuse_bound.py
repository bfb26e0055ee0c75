"""What tree reuse between moves could give a search bot, measured before building it.

    python benches/reuse_bound.py [--game metro] [--players 2] [--option NAME=VALUE ...]
        [--bot hard] [--iterations 5000] [--games 10] [--seed 2026] [--json FILE]

Reusing the tree means that when a player searches again, the search starts from the subtree of
its last search that lies under what happened since (its own action, then the others' actions as
it observed them) instead of from an empty tree. Whatever reuse does, it cannot inherit more than
the visits that subtree holds. This script plays self-play games with one search bot in every
seat, each search run for a fixed ``--iterations`` in a core built as the bot builds it (one
worker), and at each of a player's searches after its first follows the path since its previous
search down that search's tree. The inherited share is the visits of the nodes reached divided by
the iterations of the new search: what a reusing search would start with, as a share of what it
does anyway. Where another player's action is hidden from the searcher, every child it cannot tell
apart counts (an upper bound: a reusing tree would have to merge them; so does every child whose
action the game cannot map, being illegal in the real position).

The share bounds the gain: reuse is worth at most ``1 + share`` times the iterations, and the
shipped ladders give the Elo a doubling of iterations is worth in each game. Iteration budgets
make every figure reproducible from the seed.
"""
import argparse
import json
import statistics
import sys
import time

import metro_ai
from metro_ai.bots.mcts import ISMCTSBot, MOISMCTSBot
from metro_ai.bots.seeding import derive

from strength import parse_options


def _fold(key):
    """A chance key as a node keeps it (16 bits; SearchCore._chance)."""
    return (key ^ (key >> 16)) & 0xFFFF


def _observed(state, action, player):
    """How `player` sees `action` in `state`: the game's ``observed_action`` where it has one,
    else the action itself; None where the game cannot say (an action of another world that is
    not legal in this one), which the caller counts as indistinguishable (the upper bound)."""
    seen = getattr(state, "observed_action", None)
    if seen is None:
        return action
    try:
        return seen(action, player)
    except ValueError:
        return None


def inherited(nodes, path, player, chance_keys):
    """Visits of the nodes of `nodes` (``SearchCore.tree_nodes()`` of `player`'s single tree)
    that the steps of `path` lead to from the root: each step (state before it, action, mover),
    followed as `player` observes it (its own actions exactly; another player's every child
    whose action `player` would observe the same way). Returns (visits, nodes reached)."""
    children = {}
    for node, parent, action, mover, visits, _value, _avail, chance in nodes:
        if parent >= 0:
            children.setdefault(parent, []).append((node, action, mover, chance))
    visits = {row[0]: row[4] for row in nodes}
    frontier = [0]
    for state, action, mover in path:
        key = _fold(state.chance_key(player)) if chance_keys else 0
        seen = action if mover == player else _observed(state, action, player)
        frontier = [node for parent in frontier for node, a, m, c in children.get(parent, ())
                    if m == mover and c == key
                    and (a == action if mover == player else _observed(state, a, player) in (seen, None))]
        if not frontier:
            break
    return sum(visits[n] for n in frontier), len(frontier)


def play(game, bot, iterations, seed):
    """One self-play game; for every search after a player's first, (inherited visits, path
    length, nodes reached)."""
    state = game.new_state(seed)
    last = {}                     # player -> (tree_nodes of its last search, path since it)
    out = []
    calls = 0
    while not state.is_terminal():
        player = state.current_player
        legal = state.legal_actions()
        if len(legal) > 1:
            if player in last:
                nodes, path = last[player]
                got, reached = inherited(nodes, path, player, bot.chance_keys)
                out.append((got, len(path), reached))
            call_seed = derive(seed, 0x5EA, calls)
            calls += 1
            (core,) = bot.search_cores(state.clone(), player, call_seed)
            core.run(iterations=iterations)
            summary = core.summary()
            action = bot._pick(bot._merge([summary]), [summary], call_seed)
            last[player] = (core.tree_nodes(), [])
        else:
            action = legal[0]
        step = (state.clone(), action, player)          # one copy, shared by every player's path
        for _nodes, path in last.values():
            path.append(step)
        state.apply(action)
    return out


def quantiles(xs):
    xs = sorted(xs)
    return {"median": statistics.median(xs), "p90": xs[int(0.9 * (len(xs) - 1))], "mean": statistics.fmean(xs),
            "max": xs[-1], "zero": sum(x == 0 for x in xs) / len(xs)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="metro")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    ap.add_argument("--bot", default="hard", help="a search bot's spec (default hard); its workers are ignored")
    ap.add_argument("--iterations", type=int, default=5000, help="iterations a search (default 5000)")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", metavar="FILE", help="write the figures here too")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.games < 1:
        ap.error("--iterations and --games must be >= 1")
    options = dict(parse_options(args.option), players=args.players)
    game = metro_ai.load_game(args.game, **options)
    bot = metro_ai.make_bot(args.bot, seed=args.seed)
    if not isinstance(bot, ISMCTSBot) or isinstance(bot, MOISMCTSBot):
        ap.error(f"--bot must be a single-tree search bot (ismcts and its presets), got {args.bot!r}")
    shares, lengths, t0 = [], [], time.perf_counter()
    for g in range(args.games):
        for got, length, _reached in play(game, bot, args.iterations, derive(args.seed, g)):
            shares.append(got / args.iterations)
            lengths.append(length)
        print(f"game {g + 1}/{args.games}: {len(shares)} searches, {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)
    result = {"game": args.game, "options": options, "bot": args.bot, "iterations": args.iterations,
              "games": args.games, "seed": args.seed, "searches": len(shares),
              "share": quantiles(shares), "path": quantiles(lengths),
              "command": "python benches/reuse_bound.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    s = result["share"]
    print(f"{args.game} {options} {args.bot} at {args.iterations} iterations: {len(shares)} searches; inherited "
          f"share median {s['median']:.2%}, mean {s['mean']:.2%}, 90th percentile {s['p90']:.2%}, max "
          f"{s['max']:.2%}, none {s['zero']:.0%}; actions between searches median {result['path']['median']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
