"""Running a tournament: `Tournament` (run, resume, results), the games played in this process,
on joblib's processes or on a Dask cluster (`dask_client`), each stored as it finishes, with
progress reported; `TournamentResult`, what a run has produced."""
from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from metro_ai.play.match import play_match
from metro_ai.play.report import build_report

from .errors import TournamentError
from .lock import RunLock
from .schedule import TournamentConfig
from .store import TournamentDB, _check_folder, open_db

@functools.lru_cache(maxsize=8)
def _setup(config_key):
    config = TournamentConfig.from_dict(json.loads(config_key))
    return config, config._game


def play_scheduled(config_key, game):
    """Play one scheduled game (in a worker); returns ``(id, {"record": ...} or {"error": ...})``."""
    try:
        config, loaded = _setup(config_key)
        specs = [config.bots[i] for i in game["seats"]]
        record = play_match(loaded, specs, seed=game["seed"], limit=config.limit, bot_seeds=game["bot_seeds"])
        record["tournament"] = {"id": game["id"], "deal": game["deal"], "table": game["table"],
                                "seating": game["seating"], "seats": game["seats"]}
        return game["id"], {"record": record}
    except Exception as exc:  # noqa: BLE001 - a failing bot fails its game, not the tournament
        return game["id"], {"error": f"{type(exc).__name__}: {exc}"}


@dataclass
class TournamentResult:
    """What a tournament has produced so far: its config, the games done (see
    :meth:`TournamentDB.results`), failures, and the number of scheduled games."""
    config: TournamentConfig
    games: list
    failures: list = field(default_factory=list)
    total: int = 0
    path: str | None = None

    @property
    def complete(self):
        return len(self.games) == self.total

    def report(self, **kwargs):
        """The standings, ratings and matrices: see :func:`metro_ai.play.report.build_report`."""
        return build_report(self, **kwargs)


