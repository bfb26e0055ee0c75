"""What ``metro-ai serve`` and ``metro-ai web`` share, written once: a protocol server's options
(its limits, the data directory, who may connect), the ``Server`` and access settings they make,
and the error for a port already taken."""
from __future__ import annotations

import errno
import os

_LIMIT_HELP = {
    "max_message_bytes": "the longest message accepted",
    "max_games": "open games per connection",
    "max_connections": "WebSocket connections at once",
    "max_searches": "searches (go, analyse) running at once, all connections together",
    "max_searches_per_connection": "searches running at once on one connection",
    "max_workers": "the bot option workers (threads of one search)",
    "max_nodes": "the bot option max_nodes (tree nodes of one search, ~40 bytes each)",
    "max_search_seconds": "seconds of one search: a longer time limit is refused, a longer search stops",
    "max_file_bytes": "the largest data file read from --data-dir",
    "max_undo": "positions kept for undo in one game (older moves cannot be undone)",
}


def _plain_number(x):
    """A default as a person reads it: 1,048,576 rather than 1.04858e+06, 60 rather than 60.0."""
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def add_server_arguments(parser):
    """The options of a protocol server (serve, web): limits, data directory, access."""
    from metro_ai.protocol.limits import Limits
    defaults = Limits()
    lim = parser.add_argument_group("limits (a client cannot exceed them; hello reports them; docs/security.md)")
    for key, words in _LIMIT_HELP.items():
        default = getattr(defaults, key)
        lim.add_argument("--" + key.replace("_", "-"), type=float if isinstance(default, float) else int,
                         default=None, metavar="S" if isinstance(default, float) else "N",
                         help=f"{words} (default: {_plain_number(default)})")
    acc = parser.add_argument_group("files and access (docs/security.md)")
    acc.add_argument("--data-dir", metavar="DIR", default=None,
                     help="the folder whose files clients may name in file options (company_chart, cards, "
                          "ladder=, ...), by relative name; without it clients name no files")
    acc.add_argument("--token", default=None, metavar="TOKEN",
                     help="the token every WebSocket client, the web page included, presents as ?token=TOKEN "
                          "(default: $METRO_AI_TOKEN, else a fresh random one, printed with the address)")
    acc.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                     help="also let web pages of ORIGIN (e.g. http://localhost:3000) connect, with the token; "
                          "repeatable")
    acc.add_argument("--allow-remote", action="store_true",
                     help="allow listening on an address other machines can reach (prints a warning)")


def server_of(args):
    """The `Server` (limits, data directory) of serve or web from the command line."""
    from metro_ai.protocol.limits import Limits, Server
    given = {key: getattr(args, key) for key in _LIMIT_HELP if getattr(args, key) is not None}
    limits = Limits(**given)
    return Server(limits, args.data_dir)


def access_of(args):
    """Who may connect: the token (--token, else $METRO_AI_TOKEN), the other origins allowed and
    whether a reachable address may be used, as keywords of the servers' run functions."""
    return dict(token=args.token if args.token is not None else os.environ.get("METRO_AI_TOKEN") or None,
                allow_origins=tuple(args.allow_origin), allow_remote=args.allow_remote)


def port_in_use(exc, where, hint):
    """A listening socket's address already taken, as a usage error that says so and how to
    pick a free port; any other OSError as it is."""
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return ValueError(f"{where} is in use (another server?): choose another port, or {hint} for a free one")
    return exc
