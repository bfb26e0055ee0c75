"""The search lifecycle of the protocol: ``go`` and ``analyse`` start a search on an open game
(the bot made within the server's limits, its files read in a thread), send ``progress``
notifications while it runs, stop it at the server's ``max_search_seconds``, and answer when it
ends; ``stop`` ends it early and answers once the search's own answer has gone out.

While a search runs its game is busy (`OpenGame.search`, `OpenGame.idle`); every other message
of the session is served meanwhile. The session counts its searches (``searching``) and the
server all of them (`Server.searches`), each against its limit.
"""
from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Optional

from metro_ai.bots.background import SearchHandle
from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.play.seatview import seen_move
from metro_ai.play.terminal import describe

from .errors import (FILE_REFUSED, GAME_OVER, INVALID_PARAMS, NO_SEARCH, OVER_LIMIT, TOO_MANY_SEARCHES, ProtocolError,
                     internal)
from .files import FileRefused, bot_file_options, read_files, resolve_options
from .history import OpenGame
from .limits import Limits
from .messages import Id, Params

if TYPE_CHECKING:
    from .session import Session

PROGRESS_INTERVAL = 0.1             # seconds between progress notifications of one search (10/s)


class Starting:
    """The busy mark of a game whose search is being started (its bot reading its files): a
    ``stop`` or ``close`` meanwhile stops the search as soon as it has started."""

    def __init__(self) -> None:
        self.stopped = False

    def request_stop(self) -> None:
        self.stopped = True


@dataclass
class Search:
    """What a ``go`` or an ``analyse`` needs when its search ends."""
    entry: OpenGame
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


def go(session: Session, p: Params) -> asyncio.Future:
    return _start(session, p, "go", analyse=False)


def analyse(session: Session, p: Params) -> asyncio.Future:
    return _start(session, p, "analyse", analyse=True)


def stop(session: Session, p: Params) -> Awaitable[dict[str, Any]]:
    """Stop the game's search (or review: ``{"game_id", "stopped"}``); answered once the search's own answer has gone out, and the
    session reads on only then, so that what the client sends after ``stop`` finds the game
    idle (the wait is one chunk of iterations, ~20 ms; other sessions are not held up)."""
    entry = session.entry(p)
    p.done()
    if entry.search is None or entry.search_task is None:
        raise ProtocolError(NO_SEARCH, f"stop: no search is running on game {entry.id}")
    entry.search.request_stop()
    task = entry.search_task

    async def stopped() -> dict[str, Any]:
        result = await asyncio.shield(task)
        answering = session.answering.get(task)
        if answering is not None:
            await asyncio.shield(answering)          # the search's own answer goes out first
        keys = ("game_id", "stopped") if "review" in result else \
            ("game_id", "player", "action", "text", "iterations", "seconds", "stopped")
        return {k: result[k] for k in keys}
    return stopped()


def limit_param(limits: Limits, p: Params, method: str) -> Optional[Limit]:
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
    _within(limits, method, "limit.time", limit.time, "max_search_seconds")
    return limit


def _within(limits: Limits, method: str, what: str, value: Any, limit: str) -> None:
    """ProtocolError(OVER_LIMIT) if `value` is over the server's `limit`."""
    most = getattr(limits, limit)
    if value is not None and value > most:
        raise ProtocolError(OVER_LIMIT, f"{method}: {what} {value:g} is over this server's limit, {limit} = "
                            f"{most:g}", {"limit": limit, "max": most})


