"""Pictures of positions with the extras a person playing wants (``metro_ai.svg(...,
labels=True)``, the protocol's ``svg`` with ``labels``, the web page): the game's drawing hook
(``Game.svg``, "module:function") called with ``labels=True`` where it takes it (a Metro board:
square names on its edges, open lines in their owner's colour, the hand's tile ids; a
Breakthrough table: nothing clipped, protections in words), else the plain picture."""
from __future__ import annotations

import importlib
import inspect
from typing import Optional


def picture(state, player: Optional[int] = None, lastmove: Optional[int] = None, labels: bool = False) -> str:
    """The SVG text of `state` as ``state.svg`` draws it, with the drawing's extras if `labels`."""
    hook = state.game.svg
    if not labels or hook is None:
        return state.svg(player=player, lastmove=lastmove)        # (with no drawing: its error)
    module, name = hook.split(":")
    draw = getattr(importlib.import_module(module), name)
    if "labels" not in inspect.signature(draw).parameters:
        return state.svg(player=player, lastmove=lastmove)
    if player is not None:
        state._check_player(player)
    return draw(state, player=player, lastmove=lastmove, labels=True)
