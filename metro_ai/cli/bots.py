"""``metro-ai bots``: the bots with their options and default budgets, the presets and the Elo
ladders, then how to write a bot spec."""
from __future__ import annotations

from metro_ai.bots.catalogue import bot_catalogue, describe_bots, format_value
from metro_ai.engine.datafile import dumps

from .common import BOT_SPEC_HELP

NAME = "bots"
HELP = "list the bots, their options and the presets"
EPILOG = BOT_SPEC_HELP


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run(args) -> int:
    cat = bot_catalogue()
    if args.json:
        out = dict(describe_bots())          # name -> description (kept for scripts)
        out.update({"bots": cat["bots"], "presets": cat["presets"], "ladders": cat["ladders"]})
        print(dumps(out, indent=2))
        return 0
    print("bots:")
    for name, b in cat["bots"].items():
        print(f"  {name}: {b['description']}")
        for k, v in b["options"].items():
            h = b["option_help"][k]
            print(f"      {k}={format_value(v)}: {h['description']} ({h['allowed']})")
        if b["default_budget"]:
            it, tm = b["default_budget"]["iterations"], b["default_budget"]["time"]
            print("      default budget: " + (f"{it} iterations" if it else f"{tm} s") + " per move")
        elif not b["searches"]:
            print("      no budget: it does not search")
    print("presets (ismcts with options and a budget; options can be overridden, e.g. hard:time=2):")
    for name, pr in cat["presets"].items():
        print(f"  {name}: {pr['description']}")
    print("Elo ladders (ismcts:elo=R plays at rating R, random = 0; metro-ai calibrate makes more):")
    for name, lad in cat["ladders"].items():
        span = f"elo {lad['elo']['min']:.0f} to {lad['elo']['max']:.0f}" if lad["elo"] else \
            "its levels could not be told apart: no elo"
        print(f"  {name}: {span}; " + ", ".join(f"{k} {v:.0f}" for k, v in lad["levels"].items()))
    print()
    print(BOT_SPEC_HELP)
    return 0
