"""``metro-ai match``: one game between bots, its result, and on request its record (``--save``,
``--json``) and a picture of every position (``--svg``)."""
from __future__ import annotations

import sys
from pathlib import Path

from metro_ai.engine.datafile import dumps
from metro_ai.optionspec import OPTION_VALUES_HELP
from metro_ai.play.match import play_match
from metro_ai.play.terminal import readable

from .common import (BOT_SPEC_HELP, add_budget_arguments, add_game_arguments, deal_seed, game_of, limit_of, seat_specs,
                     standing_lines, check_writable, output_error)

NAME = "match"
HELP = "play one game between bots and print the result"
EPILOG = BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP


def add_arguments(p):
    add_game_arguments(p, 2)
    p.add_argument("--bots", nargs="+", default=["random"], metavar="SPEC",
                   help="one bot spec per seat, or one for every seat (default: random)")
    add_budget_arguments(p, "search bots whose spec has no budget")
    p.add_argument("--seed", type=int, default=None,
                   help="deal seed; bot seeds derive from it (default: a random one, printed so the game can be replayed)")
    p.add_argument("--save", metavar="FILE", help="write the match record (JSON) to FILE; metro_ai.replay reads it")
    p.add_argument("--quiet", action="store_true", help="print only the result, not the final board")
    p.add_argument("--json", action="store_true", help="print the match record as JSON")
    p.add_argument("--svg", metavar="DIR", help="write an SVG picture of the position after every move to DIR "
                   "(000.svg is the deal), the last move marked")


def run(args) -> int:
    game = game_of(args, 2)
    specs = seat_specs(args.bots, game.num_players, "--bots")
    if args.save:
        check_writable("--save", args.save)
    pictures = None
    if args.svg:                        # the folder first: a bad path fails before the seed is drawn
        pictures = Path(args.svg)
        try:
            pictures.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise output_error("--svg", args.svg, exc) from None
    seed = deal_seed(args, lambda text: print(f"metro-ai: {text}", file=sys.stderr))
    final: list = []
    if pictures is not None:
        try:
            (pictures / "000.svg").write_text(game.new_state(seed).svg())
        except OSError as exc:
            raise output_error("--svg", args.svg, exc) from None

    def on_action(s, p, a):
        final[:] = [s]
        if pictures is not None:
            moves.append(a)
            try:
                (pictures / f"{len(moves):03d}.svg").write_text(s.svg(lastmove=a))
            except OSError as exc:
                raise output_error("--svg", args.svg, exc) from None

    moves: list = []

    record = play_match(game, specs, seed=seed, limit=limit_of(args), on_action=on_action)
    if args.save:
        try:
            with open(args.save, "w") as fh:
                fh.write(dumps(record))
        except OSError as exc:
            raise output_error("--save", args.save, exc) from None
    if args.json:
        print(dumps(record))
        return 0
    if not args.quiet and final:
        print(readable(final[0], final[0].render()))
        print()
    print(f"{game.name}, {game.num_players} players, seed {seed}, {len(record['actions'])} actions, "
          f"{record['seconds']:.2f} s")
    for line in standing_lines(record["returns"], record["scores"],
                               [f"player {p} ({record['bots'][p]})" for p in range(game.num_players)]):
        print(line)
    return 0
