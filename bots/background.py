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

import concurrent.futures
import ctypes
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Generator, Optional

from metro_ai.engine.errors import PythonGameError
from metro_ai.engine.python_game import HOOKS, PythonGame

from .limit import Limit
from .remote import close_cores

#: Seconds a chunk of iterations aims to take when no chunk size is given: short enough that
#: ``stop`` answers at once and progress is fresh, long enough that checking costs nothing.
CHUNK_SECONDS = 0.02
FIRST_CHUNK = 8                 # iterations per core in the first chunk (then sized by the clock)
MAX_CHUNK = 1 << 16
#: Seconds a search may run on after it was told to stop (``stop``, ``request_stop``, the end of
#: its time budget) before it is abandoned: its handle fails with an error saying which of the
#: game's methods did not return, and a game written in Python is marked broken
#: (``PythonGame.mark_broken``) and its code interrupted. A compiled game's search stops within
#: a chunk; a Python game's within one call of its code.
ABANDON_AFTER = 2.0


class _Abandoned(BaseException):
    """Raised in a search thread stuck in a Python game's code, once its search is abandoned (a
    BaseException, so that the game's own ``except Exception`` does not swallow it)."""


def _interrupt(ident: int) -> None:
    """Raise `_Abandoned` in the thread `ident` at its next Python instruction."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(_Abandoned))


def _stuck_in(idents: set) -> Optional[str]:
    """The game method (one of `HOOKS`) the first of the threads `idents` is running, innermost
    first, as ``name()``; None if none is in one."""
    frames = sys._current_frames()
    for ident in idents:
        frame = frames.get(ident)
        while frame is not None:
            if frame.f_code.co_name in HOOKS:
                return frame.f_code.co_name + "()"
            frame = frame.f_back
    return None


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
        self._t0 = time.perf_counter()
        self._game: Any = None              # the searched game (marked broken if the search is abandoned)
        self._cores: list = []              # the search's cores, once made (told at once to stop)
        self._running: set = set()          # threads now running the game's code for this search
        self._watchdog: Optional[threading.Timer] = None
        self._abandon_at = float("inf")     # when the watchdog abandons the search

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
        h._game = state.game
        t0 = h._t0

        def run() -> None:
            try:
                with h._in_game_code():
                    action = choose(state, limit)
                    text = state.action_to_string(action)
            except BaseException as exc:       # noqa: BLE001 - handed to whoever waits
                h._fail(exc, t0)
                return
            with h._lock:
                h._progress = Progress(seconds=time.perf_counter() - t0, best=action, best_text=text, share=1.0,
                                       done=True)
            h._settle(action)

        h._launch(run)
        if limit is not None and limit.time is not None:
            h._arm(limit.time + ABANDON_AFTER, "its time budget ran out")
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
        h._game = root.game
        h._launch(lambda: h._search(root, cores, budgets, limit, finish, workers, chunk, pick))
        if limit.time is not None:
            h._arm(limit.time + ABANDON_AFTER, "its time budget ran out")
        return h

    # -- the search thread --
    def _launch(self, target: Callable[[], None]) -> None:
        self._thread = threading.Thread(target=target, name="metro-ai-search", daemon=True)
        self._thread.start()

    def _fail(self, exc: BaseException, t0: float) -> None:
        if isinstance(exc, (SystemExit, KeyboardInterrupt, _Abandoned)):
            # a search thread is never ended on purpose: the game's (or a bot's) code did it
            wrapped = (PythonGameError if isinstance(self._game, PythonGame) else RuntimeError)(
                f"the search ended with {type(exc).__name__} raised in its thread")
            wrapped.__cause__ = exc
            exc = wrapped
        with self._lock:
            if self._future.done():
                return
            self._progress = Progress(iterations=self._progress.iterations, seconds=time.perf_counter() - t0,
                                      done=True)
        self._settle(error=exc)

    def _settle(self, result: Any = None, error: Optional[BaseException] = None) -> None:
        """Give the handle its action or error, unless it has one already (an abandoned search's
        thread may end later: what it brings is dropped)."""
        try:
            if error is not None:
                self._future.set_exception(error)
            else:
                self._future.set_result(result)
        except concurrent.futures.InvalidStateError:
            pass
        timer = self._watchdog
        if timer is not None:
            timer.cancel()

    # -- the watchdog: a search that does not stop when told is abandoned --
    def _arm(self, delay: float, why: str) -> None:
        """Abandon the search `delay` seconds from now unless it has ended (or an earlier
        abandonment is due)."""
        with self._lock:
            at = time.perf_counter() + delay
            if at >= self._abandon_at or (self._thread is not None and not self._thread.is_alive()):
                return
            if self._watchdog is not None:
                self._watchdog.cancel()
            self._abandon_at = at
            self._watchdog = threading.Timer(delay, self._abandon, args=(why,))
            self._watchdog.daemon = True
            self._watchdog.start()

    def _abandon(self, why: str) -> None:
        """The search did not end `ABANDON_AFTER` seconds after it had to (`why`): fail the
        handle now, so that its caller and its slot are free; mark a Python game broken and
        interrupt its code (the thread then ends at the game's next step). Whether the handle's
        future is still waited for does not matter (an event loop's cancelled wait cancels it):
        a thread still running now is stuck."""
        if self._thread is None or not self._thread.is_alive():
            return
        game = self._game
        stuck = _stuck_in(set(self._running))
        name = getattr(game, "name", "the game")
        what = f"{stuck} did not return" if stuck else "the search did not end"
        message = (f"{name}: {what} within {ABANDON_AFTER:g} s after the search had to stop ({why}); "
                   "the search was abandoned")
        if isinstance(game, PythonGame):
            game.mark_broken(message + ", and the game marked broken: load it again to play on")
            for ident in list(self._running):
                _interrupt(ident)
        self._fail((PythonGameError(message + "; the game is marked broken") if isinstance(game, PythonGame)
                    else RuntimeError(message)), self._t0)
        for core in list(self._cores):
            abandon = getattr(core, "abandon", None)
            if abandon is not None:
                abandon()

    def _in_game_code(self) -> "_Running":
        return _Running(self._running)

    def _search(self, root, make_cores, budgets, limit, finish, workers, chunk, pick) -> None:
        """The search driver, the one place where cores run: every core takes a chunk of
        iterations in turn (`workers` at a time), until its budget, the deadline or ``stop``;
        all workers search until the deadline."""
        t0 = self._t0
        deadline = None if limit.time is None else t0 + limit.time
        indices = [i for i, it in enumerate(budgets) if it != 0]
        left = [budgets[i] for i in indices]            # iterations still to run per core (None: no cap)
        size = chunk or FIRST_CHUNK
        pool = None
        cores: list = []
        try:
            with self._in_game_code():
                cores = make_cores(indices)
            self._cores = cores
            if self._stop.is_set():
                for core in cores:
                    core.request_stop()
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
                    with self._in_game_code():
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
                with self._in_game_code():
                    self._publish([c.summary() for c in cores], root, pick, t0)
            summaries = [c.summary() for c in cores]
            with self._in_game_code():
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
            if self._future.done():             # abandoned meanwhile: its error stands
                return
            self._progress = Progress(analysis.iterations, analysis.seconds, analysis.chosen, analysis.chosen_text,
                                      share, mean, done=True)
        self._settle(analysis.chosen)

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
        """End the search now (after the iteration under way) and return the action: the best
        so far, chosen as the full search would choose it. Waits for a bot that does not search.
        A search still running `ABANDON_AFTER` seconds later is abandoned: this raises an error
        naming the game's method that did not return."""
        self.request_stop()
        return self.result(timeout)

    def request_stop(self) -> None:
        """Ask the search to end after the iteration under way, without waiting (then
        ``result()`` or ``await handle`` gives the action, or the error of an abandoned search:
        see `stop`)."""
        self._stop.set()
        for core in list(self._cores):
            core.request_stop()
        self._arm(ABANDON_AFTER, "it was told to stop")

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
        import asyncio                  # here, not at the top: `import metro_ai` stays light
        return asyncio.wrap_future(self._future).__await__()

    def __repr__(self) -> str:
        p = self.progress()
        return (f"<SearchHandle {'done' if p.done else 'searching'}: {p.iterations} iterations, "
                f"best {p.best_text!r}>")


class _Running:
    """While inside: the current thread counts among those running the game's code for a search
    (the watchdog interrupts them if the search is abandoned)."""

    def __init__(self, running: set) -> None:
        self.running = running

    def __enter__(self) -> None:
        self.running.add(threading.get_ident())

    def __exit__(self, *exc: Any) -> None:
        self.running.discard(threading.get_ident())
