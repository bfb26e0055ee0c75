"""``metro-ai web``: a local page that plays every registered game against the bots, served with
the protocol on one port."""
from __future__ import annotations

import textwrap

from .serving import access_of, add_server_arguments, port_in_use, server_of

NAME = "web"
HELP = "play in the browser: a local page that plays every game against the bots"
DESCRIPTION = textwrap.dedent("""\
    Serve a page that plays every registered game against the bots, on one port: the
    page over HTTP and the protocol (docs/protocol.md) over WebSocket at /ws. Choose the
    game, its options, the seats (you or a bot, with its difficulty), see the bots think,
    ask for a hint, undo, save and load games. The address is printed; the browser opens
    it unless --no-browser. Ctrl-C stops the server.""")


def add_arguments(p):
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="the port (default: 8000; 0 picks a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser, only print the address")
    add_server_arguments(p)


def run(args) -> int:
    from metro_ai.web import run_web
    try:
        return run_web(args.host, args.port, not args.no_browser, server_of(args), **access_of(args))
    except OSError as exc:
        raise port_in_use(exc, f"port {args.port} on {args.host}", "--port 0") from None