class Tournament:
    """A tournament: configure it, run it, resume it after an interruption, read its results.

    >>> import metro_ai
    >>> t = metro_ai.Tournament(game="metro", options={"players": 2},
    ...                         bots=["ismcts:iterations=200", "greedy", "random"], deals=20, seed=1,
    ...                         db="t.sqlite")
    >>> partial = t.run(jobs=2, max_games=10)   # ten games; the rest stay pending in t.sqlite
    >>> result = t.resume(jobs=2)               # the rest (also after Ctrl-C or a killed process)
    >>> t.results() == result                   # what the file holds, readable from anywhere
    True
    >>> report = metro_ai.Tournament(db="t.sqlite").results().report()    # standings, ratings

    The settings are those of :class:`TournamentConfig` (``game``, ``options``, ``bots``,
    ``mode``, ``deals``, ``seatings``, ``seed``, ``limit``), or a ready `config`, or none at all
    to take the tournament stored in `db`. `db` is the SQLite file of the results (see
    :class:`TournamentDB`); None keeps them in memory, for the life of this object. The same
    settings play the same games (with iteration budgets, the same results anywhere).
    :func:`run_tournament` and :func:`load_tournament` are the one-call forms.
    """

    def __init__(self, config=None, db=None, **settings):
        if config is None and settings:
            config = TournamentConfig(**settings)
        elif settings:
            raise TypeError(f"pass either a TournamentConfig or settings, not both: {sorted(settings)}")
        self.path = None if db is None or str(db) == ":memory:" else Path(db)
        if self.path is None and config is None:
            raise TournamentError("no tournament given: pass a TournamentConfig or its settings "
                                  "(game=, options=, bots=, ...)")
        self._config = config
        self._memory = None            # the in-memory TournamentDB, once created

    def __repr__(self):
        what = self._config.describe() if self._config is not None else "as stored"
        return f"Tournament({what}; {'in memory' if self.path is None else str(self.path)})"

    @property
    def config(self):
        """The :class:`TournamentConfig`: as given, else the one stored in `db`."""
        if self._config is None:
            with self._read() as store:
                self._config = store.config()
        return self._config

    def _read(self):
        """The existing store, to read in a ``with`` block (which closes a file's)."""
        if self.path is None:
            return _Borrowed(self._memory)
        if not self.path.exists():
            raise TournamentError(f"no tournament file {str(self.path)!r}")
        store = TournamentDB(self.path, readonly=True)
        try:
            stored = store.config()
        except sqlite3.DatabaseError as exc:
            store.close()
            raise TournamentError(f"{str(self.path)!r} is not a metro-ai tournament file (SQLite says: {exc})") \
                from None
        except BaseException:
            store.close()
            raise
        if stored is None:
            store.close()
            raise TournamentError(f"{str(self.path)!r} holds no tournament")
        return store

    def _store(self, overwrite):
        """The store to play into, created if needed: ``(store, config, close it after the run)``."""
        if self.path is not None:
            store, self._config = open_db(self._config, self.path, overwrite)
            return store, self._config, True
        if self._memory is None or overwrite:
            if self._memory is not None:
                self._memory.close()
            self._memory = TournamentDB(None)
            self._memory.create(self._config)
        return self._memory, self._config, False

    def run(self, jobs=1, dask=None, progress=None, max_games=None, overwrite=False):
        """Play the games not yet done and return the :class:`TournamentResult`.

        If `db` holds this tournament, only the games not yet done are played (an interrupted run
        continues where it stopped); if it holds a different one, TournamentError, unless
        `overwrite` (then what it held is discarded). Games run on `jobs` local processes through
        joblib (1: in this process; -1: one per core), or with ``dask="tcp://host:port"`` on that
        Dask cluster through joblib's Dask backend. Each result is stored as it arrives.
        ``progress(done, total, result_so_far)`` is called once before the first game and after
        each stored game. `max_games` stops after that many games this run (the rest stay
        pending). Ctrl-C (KeyboardInterrupt) stops the run; every game finished before is kept,
        and the exception propagates.
        """
        if not overwrite and self.path is not None and self.path.exists():
            finished = self._nothing_to_play(max_games)
            if finished is not None:                # read only: no lock, nothing written
                if progress is not None:
                    progress(len(finished.games), finished.total, finished)
                return finished
        if self.path is not None:
            _check_folder(self.path)
        with dask_client(dask) as client:           # before any file is touched: a bad address changes nothing
            return self._play(jobs, client, progress, max_games, overwrite)

    def _play(self, jobs, client, progress, max_games, overwrite):
        """:meth:`run` once the Dask client, if any, is connected."""
        lock = None
        if self.path is not None:
            lock = RunLock(self.path).acquire()
        try:
            store, config, close = self._store(overwrite)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        path = None if store.path is None else str(store.path)
        try:
            todo = store.unfinished()
            if max_games is not None:
                todo = todo[:max_games]
            total = store.counts()["total"]
            games = store.results()
            result = TournamentResult(config, games, [], total, path)
            key = config.key()
            if progress is not None:
                progress(len(games), total, result)
            for game_id, outcome in _execute(key, todo, jobs, client):
                if store.store(game_id, outcome) and "record" in outcome:
                    rec = outcome["record"]
                    t = rec["tournament"]
                    games.append({"id": game_id, "deal": t["deal"], "table": t["table"], "seating": t["seating"],
                                  "seats": t["seats"], "scores": rec["scores"], "returns": rec["returns"],
                                  "seconds": rec.get("seconds")})
                if progress is not None:
                    progress(len(games), total, result)
            games.sort(key=lambda g: g["id"])
            result.failures = store.failures()
            return result
        finally:
            if close:
                store.close()
            if lock is not None:
                lock.release()

    def _nothing_to_play(self, max_games):
        """The stored result, read without writing anything, when this run would play no game
        (all done, or `max_games` 0); None when there is something to play or the file is not
        this tournament (then :meth:`run` goes on and says why)."""
        try:
            with self._read() as store:
                stored = store.config()
                if self._config is not None and stored != self._config:
                    return None
                counts = store.counts()
                if max_games != 0 and counts["pending"] + counts["failed"]:
                    return None
                self._config = stored
                return TournamentResult(stored, store.results(), store.failures(), counts["total"], str(self.path))
        except (TournamentError, sqlite3.DatabaseError):
            return None

    def resume(self, jobs=1, dask=None, progress=None, max_games=None):
        """Continue the tournament: play the games not yet done (failed ones again), never
        discarding what is stored; the arguments and result of :meth:`run`."""
        return self.run(jobs=jobs, dask=dask, progress=progress, max_games=max_games)

    def results(self):
        """The :class:`TournamentResult` of the games stored so far (none before the first run)."""
        where = None if self.path is None else str(self.path)
        if self._config is not None and (self._memory is None if self.path is None else not self.path.exists()):
            return TournamentResult(self._config, [], [], len(self._config.schedule()), where)   # nothing stored yet
        with self._read() as store:
            stored = store.config()
            if self._config is not None and stored != self._config:
                raise TournamentError(f"{where!r} holds a different tournament ({stored.describe()})")
            self._config = stored
            return TournamentResult(stored, store.results(), store.failures(), store.counts()["total"], where)


    def records(self, ids):
        """The full match records of the games `ids` (None for a game not done)."""
        with self._read() as store:
            return [store.record(i) for i in ids]

    def write_records(self, folder):
        """Write the match record of every game done so far to `folder` (made if missing; its
        parent must exist), one file a game, ``game-000017.json`` for game 17, read by
        :func:`metro_ai.replay` and :func:`metro_ai.review`; a file there from an earlier export
        of the same game is written again (a game's record never changes once done). Returns the
        paths written, in game order."""
        from metro_ai.engine.datafile import dumps
        folder = Path(folder)
        folder.mkdir(exist_ok=True)
        written = []
        with self._read() as store:
            for game in store.results():
                path = folder / f"game-{game['id']:06d}.json"
                path.write_text(dumps(store.record(game["id"]), indent=1) + "\n", encoding="utf-8")
                written.append(path)
        return written


