"""The protocol's transports: one JSON message per line over stdin/stdout, and WebSocket (one
JSON message per text frame). Both feed the same `Session` (metro_ai/protocol/session.py) on
one asyncio event loop; ``metro-ai serve`` starts them. The sessions of one server share a
`Server` (limits, data directory, counts: limits.py); a WebSocket server lets in only the
clients its `Access` allows (the token, then Host and Origin: access.py).
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from typing import Any, BinaryIO, Callable, Optional

from .access import Access
from .limits import MAX_MESSAGE_BYTES, Server
from .errors import MESSAGE_TOO_LONG, TOO_MANY_CONNECTIONS, ProtocolError
from .messages import error_response
from .session import Session


class LineFramer:
    """Splits a byte stream into lines of at most `max_bytes` (the newline not counted; a
    trailing ``\\r`` is dropped). A longer line is skipped up to its newline and reported once
    as ``None`` among the lines, so that the server answers it with an error and reads on."""

    def __init__(self, max_bytes: int = MAX_MESSAGE_BYTES):
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[Optional[bytes]]:
        out: list[Optional[bytes]] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            piece = data[start:] if nl < 0 else data[start:nl]
            if self._skipping:
                if nl >= 0:
                    self._skipping = False
            else:
                if len(self._buf) + len(piece) > self.max_bytes:
                    self._buf.clear()
                    out.append(None)
                    self._skipping = nl < 0
                elif nl >= 0:
                    line = bytes(self._buf + piece) if self._buf else bytes(piece)
                    self._buf.clear()
                    out.append(line[:-1] if line.endswith(b"\r") else line)
                else:
                    self._buf += piece
            if nl < 0:
                return out
            start = nl + 1

    def end(self) -> list[Optional[bytes]]:
        """The last line, if the stream ended without a newline."""
        if self._buf and not self._skipping:
            line = bytes(self._buf)
            self._buf.clear()
            return [line]
        return []


def _too_long(max_bytes: int) -> ProtocolError:
    return ProtocolError(MESSAGE_TOO_LONG, f"message too long: a line may hold {max_bytes} bytes at most; "
                         "it was skipped")


async def serve_stream(reader: Callable[[], bytes], writer: BinaryIO, server: Optional[Server] = None,
                       **limits: Any) -> None:
    """Serve one session over a byte stream until it ends: ``reader()`` blocks for the next
    bytes (b"" at the end; it runs in a thread of its own), `writer` takes the answers, one line
    each. At the end, every search is stopped and the answers still owed are sent. `server`
    (or `Limits` fields as keywords) sets the limits and the data directory."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Optional[bytes]] = asyncio.Queue()

    def read() -> None:
        while True:
            try:
                data = reader()
            except (OSError, ValueError):
                data = b""
            loop.call_soon_threadsafe(queue.put_nowait, data or None)
            if not data:
                return

    async def send(text: str) -> None:
        writer.write(text.encode("utf-8") + b"\n")
        writer.flush()

    session = Session(send, server, **limits)
    max_message_bytes = session.max_message_bytes
    threading.Thread(target=read, name="metro-ai-serve-stdin", daemon=True).start()
    framer = LineFramer(max_message_bytes)
    while True:
        data = await queue.get()
        lines = framer.feed(data) if data is not None else framer.end()
        for line in lines:
            if line is None:
                await session.send(error_response(None, _too_long(max_message_bytes)))
            elif line.strip():
                await session.handle_text(line)
        if data is None or session.closed:
            break
    session.stop_all()                          # the input has ended: searches still running stop,
    await session.drain()                       # answer with their best move so far,
    await session.close()                       # and the session ends


def serve_stdio(server: Optional[Server] = None, **limits: Any) -> int:
    """``metro-ai serve``: one session on stdin/stdout until stdin ends. At the end of input the
    searches still running stop and answer with their best move so far."""
    fd = sys.stdin.fileno()
    out = sys.stdout.buffer
    try:
        asyncio.run(serve_stream(lambda: os.read(fd, 1 << 16), out, server, **limits))
    except BrokenPipeError:                     # the client went away: nothing more to say
        pass
    except KeyboardInterrupt:
        return 1
    return 0


