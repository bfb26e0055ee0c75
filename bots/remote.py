"""Search cores in worker processes (``backend="processes"``): `remote_cores` gives a search one
process per worker (idle ones from earlier searches first, others started), each building the
search's cores from the bot, the state, the player and the seed (as ``bot.search_cores`` does in the
calling process) and keeping those it was given; a `RemoteCore` stands for one of them in the
search thread, with a `SearchCore`'s ``run`` and ``summary``. When the search ends its processes
wait, idle, for the next search (`IDLE_SECONDS` at most; `shutdown` ends them now).

So the background search drives worker processes exactly as it drives cores in threads: in
chunks of iterations, stopping between chunks, until the budgets, the deadline or ``stop``.
Each core keeps its own seeded generator in its process, so the trees, and the action, are those
of the same search run in threads.
"""
from __future__ import annotations

import multiprocessing
import pickle
import threading
from typing import Any, Optional

#: Seconds an idle worker process waits for the next search before it ends.
IDLE_SECONDS = 300.0
MAX_IDLE = 256                  # idle worker processes kept at most (the bots' most workers)
_IDLE: list = []                # idle WorkerProcess objects, the most recently used last
_IDLE_LOCK = threading.Lock()


def _context() -> Any:
    """Processes started from a clean server (forkserver) where the platform has one, else
    spawned: never forked from the searching process, whose other threads may hold locks."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def available() -> bool:
    """Whether this process can start worker processes: not where it is a daemonic process (which
    may have none) or runs under a start method of another library's (a joblib/loky worker's,
    whose name the new processes could not resolve). Where it cannot, the search runs its cores in
    threads: the same trees, the same action."""
    method = multiprocessing.get_start_method(allow_none=True)
    return not multiprocessing.current_process().daemon and method in (None, *multiprocessing.get_all_start_methods())


def _sendable(exc: BaseException) -> BaseException:
    try:
        pickle.dumps(exc)
        return exc
    except Exception:                                   # noqa: BLE001 - an exception that does not pickle
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _serve(conn: Any) -> None:
    """A worker process: ``("setup", payload, indices)`` builds the cores of a search (answered
    ``(True, None)`` or ``(False, exception)``); ``("run", index, iterations, seconds)`` runs one,
    answered ``(True, (iterations done, summary))`` or ``(False, exception)``; ``("end",)`` drops
    them. Ends on None, when the pipe closes, or after `IDLE_SECONDS` without a search."""
    cores: dict[int, Any] = {}
    while True:
        try:
            if not cores and not conn.poll(IDLE_SECONDS):
                return
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        kind = message[0]
        if kind == "end":
            cores = {}
            continue
        try:
            if kind == "setup":
                cores = {}
                bot, state, player, seed, points = pickle.loads(message[1])
                built = bot.search_cores(state, player, seed, points)
                cores = {i: built[i] for i in message[2]}
                del built
                conn.send((True, None))
            else:
                _, index, iterations, seconds = message
                core = cores[index]
                done = core.run(iterations=iterations, seconds=seconds)
                conn.send((True, (done, core.summary())))
        except BaseException as exc:                    # noqa: BLE001 - handed to the search thread
            conn.send((False, _sendable(exc)))


class WorkerLost(RuntimeError):
    """A worker process ended or its pipe broke."""


class WorkerProcess:
    """One worker process and the pipe to it; requests from several threads take turns. Between
    searches it waits, idle, for the next one (`IDLE_SECONDS` at most)."""

    def __init__(self, ctx: Any) -> None:
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child,), name="metro-ai-search-worker", daemon=True)
        self._process.start()
        child.close()
        self._lock = threading.Lock()

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.is_alive()

    def _ask(self, message: tuple) -> Any:
        with self._lock:
            try:
                self._conn.send(message)
                ok, value = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise WorkerLost(f"a search worker process ended unexpectedly (exit code "
                                 f"{self._process.exitcode})") from exc
        if not ok:
            raise value
        return value

    def setup(self, payload: bytes, indices: list[int]) -> None:
        self._ask(("setup", payload, indices))

    def run(self, index: int, iterations: Optional[int], seconds: Optional[float]) -> tuple[int, dict]:
        return self._ask(("run", index, iterations, seconds))

    def release(self) -> None:
        """The search is over: drop its cores and wait, idle, for the next search."""
        with self._lock:
            try:
                self._conn.send(("end",))
            except (OSError, ValueError):
                healthy = False
            else:
                healthy = self.alive()
        if not healthy:
            self.close()
            return
        with _IDLE_LOCK:
            if len(_IDLE) < MAX_IDLE:
                _IDLE.append(self)
                return
        self.close()

    def kill(self) -> None:
        """End the process at once, whatever it is doing (`close` waits for its pipe)."""
        self._process.kill()

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._conn.close()
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=5)


class RemoteCore:
    """Core `index` of a search, held by a worker process: ``run`` and ``summary`` as a
    `SearchCore`'s (the summary is the one the last ``run`` brought back)."""

    def __init__(self, worker: WorkerProcess, index: int) -> None:
        self.worker, self.index = worker, index
        self._summary: Optional[dict] = None

    def run(self, iterations: Optional[int] = None, seconds: Optional[float] = None) -> int:
        done, self._summary = self.worker.run(self.index, iterations, seconds)
        return done

    def request_stop(self) -> None:
        """Nothing: a remote core's run ends after its chunk (about 20 ms)."""

    def abandon(self) -> None:
        """The search was abandoned: end the worker process now (the pipe breaks, so the search
        thread waiting on it ends too)."""
        self.worker.kill()

    def summary(self) -> dict:
        if self._summary is None:
            self.run(iterations=0)
        assert self._summary is not None
        return self._summary


