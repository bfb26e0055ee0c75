"""Playing one game between bots."""
from __future__ import annotations

import time

from metro_ai.bots.limit import Limit


def play_match(game, bots, seed=0, limit: Limit | None = None, on_action=None):
    """Play one game of `game` (a loaded game) between `bots`, one per seat, from `seed`.

    Each bot is asked to choose only on its own turns and is given only the state, from which a
    well-behaved bot reads what its player may see. Returns a JSON-ready record: the game and
    options, the seed, which bot sat where, every action with its text and the seconds taken,
    and the final scores and returns. ``on_action(state, player, action)`` is called after each
    action if given.
    """
    if len(bots) != game.num_players:
        raise ValueError(f"{game.name} with {game.num_players} players needs {game.num_players} bots, got {len(bots)}")
    state = game.new_state(seed)
    moves = []
    while not state.is_terminal():
        player = state.current_player
        t0 = time.perf_counter()
        action = bots[player].choose(state, limit)
        took = time.perf_counter() - t0
        text = state.action_to_string(action)
        state.apply(action)
        moves.append({"player": player, "action": action, "text": text, "seconds": round(took, 6)})
        if on_action is not None:
            on_action(state, player, action)
    return {
        "game": game.name,
        "options": game.options,
        "seed": seed,
        "bots": [getattr(b, "name", type(b).__name__) for b in bots],
        "actions": moves,
        "scores": state.scores(),
        "returns": state.returns(),
    }
