"""What a server's operator allows its clients: `Limits` (set on the command line of ``metro-ai
serve`` and ``metro-ai web``, reported by ``hello``) and `Server`, what the sessions of one
server share (the limits, the data directory, the searches and connections counted across them).

A client cannot raise a limit: a request over one is answered with an error naming it
(docs/protocol.md, "Errors"; docs/security.md). The defaults suit one person's machine: a page
or two, a few searches at once, a few hundred MB at most.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Optional

from metro_ai.engine.datafile import MAX_BYTES as DATA_FILE_BYTES

MAX_MESSAGE_BYTES = 1 << 20         # a message (one line) may be 1 MiB; a saved state is a few KB
MAX_GAMES = 256                     # open games per session
MAX_UNDO = 32                       # positions kept for undo per game (a state each: 0.1-9 KB)


@dataclass(frozen=True)
class Limits:
    """The operator's limits (each >= 1; ``max_search_seconds`` a positive number):

    - ``max_message_bytes``: the longest message;
    - ``max_games``: open games per session (connection);
    - ``max_connections``: WebSocket connections open at once (stdio has one);
    - ``max_searches``: searches (``go``, ``analyse``) running at once, all sessions together;
    - ``max_searches_per_connection``: searches running at once in one session;
    - ``max_workers``: the bot option ``workers`` (threads of one search);
    - ``max_nodes``: the bot option ``max_nodes`` (tree nodes of one search, ~40 bytes each);
      a bot whose default is larger is given this many;
    - ``max_search_seconds``: the longest search: a ``limit.time`` (or a spec's ``time=``) over
      it is refused, and any search still running then (an iteration budget, a preset's) stops
      and answers with its best move so far;
    - ``max_file_bytes``: the largest data file read from ``--data-dir`` (at most the library's
      own cap on a data file, ``metro_ai.engine.datafile.MAX_BYTES``, 4 MiB, which the readers keep);
    - ``max_undo``: the positions kept for ``undo`` in one game, besides the current one (a state
      each: docs/guide/server.md, "Memory", gives their size); an older one is let go, and an
      ``undo`` past the oldest kept is refused.
    """
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_games: int = MAX_GAMES
    max_connections: int = 16
    max_searches: int = 8
    max_searches_per_connection: int = 4
    max_workers: int = 4
    max_nodes: int = 5_000_000
    max_search_seconds: float = 60.0
    max_file_bytes: int = DATA_FILE_BYTES
    max_undo: int = MAX_UNDO

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "max_search_seconds":
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < math.inf
                words = "a positive number of seconds"
            else:
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
                words = "an integer >= 1"
            if not ok:
                raise ValueError(f"{f.name} (--{f.name.replace('_', '-')}) must be {words}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Server:
    """What the sessions of one server share: its `limits`, its data directory (`data_dir`, a
    `metro_ai.protocol.files.DataDir`, or None: no files at all) and the counts of the searches
    running and the connections open (on the server's one event loop, so plain counters)."""

    def __init__(self, limits: Optional[Limits] = None, data_dir: Any = None):
        from .files import DataDir
        self.limits = limits if limits is not None else Limits()
        self.data_dir = data_dir if isinstance(data_dir, DataDir) or data_dir is None else \
            DataDir(data_dir, self.limits.max_file_bytes)
        self.searches = 0
        self.connections = 0
