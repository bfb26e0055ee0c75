"""The memory section's child program for protocol games: what one client's open games hold, in a
fresh process. ``python -m metro_ai.bench.gamemem GAME GAMES SEED`` opens GAMES games of GAME (its
default options) in one protocol session (:class:`metro_ai.protocol.Session`, the server's own, at
its default limits), then plays random legal moves in every game, ``max_undo`` of them (each keeps
a state for ``undo``), then ``max_undo`` more (past the bound: each keeps its move for the record
only), and prints one JSON line ``{"games", "max_undo", "base_kib", "open_kib", "steps", "steps_kib",
"moves", "moves_kib"}``: resident memory (VmRSS) before, after opening, after the moves kept for
undo, after the moves past the bound, and the moves of each phase (fewer where games end first).
:func:`metro_ai.bench.memory.game_memory` runs it."""
from __future__ import annotations

import asyncio
import gc
import json
import random
import sys
from typing import Any

from metro_ai.engine.datafile import dumps
from metro_ai.protocol.limits import Limits, Server
from metro_ai.protocol.session import Session

from .peak import status


async def measure(game: str, games: int, seed: int) -> dict[str, Any]:
    answers: list[str] = []

    async def send(text: str) -> None:
        answers.append(text)

    limits = Limits(max_games=max(games, Limits().max_games))
    session = Session(send, Server(limits))

    async def call(method: str, **params: Any) -> Any:
        answers.clear()
        await session.handle_message({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        message = json.loads(answers[-1])
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']['message']}")
        return message["result"]

    await call("close", game_id=(await call("new_game", game=game, seed=seed))["game_id"])   # imports, caches
    gc.collect()
    out: dict[str, Any] = {"games": games, "max_undo": limits.max_undo, "base_kib": status("VmRSS")}
    ids = [(await call("new_game", game=game, seed=seed + i))["game_id"] for i in range(games)]
    out["open_kib"] = status("VmRSS")
    rng = random.Random(seed)
    for phase in ("steps", "moves"):
        played = 0
        for gid in ids:
            for _ in range(limits.max_undo):
                legal = (await call("legal_actions", game_id=gid, text=False))["actions"]
                if not legal:
                    break
                await call("apply", game_id=gid, action=rng.choice(legal)["id"])
                played += 1
        out[phase] = played
        out[phase + "_kib"] = status("VmRSS")
    return out


def main(argv: list[str]) -> None:
    game, games, seed = argv[0], int(argv[1]), int(argv[2])
    print(dumps(asyncio.run(measure(game, games, seed))))


if __name__ == "__main__":
    main(sys.argv[1:])
