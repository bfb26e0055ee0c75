"""The protocol's errors: JSON-RPC 2.0's own codes, the server's (-32000 to -32099 are for
servers), their names (`ERROR_NAMES`: docs/protocol.md's "Errors" table lists the same), and
`ProtocolError`, the one exception a method raises to answer with an error.

A new code goes here, into `ERROR_NAMES`, into the error table of docs/protocol.md (a test
compares them) and into the description of ``code`` in ``schema.json``'s ``error`` envelope
(docs/dev/adding-a-protocol-method.md).
"""
from __future__ import annotations

from typing import Any

from metro_ai.engine.errors import PythonGameError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNKNOWN_GAME = -32000
ILLEGAL_ACTION = -32001
BUSY = -32002
NO_SEARCH = -32003
BAD_STATE = -32004
MESSAGE_TOO_LONG = -32005
GAME_OVER = -32006
NO_HISTORY = -32007
TOO_MANY_GAMES = -32008
FILE_REFUSED = -32009
OVER_LIMIT = -32010
TOO_MANY_SEARCHES = -32011
TOO_MANY_CONNECTIONS = -32012
GAME_CODE_FAILED = -32013

ERROR_NAMES = {
    PARSE_ERROR: "parse error", INVALID_REQUEST: "invalid request", METHOD_NOT_FOUND: "method not found",
    INVALID_PARAMS: "invalid params", INTERNAL_ERROR: "internal error", UNKNOWN_GAME: "unknown game id",
    ILLEGAL_ACTION: "illegal action", BUSY: "game busy", NO_SEARCH: "no search", BAD_STATE: "bad state",
    MESSAGE_TOO_LONG: "message too long", GAME_OVER: "game over", NO_HISTORY: "no history",
    TOO_MANY_GAMES: "too many games", FILE_REFUSED: "file refused", OVER_LIMIT: "over a limit",
    TOO_MANY_SEARCHES: "too many searches", TOO_MANY_CONNECTIONS: "too many connections",
    GAME_CODE_FAILED: "game code failed",
}


class ProtocolError(Exception):
    """An error answer: a JSON-RPC error `code` and a `message` naming the problem."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


def internal(exc: BaseException) -> ProtocolError:
    """The error answer for an exception a method did not turn into a ProtocolError itself: a
    game written in Python that failed (or exited), else an internal error (a bug)."""
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, (PythonGameError, SystemExit)):  # a game written in Python failed (or exited)
        text = str(exc) if isinstance(exc, PythonGameError) else f"the game's code raised SystemExit({exc})"
        return ProtocolError(GAME_CODE_FAILED, f"game code failed: {text}")
    return ProtocolError(INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")