def bot_within_limits(session: Session, spec: BotSpec, seed: int, method: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The bot of `spec` within the server's limits (its files resolved in the data
    directory, its threads and nodes capped), with its file options as the client named
    them and as resolved."""
    limits = session.limits
    keys = [k for k in bot_file_options(spec.name) if spec.options.get(k) is not None]
    try:
        options = resolve_options(session.server.data_dir, keys, spec.options, f"bot {spec.name!r}")
    except FileRefused as exc:
        raise ProtocolError(FILE_REFUSED, f"{method}: {exc}") from None
    _within(limits, method, "the bot's time", spec.time, "max_search_seconds")
    bot = dataclasses.replace(spec, options=options).make(seed)
    used = bot.resources()
    _within(limits, method, "workers", used.workers, "max_workers")
    if used.processes:
        raise ProtocolError(OVER_LIMIT, f"{method}: this server runs searches on threads only "
                            "(backend=threads)", {"limit": "backend", "max": "threads"})
    if "max_nodes" in spec.options:
        _within(limits, method, "max_nodes", used.max_nodes, "max_nodes")
    bot.cap(limits.max_nodes)          # the bot's own default, lowered to the server's
    return bot, {k: spec.options[k] for k in keys}, {k: options[k] for k in keys}


def room_to_search(session: Session, method: str) -> None:
    for count, limit in ((session.searching, "max_searches_per_connection"),
                         (session.server.searches, "max_searches")):
        most = getattr(session.limits, limit)
        if count >= most:
            where = "in this session" if limit == "max_searches_per_connection" else "on this server"
            raise ProtocolError(TOO_MANY_SEARCHES, f"{method}: {count} searches are running {where}, the "
                                f"limit ({limit}); stop one or wait for one to end", {"limit": limit, "max": most})


def _start(session: Session, p: Params, method: str, analyse: bool) -> asyncio.Future:
    entry = session.entry(p)
    spec_text = p.get("bot", "str", "ismcts")
    limit = limit_param(session.limits, p, method)
    seed = p.get("seed", "int", None)
    progress = p.get("progress", "bool", True)
    apply = p.get("apply", "bool", False) if not analyse else False
    top = p.get("top", "int", 10) if analyse else 0
    seat = p.get("seat", "int", None) if not analyse else None
    p.done()
    if analyse and top < 1:
        raise ProtocolError(INVALID_PARAMS, f"analyse: top must be >= 1, got {top}")
    entry.check_seat(seat, method)
    entry.idle(method)
    state = entry.state
    if state.is_terminal():
        raise ProtocolError(GAME_OVER, f"{method}: game {entry.id} is over: there is nothing to choose")
    try:
        spec = BotSpec.parse(spec_text)
        if analyse and not spec.searches():
            raise BotSpecError(f"bot {spec.name!r} does not search, so it has no analysis; use ismcts, pimc, "
                               "flat-mc, mo-ismcts or a preset")
        bot, names, resolved = bot_within_limits(session, spec, derive(entry.seed or 0, 0x60, len(entry.moves))
                                    if seed is None else seed, method)
    except (BotSpecError, ValueError, TypeError, OverflowError) as exc:
        raise ProtocolError(INVALID_PARAMS, f"{method}: {exc}") from None
    room_to_search(session, method)
    budget = limit if limit is not None else spec.limit
    start = lambda: bot.start(state, budget, analyse=analyse)      # noqa: E731
    handle: Optional[SearchHandle] = None
    if not names:                                   # no file to read: it starts at once
        try:
            handle = start()
        except (ValueError, TypeError, OverflowError) as exc:
            raise ProtocolError(INVALID_PARAMS, f"{method}: {exc}") from None
    starting = Starting()
    entry.search = handle if handle is not None else starting       # busy from now on
    entry.search_request = p.request_id
    session.searching += 1
    session.server.searches += 1
    t0 = time.perf_counter()

    async def run() -> dict[str, Any]:
        try:
            started = handle
            if started is None:                     # its files are read in a thread
                started = await read_files(session.server.data_dir, start, names, resolved, INVALID_PARAMS, method)
                if starting.stopped:
                    started.request_stop()
                entry.search = started
            search = Search(entry, started, None, spec.display, analyse, apply, progress, top, state,
                            state.current_player, t0, seat)
            return await _run_search(session, search)
        finally:
            session.searching -= 1
            session.server.searches -= 1
            if entry.search is starting:
                entry.search = entry.search_task = entry.search_request = None
    future = asyncio.ensure_future(run())
    entry.search_task = future
    return future


async def _run_search(session: Session, search: Search) -> dict[str, Any]:
    entry, handle = search.entry, search.handle
    waiting = asyncio.ensure_future(_await_handle(handle))
    try:
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=session.progress_interval)
            if done:
                break
            if time.perf_counter() - search.t0 >= session.limits.max_search_seconds:
                handle.request_stop()               # the server's time limit: the best move so far
            if search.progress and not session.closed:
                await session.send({"jsonrpc": "2.0", "method": "progress", "params": _progress(entry, search)})
        action = waiting.result()
    except asyncio.CancelledError:
        handle.request_stop()
        raise
    except Exception as exc:                            # noqa: BLE001 - the search failed
        raise internal(exc) from None
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
    if search.apply and entry.id in session.games and entry.state is search.state:
        entry.push(action, search.bot, time.perf_counter() - search.t0)
        entry.redo.clear()
        result["applied"] = True
        result["state"] = entry.summary()
    return result


def _progress(entry: OpenGame, search: Search) -> dict[str, Any]:
    p = search.handle.progress()
    out = {"game_id": entry.id, "request_id": entry.search_request, "iterations": p.iterations,
           "seconds": round(p.seconds, 6), "best": None if p.best is None else {"id": p.best, "text": p.best_text,
                                                                       "label": describe(search.state, p.best)},
           "share": p.share, "mean": p.mean}
    if search.seat not in (None, search.player):    # another seat learns how long the bot thinks, not what
        out.update(best=None, share=None, mean=None)
    return out


async def _await_handle(handle: SearchHandle) -> int:
    return await handle
