"""You against a metro-ai bot in the terminal: the game loop a program of your own would have.

On your turn the script shows the game as your seat sees it and the legal actions, numbered; type
a number, or the action in words (``call``, ``place T20 at C1``), or ``quit``. On the bot's turn
it searches in the background (``bot.start``) for at most ``--time`` seconds, with a progress bar
of its iterations and best move so far; press Enter to make it move now (``handle.stop()``: the
best move so far).

    python docs/tutorials/embed.py                           # Metro, 2 players, against ismcts
    python docs/tutorials/embed.py --game leduc --time 5     # Leduc poker, 5 s a move
    python docs/tutorials/embed.py --bot hard --time 0       # the bot's own budget (hard: 5,000 iterations)
    python docs/tutorials/embed.py --auto random --game leduc --time 60 --move-now-after 0.5

``--auto first|random`` plays your seat by itself (the first legal action, or a seeded random
one) and ``--move-now-after S`` presses Enter S seconds into each search, so that the script runs
without a person (the tests do). The same ``--seed`` with ``--iterations`` and ``--auto`` plays
the same game. ``python docs/tutorials/embed.py --help`` lists the options.
"""
from __future__ import annotations

import argparse
import collections
import random
import shutil
import sys
import threading
import time
from typing import Optional

from tqdm import tqdm

import metro_ai


class Keyboard:
    """The lines a person types, read in a thread of their own, so that the game can wait for a
    move and watch for Enter during the bot's search at the same time."""

    def __init__(self) -> None:
        self.lines: collections.deque = collections.deque()
        self.ended = False
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            with self.changed:
                self.lines.append(line.strip())
                self.changed.notify()
        with self.changed:
            self.ended = True
            self.changed.notify()

    def line(self) -> Optional[str]:
        """The next line typed, waiting for it; None once the input has ended."""
        with self.changed:
            self.changed.wait_for(lambda: self.lines or self.ended)
            return self.lines.popleft() if self.lines else None

    def pressed(self) -> bool:
        """Whether Enter was pressed on an empty line, without waiting (a move typed ahead stays
        for its turn)."""
        with self.changed:
            if self.lines and not self.lines[0]:
                self.lines.popleft()
                return True
            return False


