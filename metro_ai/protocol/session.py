"""One protocol session: the JSON-RPC 2.0 methods over the games a client has open.

A `Session` is what one client talks to (one stdio server, one WebSocket connection): it reads
one message at a time (:meth:`Session.handle_text`) and sends its answers through the ``send``
coroutine it was given. Quick methods answer at once, in order; ``go``, ``analyse`` and
``stop`` answer when their search ends, and meanwhile every other message is served. The games
of a session are isolated from each other and from other sessions; nothing a client sends can
end the session except closing it. docs/protocol.md is the written specification and
``schema.json`` (next to this module) the JSON Schema of every message.

This module holds the method table (`Session.methods`, the one list of what a client may call),
the dispatch of a message to its method, the open games, and the methods on a game that are
neither its history nor its search. The rest of the protocol, one idea a module: errors.py (the
error codes, `ProtocolError`), messages.py (a message's JSON, the JSON-RPC envelope, a method's
parameters), history.py (an open game, ``undo`` and ``redo``), searches.py (``go``,
``analyse``, ``stop``, ``progress``), files.py (the data directory), limits.py (the operator's
limits). docs/dev/adding-a-protocol-method.md says where a new method goes.
"""
from __future__ import annotations

import asyncio
import json
from collections import deque
from functools import partial
from typing import Any, Awaitable, Callable, Optional, Union

from metro_ai.bots.catalogue import bot_catalogue
from metro_ai.play.match import match_record
from metro_ai.play.seatview import scores_public, seen_move
from metro_ai.play.terminal import describe, prompt
from metro_ai.registry import game_class, list_games
from metro_ai.version import __version__

from . import history, reviews, searches
from .errors import (BAD_STATE, GAME_OVER, ILLEGAL_ACTION, INTERNAL_ERROR, INVALID_PARAMS, MESSAGE_TOO_LONG,
                     METHOD_NOT_FOUND, TOO_MANY_GAMES, UNKNOWN_GAME, ProtocolError, internal)
from .files import game_files, read_files
from .history import OpenGame
from .limits import Limits, Server
from .messages import (Encoded, Id, Params, Send, brief, check_request, encode, error_response, id_of,
                       parse_message)
from .searches import PROGRESS_INTERVAL

