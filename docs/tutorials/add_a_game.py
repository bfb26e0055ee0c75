"""A game of your own in plain Python, registered with metro-ai and played by its bots.

Stones, a take-away game (rules S1-S3):

- S1 A pile of ``stones`` stones (an option, default 21); 2 to 4 players, seat 0 first.
- S2 In turn, each player takes 1 to ``take`` stones (an option, default 3), at most those left.
- S3 Whoever takes the last stone wins: a score of 1, the others 0.

With two players the player to move wins by leaving a multiple of ``take + 1`` stones, so a
search that finds that move has understood the game.

    python docs/tutorials/add_a_game.py                    # check the game, then ismcts against random
    python docs/tutorials/add_a_game.py --stones 30 --games 20 --bots hard greedy
    metro-ai --game-module docs/tutorials/add_a_game.py:StonesGame match --game stones --bots ismcts random

``python docs/tutorials/add_a_game.py --help`` lists the options.
"""
from __future__ import annotations

import argparse

import metro_ai
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.options import Option
from metro_ai.engine.python_game import PythonGame, PythonState


class StonesGame(PythonGame):
    """Stones (see the module docstring). Action ``a`` takes ``a + 1`` stones."""
    name = "stones"
    title = "Stones (a take-away game; the tutorial's example)"
    family = "example"
    min_players = 2
    max_players = 4
    OPTIONS = (
        Option.integer("players", 2, "number of players", low=2, high=4, rule="S1"),
        Option.integer("stones", 21, "stones in the pile at the start", low=1, high=1000, rule="S1"),
        Option.integer("take", 3, "the most stones a player may take in a turn", low=1, high=9, rule="S2"),
    )
    state_fields = ("pile", "turn", "winner")     # the fields a saved state must have
    benchmark_moves = {"opening": 0, "middle": 5, "end": 10}

    def _configure(self) -> None:
        self.stones = self.options["stones"]
        self.take = self.options["take"]

    @property
    def num_distinct_actions(self) -> int:
        return self.take

    @property
    def max_game_length(self) -> int:
        return self.stones

    def _action_text(self, action: int) -> str:
        return f"take {action + 1}"

    def new_state(self, seed: int = 0) -> "StonesState":
        """The start: the full pile, seat 0 to move (there is no chance: `seed` changes nothing)."""
        return StonesState(self)

    def _load_state(self, obj: dict) -> "StonesState":
        """The state a saved one describes, checked: StateFormatError says what is wrong."""
        st = StonesState(self)
        pile, turn, winner = obj["pile"], obj["turn"], obj["winner"]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (pile, turn, winner)):
            raise StateFormatError("stones state: pile, turn and winner must be ints")
        if not 0 <= pile <= self.stones:
            raise StateFormatError(f"stones state: pile must be from 0 to {self.stones}, got {pile}")
        seats = range(self.players)
        if (pile == 0 and (turn != -1 or winner not in seats)) or (pile > 0 and (turn not in seats or winner != -1)):
            raise StateFormatError("stones state: with stones left, a seat to move and no winner (-1); "
                                   "with none, turn -1 and the winner's seat (S3)")
        st.pile, st.turn, st.winner = pile, turn, winner
        return st


class StonesState(PythonState):
    """A position of Stones: the stones left, the seat to move (-1 once over) and the winner."""

    def __init__(self, game: StonesGame) -> None:
        super().__init__(game)
        self.pile = game.stones
        self.turn = 0
        self.winner = -1

    # ---- the moves ----
    def _current_player(self) -> int:
        return self.turn

    def _legal_actions(self) -> list[int]:
        return [] if self.turn < 0 else list(range(min(self.game.take, self.pile)))   # S2

    def _apply_action(self, action: int) -> None:
        self.pile -= action + 1
        if self.pile == 0:                                    # S3
            self.winner, self.turn = self.turn, -1
        else:
            self.turn = (self.turn + 1) % self.game.players

    def _scores(self) -> list[int]:
        return [1 if p == self.winner else 0 for p in range(self.game.players)]

    def _copy_from(self, other: "StonesState") -> None:     # the search copies states: keep it quick
        self.pile, self.turn, self.winner = other.pile, other.turn, other.winner

    # ---- JSON and text ----
    def _state_fields(self) -> dict:
        return {"pile": self.pile, "turn": self.turn, "winner": self.winner}

    def observation(self, player: int) -> dict:
        """What `player` sees: everything (nothing is hidden in Stones)."""
        self._check_player(player)
        return {"game": self.game.name, "options": self.game.state_options, "player": player,
                **self._state_fields()}

    def render(self, player=None) -> str:
        over = f"P{self.winner} took the last stone" if self.turn < 0 else f"P{self.turn} to move"
        return f"Stones: {self.pile} left, {over}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Register a game written in Python and play the bots on it.")
    parser.add_argument("--stones", type=int, default=21, help="stones in the pile (default 21)")
    parser.add_argument("--take", type=int, default=3, help="the most stones a turn takes (default 3)")
    parser.add_argument("--bots", nargs=2, default=["ismcts", "random"], metavar="SPEC",
                        help="the two bots of the match (default: ismcts random)")
    parser.add_argument("--games", type=int, default=10, help="games of the match, seats alternating (default 10)")
    parser.add_argument("--iterations", type=int, default=1000, help="search iterations a move (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' seed (default 1)")
    args = parser.parse_args()

    # 1. Register the class: from now on metro-ai knows the game by its name, as a built-in one.
    metro_ai.register_game(StonesGame)
    game = metro_ai.load_game("stones", players=2, stones=args.stones, take=args.take)
    print(f"registered: {game.title}; games now: {', '.join(metro_ai.list_games())}")

    # 2. What every game has, for free: moves in words, refusals, saving and loading.
    state = game.new_state()
    state.apply(state.string_to_action("take 2"))
    print(f"after 'take 2': {state.render()}; legal: {[state.action_to_string(a) for a in state.legal_actions()]}")
    try:
        state.apply(7)
    except metro_ai.IllegalActionError as exc:
        print(f"refused: {exc}")
    again = game.state_from_json(state.to_json())
    print(f"saved and loaded: {again.to_json() == state.to_json()}")

    # 3. The bots play it: first an analysis of the opening, then a match.
    bot = metro_ai.make_bot(args.bots[0], seed=args.seed)
    if bot.searches:                                          # the search bots
        opening = bot.analyse(game.new_state(), metro_ai.Limit(iterations=args.iterations))
        print(opening.table(top=3))
        best = args.stones % (args.take + 1)
        print(f"(the winning move leaves a multiple of {args.take + 1}: "
              + (f"take {best})" if best else "there is none here)"))
    won = [0.0, 0.0]
    for g in range(args.games):
        order = (0, 1) if g % 2 == 0 else (1, 0)              # which bot sits in seat 0, seat 1
        record = metro_ai.play_match(game, [args.bots[i] for i in order], seed=args.seed + g,
                                     limit=metro_ai.Limit(iterations=args.iterations))
        for seat, i in enumerate(order):
            won[i] += record["returns"][seat]
    print(f"{args.games} games, seats alternating: {args.bots[0]} won {won[0]:g}, {args.bots[1]} won {won[1]:g}")

if __name__ == "__main__":
    main()
