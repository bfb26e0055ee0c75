"""Searching in the background: `SearchHandle`, what ``Bot.start`` returns (python-chess's
engine API and UCI's ``go`` / ``stop`` are the models).

A search bot's search runs in a thread, in chunks of iterations; between chunks it checks for
``stop`` and publishes its progress (iterations, the best action so far, its share of the visits
and its mean value). This is the only search driver: a search bot's ``choose`` and ``analyse``
are this search, waited for. Every search core keeps its own seeded generator and runs its
iterations one after another whatever the chunking, so with the same seed and iteration budget
the trees and the action are the same whatever the chunks; with a time budget every worker
searches until the deadline. With ``backend="processes"`` the cores live in worker processes
(`metro_ai.bots.remote`) and the thread drives them the same way.
The search core releases the GIL while it iterates, so the caller's thread (an event loop, a
user interface) keeps running. A bot that does not search runs its ``choose`` in the thread;
``stop`` then waits for it (it is quick).

>>> import metro_ai
>>> state = metro_ai.load_game("metro", players=2).new_state(seed=3)
>>> handle = metro_ai.make_bot("ismcts", seed=1).start(state, metro_ai.Limit(iterations=200))
>>> action = handle.result()                # or handle.stop(), or `await handle`
>>> action in state.legal_actions(), handle.progress().iterations
(True, 200)
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Generator, Optional

from .limit import Limit
from .remote import close_cores

#: Seconds a chunk of iterations aims to take when no chunk size is given: short enough that
#: ``stop`` answers at once and progress is fresh, long enough that checking costs nothing.
CHUNK_SECONDS = 0.02
FIRST_CHUNK = 8                 # iterations per core in the first chunk (then sized by the clock)
MAX_CHUNK = 1 << 16


def merge(summaries: list) -> dict[int, list[float]]:
    """The root statistics of several cores' summaries, summed: ``{action: [visits, value]}``."""
    merged: dict[int, list[float]] = {}
    for s in summaries:
        for action, visits, value, _avail in s["stats"]:
            v = merged.setdefault(action, [0, 0.0])
            v[0] += visits
            v[1] += value
    return merged


