"""The metro-ai protocol: JSON-RPC 2.0 over stdio (one message per line) and WebSocket, so that
a front end in any language can use the bots (``metro-ai serve``; docs/protocol.md), within the
limits and access rules its operator sets (`Limits`, `Server`, `Access`; docs/security.md).

>>> from metro_ai.protocol import schema
>>> sorted(schema()["methods"])[:3]
['analyse', 'apply', 'close']
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .access import Access
from .limits import Limits, Server
from .server import LineFramer, run_websocket, serve_stdio, serve_stream, serve_websocket
from .errors import ProtocolError
from .session import PROTOCOL, PROTOCOL_VERSION, Session

__all__ = ["Access", "Limits", "LineFramer", "PROTOCOL", "PROTOCOL_VERSION", "ProtocolError", "Server", "Session",
           "run_websocket", "schema", "serve_stdio", "serve_stream", "serve_websocket"]


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of the protocol's messages (``schema.json``, shipped with the package):
    ``$defs`` for the envelopes, ``methods`` with each method's ``params`` and ``result``, and
    ``notifications``."""
    text = resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
