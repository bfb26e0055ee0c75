"""The protocol's ``review``: an open game's record reviewed (:func:`metro_ai.play.review.review`)
in a thread, within the server's limits, with ``review_progress`` notifications while it runs;
``stop`` ends it early. The game is busy meanwhile, as during a search, and the review counts as
one search against the server's limits on searches."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING, Any

from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.bots.limit import Limit

from .errors import INVALID_PARAMS, OVER_LIMIT, ProtocolError, internal
from .files import bot_file_options
from .messages import Params
from .searches import bot_within_limits, limit_param, room_to_search

if TYPE_CHECKING:
    from .session import Session

#: The most searches a decision (``repeats``).
MAX_REPEATS = 8


class Reviewing:
    """The busy mark of a game under review: ``request_stop`` (``stop``, ``close``) ends it after
    the searches under way; ``done`` and ``total`` count its searches."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.done = 0
        self.total = 0

    def request_stop(self) -> None:
        self.event.set()

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total


def review(session: Session, p: Params) -> asyncio.Future:
    entry = session.entry(p)
    spec_text = p.get("bot", "str", "hard")
    limit = limit_param(session.limits, p, "review")
    seed = p.get("seed", "int", 0)
    repeats = p.get("repeats", "int", 1)
    workers = p.get("workers", "int", 1)
    seat = p.get("seat", "int", None)
    progress = p.get("progress", "bool", True)
    p.done()
    entry.check_seat(seat, "review")
    if not 1 <= repeats <= MAX_REPEATS:
        raise ProtocolError(INVALID_PARAMS, f"review: repeats must be 1-{MAX_REPEATS}, got {repeats}")
    if workers < 1:
        raise ProtocolError(INVALID_PARAMS, f"review: workers must be >= 1, got {workers}")
    entry.idle("review")
    if entry.seed is None:
        raise ProtocolError(INVALID_PARAMS, f"review: game {entry.id} was opened from a saved state: it has no "
                            "record (no deal to replay) to review")
    try:
        spec = BotSpec.parse(spec_text)
        if not spec.searches():
            raise BotSpecError(f"bot {spec.name!r} does not search, so it cannot review")
        if [k for k in bot_file_options(spec.name) if spec.options.get(k) is not None]:
            raise BotSpecError(f"a bot that reads files ({spec.display}) cannot review here")
        bot, _, _ = bot_within_limits(session, spec, seed, "review")      # the server's checks of one search's bot
    except (BotSpecError, ValueError, TypeError, OverflowError) as exc:
        raise ProtocolError(INVALID_PARAMS, f"review: {exc}") from None
    threads = workers * bot.resources().workers
    if threads > session.limits.max_workers:
        raise ProtocolError(OVER_LIMIT, f"review: workers x the bot's workers, {threads}, is over this server's "
                            f"limit, max_workers = {session.limits.max_workers}",
                            {"limit": "max_workers", "max": session.limits.max_workers})
    room_to_search(session, "review")
    budget = limit if limit is not None else spec.limit or bot.default_limit
    # each search ends at the server's max_search_seconds, as any search does
    most = session.limits.max_search_seconds
    budget = Limit(iterations=budget.iterations, time=min(budget.time or most, most))
    record = session.record_builder(entry)
    mark = Reviewing()
    entry.search = mark                            # busy from now on
    entry.search_request = p.request_id
    session.searching += 1
    session.server.searches += 1

    def work() -> Any:
        from metro_ai.play.review import review as review_record
        return review_record(record(), bot=spec, limit=budget, workers=workers, seed=seed,
                             seats=None if seat is None else [seat], repeats=repeats, progress=mark.progress,
                             stop=mark.event, max_nodes=session.limits.max_nodes)

    async def run() -> dict[str, Any]:
        from metro_ai.play.review import ReviewStopped
        t0 = time.perf_counter()
        sent = (-1, -1)
        try:
            running = asyncio.get_running_loop().run_in_executor(None, work)
            while True:
                done, _ = await asyncio.wait({running}, timeout=session.progress_interval)
                if done:
                    break
                if progress and not session.closed and mark.total and (mark.done, mark.total) != sent:
                    sent = (mark.done, mark.total)
                    await session.send({"jsonrpc": "2.0", "method": "review_progress", "params": {
                        "game_id": entry.id, "request_id": p.request_id, "done": mark.done, "total": mark.total,
                        "seconds": round(time.perf_counter() - t0, 6)}})
            try:
                result = running.result()
            except ReviewStopped:
                return {"game_id": entry.id, "stopped": True, "review": None}
            except Exception as exc:                    # noqa: BLE001 - the review failed
                raise internal(exc) from None
            return {"game_id": entry.id, "stopped": False, "review": result.to_dict()}
        except asyncio.CancelledError:
            mark.request_stop()
            raise
        finally:
            session.searching -= 1
            session.server.searches -= 1
            entry.search = entry.search_task = entry.search_request = None
    future = asyncio.ensure_future(run())
    entry.search_task = future
    return future