@dataclass(frozen=True)
class Progress:
    """Where a background search stands: ``iterations`` done (all cores together), ``seconds``
    since it started, the ``best`` action so far (None before any) with its text, its share of
    the root visits and its mean return for the player to move (in [0, 1]); ``done`` once the
    search has ended."""
    iterations: int = 0
    seconds: float = 0.0
    best: Optional[int] = None
    best_text: Optional[str] = None
    share: float = 0.0
    mean: float = 0.0
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class SearchHandle:
    """A search running in the background (see the module docstring). Made by ``Bot.start``.

    ``stop()`` ends it early and returns the action (the best so far); ``result(timeout)`` waits
    for the action; ``done()``; ``progress()`` and ``best()`` read where it stands;
    ``analysis()`` the full `Analysis` of a search bot once done (None for bots that do not
    search), ``summaries()`` each search core's summary; ``await handle`` gives the action
    without blocking an event loop; ``add_done_callback(fn)`` calls ``fn(handle)`` when it ends (in the search thread).
    """

    def __init__(self) -> None:
        self._future: concurrent.futures.Future = concurrent.futures.Future()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._progress = Progress()
        self._analysis: Any = None
        self._summaries: list = []
        self._thread: Optional[threading.Thread] = None

    # -- makers --
    @classmethod
    def finished(cls, action: int, text: str) -> "SearchHandle":
        """A handle already done with `action` (a forced move, played without searching)."""
        h = cls()
        h._progress = Progress(best=action, best_text=text, share=1.0, done=True)
        h._future.set_result(action)
        return h

    @classmethod
    def calling(cls, choose: Callable[[Any, Any], int], state: Any, limit: Optional[Limit]) -> "SearchHandle":
        """A handle running ``choose(state, limit)`` in a thread (bots that do not search)."""
        h = cls()
        t0 = time.perf_counter()

        def run() -> None:
            try:
                action = choose(state, limit)
                text = state.action_to_string(action)
            except BaseException as exc:       # noqa: BLE001 - handed to whoever waits
                h._fail(exc, t0)
                return
            with h._lock:
                h._progress = Progress(seconds=time.perf_counter() - t0, best=action, best_text=text, share=1.0,
                                       done=True)
            h._future.set_result(action)

        h._launch(run)
        return h

    @classmethod
    def searching(cls, root: Any, cores: Callable[[list], list], budgets: list, limit: Limit,
                  finish: Callable[[list, float], Any], *, workers: int = 1, chunk: Optional[int] = None,
                  pick: Callable[[list], int]) -> "SearchHandle":
        """A handle running a search: ``cores(indices)`` makes the search cores with those
        indices (in this process, or `metro_ai.bots.remote`'s cores in worker processes), called
        in the search thread for the cores whose budget (`budgets`: iterations per core, None: no
        cap) is not 0; they run in chunks, `workers` at a time, until their budgets, `limit`'s
        time or ``stop``; ``finish(summaries, seconds)`` makes the `Analysis`,
        ``pick(summaries)`` the best action so far. `root` is the searched state (a copy, the
        search's own)."""
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
            raise ValueError(f"chunk must be a positive number of iterations, got {chunk!r}")
        h = cls()
        h._launch(lambda: h._search(root, cores, budgets, limit, finish, workers, chunk, pick))
        return h

    # -- the search thread --
    def _launch(self, target: Callable[[], None]) -> None:
        self._thread = threading.Thread(target=target, name="metro-ai-search", daemon=True)
        self._thread.start()

    def _fail(self, exc: BaseException, t0: float) -> None:
        with self._lock:
            self._progress = Progress(iterations=self._progress.iterations, seconds=time.perf_counter() - t0,
                                      done=True)
        self._future.set_exception(exc)

    def _search(self, root, make_cores, budgets, limit, finish, workers, chunk, pick) -> None:
        """The search driver, the one place where cores run: every core takes a chunk of
        iterations in turn (`workers` at a time), until its budget, the deadline or ``stop``;
        all workers search until the deadline."""
        t0 = time.perf_counter()
        deadline = None if limit.time is None else t0 + limit.time
        indices = [i for i, it in enumerate(budgets) if it != 0]
        left = [budgets[i] for i in indices]            # iterations still to run per core (None: no cap)
        size = chunk or FIRST_CHUNK
        pool = None
        cores: list = []
        try:
            cores = make_cores(indices)
            if workers > 1 and len(cores) > 1:
                pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(workers, len(cores)))
            first = True
            while True:
                active = [i for i, n in enumerate(left) if n is None or n > 0]
                now = time.perf_counter()
                if not active or (not first and (self._stop.is_set() or (deadline is not None and now >= deadline))):
                    break
                seconds = None if deadline is None else max(deadline - now, 1e-4)
                steps = [(i, size if left[i] is None else min(size, left[i])) for i in active]

                def run(step, seconds=seconds):
                    return cores[step[0]].run(iterations=step[1], seconds=seconds)

                c0 = time.perf_counter()
                done = list(pool.map(run, steps)) if pool is not None else [run(s) for s in steps]
                took = time.perf_counter() - c0
                for (i, _), n in zip(steps, done):
                    if left[i] is not None:
                        left[i] -= n
                first = False
                if chunk is None:                       # aim at CHUNK_SECONDS per chunk
                    per = took / max(max(done), 1)
                    size = int(min(MAX_CHUNK, max(1, CHUNK_SECONDS / per if per > 0 else MAX_CHUNK)))
                self._publish([c.summary() for c in cores], root, pick, t0)
            summaries = [c.summary() for c in cores]
            analysis = finish(summaries, time.perf_counter() - t0)
        except BaseException as exc:                    # noqa: BLE001 - handed to whoever waits
            self._fail(exc, t0)
            return
        finally:
            if pool is not None:
                pool.shutdown(wait=False)
            close_cores(cores)
        self._analysis, self._summaries = analysis, summaries
        share = next((a.share for a in analysis.actions if a.action == analysis.chosen), 0.0)
        mean = next((a.mean for a in analysis.actions if a.action == analysis.chosen), 0.0)
        with self._lock:
            self._progress = Progress(analysis.iterations, analysis.seconds, analysis.chosen, analysis.chosen_text,
                                      share, mean, done=True)
        self._future.set_result(analysis.chosen)

    def _publish(self, summaries, root, pick, t0) -> None:
        """The progress after a chunk: the best action as the final choice would pick it now."""
        iterations = sum(s["iterations"] for s in summaries)
        visits = merge(summaries)
        total = sum(v[0] for v in visits.values())
        best = pick(summaries) if total else None
        text, share, mean = None, 0.0, 0.0
        if best is not None:
            n, value = visits[best]
            text, share, mean = root.action_to_string(best), n / total, value / n if n else 0.0
        with self._lock:
            self._progress = Progress(iterations, time.perf_counter() - t0, best, text, share, mean)

    # -- the caller's side --
    def stop(self, timeout: Optional[float] = None) -> int:
        """End the search now (after the chunk under way) and return the action: the best so
        far, chosen as the full search would choose it. Waits for a bot that does not search."""
        self._stop.set()
        return self.result(timeout)

    def request_stop(self) -> None:
        """Ask the search to end after the chunk under way, without waiting (then ``result()``
        or ``await handle`` gives the action)."""
        self._stop.set()

    def stopping(self) -> bool:
        """Whether ``stop`` was asked for."""
        return self._stop.is_set()

    def result(self, timeout: Optional[float] = None) -> int:
        """The action, waiting for the search to end (`timeout` seconds at most: TimeoutError)."""
        return self._future.result(timeout)

    def done(self) -> bool:
        """Whether the search has ended (its action or error is ready)."""
        return self._future.done()

    def progress(self) -> Progress:
        """Iterations so far, the best action so far and its share and mean (see `Progress`)."""
        with self._lock:
            return self._progress

    def best(self) -> Optional[int]:
        """The best action so far (None before the first chunk ends)."""
        return self.progress().best

    def analysis(self, timeout: Optional[float] = None) -> Any:
        """The search's `Analysis` once it ends (waiting as ``result``); None for a bot that
        does not search, or a forced move played without searching."""
        self._future.result(timeout)
        return self._analysis

    def summaries(self, timeout: Optional[float] = None) -> list:
        """Each search core's ``SearchCore.summary()`` once the search ends (waiting as
        ``result``), in the order of the cores that searched; empty for a bot that does not
        search or a forced move."""
        self._future.result(timeout)
        return list(self._summaries)

    def add_done_callback(self, fn: Callable[["SearchHandle"], Any]) -> None:
        """Call ``fn(self)`` once the search ends (at once if it has)."""
        self._future.add_done_callback(lambda _f: fn(self))

    def __await__(self) -> Generator[Any, None, int]:
        return asyncio.wrap_future(self._future).__await__()

    def __repr__(self) -> str:
        p = self.progress()
        return (f"<SearchHandle {'done' if p.done else 'searching'}: {p.iterations} iterations, "
                f"best {p.best_text!r}>")
