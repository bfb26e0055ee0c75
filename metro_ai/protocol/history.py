"""An open game and its history: the positions kept for ``undo`` (the current one and at most
``max_undo`` before it, an older one let go: `Limits.max_undo`), every move made (for the
record), the moves undone (for ``redo``); and the ``undo`` and ``redo`` methods.

A position is a state, never changed once made: a move applies to a copy (`OpenGame.push`), so
an illegal action changes nothing and ``undo`` is dropping the last state.
"""
from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

from metro_ai.bots.background import SearchHandle
from metro_ai.engine.errors import IllegalActionError

from .errors import BUSY, ILLEGAL_ACTION, INVALID_PARAMS, NO_HISTORY, ProtocolError
from .messages import Id, Params

if TYPE_CHECKING:
    from .reviews import Reviewing
    from .searches import Starting
    from .session import Session


@dataclass
class OpenGame:
    """An open game: its last states (the current one last; at most ``max_undo`` before it, an
    older one let go), the moves (all of them, for the record), the undone moves (for ``redo``),
    who made each move, and the search running on it, if any."""
    id: str
    game: Any
    seed: Optional[int]                   # the deal's seed; None for a loaded state
    states: deque                         # bounded: deque(maxlen=max_undo + 1)
    names: dict = field(default_factory=dict)   # file options as the client named them (not the real paths)
    moves: list = field(default_factory=list)
    redo: list = field(default_factory=list)
    search: Union[SearchHandle, "Starting", "Reviewing", None] = None
    search_task: Optional[asyncio.Future] = None
    search_request: Id = None
    public_scores: bool = True          # every seat sees the scores during play (seatview; judged once, at opening)

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def options(self) -> dict[str, Any]:
        """The game's options as the client gave them (a file by its name in the data directory)."""
        return {**self.game.options, **self.names}

    def position(self, ply: int, method: str) -> Any:
        """The position before move `ply` (0: the deal, ``len(moves)``: now): one of the states
        kept for undo, else replayed from the deal; ProtocolError(NO_HISTORY) for a ply out of
        range or, in a game made by load_state, before the oldest state kept."""
        now = len(self.moves)
        if not 0 <= ply <= now:
            raise ProtocolError(NO_HISTORY, f"{method}: ply must be 0-{now}, got {ply}")
        kept = self.kept(ply)
        if kept is not None:
            return kept
        if self.seed is None:
            raise ProtocolError(NO_HISTORY, f"{method}: game {self.id} was loaded from a saved state and keeps its "
                                f"last {len(self.states)} positions: ply {now - len(self.states) + 1}-{now}")
        state = self.game.new_state(self.seed)
        for move in self.moves[:ply]:
            state.apply(move["action"])
        return state

    def kept(self, ply: int) -> Any:
        """The position before move `ply` if it is one of the states kept for undo, else None."""
        i = ply - (len(self.moves) - (len(self.states) - 1))
        return self.states[i] if 0 <= i < len(self.states) else None

    def check_seat(self, seat: Optional[int], method: str) -> None:
        """ProtocolError(INVALID_PARAMS) unless `seat` is None or one of the game's seats."""
        n = self.game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ProtocolError(INVALID_PARAMS, f"{method}: seat must be 0-{n - 1} for {n} players, got {seat}")

    def idle(self, method: str) -> None:
        """ProtocolError(BUSY) while a search runs on the game."""
        if self.search is not None:
            raise ProtocolError(BUSY, f"{method}: game {self.id} is busy: a search is running on it "
                                f"(request {self.search_request!r}); send stop first")

    def summary(self) -> dict[str, Any]:
        """Where the game stands, as every seat may see it: the scores at the end, and during play
        only where every seat's observation carries them (metro_ai/play/seatview.py)."""
        s = self.state
        terminal = s.is_terminal()
        return {"game_id": self.id, "game": self.game.name, "options": self.options, "ply": len(self.moves),
                "current_player": s.current_player, "terminal": terminal,
                "scores": s.scores() if terminal or self.public_scores else None,
                "returns": s.returns() if terminal else None, "can_undo": len(self.states) > 1,
                "can_redo": bool(self.redo)}

    def push(self, action: int, by: str, seconds: float = 0.0) -> dict[str, Any]:
        """Apply `action` to the game (a copy of its state: an illegal action changes nothing)."""
        s = self.state
        player = s.current_player
        after = s.clone()
        try:
            after.apply(action)
            text = s.action_to_string(action)
        except (IllegalActionError, ValueError, OverflowError) as exc:
            raise ProtocolError(ILLEGAL_ACTION, str(exc)) from None
        move = {"player": player, "action": action, "text": text, "seconds": round(seconds, 6), "by": by}
        self.states.append(after)
        self.moves.append(move)
        return move


def undo(session: Session, p: Params) -> dict[str, Any]:
    entry = session.entry(p)
    count = p.get("count", "int", 1)
    p.done()
    entry.idle("undo")
    if not 1 <= count <= len(entry.moves):
        raise ProtocolError(NO_HISTORY, f"undo: {count} move(s) asked for, {len(entry.moves)} to undo")
    kept = len(entry.states) - 1
    if count > kept:
        most = session.limits.max_undo
        raise ProtocolError(NO_HISTORY, f"undo: {count} move(s) asked for; this server keeps the last {most} "
                            f"positions of a game (max_undo), so {kept} can be undone now",
                            {"limit": "max_undo", "max": most})
    for _ in range(count):
        entry.states.pop()
        entry.redo.append(entry.moves.pop())
    return entry.summary()


def redo(session: Session, p: Params) -> dict[str, Any]:
    entry = session.entry(p)
    count = p.get("count", "int", 1)
    p.done()
    entry.idle("redo")
    if not 1 <= count <= len(entry.redo):
        raise ProtocolError(NO_HISTORY, f"redo: {count} move(s) asked for, {len(entry.redo)} to redo")
    for _ in range(count):
        move = entry.redo.pop()
        entry.push(move["action"], move["by"], move["seconds"])
    return entry.summary()
