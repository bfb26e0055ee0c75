"""The one game loop: seats take turns on a state until the game ends.

Every game metro-ai plays goes through :func:`play_game`: :func:`metro_ai.play_match` (and so
every tournament game), the interactive ``metro-ai play`` (a person's seat reads actions from
input) and the benchmark's strength matches (a seat searched by another library).

A *seat* is anything that chooses an action for the player to move: an object with a
``choose(state, limit)`` method (every bot), or a callable ``seat(state, limit)``. It is asked
only on its own player's turns, given the true state (a well-behaved seat reads only what its
player may see) and its seat's budget (``None``: its own). A seat that raises :class:`Stop` ends
the game early (a person leaving); the exception propagates to the caller.

>>> import metro_ai
>>> state = metro_ai.load_game("metro", players=2).new_state(seed=3)
>>> moves = play_game(state, [metro_ai.make_bot("random", seed=1), metro_ai.make_bot("greedy")])
>>> state.is_terminal(), sorted(moves[0])
(True, ['action', 'player', 'seconds', 'text'])
"""
from __future__ import annotations

import time


class Stop(Exception):
    """Raised by a seat to end a game before its end; :func:`play_game` lets it through."""


def seat_chooser(seat):
    """The ``(state, limit) -> action`` function of a seat: its ``choose`` method, or itself."""
    choose = getattr(seat, "choose", None)
    if callable(choose):
        return choose
    if callable(seat):
        return seat
    raise TypeError(f"a seat must have a choose(state, limit) method or be callable, got {seat!r}")


def play_game(state, seats, limits=None, on_move=None, play_forced=False, clock=time.perf_counter):
    """Play `state` to its end, in place, and return the moves made: dicts with ``player``,
    ``action``, ``text`` (the action written out, before it was applied) and ``seconds`` (the
    time the seat took, rounded to the microsecond).

    `seats`: one seat per player (see the module docstring). `limits`: the budget passed to each
    seat (default: None for all). ``on_move(state, move)`` is called after each action is applied.
    With `play_forced`, a player with a single legal action plays it without its seat being
    asked. `clock`: the timer of the seconds recorded.
    """
    choosers = [seat_chooser(s) for s in seats]
    limits = [None] * len(choosers) if limits is None else list(limits)
    if len(limits) != len(choosers):
        raise ValueError(f"{len(limits)} limits for {len(choosers)} seats")
    moves = []
    while not state.is_terminal():
        player = state.current_player
        t0 = clock()
        legal = state.legal_actions() if play_forced else []
        if play_forced and len(legal) == 1:
            action = legal[0]
        else:
            action = choosers[player](state, limits[player])
        took = clock() - t0
        move = {"player": player, "action": action, "text": state.action_to_string(action),
                "seconds": round(took, 6)}
        state.apply(action)
        moves.append(move)
        if on_move is not None:
            on_move(state, move)
    return moves