async def serve_websocket(host: str, port: int, server: Optional[Server] = None, access: Optional[Access] = None,
                          ready: Optional[Callable[[str, int], None]] = None, stop: Optional[asyncio.Future] = None,
                          process_request: Optional[Callable] = None) -> None:
    """Serve WebSocket clients on `host`:`port` (0: any free port), a session per connection,
    until `stop` is done (or forever). `server`: the limits and data directory the sessions
    share (default: the default limits, no files); a connection over ``max_connections`` is
    told so (an error, id null) and closed (code 1013, try again later); a message over
    ``max_message_bytes`` closes its connection with code 1009 (message too big), as the
    WebSocket protocol says. `access`: who may connect (default: clients holding a fresh token,
    from no origin or this server's own). ``ready(host, port)`` is called once listening.
    `process_request` is the ``websockets`` hook that may answer a request with plain HTTP instead (``metro-ai
    web`` serves its page that way); it sees only the requests `access` lets in."""
    from websockets.asyncio.server import ServerConnection, serve
    from websockets.exceptions import ConnectionClosed

    server = server if server is not None else Server()
    access = access if access is not None else Access(host)

    def gate(connection: Any, request: Any) -> Any:
        refused = access.refuse(request)
        if refused is not None:
            return connection.respond(*refused)
        return process_request(connection, request) if process_request is not None else None

    async def handler(ws: ServerConnection) -> None:
        async def send(text: str) -> None:
            await ws.send(text)

        most = server.limits.max_connections
        if server.connections >= most:
            error = ProtocolError(TOO_MANY_CONNECTIONS, f"too many connections: this server takes {most} at once "
                                  "(max_connections); try again later", {"limit": "max_connections", "max": most})
            try:
                await ws.send(json.dumps(error_response(None, error)))
                await ws.close(1013, "too many connections")
            except ConnectionClosed:
                pass
            return
        server.connections += 1
        session = Session(send, server)
        try:
            async for message in ws:
                await session.handle_text(message)
        except ConnectionClosed:
            pass
        finally:
            server.connections -= 1
            await session.close()               # a client gone mid-search: its searches stop

    async with serve(handler, host, port, max_size=server.limits.max_message_bytes, compression=None,
                     process_request=gate) as listening:
        sock = next(iter(listening.sockets))
        bound_host, bound_port = sock.getsockname()[:2]
        access.bind(bound_port)
        if ready is not None:
            ready(bound_host, bound_port)
        await (stop if stop is not None else asyncio.get_running_loop().create_future())


def warn_remote(access: Access, command: str) -> None:
    """The warning printed when a server listens beyond this machine."""
    if access.remote:
        print(f"{command}: WARNING: listening on {access.host or 'every address'}, beyond this machine: anyone who "
              "can reach it and holds the token can use its CPU and memory within the limits; see "
              "docs/security.md", file=sys.stderr, flush=True)


def run_websocket(address: str, server: Optional[Server] = None, token: Optional[str] = None,
                  allow_origins: tuple[str, ...] = (), allow_remote: bool = False) -> int:
    """``metro-ai serve --ws HOST:PORT``: serve until interrupted; says where it listens on
    stderr (``listening on ws://HOST:PORT/?token=TOKEN``, the real port when PORT is 0: every
    client connects to that address, token included)."""
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--ws takes HOST:PORT (e.g. 127.0.0.1:8765; port 0 picks a free one), got {address!r}")
    access = Access(host, token, allow_origins, allow_remote)
    warn_remote(access, "metro-ai serve")

    def ready(h: str, p: int) -> None:
        shown = f"[{h}]" if ":" in h else h
        print(f"listening on ws://{shown}:{p}/?{access.url_token()}", file=sys.stderr, flush=True)

    try:
        asyncio.run(serve_websocket(host.strip("[]"), int(port_text), server, access, ready))
    except KeyboardInterrupt:
        return 0
    return 0
