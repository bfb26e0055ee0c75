"""The openspiel section's child program: whether OpenSpiel's C++ ISMCTS runs on a bridged
game (it may crash the interpreter, hence a process of its own). ``python -m
metro_ai.bench.cpp_probe PLAYERS GAME`` exits 0 if one search step ran
(:func:`metro_ai.bench.openspiel.openspiel_cpp_accepts` runs it)."""
from __future__ import annotations

import sys

from metro_ai.registry import load_game

from .common import DEAL, UCT_C


def main(argv: list[str]) -> None:
    from metro_ai.interop import openspiel as bridge, openspiel_ismcts as osb   # needs OpenSpiel
    players, name = int(argv[0]), argv[1]
    game = bridge.load(name, players=players)
    state = load_game(name, players=players).new_state(DEAL)
    osb.cpp_bot(0, UCT_C, 20).step(bridge.from_state(game, state))


if __name__ == "__main__":
    main(sys.argv[1:])
