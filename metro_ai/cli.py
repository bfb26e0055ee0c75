"""The ``metro-ai`` command line.

Exit codes: 0 success, 1 failure, 2 bad usage.
"""
from __future__ import annotations

import argparse
import json
import sys

import metro_ai
from metro_ai.registry import GAMES


def _parser():
    p = argparse.ArgumentParser(prog="metro-ai", description="AI opponents for the Metro family of games.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    g = sub.add_parser("games", help="list the games and their options")
    g.add_argument("--json", action="store_true", help="machine-readable output")

    b = sub.add_parser("bots", help="list the bots")
    b.add_argument("--json", action="store_true", help="machine-readable output")

    m = sub.add_parser("match", help="play one game between bots and print the result")
    m.add_argument("--game", default="metro", help="game name (default: metro)")
    m.add_argument("--players", type=int, default=4, help="number of players (default: 4)")
    m.add_argument("--bots", default="random",
                   help="comma-separated bot names, one per seat, or one name for every seat (default: random)")
    m.add_argument("--seed", type=int, default=1, help="deal and bot seed (default: 1)")
    m.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option, e.g. --option hand_size=2 --option orientation=false")
    m.add_argument("--quiet", action="store_true", help="print only the result, not the final board")
    m.add_argument("--json", action="store_true", help="print the match record as JSON")
    return p


def _parse_value(text):
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def _options(pairs):
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--option expects NAME=VALUE, got {pair!r}")
        name, value = pair.split("=", 1)
        out[name.strip()] = _parse_value(value.strip())
    return out


def _cmd_games(args):
    info = {name: {"title": g.title, "options": {k: {"default": d, "help": h} for k, (d, h) in g.options.items()}}
            for name, g in sorted(GAMES.items())}
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for name, g in info.items():
        print(f"{name}: {g['title']}")
        for opt, o in g["options"].items():
            print(f"    {opt} (default {o['default']!r}): {o['help']}")
    return 0


def _cmd_bots(args):
    info = metro_ai.describe_bots()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for name, desc in info.items():
        print(f"{name}: {desc}")
    return 0


def _cmd_match(args):
    options = _options(args.option)
    options["players"] = args.players
    game = metro_ai.load_game(args.game, **options)
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    if len(names) == 1:
        names = names * game.num_players
    if len(names) != game.num_players:
        raise ValueError(f"--bots names {len(names)} bots for {game.num_players} seats")
    bots = [metro_ai.make_bot(n, seed=args.seed * 1000 + i) for i, n in enumerate(names)]
    final = []
    record = metro_ai.play_match(game, bots, seed=args.seed, on_action=lambda s, p, a: final.__setitem__(slice(None), [s]))
    if args.json:
        print(json.dumps(record))
        return 0
    if not args.quiet and final:
        print(final[0].render())
        print()
    ranked = sorted(range(game.num_players), key=lambda p: -record["scores"][p])
    print(f"{args.game}, {game.num_players} players, seed {args.seed}, {len(record['actions'])} actions")
    for place, p in enumerate(ranked, 1):
        print(f"  {place}. player {p} ({names[p]}): {record['scores'][p]} points, return {record['returns'][p]:.3f}")
    return 0


COMMANDS = {"games": _cmd_games, "bots": _cmd_bots, "match": _cmd_match}


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ValueError as exc:           # bad options, bad bot names: a usage error
        print(f"metro-ai: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("metro-ai: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the CLI reports, never dumps a traceback on users
        print(f"metro-ai: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