def show_actions(state, actions: list[int]) -> None:
    """The legal actions, numbered from 1, in as many columns as the terminal takes."""
    cells = [f"{i:>3}. {state.action_to_string(a)}" for i, a in enumerate(actions, 1)]
    width = max(len(c) for c in cells) + 2
    columns = max(1, shutil.get_terminal_size().columns // width)
    for row in range(0, len(cells), columns):
        print("".join(c.ljust(width) for c in cells[row:row + columns]).rstrip())


def read_move(state, seat: int, keyboard: Keyboard) -> Optional[int]:
    """The person's move: a number from the list or the action in words; None to quit."""
    print()
    print(state.render(player=seat))
    actions = state.legal_actions()
    show_actions(state, actions)
    while True:
        print("your move (a number, the action in words, or quit): ", end="", flush=True)
        text = keyboard.line()
        if text is None or text == "quit":
            return None
        if not text:
            continue
        if text.isdigit() and 1 <= int(text) <= len(actions):
            return actions[int(text) - 1]
        try:
            action = state.string_to_action(text)
        except ValueError as exc:
            print(exc)
            continue
        if action in actions:
            return action
        print(f"{text!r} is not legal now")


def bot_move(bot, state, limit: Optional[metro_ai.Limit], keyboard: Optional[Keyboard],
             move_now_after: Optional[float]) -> tuple[int, metro_ai.Progress, bool]:
    """Search in the background with a progress bar until the search ends, Enter is pressed or
    `move_now_after` seconds have passed; the action, the search's last progress, and whether it
    was stopped early."""
    handle = bot.start(state, limit)                    # returns at once; the search runs in a thread
    finished = threading.Event()
    handle.add_done_callback(lambda _handle: finished.set())
    budget = limit or bot.default_limit                 # without a limit: the bot's own (None: it takes none)
    by_time = budget is not None and budget.time is not None
    total = budget.time if by_time else budget.iterations if budget is not None else None
    bar = tqdm(total=total, leave=False, file=sys.stderr, bar_format="{percentage:3.0f}%|{bar:20}| {desc}")
    t0 = time.monotonic()
    stopped = False
    while not finished.wait(0.1):
        progress = handle.progress()
        bar.n = round(progress.seconds, 1) if by_time else progress.iterations
        bar.set_description_str(f"{progress.iterations:,} iterations, best so far: {progress.best_text or '-'} "
                                f"({progress.share:.0%} of visits)")
        pressed = keyboard is not None and keyboard.pressed()
        if pressed or (move_now_after is not None and time.monotonic() - t0 >= move_now_after):
            stopped = True
            break
    action = handle.stop() if stopped else handle.result()   # stop(): the best move so far
    bar.close()
    return action, handle.progress(), stopped


def main() -> None:
    parser = argparse.ArgumentParser(description="Play a game against a metro-ai bot in the terminal.")
    parser.add_argument("--game", default="metro", help="the game (metro-ai games lists them; default metro)")
    parser.add_argument("--players", type=int, default=2, help="players, you included (default 2)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0); the bot plays the others")
    parser.add_argument("--bot", default="ismcts", help="the bot spec (metro-ai bots lists them; default ismcts)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float, default=3.0,
                        help="the most seconds the bot thinks a move (default 3; 0: the bot's own budget)")
    budget.add_argument("--iterations", type=int, help="instead of --time: search iterations a move (reproducible)")
    parser.add_argument("--seed", type=int, default=1, help="the deal's and the bot's seed (default 1)")
    parser.add_argument("--auto", choices=("first", "random"),
                        help="play your seat by itself: the first legal action, or a random one (seeded)")
    parser.add_argument("--move-now-after", type=float, metavar="SECONDS",
                        help="make the bot move this many seconds into each search, as if Enter were pressed")
    args = parser.parse_args()

    game = metro_ai.load_game(args.game, players=args.players)
    if not 0 <= args.seat < game.num_players:
        parser.error(f"--seat must be from 0 to {game.num_players - 1}")
    state = game.new_state(seed=args.seed)
    bot = metro_ai.make_bot(args.bot, seed=args.seed)
    if args.iterations:
        limit: Optional[metro_ai.Limit] = metro_ai.Limit(iterations=args.iterations)
    else:
        limit = metro_ai.Limit(time=args.time) if args.time > 0 else None
    keyboard = None if args.auto else Keyboard()
    pick = random.Random(args.seed)
    print(f"{game.title}, {game.num_players} players: you are P{args.seat}, {args.bot} plays the others"
          + ("" if args.auto else "; press Enter while it thinks to make it move now"))

    while not state.is_terminal():
        player = state.current_player
        if player == args.seat:
            if keyboard is None:
                actions = state.legal_actions()
                action = actions[0] if args.auto == "first" else pick.choice(actions)
            else:
                action = read_move(state, args.seat, keyboard)
                if action is None:
                    print("you left the game")
                    return
            print(f"P{player} (you) plays {state.action_to_string(action)}")
        else:
            action, progress, stopped = bot_move(bot, state, limit, keyboard, args.move_now_after)
            searched = f" after {progress.iterations:,} iterations in {progress.seconds:.2f} s" \
                if progress.iterations else ""                # none: a forced move, or a bot that does not search
            print(f"P{player} ({args.bot}) plays {state.action_to_string(action)}{searched}"
                  + (", moved now" if stopped else ""))
        state.apply(action)

    print()
    print(state.render())
    returns = state.returns()                           # rank-based: 1 a win, 0 a loss, ties shared
    best = max(returns)
    verdict = "you lose" if returns[args.seat] < best else "you win" if returns.count(best) == 1 \
        else "you share first place"
    print("final scores: " + ", ".join(f"P{p} {s:g}" for p, s in enumerate(state.scores())) + f"; {verdict}")


if __name__ == "__main__":
    main()
