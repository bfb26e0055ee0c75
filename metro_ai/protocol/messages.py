"""One message in, one message out: reading a message's JSON (`parse_message`), checking its
JSON-RPC 2.0 envelope (`check_request`), taking a method's named parameters with their types
checked (`Params`), and writing an answer as one line of strict JSON (`encode`,
`error_response`). Nothing here knows what the methods do: that is session.py's (the method
table), history.py's and searches.py's.
"""
from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Union

from metro_ai.engine.datafile import dumps

from .errors import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ProtocolError

Send = Callable[[str], Awaitable[None]]
Id = Union[str, int, None]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_message(text: Union[str, bytes]) -> Any:
    """A message's JSON, or ProtocolError(PARSE_ERROR) saying why it is not JSON."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(PARSE_ERROR, f"parse error: not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ProtocolError(PARSE_ERROR, f"parse error: {exc}") from None
    except RecursionError:
        raise ProtocolError(PARSE_ERROR, "parse error: nested too deeply") from None
    except ValueError as exc:                       # NaN, Infinity, an integer of > 4,300 digits
        raise ProtocolError(PARSE_ERROR, f"parse error: {exc}") from None


def encode(message: dict[str, Any]) -> str:
    """A message as one line of strict JSON (no newline inside: strings escape theirs; a float
    that is not finite is written as null, ``metro_ai.engine.datafile.dumps``)."""
    return dumps(message, compact=True)


class Encoded(str):
    """A result already encoded as JSON text (``save``'s, encoded off the event loop):
    :meth:`Session.send <metro_ai.protocol.session.Session.send>` puts it in its answer as it is."""


_REQUIRED = object()
_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    "action": (lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)),
               "an action id (integer) or its text (string)"),
    "state": (lambda v: isinstance(v, (str, dict)), "a saved state: its JSON text or object"),
}


class Params:
    """A method's named parameters, taken one by one with their type checked (``get(name,
    kind[, default])``, `kind` one of "str", "int", "bool", "object", "number", "action",
    "state"); ``done`` refuses any left over (a misspelt name is an error, not a silent default)."""

    def __init__(self, method: str, params: dict[str, Any], request_id: Id = None):
        self.method, self.params, self.request_id = method, params, request_id
        self.taken: set[str] = set()

    def get(self, name: str, kind: str, default: Any = _REQUIRED) -> Any:
        self.taken.add(name)
        if name not in self.params:
            if default is _REQUIRED:
                raise ProtocolError(INVALID_PARAMS, f"{self.method}: missing parameter {name!r}")
            return default
        value = self.params[name]
        if value is None and default is None:
            return None
        check, words = _KINDS[kind]
        if not check(value):
            raise ProtocolError(INVALID_PARAMS, f"{self.method}: {name} must be {words}, got {brief(value)}")
        return value

    def done(self) -> None:
        extra = sorted(set(self.params) - self.taken)
        if extra:
            raise ProtocolError(INVALID_PARAMS, f"{self.method}: unknown parameter(s) {', '.join(map(repr, extra))}; "
                                f"it takes {', '.join(sorted(self.taken)) or 'none'}")


def brief(value: Any, n: int = 60) -> str:
    """A value for an error message, cut short."""
    text = json.dumps(value) if not isinstance(value, (bytes, bytearray)) else repr(value)
    return text if len(text) <= n else text[:n] + "..."


def check_request(message: Any) -> tuple[Id, str, dict[str, Any]]:
    """(id, method, params) of a request or notification, or ProtocolError(INVALID_REQUEST)."""
    if isinstance(message, list):
        raise ProtocolError(INVALID_REQUEST, "invalid request: batches are not supported; send one message per line")
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: a message is a JSON object, got {brief(message)}")
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, "invalid request: 'jsonrpc' must be \"2.0\"")
    request_id = message.get("id")
    if "id" in message and not (request_id is None or isinstance(request_id, str)
                                or (isinstance(request_id, int) and not isinstance(request_id, bool))):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: 'id' must be a string, an integer or null, "
                            f"got {brief(request_id)}")
    method = message.get("method")
    if not isinstance(method, str):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: 'method' must be a string, got {brief(method)}")
    extra = sorted(set(message) - {"jsonrpc", "id", "method", "params"})
    if extra:
        raise ProtocolError(INVALID_REQUEST, f"invalid request: unknown member(s) {', '.join(map(repr, extra))}")
    params = message.get("params", {})
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, f"{method}: params must be an object of named parameters, got "
                            f"{brief(params)}")
    return request_id, method, params


def id_of(message: Any) -> Id:
    """The id to answer an invalid request with: its own if readable, else null."""
    if isinstance(message, dict):
        i = message.get("id")
        if i is None or isinstance(i, str) or (isinstance(i, int) and not isinstance(i, bool)):
            return i
    return None


def error_response(request_id: Id, error: ProtocolError) -> dict[str, Any]:
    """The error answer to request `request_id` (null: a message whose id cannot be read)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_dict()}
