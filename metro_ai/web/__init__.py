"""``metro-ai web``: a page in the browser that plays every registered game against the bots.

One asyncio server on one port: plain HTTP for the page's static files (``static/``, shipped as
package data: HTML, CSS and JavaScript, no build step) and the protocol over WebSocket at
``/ws`` (metro_ai/protocol: the same `Session` as ``metro-ai serve --ws``, one per connection).
Both go through the ``websockets`` library, whose ``process_request`` hook answers the HTTP
requests that are not a WebSocket handshake. The page reads the games, their options and the
bots from ``hello``, and draws the position as the person's seat sees it (the ``state`` summary,
the ``svg`` picture for that seat, the moves as that seat saw them: docs/guide/web.md).

Every WebSocket handshake presents the server's token, the page's own included: the command
prints and opens the page's address with it (``http://127.0.0.1:PORT/?token=TOKEN``), and the
page passes it on in the URL of its handshake. Every request must also name this server in its
``Host`` header, and a handshake from a page comes from this page's origin:
metro_ai/protocol/access.py, docs/security.md.
"""
from __future__ import annotations

import asyncio
import html
import mimetypes
import os
import sys
import tempfile
import webbrowser
from importlib import resources
from typing import Any, Callable, Optional

from metro_ai.protocol.access import Access
from metro_ai.protocol.limits import Server
from metro_ai.protocol.server import serve_websocket, warn_remote

WS_PATH = "/ws"
#: The static files by URL path ("/" is the page itself).
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}


def static_file(path: str) -> Optional[tuple[bytes, str]]:
    """The body and content type of the static file at URL `path` (``/`` is ``index.html``), or
    None if there is none. Only plain names under ``static/`` are served (no ``..``, no folders
    above it)."""
    name = path.split("?", 1)[0].split("#", 1)[0].lstrip("/") or "index.html"
    parts = name.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") or "\\" in p for p in parts):
        return None
    node = resources.files(__package__).joinpath("static")
    for p in parts:
        node = node.joinpath(p)
    if not node.is_file():
        return None
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    kind = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return node.read_bytes(), kind


def _process_request(connection: Any, request: Any) -> Any:
    """The ``websockets`` hook: the WebSocket handshake at ``/ws`` goes on (None); any other
    request is answered with its static file, or 404."""
    from websockets.datastructures import Headers
    from websockets.http11 import Response

    path = request.path.split("?", 1)[0]
    if path == WS_PATH:
        if "upgrade" in request.headers.get("Connection", "").lower():
            return None
        return connection.respond(426, f"the protocol is served over WebSocket at {WS_PATH}\n")
    found = static_file(path)
    if found is None:
        return connection.respond(404, f"not found: {path}\n")
    body, kind = found
    headers = Headers([("Content-Type", kind), ("Content-Length", str(len(body))), ("Cache-Control", "no-cache"),
                       ("X-Content-Type-Options", "nosniff")])
    return Response(200, "OK", headers, body)


async def serve_web(host: str = "127.0.0.1", port: int = 8000, server: Optional[Server] = None,
                    access: Optional[Access] = None, ready: Optional[Callable[[str, int], None]] = None,
                    stop: Optional[asyncio.Future] = None) -> None:
    """Serve the page and the protocol on `host`:`port` (0: any free port) until `stop` is done
    (or forever); ``ready(host, port)`` is called once listening. `server` and `access` as in
    `metro_ai.protocol.serve_websocket`."""
    await serve_websocket(host, port, server, access, ready=ready, stop=stop, process_request=_process_request)


def run_web(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = True, server: Optional[Server] = None,
            token: Optional[str] = None, allow_origins: tuple[str, ...] = (), allow_remote: bool = False) -> int:
    """``metro-ai web``: serve until interrupted; prints the page's address with the token on
    stdout (``serving on http://HOST:PORT/?token=TOKEN``, the real port when `port` is 0, then
    the protocol's address for programs) and opens it in the browser unless told not to (through
    a file only this user can read, `launch_file`, so that the token is not on a command line)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0-65535 (0 picks a free one), got {port}")
    access = Access(host, token, allow_origins, allow_remote)
    warn_remote(access, "metro-ai web")
    launched: list[str] = []

    def ready(h: str, p: int) -> None:
        h = "127.0.0.1" if h in ("0.0.0.0", "::") else h       # every address: this machine's is one
        shown = f"[{h}]" if ":" in h else h
        url = f"http://{shown}:{p}/?{access.url_token()}"
        print(f"serving on {url} (programs: ws://{shown}:{p}{WS_PATH}?{access.url_token()}); Ctrl-C stops",
              flush=True)
        if open_browser:
            try:
                launched.append(launch_file(url))
                webbrowser.open("file://" + launched[-1])
            except Exception as exc:            # noqa: BLE001 - no browser: the address is printed
                print(f"metro-ai web: could not open a browser ({exc}); open the address above", file=sys.stderr)

    try:
        asyncio.run(serve_web(host, port, server, access, ready))
    except KeyboardInterrupt:
        return 0
    finally:
        for path in launched:
            try:
                os.unlink(path)
            except OSError:
                pass
    return 0


def launch_file(url: str) -> str:
    """A page that sends the browser on to `url` (which holds the token), written where only this
    user may read it (mode 0600); its path. A browser started with the address itself would show
    the token to every user of the machine in the process list."""
    fd, path = tempfile.mkstemp(prefix="metro-ai-web-", suffix=".html")
    link = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html>\n<meta charset="utf-8">\n<meta http-equiv="refresh" content="0;url={link}">\n'
                f'<title>metro-ai</title>\n<p><a href="{link}">Open metro-ai</a></p>\n')
    return path