def check_importable(state: Any) -> None:
    """ValueError unless worker processes can import `state`'s game by its module name."""
    module = type(state.game).__module__
    # (metro_ai.usergames names the modules it loads from a file "metro_ai_user_games_<stem>")
    if module == "__main__" or module.startswith("metro_ai_user_games_"):
        raise ValueError(f"backend='processes' sends the state to worker processes, which import the game "
                         f"{state.game.name!r} by its module name; {module} was loaded from "
                         "a file or __main__: use backend='threads' or make the game's module importable")


def _take(ctx: Any) -> WorkerProcess:
    with _IDLE_LOCK:
        while _IDLE:
            worker = _IDLE.pop()
            if worker.alive():
                return worker
            worker.close()
    return WorkerProcess(ctx)


def remote_cores(payload: bytes, indices: list[int], workers: int) -> list[RemoteCore]:
    """The cores `indices` of a search, in ``min(workers, len(indices))`` worker processes (core
    ``indices[k]`` in process ``k % workers``), idle ones reused, others started. `payload` is the
    pickled ``(bot, state, player, seed, points)``. Hand them back with `close_cores`."""
    ctx = _context()
    n = max(1, min(workers, len(indices)))
    procs: list[WorkerProcess] = []
    try:
        for w in range(n):
            for attempt in range(2):
                worker = _take(ctx)
                try:
                    worker.setup(payload, indices[w::n])
                except WorkerLost:
                    worker.close()
                    if attempt:
                        raise
                    continue
                except BaseException:
                    worker.release()
                    raise
                procs.append(worker)
                break
    except BaseException:
        for worker in procs:
            worker.release()
        raise
    return [RemoteCore(procs[k % n], i) for k, i in enumerate(indices)]


def close_cores(cores: list) -> None:
    """Hand back the worker processes behind `cores` (none for cores in this process): they
    wait, idle, for the next search."""
    seen = set()
    for core in cores:
        worker = getattr(core, "worker", None)
        if isinstance(worker, WorkerProcess) and id(worker) not in seen:
            seen.add(id(worker))
            worker.release()


def shutdown() -> None:
    """End the idle worker processes now (they end by themselves after `IDLE_SECONDS`, and when
    this process exits)."""
    with _IDLE_LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for worker in idle:
        worker.close()
