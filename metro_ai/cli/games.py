"""``metro-ai games``: the registered games, their options and their readings (as text, JSON or
Markdown tables)."""
from __future__ import annotations

from metro_ai.engine.datafile import dumps
from metro_ai.registry import game_class, list_games

NAME = "games"
HELP = "list the games and their options"

#: How ``games`` introduces a game's readings (``Game.readings``).
READINGS_HEADING = "readings (this project's decisions, not the printed rules; docs/rules/ says why)"


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--markdown", action="store_true", help="the options as Markdown tables")


def run(args) -> int:
    info = {name: game_class(name).describe() for name in list_games()}
    if args.json:
        print(dumps(info, indent=2))
        return 0
    if args.markdown:
        print(_markdown(info))
        return 0
    families = sorted({g["family"] for g in info.values()}, key=lambda f: (f != "metro", f))
    for family in families:
        if len(families) > 1:
            print(f"[{'the Metro family' if family == 'metro' else family + ' games'}]")
        for name, g in info.items():
            if g["family"] != family:
                continue
            print(f"{name}: {g['title']} ({g['players']['min']}-{g['players']['max']} players)")
            for opt, o in g["options"].items():
                rule = f" [{o['rule']}]" if o["rule"] else ""
                print(f"    {opt} (default {o['default']!r}; {o['allowed']}): {o['help']}{rule}")
            if g["readings"]:
                print(f"    {READINGS_HEADING}:")
                for r in g["readings"]:
                    print(f"      [{r['rule']}] {r['text']}")
    return 0


def _markdown(info):
    """Every game's options as Markdown tables (the option tables of docs/guide/games.md)."""
    out = []
    for name, g in info.items():
        out += [f"**{name}**: {g['title']}, {g['players']['min']}-{g['players']['max']} players", "",
                "| option | default | allowed | rule | what |", "|---|---|---|---|---|"]
        for opt, o in g["options"].items():
            out.append(f"| `{opt}` | `{o['default']!r}` | {o['allowed']} | {o['rule'] or ''} | {o['help']} |")
        if g["readings"]:
            out += ["", f"{READINGS_HEADING[0].upper()}{READINGS_HEADING[1:]}:", ""]
            out += [f"- **{r['rule']}** {r['text']}" for r in g["readings"]]
        out.append("")
    return "\n".join(out).rstrip()
