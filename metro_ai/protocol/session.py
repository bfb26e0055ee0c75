"""One protocol session: the JSON-RPC 2.0 methods over the games a client has open.

A `Session` is what one client talks to (one stdio server, one WebSocket connection): it reads
one message at a time (:meth:`Session.handle_text`) and sends its answers through the ``send``
coroutine it was given. Quick methods answer at once, in order; ``go``, ``analyse`` and
``stop`` answer when their search ends, and meanwhile every other message is served. The games
of a session are isolated from each other and from other sessions; nothing a client sends can
end the session except closing it. docs/protocol.md is the written specification and
``schema.json`` (next to this module) the JSON Schema of every message.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Optional, Union

from metro_ai.bots.background import SearchHandle
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import dumps
from metro_ai.engine.errors import IllegalActionError, PythonGameError
from metro_ai.bots.catalogue import BotSpec, BotSpecError, bot_catalogue
from metro_ai.play.match import match_record
from metro_ai.play.seatview import scores_public, seen_move
from metro_ai.play.terminal import describe, prompt
from metro_ai.registry import game_class, list_games
from metro_ai.version import __version__

from .files import FileRefused, bot_file_options, game_file_options, resolve_options
from .limits import Limits, Server

PROTOCOL = "metro-ai"
PROTOCOL_VERSION = 1

PROGRESS_INTERVAL = 0.1             # seconds between progress notifications of one search (10/s)
FILE_SECONDS = 10.0                 # the longest a game or bot may take to read its data files

# JSON-RPC 2.0's own error codes, then the server's (-32000 to -32099 are for servers).
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

Send = Callable[[str], Awaitable[None]]
Id = Union[str, int, None]


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


class _Params:
    """A method's named parameters, taken one by one with their type checked; ``done`` refuses
    any left over (a misspelt name is an error, not a silent default)."""

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
            raise ProtocolError(INVALID_PARAMS, f"{self.method}: {name} must be {words}, got {_brief(value)}")
        return value

    def done(self) -> None:
        extra = sorted(set(self.params) - self.taken)
        if extra:
            raise ProtocolError(INVALID_PARAMS, f"{self.method}: unknown parameter(s) {', '.join(map(repr, extra))}; "
                                f"it takes {', '.join(sorted(self.taken)) or 'none'}")


def _brief(value: Any, n: int = 60) -> str:
    """A value for an error message, cut short."""
    text = json.dumps(value) if not isinstance(value, (bytes, bytearray)) else repr(value)
    return text if len(text) <= n else text[:n] + "..."


@dataclass
class _Game:
    """An open game: its last states (the current one last; at most ``max_undo`` before it, an
    older one let go), the moves (all of them, for the record), the undone moves (for ``redo``),
    who made each move, and the search running on it, if any."""
    id: str
    game: Any
    seed: Optional[int]                   # the deal's seed; None for a loaded state
    states: deque                         # bounded: deque(maxlen=max_undo + 1)
    names: dict = field(default_factory=dict)   # file options as the client named them (not the real paths)
    moves: list = field(default_factory=list)
    redo: list = field(default_factory=list)
    search: Union[SearchHandle, "_Starting", None] = None
    search_task: Optional[asyncio.Future] = None
    search_request: Id = None
    public_scores: bool = True          # every seat sees the scores during play (seatview; judged once, at opening)

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def options(self) -> dict[str, Any]:
        """The game's options as the client gave them (a file by its name in the data directory)."""
        return {**self.game.options, **self.names}


class _Starting:
    """The busy mark of a game whose search is being started (its bot reading its files): a
    ``stop`` or ``close`` meanwhile stops the search as soon as it has started."""

    def __init__(self) -> None:
        self.stopped = False

    def request_stop(self) -> None:
        self.stopped = True


@dataclass
class _Search:
    """What a ``go`` or an ``analyse`` needs when its search ends."""
    entry: _Game
    handle: SearchHandle
    request: Id
    bot: str
    analyse: bool
    apply: bool
    progress: bool
    top: int
    state: Any
    player: int
    t0: float
    seat: Optional[int] = None          # go's answer and progress as this seat sees them (None: the table's)