PROTOCOL = "metro-ai"
PROTOCOL_VERSION = 1


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
        self.games: dict[str, OpenGame] = {}
        self._next_game = 1
        self._tasks: set[asyncio.Future] = set()
        self.answering: dict[asyncio.Future, asyncio.Future] = {}      # a search -> the task answering it
        self.closed = False
        #: The method table: every method a client may call, and its handler (given the method's
        #: `Params`). A new method goes here, with its schema.json entry and its section in
        #: docs/protocol.md (docs/dev/adding-a-protocol-method.md).
        self.methods: dict[str, Callable[[Params], Any]] = {
            "hello": self._hello, "new_game": self._new_game, "load_state": self._load_state,
            "state": self._state, "legal_actions": self._legal_actions, "apply": self._apply,
            "observation": self._observation, "svg": self._svg,
            "go": partial(searches.go, self), "analyse": partial(searches.analyse, self),
            "stop": partial(searches.stop, self), "review": partial(reviews.review, self),
            "undo": partial(history.undo, self), "redo": partial(history.redo, self),
            "save": self._save, "close": self._close,
        }

    # -- messages in and out --
    async def send(self, message: dict[str, Any]) -> None:
        """Send one message; a client that has gone ends the session quietly."""
        if self.closed:
            return
        try:
            result = message.get("result")
            if isinstance(result, Encoded):            # encoded already: put in as it is
                text = encode({k: v for k, v in message.items() if k != "result"})[:-1] + ',"result":' + result + "}"
            else:
                text = encode(message)
        except (TypeError, ValueError) as exc:             # a value JSON cannot carry: a bug, reported
            text = encode(error_response(message.get("id"), ProtocolError(
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
            await self.send(error_response(None, exc))
            return
        await self.handle_message(message)

    async def handle_message(self, message: Any) -> None:
        """Handle one parsed message (see :meth:`handle_text`)."""
        try:
            request_id, method, params = check_request(message)
        except ProtocolError as exc:
            await self.send(error_response(id_of(message), exc))
            return
        notification = "id" not in message
        try:
            handler = self.methods.get(method)
            if handler is None:
                raise ProtocolError(METHOD_NOT_FOUND, f"method not found: {method!r}; methods are "
                                    f"{', '.join(sorted(self.methods))}")
            p = Params(method, params, request_id)
            result = handler(p)
        except ProtocolError as exc:
            if not notification:
                await self.send(error_response(request_id, exc))
            return
        except (Exception, SystemExit) as exc:              # noqa: BLE001 - never crash the session
            if not notification:
                await self.send(error_response(request_id, internal(exc)))
            return
        if isinstance(result, asyncio.Future):            # answered when its search ends
            task = asyncio.ensure_future(self._answer_later(request_id, result, notification))
            self._tasks.add(task)
            self.answering[result] = task
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(lambda _t: self.answering.pop(result, None))
            return
        if asyncio.iscoroutine(result):                    # awaited here: later messages wait for it
            error: Optional[ProtocolError] = None
            try:
                result = await result
            except (Exception, SystemExit) as exc:          # noqa: BLE001 - a ProtocolError, or a bug
                error = internal(exc)
            if not notification:
                await self.send(error_response(request_id, error) if error is not None else
                                {"jsonrpc": "2.0", "id": request_id, "result": result})
            return
        if not notification:
            await self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _answer_later(self, request_id: Id, future: asyncio.Future, notification: bool) -> None:
        try:
            result = await future
        except ProtocolError as exc:
            answer = error_response(request_id, exc)
        except asyncio.CancelledError:
            return
        except (Exception, SystemExit) as exc:              # noqa: BLE001
            answer = error_response(request_id, internal(exc))
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
    def entry(self, p: Params) -> OpenGame:
        """The open game that `p` names (``game_id``); ProtocolError(UNKNOWN_GAME) if none."""
        game_id = p.get("game_id", "str")
        entry = self.games.get(game_id)
        if entry is None:
            raise ProtocolError(UNKNOWN_GAME, f"unknown game id {brief(game_id)}; open games: "
                                f"{', '.join(sorted(self.games)) or 'none'}")
        return entry

    def _room(self) -> None:
        if len(self.games) >= self.max_games:
            raise ProtocolError(TOO_MANY_GAMES, f"too many open games ({self.max_games}): close some first",
                                {"limit": "max_games", "max": self.max_games})

    def _open(self, game: Any, state: Any, seed: Optional[int], names: Optional[dict] = None) -> dict[str, Any]:
        """Open a game at `state` and return its summary; a state that cannot be summed up (a
        game written in Python whose code fails) is not opened."""
        self._room()
        entry = OpenGame(f"g{self._next_game}", game, seed, deque([state], maxlen=self.limits.max_undo + 1),
                         names=dict(names or {}), public_scores=scores_public(state))
        summary = entry.summary()
        self._next_game += 1
        self.games[entry.id] = entry
        return summary

    # -- the methods --
    def _hello(self, p: Params) -> dict[str, Any]:
        p.get("client", "str", None)
        p.get("protocol_version", "int", None)
        p.done()
        games = {name: game_class(name).describe() for name in list_games()}
        return {"protocol": PROTOCOL, "protocol_version": PROTOCOL_VERSION, "server": "metro-ai",
                "version": __version__, "games": games, **bot_catalogue(),
                "methods": sorted(self.methods), "notifications": ["progress"],
                "limits": {**self.limits.to_dict(), "progress_per_second": round(1 / self.progress_interval, 3)},
                "data_dir": self.server.data_dir is not None}

    def _new_game(self, p: Params) -> Awaitable[dict[str, Any]]:
        name = p.get("game", "str")
        options = p.get("options", "object", {})
        seed = p.get("seed", "int", 0)
        p.done()
        try:
            cls = game_class(name)
        except ValueError as exc:
            raise ProtocolError(INVALID_PARAMS, f"new_game: {exc}") from None
        self._room()
        resolved, names = game_files(self.server.data_dir, cls, options, "new_game")

        def make() -> tuple[Any, Any]:
            game = cls(**resolved)
            return game, game.new_state(seed)

        async def build() -> dict[str, Any]:
            game, state = await read_files(self.server.data_dir, make, names, resolved, INVALID_PARAMS, "new_game")
            return self._open(game, state, seed, names)
        return build()

    def _load_state(self, p: Params) -> Awaitable[dict[str, Any]]:
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
            raise ProtocolError(BAD_STATE, f"load_state: 'options' must be an object, got {brief(options)}")
        try:
            cls = game_class(data["game"])
        except ValueError as exc:
            raise ProtocolError(BAD_STATE, f"load_state: {exc}") from None
        self._room()
        resolved, names = game_files(self.server.data_dir, cls, options, "load_state")

        def make() -> tuple[Any, Any]:
            game = cls(**resolved)
            return game, game.state_from_json({**data, "options": resolved} if names else data)

        async def build() -> dict[str, Any]:
            game, state = await read_files(self.server.data_dir, make, names, resolved, BAD_STATE, "load_state")
            return self._open(game, state, None, names)
        return build()

    def _state(self, p: Params) -> dict[str, Any]:
        entry = self.entry(p)
        p.done()
        return entry.summary()

    def _legal_actions(self, p: Params) -> dict[str, Any]:
        entry = self.entry(p)
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

    def _apply(self, p: Params) -> dict[str, Any]:
        entry = self.entry(p)
        action = p.get("action", "action")
        p.done()
        entry.idle("apply")
        s = entry.state
        if s.is_terminal():
            raise ProtocolError(GAME_OVER, f"apply: game {entry.id} is over")
        if isinstance(action, str):
            try:
                action = s.string_to_action(action)
            except ValueError as exc:
                raise ProtocolError(ILLEGAL_ACTION, f"apply: {exc}") from None
        move = entry.push(action, "client")
        entry.redo.clear()
        return {"action": move["action"], "text": move["text"], "player": move["player"],
                "state": entry.summary()}

    def _observation(self, p: Params) -> dict[str, Any]:
        entry = self.entry(p)
        seat = p.get("seat", "int")
        p.done()
        entry.check_seat(seat, "observation")
        return {"game_id": entry.id, "seat": seat, "observation": entry.state.observation(seat)}

    def _svg(self, p: Params) -> dict[str, Any]:
        """The position (now, or before move `ply`) as an SVG picture (``state.svg``): as `seat` sees it (their hand shown,
        other hands hidden) or, with no seat, the public table; the last move marked unless
        ``lastmove`` is false (for a seat, as that seat saw it: not marked where it cannot tell
        which move it was); with ``labels``, the extras for a person (``metro_ai.svg``)."""
        entry = self.entry(p)
        seat = p.get("seat", "int", None)
        mark = p.get("lastmove", "bool", True)
        labels = p.get("labels", "bool", False)
        ply = p.get("ply", "int", len(entry.moves))
        p.done()
        from metro_ai.play.pictures import picture as svg_picture
        entry.check_seat(seat, "svg")
        state = entry.position(ply, "svg")
        last = entry.moves[ply - 1]["action"] if mark and ply > 0 else None
        if last is not None and seat is not None:
            # as the seat saw it, from the state before it (let go past max_undo: not marked)
            before = entry.kept(ply - 1) if ply == len(entry.moves) or entry.seed is None else \
                entry.position(ply - 1, "svg")
            last = seen_move(before, last, seat).action if before is not None else None
        return {"game_id": entry.id, "seat": seat, "ply": ply, "lastmove": last,
                "svg": svg_picture(state, player=seat, lastmove=last, labels=labels)}

    def _save(self, p: Params) -> Awaitable["Encoded"]:
        """The position and the record, made and encoded in a thread (a long game's record is
        large): the event loop only takes a snapshot of the game (its current state, which is never
        changed once made, and the list of its moves, each a dict never changed either)."""
        entry = self.entry(p)
        p.done()
        game_id, names, state, record = entry.id, dict(entry.names), entry.state, self.record_builder(entry)

        def build() -> Encoded:
            saved = json.loads(state.to_json())
            if names and isinstance(saved.get("options"), dict):
                saved["options"].update({k: v for k, v in names.items() if k in saved["options"]})
            return Encoded(encode({"game_id": game_id, "state": saved, "record": record()}))

        async def answer() -> Encoded:
            return await asyncio.get_running_loop().run_in_executor(None, build)
        return answer()

    def record_builder(self, entry: OpenGame) -> Callable[[], Optional[dict[str, Any]]]:
        """A function that makes the game's match record (None for a loaded state) from a snapshot
        taken now (its current state, never changed once made, and the list of its moves, each a
        dict never changed either), to be called in a thread: a long game's record is large."""
        game, seed, names, state, moves = entry.game, entry.seed, dict(entry.names), entry.state, list(entry.moves)
        return lambda: _record(game, seed, names, moves, state)

    def _close(self, p: Params) -> dict[str, Any]:
        entry = self.entry(p)
        p.done()
        if entry.search is not None:
            entry.search.request_stop()         # its go still answers, with the best move so far
        del self.games[entry.id]
        return {"game_id": entry.id, "closed": True}


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
    return match_record(game, seed, labels, moves, state, names=names, versions={"protocol": PROTOCOL_VERSION},
                        people=[p for p, b in enumerate(by) if "client" in b])


