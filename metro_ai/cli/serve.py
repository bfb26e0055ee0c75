"""``metro-ai serve``: the games and bots over JSON-RPC 2.0, on stdio or WebSocket
(docs/protocol.md)."""
from __future__ import annotations

import textwrap

from .serving import access_of, add_server_arguments, port_in_use, server_of

NAME = "serve"
HELP = "serve the bots over JSON-RPC 2.0: stdio (one message per line) or --ws HOST:PORT"
DESCRIPTION = textwrap.dedent("""\
    Serve the games and bots to a front end in any language: JSON-RPC 2.0, one message per
    line on stdin/stdout (the default; it ends when stdin ends), or WebSocket with --ws
    (one message per text frame; port 0 picks a free port, printed on stderr). Methods:
    hello, new_game, load_state, state, legal_actions, apply, observation, svg, go, stop,
    analyse, undo, redo, save, close; searches send progress notifications.
    The specification is docs/protocol.md.""")


def add_arguments(p):
    p.add_argument("--ws", metavar="HOST:PORT", help="serve WebSocket clients on HOST:PORT instead of stdio")
    add_server_arguments(p)


def run(args) -> int:
    from metro_ai.protocol import run_websocket, serve_stdio
    server = server_of(args)
    if args.ws:
        try:
            return run_websocket(args.ws, server, **access_of(args))
        except OSError as exc:
            host = args.ws.rpartition(":")[0]
            raise port_in_use(exc, f"--ws {args.ws}: the port", f"--ws {host}:0") from None
    return serve_stdio(server)