class Session:
    """One client's session (see the module docstring). ``send(text)`` sends one message;
    :meth:`handle_text` takes one; :meth:`close` ends every search (a client gone)."""

    def __init__(self, send: Send, server: Optional[Server] = None, progress_interval: float = PROGRESS_INTERVAL,
                 **limits: Any):
        """`server`: what this session shares with the others of its server (limits, data
        directory, counts); None: a server of its own, with `Limits` from the keyword arguments
        (``max_games=2``, ...) and no data directory."""
        if server is None:
            server = Server(Limits(**limits))
        elif limits:
            raise TypeError("give the limits in the Server, not both")
        self._send_text = send
        self.server = server
        self.limits = server.limits
        self.max_message_bytes = self.limits.max_message_bytes
        self.max_games = self.limits.max_games
        self.progress_interval = progress_interval
        self.searching = 0                                  # searches of this session running now
        self.games: dict[str, _Game] = {}
        self._next_game = 1
        self._tasks: set[asyncio.Future] = set()
        self._answering: dict[asyncio.Future, asyncio.Future] = {}      # a search -> the task answering it
        self.closed = False
        self.methods: dict[str, Callable[[_Params], Any]] = {
            "hello": self._hello, "new_game": self._new_game, "load_state": self._load_state,
            "state": self._state, "legal_actions": self._legal_actions, "apply": self._apply,
            "observation": self._observation, "svg": self._svg, "go": self._go, "analyse": self._analyse, "stop": self._stop,
            "undo": self._undo, "redo": self._redo, "save": self._save, "close": self._close,
        }

    # -- messages in and out --
    async def send(self, message: dict[str, Any]) -> None:
        """Send one message; a client that has gone ends the session quietly."""
        if self.closed:
            return
        try:
            result = message.get("result")
            if isinstance(result, _Encoded):            # encoded already: put in as it is
                text = encode({k: v for k, v in message.items() if k != "result"})[:-1] + ',"result":' + result + "}"
            else:
                text = encode(message)
        except (TypeError, ValueError) as exc:             # a value JSON cannot carry: a bug, reported
            text = encode(_error_response(message.get("id"), ProtocolError(
                INTERNAL_ERROR, f"internal error: the answer is not JSON ({exc})")))
        try:
            await self._send_text(text)
        except Exception:                                   # noqa: BLE001 - the client is gone
            await self.close()

    async def handle_text(self, text: Union[str, bytes]) -> None:
        """Handle one message (a line of stdio, a WebSocket message) and send its answer (now,
        or when its search ends for ``go``, ``analyse`` and ``stop``)."""
        try:
            if len(text) > self.max_message_bytes:
                raise ProtocolError(MESSAGE_TOO_LONG, f"message too long: {len(text)} bytes, the most is "
                                    f"{self.max_message_bytes}")
            message = parse_message(text)
        except ProtocolError as exc:
            await self.send(_error_response(None, exc))
            return
        await self.handle_message(message)

    async def handle_message(self, message: Any) -> None:
        """Handle one parsed message (see :meth:`handle_text`)."""
        try:
            request_id, method, params = _check_request(message)
        except ProtocolError as exc:
            await self.send(_error_response(_id_of(message), exc))
            return
        notification = "id" not in message
        try:
            handler = self.methods.get(method)
            if handler is None:
                raise ProtocolError(METHOD_NOT_FOUND, f"method not found: {method!r}; methods are "
                                    f"{', '.join(sorted(self.methods))}")
            p = _Params(method, params, request_id)
            result = handler(p)
        except ProtocolError as exc:
            if not notification:
                await self.send(_error_response(request_id, exc))
            return
        except (Exception, SystemExit) as exc:              # noqa: BLE001 - never crash the session
            if not notification:
                await self.send(_error_response(request_id, _internal(exc)))
            return
        if isinstance(result, asyncio.Future):            # answered when its search ends
            task = asyncio.ensure_future(self._answer_later(request_id, result, notification))
            self._tasks.add(task)
            self._answering[result] = task
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(lambda _t: self._answering.pop(result, None))
            return
        if asyncio.iscoroutine(result):                    # awaited here: later messages wait for it
            error: Optional[ProtocolError] = None
            try:
                result = await result
            except (Exception, SystemExit) as exc:          # noqa: BLE001 - a ProtocolError, or a bug
                error = _internal(exc)
            if not notification:
                await self.send(_error_response(request_id, error) if error is not None else
                                {"jsonrpc": "2.0", "id": request_id, "result": result})
            return
        if not notification:
            await self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _answer_later(self, request_id: Id, future: asyncio.Future, notification: bool) -> None:
        try:
            result = await future
        except ProtocolError as exc:
            answer = _error_response(request_id, exc)
        except asyncio.CancelledError:
            return
        except (Exception, SystemExit) as exc:              # noqa: BLE001
            answer = _error_response(request_id, _internal(exc))
        else:
            answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
        if not notification:
            await self.send(answer)

    async def close(self) -> None:
        """End the session: stop every search (their threads end after their chunk)."""
        if self.closed:
            return
        self.closed = True
        self.stop_all()

    def stop_all(self) -> None:
        """Ask every search of the session to stop (each still answers, with its best move)."""
        for entry in self.games.values():
            if entry.search is not None:
                entry.search.request_stop()

    async def drain(self) -> None:
        """Wait until every answer still owed has been sent (searches included)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- helpers --
    def _entry(self, p: _Params) -> _Game:
        game_id = p.get("game_id", "str")
        entry = self.games.get(game_id)
        if entry is None:
            raise ProtocolError(UNKNOWN_GAME, f"unknown game id {_brief(game_id)}; open games: "
                                f"{', '.join(sorted(self.games)) or 'none'}")
        return entry

    @staticmethod
    def _idle(entry: _Game, method: str) -> None:
        if entry.search is not None:
            raise ProtocolError(BUSY, f"{method}: game {entry.id} is busy: a search is running on it "
                                f"(request {entry.search_request!r}); send stop first")

    def _room(self) -> None:
        if len(self.games) >= self.max_games:
            raise ProtocolError(TOO_MANY_GAMES, f"too many open games ({self.max_games}): close some first",
                                {"limit": "max_games", "max": self.max_games})

    def _open(self, game: Any, state: Any, seed: Optional[int], names: Optional[dict] = None) -> dict[str, Any]:
        """Open a game at `state` and return its summary; a state that cannot be summed up (a
        game written in Python whose code fails) is not opened."""
        self._room()
        entry = _Game(f"g{self._next_game}", game, seed, deque([state], maxlen=self.limits.max_undo + 1),
                      names=dict(names or {}), public_scores=scores_public(state))
        summary = self._summary(entry)
        self._next_game += 1
        self.games[entry.id] = entry
        return summary

    @staticmethod
    def _summary(entry: _Game) -> dict[str, Any]:
        """Where the game stands, as every seat may see it: the scores at the end, and during play
        only where every seat's observation carries them (metro_ai/play/seatview.py)."""
        s = entry.state
        terminal = s.is_terminal()
        return {"game_id": entry.id, "game": entry.game.name, "options": entry.options, "ply": len(entry.moves),
                "current_player": s.current_player, "terminal": terminal,
                "scores": s.scores() if terminal or entry.public_scores else None,
                "returns": s.returns() if terminal else None, "can_undo": len(entry.states) > 1,
                "can_redo": bool(entry.redo)}

    def _push(self, entry: _Game, action: int, by: str, seconds: float = 0.0) -> dict[str, Any]:
        """Apply `action` to the game (a copy of its state: an illegal action changes nothing)."""
        s = entry.state
        player = s.current_player
        after = s.clone()
        try:
            after.apply(action)
            text = s.action_to_string(action)
        except (IllegalActionError, ValueError, OverflowError) as exc:
            raise ProtocolError(ILLEGAL_ACTION, str(exc)) from None
        move = {"player": player, "action": action, "text": text, "seconds": round(seconds, 6), "by": by}
        entry.states.append(after)
        entry.moves.append(move)
        return move

    # -- the methods --
    def _hello(self, p: _Params) -> dict[str, Any]:
        p.get("client", "str", None)
        p.get("protocol_version", "int", None)
        p.done()
        games = {name: game_class(name).describe() for name in list_games()}
        return {"protocol": PROTOCOL, "protocol_version": PROTOCOL_VERSION, "server": "metro-ai",
                "version": __version__, "games": games, **bot_catalogue(),
                "methods": sorted(self.methods), "notifications": ["progress"],
                "limits": {**self.limits.to_dict(), "progress_per_second": round(1 / self.progress_interval, 3)},
                "data_dir": self.server.data_dir is not None}

    def _new_game(self, p: _Params) -> Awaitable[dict[str, Any]]:
        name = p.get("game", "str")
        options = p.get("options", "object", {})
        seed = p.get("seed", "int", 0)
        p.done()
        try:
            cls = game_class(name)
        except ValueError as exc:
            raise ProtocolError(INVALID_PARAMS, f"new_game: {exc}") from None
        self._room()
        resolved, names = self._files(cls, options, "new_game")

        def make() -> tuple[Any, Any]:
            game = cls(**resolved)
            return game, game.new_state(seed)

        async def build() -> dict[str, Any]:
            game, state = await self._reading(make, names, resolved, INVALID_PARAMS, "new_game")
            return self._open(game, state, seed, names)
        return build()

    def _files(self, cls: Any, options: dict[str, Any], method: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """`options` with the game's file options resolved in the data directory, and those
        options as the client named them; ProtocolError(FILE_REFUSED) if one may not be read."""
        keys = game_file_options(cls)
        try:
            resolved = resolve_options(self.server.data_dir, keys, options, f"game {cls.name!r}")
        except FileRefused as exc:
            raise ProtocolError(FILE_REFUSED, f"{method}: {exc}") from None
        return resolved, {k: options[k] for k in keys if options.get(k) is not None}

    async def _reading(self, fn: Callable[[], Any], names: dict[str, Any], resolved: dict[str, Any], code: int,
                       method: str) -> Any:
        """``fn()``: at once when no file is named; else in a thread, for FILE_SECONDS at most,
        so that reading a file never holds up the event loop (other sessions). An error names a
        file by the client's name for it, never its real path."""
        try:
            if not names:
                return fn()
            future = asyncio.get_running_loop().run_in_executor(None, fn)
            try:
                return await asyncio.wait_for(asyncio.shield(future), FILE_SECONDS)
            except asyncio.TimeoutError:
                future.add_done_callback(_stop_orphan)
                raise ProtocolError(FILE_REFUSED, f"{method}: reading the data files took over {FILE_SECONDS:g} s"
                                    ) from None
        except (ValueError, TypeError, OverflowError, OSError) as exc:
            text = str(exc)
            for key, name in names.items():
                text = text.replace(str(resolved[key]), str(name))
            if self.server.data_dir is not None:
                text = text.replace(str(self.server.data_dir.root), "<data-dir>")
            raise ProtocolError(code, f"{method}: {text}") from None

    def _load_state(self, p: _Params) -> Awaitable[dict[str, Any]]:
        given = p.get("state", "state")
        p.done()
        data = given
        if isinstance(given, str):
            try:
                data = parse_message(given)
            except ProtocolError as exc:
                raise ProtocolError(BAD_STATE, f"load_state: the state is not JSON ({exc.message})") from None
        if not isinstance(data, dict) or not isinstance(data.get("game"), str):
            raise ProtocolError(BAD_STATE, "load_state: a saved state is a JSON object with a 'game' field "
                                "(the 'state' of save, or state.to_json())")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise ProtocolError(BAD_STATE, f"load_state: 'options' must be an object, got {_brief(options)}")
        try:
            cls = game_class(data["game"])
        except ValueError as exc:
            raise ProtocolError(BAD_STATE, f"load_state: {exc}") from None
        self._room()
        resolved, names = self._files(cls, options, "load_state")

        def make() -> tuple[Any, Any]:
            game = cls(**resolved)
            return game, game.state_from_json({**data, "options": resolved} if names else data)

        async def build() -> dict[str, Any]:
            game, state = await self._reading(make, names, resolved, BAD_STATE, "load_state")
            return self._open(game, state, None, names)
        return build()

    def _state(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        p.done()
        return self._summary(entry)

    def _legal_actions(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        text = p.get("text", "bool", True)
        labels = p.get("labels", "bool", False)
        p.done()
        s = entry.state
        actions = s.legal_actions()
        out = {"game_id": entry.id, "player": s.current_player,
               "actions": [{"id": a, "text": s.action_to_string(a)} for a in actions] if text
               else [{"id": a} for a in actions]}
        if labels:                  # words for people (Metro 2033's, metro_ai/play/terminal.py)
            for item in out["actions"]:
                item["label"] = describe(s, item["id"])
            out["prompt"] = prompt(s) if actions else None
        return out

    def _apply(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        action = p.get("action", "action")
        p.done()
        self._idle(entry, "apply")
        s = entry.state
        if s.is_terminal():
            raise ProtocolError(GAME_OVER, f"apply: game {entry.id} is over")
        if isinstance(action, str):
            try:
                action = s.string_to_action(action)
            except ValueError as exc:
                raise ProtocolError(ILLEGAL_ACTION, f"apply: {exc}") from None
        move = self._push(entry, action, "client")
        entry.redo.clear()
        return {"action": move["action"], "text": move["text"], "player": move["player"],
                "state": self._summary(entry)}

    def _observation(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        seat = p.get("seat", "int")
        p.done()
        n = entry.game.num_players
        if not 0 <= seat < n:
            raise ProtocolError(INVALID_PARAMS, f"observation: seat must be 0-{n - 1} for {n} players, got {seat}")
        return {"game_id": entry.id, "seat": seat, "observation": entry.state.observation(seat)}

    def _svg(self, p: _Params) -> dict[str, Any]:
        """The position as an SVG picture (``state.svg``): as `seat` sees it (their hand shown,
        other hands hidden) or, with no seat, the public table; the last move marked unless
        ``lastmove`` is false (for a seat, as that seat saw it: not marked where it cannot tell
        which move it was); with ``labels``, the extras for a person (``metro_ai.svg``)."""
        entry = self._entry(p)
        seat = p.get("seat", "int", None)
        mark = p.get("lastmove", "bool", True)
        labels = p.get("labels", "bool", False)
        p.done()
        from metro_ai.play.pictures import picture as svg_picture
        n = entry.game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ProtocolError(INVALID_PARAMS, f"svg: seat must be 0-{n - 1} for {n} players, got {seat}")
        last = entry.moves[-1]["action"] if mark and entry.moves else None
        if last is not None and seat is not None:
            # as the seat saw it, from the state before it (let go past max_undo: not marked)
            last = seen_move(entry.states[-2], last, seat).action if len(entry.states) > 1 else None
        return {"game_id": entry.id, "seat": seat, "ply": len(entry.moves), "lastmove": last,
                "svg": svg_picture(entry.state, player=seat, lastmove=last, labels=labels)}

    def _limit(self, p: _Params, method: str) -> Optional[Limit]:
        given = p.get("limit", "object", None)
        if given is None:
            return None
        extra = sorted(set(given) - {"iterations", "time"})
        if extra:
            raise ProtocolError(INVALID_PARAMS, f"{method}: limit takes iterations and time, not "
                                f"{', '.join(map(repr, extra))}")
        try:
            limit = Limit(iterations=given.get("iterations"), time=given.get("time"))
        except ValueError as exc:
            raise ProtocolError(INVALID_PARAMS, f"{method}: {exc}") from None
        if limit.time is not None and not limit.time < float("inf"):
            raise ProtocolError(INVALID_PARAMS, f"{method}: limit.time must be finite")
        self._within(method, "limit.time", limit.time, "max_search_seconds")
        return limit

    def _within(self, method: str, what: str, value: Any, limit: str) -> None:
        """ProtocolError(OVER_LIMIT) if `value` is over the server's `limit`."""
        most = getattr(self.limits, limit)
        if value is not None and value > most:
            raise ProtocolError(OVER_LIMIT, f"{method}: {what} {value:g} is over this server's limit, {limit} = "
                                f"{most:g}", {"limit": limit, "max": most})

    def _bot(self, spec: BotSpec, seed: int, method: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """The bot of `spec` within the server's limits (its files resolved in the data
        directory, its threads and nodes capped), with its file options as the client named
        them and as resolved."""
        keys = [k for k in bot_file_options(spec.name) if spec.options.get(k) is not None]
        try:
            options = resolve_options(self.server.data_dir, keys, spec.options, f"bot {spec.name!r}")
        except FileRefused as exc:
            raise ProtocolError(FILE_REFUSED, f"{method}: {exc}") from None
        self._within(method, "the bot's time", spec.time, "max_search_seconds")
        bot = dataclasses.replace(spec, options=options).make(seed)
        used = bot.resources()
        self._within(method, "workers", used.workers, "max_workers")
        if used.processes:
            raise ProtocolError(OVER_LIMIT, f"{method}: this server runs searches on threads only "
                                "(backend=threads)", {"limit": "backend", "max": "threads"})
        if "max_nodes" in spec.options:
            self._within(method, "max_nodes", used.max_nodes, "max_nodes")
        bot.cap(self.limits.max_nodes)          # the bot's own default, lowered to the server's
        return bot, {k: spec.options[k] for k in keys}, {k: options[k] for k in keys}

    def _room_to_search(self, method: str) -> None:
        for count, limit in ((self.searching, "max_searches_per_connection"), (self.server.searches, "max_searches")):
            most = getattr(self.limits, limit)
            if count >= most:
                where = "in this session" if limit == "max_searches_per_connection" else "on this server"
                raise ProtocolError(TOO_MANY_SEARCHES, f"{method}: {count} searches are running {where}, the "
                                    f"limit ({limit}); stop one or wait for one to end", {"limit": limit, "max": most})

    def _start(self, p: _Params, method: str, analyse: bool) -> asyncio.Future:
        entry = self._entry(p)
        spec_text = p.get("bot", "str", "ismcts")
        limit = self._limit(p, method)
        seed = p.get("seed", "int", None)
        progress = p.get("progress", "bool", True)
        apply = p.get("apply", "bool", False) if not analyse else False
        top = p.get("top", "int", 10) if analyse else 0
        seat = p.get("seat", "int", None) if not analyse else None
        p.done()
        if analyse and top < 1:
            raise ProtocolError(INVALID_PARAMS, f"analyse: top must be >= 1, got {top}")
        n = entry.game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ProtocolError(INVALID_PARAMS, f"{method}: seat must be 0-{n - 1} for {n} players, got {seat}")
        self._idle(entry, method)
        state = entry.state
        if state.is_terminal():
            raise ProtocolError(GAME_OVER, f"{method}: game {entry.id} is over: there is nothing to choose")
        try:
            spec = BotSpec.parse(spec_text)
            if analyse and not spec.searches():
                raise BotSpecError(f"bot {spec.name!r} does not search, so it has no analysis; use ismcts, pimc, "
                                   "flat-mc, mo-ismcts or a preset")
            bot, names, resolved = self._bot(spec, derive(entry.seed or 0, 0x60, len(entry.moves)) if seed is None else seed,
                                   method)
        except (BotSpecError, ValueError, TypeError, OverflowError) as exc:
            raise ProtocolError(INVALID_PARAMS, f"{method}: {exc}") from None
        self._room_to_search(method)
        budget = limit if limit is not None else spec.limit
        start = lambda: bot.start(state, budget, analyse=analyse)      # noqa: E731
        handle: Optional[SearchHandle] = None
        if not names:                                   # no file to read: it starts at once
            try:
                handle = start()
            except (ValueError, TypeError, OverflowError) as exc:
                raise ProtocolError(INVALID_PARAMS, f"{method}: {exc}") from None
        starting = _Starting()
        entry.search = handle if handle is not None else starting       # busy from now on
        entry.search_request = p.request_id
        self.searching += 1
        self.server.searches += 1
        t0 = time.perf_counter()

        async def run() -> dict[str, Any]:
            try:
                started = handle
                if started is None:                     # its files are read in a thread
                    started = await self._reading(start, names, resolved, INVALID_PARAMS, method)
                    if starting.stopped:
                        started.request_stop()
                    entry.search = started
                search = _Search(entry, started, None, spec.display, analyse, apply, progress, top, state,
                                 state.current_player, t0, seat)
                return await self._run_search(search)
            finally:
                self.searching -= 1
                self.server.searches -= 1
                if entry.search is starting:
                    entry.search = entry.search_task = entry.search_request = None
        future = asyncio.ensure_future(run())
        entry.search_task = future
        return future

    def _go(self, p: _Params) -> asyncio.Future:
        return self._start(p, "go", analyse=False)

    def _analyse(self, p: _Params) -> asyncio.Future:
        return self._start(p, "analyse", analyse=True)

    async def _run_search(self, search: _Search) -> dict[str, Any]:
        entry, handle = search.entry, search.handle
        waiting = asyncio.ensure_future(_await_handle(handle))
        try:
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=self.progress_interval)
                if done:
                    break
                if time.perf_counter() - search.t0 >= self.limits.max_search_seconds:
                    handle.request_stop()               # the server's time limit: the best move so far
                if search.progress and not self.closed:
                    await self.send({"jsonrpc": "2.0", "method": "progress",
                                     "params": self._progress(entry, search)})
            action = waiting.result()
        except asyncio.CancelledError:
            handle.request_stop()
            raise
        except Exception as exc:                            # noqa: BLE001 - the search failed
            raise _internal(exc) from None
        finally:
            entry.search = None
            entry.search_task = None
            entry.search_request = None
        p = handle.progress()
        result: dict[str, Any] = {"game_id": entry.id, "player": search.player, "action": action,
                                  "text": p.best_text if p.best_text is not None else search.state.action_to_string(action),
                                  "iterations": p.iterations, "seconds": round(p.seconds, 6),
                                  "share": p.share, "mean": p.mean, "stopped": handle.stopping(), "bot": search.bot}
        other = search.seat not in (None, search.player)    # the move as that seat saw it
        seen = seen_move(search.state, action, search.seat if other else None, describe)
        result.update(action=seen.action, text=seen.text, label=seen.label)
        if other:                               # the bot's judgement comes from its hidden cards
            result.update(share=None, mean=None)
        if search.analyse:
            analysis = handle.analysis().to_dict()
            analysis["actions"] = sorted(analysis["actions"], key=lambda a: (-a["visits"], a["action"]))[:search.top]
            result["analysis"] = analysis
        result["applied"] = False
        if search.apply and entry.id in self.games and entry.state is search.state:
            self._push(entry, action, search.bot, time.perf_counter() - search.t0)
            entry.redo.clear()
            result["applied"] = True
            result["state"] = self._summary(entry)
        return result

    @staticmethod
    def _progress(entry: _Game, search: _Search) -> dict[str, Any]:
        p = search.handle.progress()
        out = {"game_id": entry.id, "request_id": entry.search_request, "iterations": p.iterations,
               "seconds": round(p.seconds, 6), "best": None if p.best is None else {"id": p.best, "text": p.best_text},
               "share": p.share, "mean": p.mean}
        if search.seat not in (None, search.player):    # another seat learns how long the bot thinks, not what
            out.update(best=None, share=None, mean=None)
        return out

    def _stop(self, p: _Params) -> Awaitable[dict[str, Any]]:
        """Stop the game's search; answered once the search's own answer has gone out, and the
        session reads on only then, so that what the client sends after ``stop`` finds the game
        idle (the wait is one chunk of iterations, ~20 ms; other sessions are not held up)."""
        entry = self._entry(p)
        p.done()
        if entry.search is None or entry.search_task is None:
            raise ProtocolError(NO_SEARCH, f"stop: no search is running on game {entry.id}")
        entry.search.request_stop()
        task = entry.search_task

        async def stopped() -> dict[str, Any]:
            result = await asyncio.shield(task)
            answering = self._answering.get(task)
            if answering is not None:
                await asyncio.shield(answering)          # the search's own answer goes out first
            return {k: result[k] for k in ("game_id", "player", "action", "text", "iterations", "seconds", "stopped")}
        return stopped()

    def _undo(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        count = p.get("count", "int", 1)
        p.done()
        self._idle(entry, "undo")
        if not 1 <= count <= len(entry.moves):
            raise ProtocolError(NO_HISTORY, f"undo: {count} move(s) asked for, {len(entry.moves)} to undo")
        kept = len(entry.states) - 1
        if count > kept:
            most = self.limits.max_undo
            raise ProtocolError(NO_HISTORY, f"undo: {count} move(s) asked for; this server keeps the last {most} "
                                f"positions of a game (max_undo), so {kept} can be undone now",
                                {"limit": "max_undo", "max": most})
        for _ in range(count):
            entry.states.pop()
            entry.redo.append(entry.moves.pop())
        return self._summary(entry)

    def _redo(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        count = p.get("count", "int", 1)
        p.done()
        self._idle(entry, "redo")
        if not 1 <= count <= len(entry.redo):
            raise ProtocolError(NO_HISTORY, f"redo: {count} move(s) asked for, {len(entry.redo)} to redo")
        for _ in range(count):
            move = entry.redo.pop()
            self._push(entry, move["action"], move["by"], move["seconds"])
        return self._summary(entry)

    def _save(self, p: _Params) -> Awaitable["_Encoded"]:
        """The position and the record, made and encoded in a thread (a long game's record is
        large): the event loop only takes a snapshot of the game (its current state, which is never
        changed once made, and the list of its moves, each a dict never changed either)."""
        entry = self._entry(p)
        p.done()
        game_id, game, seed, names, state, moves = entry.id, entry.game, entry.seed, dict(entry.names), entry.state, \
            list(entry.moves)

        def build() -> _Encoded:
            saved = json.loads(state.to_json())
            if names and isinstance(saved.get("options"), dict):
                saved["options"].update({k: v for k, v in names.items() if k in saved["options"]})
            return _Encoded(encode({"game_id": game_id, "state": saved,
                                    "record": _record(game, seed, names, moves, state)}))

        async def answer() -> _Encoded:
            return await asyncio.get_running_loop().run_in_executor(None, build)
        return answer()

    def _close(self, p: _Params) -> dict[str, Any]:
        entry = self._entry(p)
        p.done()
        if entry.search is not None:
            entry.search.request_stop()         # its go still answers, with the best move so far
        del self.games[entry.id]
        return {"game_id": entry.id, "closed": True}


class _Encoded(str):
    """A result already encoded as JSON text (``save``'s, encoded off the event loop):
    :meth:`Session.send` puts it in its answer as it is."""


def _record(game: Any, seed: Optional[int], names: dict, moves: list, state: Any) -> Optional[dict[str, Any]]:
    """The match record of a game dealt by new_game and played by `moves` to `state`
    (metro_ai.replay reads it); None for a loaded state, which has no deal to replay from."""
    if seed is None:
        return None
    by: list[list[str]] = [[] for _ in range(game.num_players)]
    for move in moves:
        if move["by"] not in by[move["player"]]:
            by[move["player"]].append(move["by"])
    labels = [" + ".join(b) or "nobody" for b in by]
    return match_record(game, seed, labels, moves, state, names=names, versions={"protocol": PROTOCOL_VERSION})


async def _await_handle(handle: SearchHandle) -> int:
    return await handle


def _stop_orphan(future: Any) -> None:
    """A search started after its request gave up waiting: stop it."""
    if not future.cancelled() and future.exception() is None and hasattr(future.result(), "request_stop"):
        future.result().request_stop()


def _check_request(message: Any) -> tuple[Id, str, dict[str, Any]]:
    """(id, method, params) of a request or notification, or ProtocolError(INVALID_REQUEST)."""
    if isinstance(message, list):
        raise ProtocolError(INVALID_REQUEST, "invalid request: batches are not supported; send one message per line")
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: a message is a JSON object, got {_brief(message)}")
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, "invalid request: 'jsonrpc' must be \"2.0\"")
    request_id = message.get("id")
    if "id" in message and not (request_id is None or isinstance(request_id, str)
                                or (isinstance(request_id, int) and not isinstance(request_id, bool))):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: 'id' must be a string, an integer or null, "
                            f"got {_brief(request_id)}")
    method = message.get("method")
    if not isinstance(method, str):
        raise ProtocolError(INVALID_REQUEST, f"invalid request: 'method' must be a string, got {_brief(method)}")
    extra = sorted(set(message) - {"jsonrpc", "id", "method", "params"})
    if extra:
        raise ProtocolError(INVALID_REQUEST, f"invalid request: unknown member(s) {', '.join(map(repr, extra))}")
    params = message.get("params", {})
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, f"{method}: params must be an object of named parameters, got "
                            f"{_brief(params)}")
    return request_id, method, params


def _id_of(message: Any) -> Id:
    """The id to answer an invalid request with: its own if readable, else null."""
    if isinstance(message, dict):
        i = message.get("id")
        if i is None or isinstance(i, str) or (isinstance(i, int) and not isinstance(i, bool)):
            return i
    return None


def _error_response(request_id: Id, error: ProtocolError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_dict()}


def _internal(exc: BaseException) -> ProtocolError:
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, (PythonGameError, SystemExit)):  # a game written in Python failed (or exited)
        text = str(exc) if isinstance(exc, PythonGameError) else f"the game's code raised SystemExit({exc})"
        return ProtocolError(GAME_CODE_FAILED, f"game code failed: {text}")
    return ProtocolError(INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")
