"""``metro-ai play``: a person against bots in the terminal, with hints from a search bot."""
from __future__ import annotations

from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.optionspec import OPTION_VALUES_HELP

from .common import (BOT_SPEC_HELP, add_budget_arguments, add_game_arguments, deal_seed, game_of, limit_of, seat_specs,
                     standing_lines)

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


def run(args, read=None, write=None) -> int:
    """The game in the terminal; `read` and `write` replace ``input`` and ``print``."""
    from metro_ai.play.human import HumanSeat
    from metro_ai.play.loop import Stop, play_game
    from metro_ai.play.match import make_seats
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
    seed = deal_seed(args, write)
    human = HumanSeat(me, read=read, write=write, hint=hint_spec, hint_seed=seed)
    seats, limits, info = make_seats(specs[:me] + [human] + specs[me:], seed=seed, limit=limit_of(args), game=game)
    labels = [s["bot"] for s in info]
    state = game.new_state(seed)
    human.begin(state)
    write(f"{game.name}, {n} players; you are player {me}. "
          + ", ".join(f"P{p}: {labels[p]}" for p in others) + ". Type 'help' for commands.")
    try:
        play_game(state, seats, limits,
                  on_move=lambda s, move: write(human.move_line(s, move, labels[move['player']])))
    except Stop:
        return 0
    write("")
    human.show(state)
    scores, returns = state.scores(), state.returns()
    write("game over:")
    for line in standing_lines(returns, scores, [f"P{q} ({labels[q]})" for q in range(n)]):
        write(line)
    best = max(returns)
    write("you win!" if returns[me] == best and returns.count(best) == 1 else
          "you share first place" if returns[me] == best else "you lose")
    return 0