class _Borrowed:
    """A store used in a ``with`` block without closing it (the in-memory one lives on)."""

    def __init__(self, store):
        self.store = store

    def __enter__(self):
        return self.store

    def __exit__(self, *exc):
        return False


def load_tournament(path):
    """The results stored in a tournament file so far: ``Tournament(db=path).results()``."""
    return Tournament(db=path).results()


def run_tournament(config=None, db=None, *, overwrite=False, jobs=1, dask=None, progress=None, max_games=None,
                   **settings):
    """Play a tournament (or the rest of one) and return its :class:`TournamentResult`:
    ``Tournament(config, db, **settings).run(...)`` in one call.

    `config` is a :class:`TournamentConfig`, or None with keyword `settings` for one
    (``game="metro", options={"players": 2}, bots=["ismcts:iterations=200", "greedy", "random"],
    deals=20, seed=1``), or None alone to continue the tournament stored in `db`.

    `db` is the SQLite file (None: in memory). If it already holds the same tournament, only the
    games not yet done are played; if it holds a different one, TournamentError, unless
    `overwrite`. `jobs`, `dask`, `progress` and `max_games`: see :meth:`Tournament.run`.
    """
    return Tournament(config, db, **settings).run(jobs=jobs, dask=dask, progress=progress, max_games=max_games,
                                                  overwrite=overwrite)


#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
DASK_TIMEOUT = 30


@contextlib.contextmanager
def dask_client(address):
    """A client of the Dask scheduler at `address` (``"tcp://host:port"``), closed on leaving;
    None for no address. TournamentError, naming the address, when Dask is not installed (the
    ``dask`` extra) or the scheduler cannot be reached within :data:`DASK_TIMEOUT` seconds.
    Tournaments and calibrations (``metro-ai calibrate --dask``) both submit their games through
    it (:meth:`Tournament.run`)."""
    if address is None:
        yield None
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise TournamentError("--dask needs Dask: pip install 'metro-ai[dask]'") from None
    failure = None
    try:
        client = Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - Dask fails to connect in many types (OSError,
        # TimeoutError, ValueError for a bad address, RuntimeError from a stale event loop): each
        # is the same thing to the user, who is told the address and what Dask said
        failure = f"{type(exc).__name__}: {exc}"
    if failure is not None:
        # The client that failed to start lives on in a reference cycle (its traceback's frames)
        # and closes itself when the garbage collector finds it. Closing takes a lock that every
        # client's event-loop runner shares, so a collection that falls inside another client's
        # start (the next --dask run in this process) waits on itself for ever: collect it now,
        # while no start holds that lock.
        gc.collect()
        raise TournamentError(f"cannot reach the Dask scheduler at {address!r}: {failure}")
    try:
        yield client
    finally:
        client.close()


def _execute(key, todo, jobs, client):
    """Yield (id, outcome) as games finish, in process, on joblib's loky processes, or on the
    Dask cluster of `client` (:func:`dask_client`). Each game's seeds derive from the
    tournament's seed and the game alone, so where a game runs changes nothing in its result."""
    return run_unordered(functools.partial(play_scheduled, key), todo, jobs, client)


def run_unordered(call, items, jobs, client):
    """Yield ``call(item)`` for each of `items` as each finishes: in this process (`jobs` 1 and
    no client, or a single item), on `jobs` of joblib's loky processes (-1: one per core), or on
    the Dask cluster of `client` (:func:`dask_client`) through joblib's Dask backend. `call` and
    the items must pickle. Tournaments and bulk reviews (:func:`metro_ai.play.review.review_games`)
    run their work through it."""
    items = list(items)
    if not items:
        return
    if client is None and (jobs == 1 or len(items) == 1):
        for item in items:
            yield call(item)
        return
    from joblib import Parallel, delayed, parallel_config
    if client is not None:
        with parallel_config(backend="dask", client=client):
            yield from Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)(
                delayed(call)(item) for item in items)
        return
    n_jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    with parallel_config(backend="loky", n_jobs=n_jobs):
        yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(call)(item) for item in items)
