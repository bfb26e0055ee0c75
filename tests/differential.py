"""The one lock-step loop of the differential tests: a fast engine against its independent
pure-Python reference (``Game.reference_game()``), same seed and same actions.

After every action both engines must agree on the player to move, whether the game is over and
the legal actions; at the end, on the returns. Each game's tests add their own comparisons (the
board, hands, companies, city pieces, the full state) through ``same`` and ``hidden`` and choose
their own policy through ``pick``; the loop itself is written once, here.
"""
from __future__ import annotations

import random
from typing import Any, Callable

import pytest

Check = Callable[[Any, Any, tuple], None]


def uniform(rng: random.Random, actions: list[int], slow: Any) -> int:
    """The default policy: a legal action uniformly at random."""
    return rng.choice(actions)


def lockstep(game, seed: int, *, rgame=None, pick: Callable[[random.Random, list[int], Any], int] = uniform,
             same: Check | None = None, hidden: Check | None = None, hidden_every: int = 8,
             cap: int | None = None):
    """Play one game of `game` and of its reference `rgame` (default ``game.reference_game()``)
    from ``new_state(seed)``, choosing each action with ``pick(rng, legal_actions, reference_state)``
    (``rng`` is ``random.Random(seed)``, used by `pick` alone).

    Compared: before every action, the player to move, terminality, the legal actions and
    ``same(fast, slow, ctx)``; at the start, after every `hidden_every`-th action and at the end,
    ``hidden(fast, slow, ctx)`` (the costly comparisons: hidden parts, full states); at the end the
    returns. ``ctx`` is ``(seed, actions played so far)`` (``(seed, "end")`` last), the message of
    every failed comparison. Stops after `cap` actions if given (then the game need not be over). Returns the
    final fast state, the final reference state and the number of actions played."""
    rgame = game.reference_game() if rgame is None else rgame
    assert rgame is not None, f"{game.name} has no reference engine"
    fast, slow = game.new_state(seed), rgame.new_state(seed)
    rng = random.Random(seed)
    step = 0
    if hidden is not None:
        hidden(fast, slow, (seed, step))
    while cap is None or step < cap:
        ctx = (seed, step)
        assert fast.current_player == slow.current_player, ctx
        assert fast.is_terminal() == slow.is_terminal(), ctx
        if same is not None:
            same(fast, slow, ctx)
        actions = fast.legal_actions()
        assert actions == slow.legal_actions(), ctx
        if not actions:
            break
        a = pick(rng, actions, slow)
        fast.apply(a)
        slow.apply(a)
        step += 1
        if hidden is not None and step % hidden_every == 0:
            hidden(fast, slow, (seed, step))
    if hidden is not None:
        hidden(fast, slow, (seed, "end"))
    if fast.is_terminal():
        assert fast.returns() == pytest.approx(slow.returns()), (seed, "end")
    return fast, slow, step


def favour(predicate: Callable[[int], bool], share: float) -> Callable[[random.Random, list[int], Any], int]:
    """A policy that picks among the legal actions satisfying `predicate` with probability
    `share` when there are any (one ``rng.random()`` draw then), else uniformly among all: how
    the differential tests make rare actions (exchanges, central pieces, rejections) common."""
    def pick(rng: random.Random, actions: list[int], slow: Any) -> int:
        chosen = [a for a in actions if predicate(a)]
        return rng.choice(chosen if chosen and rng.random() < share else actions)
    return pick
