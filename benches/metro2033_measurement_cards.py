"""A Metro 2033 card file for measuring bots at two players, not for play: the shipped
(reconstructed) card set with the Fourth Reich's reconstructed advantages taken away.

    python benches/metro2033_measurement_cards.py OUT.json

With the shipped cards, two equal `hard` bots at two players leave the first seat's draft to
the Fourth Reich and the game to it (22 of 24 games, benches/results/metro2033_factions_2p.md),
so a match of two builds with the seats swapped on each deal scores 1-1 on almost every deal
and measures nothing. The Reich's home stations, starting bonus (army +1) and property (army +1
when attacking) are reconstructed, not printed; this file gives it a starting bonus like the
other factions' (one bullets resource) and no property, and changes nothing else. It is written
from the shipped file each time, so it follows any change to it. Use it with
``--option cards=OUT.json`` (``metro-ai bench --versus`` passes it to the other build too).
"""
from __future__ import annotations

import argparse
import json
import sys

from metro_ai.engine.metro2033.cards import DEFAULT_PATH, load_card_set

REICH = "Fourth Reich"
START_BONUS = [{"effect": "resource", "resource": "bullets", "amount": 1}]


def measurement_cards() -> dict:
    """The shipped card file's data with the Reich's reconstructed advantages taken away."""
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    reich = [c for c in data["cards"] if c["type"] == "faction" and c["name"] == REICH]
    if len(reich) != 1:
        raise ValueError(f"{DEFAULT_PATH}: expected one faction card named {REICH!r}, found {len(reich)}")
    reich[0].update(start_bonus=START_BONUS, effects=[],
                    notes="measurement only (benches/metro2033_measurement_cards.py): the reconstructed starting "
                          "bonus and property taken away; " + reich[0].get("notes", ""))
    data["name"] = data["name"] + ", for measurement: the Fourth Reich without its reconstructed advantages"
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the card file to write")
    args = ap.parse_args(argv)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(measurement_cards(), f, indent=1, ensure_ascii=False)
        f.write("\n")
    load_card_set(args.out)                     # the loader's checks, rulebook counts included
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
