"""``metro-ai play``: a person against bots in the terminal, with hints from a search bot."""
from __future__ import annotations

import os

from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.optionspec import OPTION_VALUES_HELP

from .common import (BOT_SPEC_HELP, add_budget_arguments, add_game_arguments, check_writable, deal_seed, game_of,
                     limit_of, output_error, seat_specs, standing_lines)

NAME = "play"
HELP = "play against bots in the terminal"
EPILOG = BOT_SPEC_HELP + "\n\n" + OPTION_VALUES_HELP


def add_arguments(p):
    add_game_arguments(p, 2)
    p.add_argument("--bots", nargs="+", default=["medium"], metavar="SPEC",
                   help="the opponents: one spec for every other seat, or one per other seat (default: medium)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 moves first (default: 0)")
    p.add_argument("--seed", type=int, default=None,
                   help="deal seed (default: a random one, printed so the game can be replayed)")
    p.add_argument("--hint-bot", default="ismcts:time=1", metavar="SPEC",
                   help="the bot that answers 'hint' (default: ismcts:time=1)")
    add_budget_arguments(p, "opponents whose spec has no budget")
    p.add_argument("--save", default=None, metavar="FILE",
                   help="where the match record goes when the game ends or you leave it (default: "
                        "metro-ai-GAME-SEED.json in the current folder); metro-ai review reads it")
    p.add_argument("--no-save", action="store_true", help="write no match record")
    p.add_argument("--review-bot", default="hard", metavar="SPEC",
                   help="the bot that reviews the game when you ask at the end (default: hard)")


def run(args, read=None, write=None) -> int:
    """The game in the terminal; `read` and `write` replace ``input`` and ``print``."""
    from metro_ai.play.human import HumanSeat
    from metro_ai.play.loop import Stop, play_game
    from metro_ai.play.match import make_seats, match_record
    read = read or input
    write = write or print
    game = game_of(args, 2)
    n = game.num_players
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat must be 0-{n - 1} for {n} players, got {args.seat}")
    me = args.seat
    others = [p for p in range(n) if p != me]
    specs = seat_specs(args.bots, n - 1, "--bots")
    hint_spec = BotSpec.parse(args.hint_bot)
    if not hint_spec.searches():
        raise BotSpecError(f"--hint-bot {args.hint_bot!r} does not search; use ismcts, pimc, flat-mc or a preset")
    review_spec = BotSpec.parse(args.review_bot)
    if not review_spec.searches():
        raise BotSpecError(f"--review-bot {args.review_bot!r} does not search; use ismcts, pimc, flat-mc or a preset")
    if args.save and not args.no_save:
        check_writable("--save", args.save)
    seed = deal_seed(args, write)
    save = None if args.no_save else args.save or f"metro-ai-{game.name}-{seed}.json"
    human = HumanSeat(me, read=read, write=write, hint=hint_spec, hint_seed=seed)
    seats, limits, info = make_seats(specs[:me] + [human] + specs[me:], seed=seed, limit=limit_of(args), game=game)
    labels = [s["bot"] for s in info]
    state = game.new_state(seed)
    human.begin(state)
    human.say(f"{game.name}, {n} players; you are player {me}. "
              + ", ".join(f"P{p}: {labels[p]}" for p in others) + ". Type 'help' for commands.")
    moves: list = []

    def on_move(s, move):
        moves.append(move)
        human.say(human.move_line(s, move, labels[move['player']]), indent="    ")
    try:
        play_game(state, seats, limits, on_move=on_move)
    except Stop:
        _save(save, match_record(game, seed, info, moves, state, limit=limit_of(args), people=[me]), human.say)
        return 0
    write("")
    human.show(state)
    scores, returns = state.scores(), state.returns()
    write("game over:")
    for line in standing_lines(returns, scores, [f"P{q} ({labels[q]})" for q in range(n)]):
        human.say(line)
    best = max(returns)
    write("you win!" if returns[me] == best and returns.count(best) == 1 else
          "you share first place" if returns[me] == best else "you lose")
    record = match_record(game, seed, info, moves, state, limit=limit_of(args), people=[me])
    _save(save, record, human.say)
    _offer_review(record, me, review_spec, read, write)
    return 0


def _save(path, record, write):
    """Write the match record to `path` (None: not asked for) and say where it went."""
    if path is None or not record["actions"]:
        return
    from metro_ai.engine.datafile import dumps
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(dumps(record) + "\n")
    except OSError as exc:
        raise output_error("--save", path, exc) from None
    write(f"game saved to {path} (metro-ai review {path} shows where it was won and lost)")


def _offer_review(record, me, spec, read, write):
    """Ask whether to review the game now; if so, the person's seat reviewed by `spec`."""
    try:
        answer = read(f"review your moves now with {spec}? [y/N] ")
    except EOFError:
        return
    if answer.strip().lower() not in ("y", "yes"):
        return
    from metro_ai.play.review import review
    write(review(record, bot=spec, seats=[me], workers=os.cpu_count() or 1).table())
