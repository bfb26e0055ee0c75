"""A tournament's SQLite file: its schema, the checks of an existing file (every stored value,
against the schedule), and the reads and writes of a run (see `TournamentDB`); the file itself
refused where it is not a regular file or is reached through a symbolic link."""
from __future__ import annotations

import json
import math
import os
import sqlite3
import stat
import time
from pathlib import Path

from metro_ai.engine.datafile import dumps, parse_json, version_problem

from .errors import TournamentError, TournamentFileError, _TooManyGames
from .schedule import MAX_GAMES, TournamentConfig

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id        INTEGER PRIMARY KEY,   -- index in the schedule
    deal      INTEGER NOT NULL,      -- deal number; every game of a deal has the same seed
    table_no  INTEGER NOT NULL,      -- index of the table (multiset of bots)
    seating   INTEGER NOT NULL,      -- index of the seating of that table
    seats     TEXT NOT NULL,         -- JSON list: bot index per seat
    seed      TEXT NOT NULL,         -- the deal seed (decimal, unsigned 64-bit)
    bot_seeds TEXT NOT NULL,         -- JSON list of decimal seeds, one per seat
    status    TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    scores    TEXT,                  -- JSON list, once done
    returns   TEXT,                  -- JSON list, once done
    seconds   REAL,                  -- wall time of the game, once done
    record    TEXT,                  -- the full match record (JSON), once done
    error     TEXT,                  -- what went wrong, when failed
    finished  TEXT                   -- UTC time the result was stored
);
CREATE INDEX IF NOT EXISTS games_status ON games (status);
"""


_COLUMNS = {"meta": ("key", "value"),
            "games": ("id", "deal", "table_no", "seating", "seats", "seed", "bot_seeds", "status", "scores", "returns",
                      "seconds", "record", "error", "finished")}
_CONFIG_KEYS: dict[str, type | tuple[type, ...]] = {
    "game": str, "options": dict, "bots": list, "mode": str, "deals": int, "seatings": str, "seed": int,
    "limit": (dict, type(None))}


class TournamentDB:
    """A tournament in an SQLite file: table ``meta`` (schema version, the config as JSON,
    creation time) and table ``games``, one row per scheduled game, written up front with status
    ``pending`` and updated to ``done`` (scores, returns, seconds, full match record) or
    ``failed`` (error) in its own transaction as each game finishes. A game is stored once: the
    update only applies to a row that is not done. ``path=None`` keeps it in memory.

    An existing file is checked when its tournament is first read (:meth:`config`): its tables
    and columns, its schema version, its settings (their types, and a schedule of at most
    :data:`MAX_GAMES` games), one row per scheduled game that matches the schedule (deal, table,
    seating, seats, seeds), and the results of the games done (one score and one return a seat,
    finite, returns in [0, 1]); anything else is a :class:`TournamentFileError` naming the file,
    the game and the column. Nothing is written to a file until a tournament is created in it
    (:meth:`create`) or a result stored, and never through a symbolic link.

    ``readonly=True`` opens an existing file for reading only, creating and writing nothing (no
    schema, no journal mode, no ``-shm`` file where the folder cannot take one), so that a
    tournament on read-only media or someone else's file can be reported."""

    def __init__(self, path=None, readonly=False):
        self.path = None if path is None or str(path) == ":memory:" else Path(path)
        self.readonly = readonly and self.path is not None
        self._config = None
        if self.path is not None:
            _check_folder(self.path)
            _check_file(self.path, write=not self.readonly)
        if self.readonly:
            self.conn = _connect_readonly(self.path)
            return
        try:
            self.conn = sqlite3.connect(":memory:" if self.path is None else str(self.path), timeout=60)
        except sqlite3.Error as exc:
            raise TournamentError(f"cannot open the tournament file {str(self.path)!r}: {exc}") from None
        try:
            self.conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()    # an SQLite file, or none yet
            self.conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise TournamentError(f"{str(self.path)!r} is not a metro-ai tournament file "
                                  f"(SQLite says: {exc})") from None

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _damaged(self, what):
        return TournamentFileError(f"tournament file {str(self.path) if self.path else ':memory:'!r} is damaged or "
                                   f"altered: {what}; it cannot be read or continued (play the tournament afresh with "
                                   "--overwrite, or choose another --db)")

    def _meta(self, key):
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def has_tournament(self):
        return self._tables() and self._meta("config") is not None

    def _tables(self):
        """True when the file has the tables of a tournament, False when it has no table at all
        (an empty file); TournamentFileError when its tables are not a tournament's, TournamentError
        for another program's database."""
        names = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names & set(_COLUMNS):
            if names:                   # another program's database: never written into
                raise TournamentError(f"{str(self.path)!r} is not a metro-ai tournament file (an SQLite file with "
                                      "other tables)")
            return False
        for table, columns in _COLUMNS.items():
            have = tuple(r[1] for r in self.conn.execute(f"PRAGMA table_info({table})"))
            if have != columns:
                raise self._damaged(f"its table {table!r} is not that of a metro-ai tournament")
        return True

    def config(self):
        """The stored :class:`TournamentConfig` (None when the file holds no tournament), once the
        whole file is checked (see the class docstring)."""
        if self._config is None and self._tables() and self._meta("config") is not None:
            self._config = self._check()
        return self._config

    def _check(self):
        """The stored config, after checking every stored value; TournamentFileError otherwise."""
        schema = self._meta("schema")
        found = int(schema) if isinstance(schema, str) and schema.isdigit() and len(schema) < 10 else schema
        problem = version_problem(found, (SCHEMA_VERSION,), missing=schema is None, field="meta 'schema'")
        if problem is not None:
            raise TournamentFileError(f"tournament file {str(self.path)!r}: {problem}")
        config = self._stored_config()
        n = config.players
        count = self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        if count != config.total:
            raise self._damaged(f"it has {count:,} games where its settings schedule {config.total:,}")
        schedule = config.schedule()
        rows = self.conn.execute("SELECT id, deal, table_no, seating, seats, seed, bot_seeds, status, scores, returns, "
                                 "seconds, record FROM games ORDER BY id")
        for want, row in zip(schedule, rows):
            gid, deal, table_no, seating, seats, seed, bot_seeds, status, scores, returns, seconds, record = row
            if gid != want["id"]:
                raise self._damaged(f"its games are not numbered 0 to {len(schedule) - 1:,}")
            where = f"game {gid}"
            stored = {"deal": deal, "table_no": table_no, "seating": seating, "seats": self._json(seats, where, "seats"),
                      "seed": seed, "bot_seeds": self._json(bot_seeds, where, "bot_seeds")}
            expect = {"deal": want["deal"], "table_no": want["table"], "seating": want["seating"],
                      "seats": want["seats"], "seed": str(want["seed"]), "bot_seeds": [str(x) for x in want["bot_seeds"]]}
            for column in expect:
                if dumps(stored[column]) != dumps(expect[column]):      # strictly: 1.0 or true is not 1
                    raise self._damaged(f"{where}, column {column!r}, is not its schedule's")
            if status not in ("pending", "done", "failed"):
                raise self._damaged(f"{where}, column 'status', is not pending, done or failed")
            if status != "done":
                continue
            for column, text, low, high in (("scores", scores, -math.inf, math.inf), ("returns", returns, 0.0, 1.0)):
                values = self._json(text, where, column)
                if not isinstance(values, list) or len(values) != n or not all(
                        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and low <= v <= high
                        for v in values):
                    bounds = "finite numbers" if column == "scores" else "finite numbers in [0, 1]"
                    raise self._damaged(f"{where}, column {column!r}, is not {n} {bounds}")
            if seconds is not None and (not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf):
                raise self._damaged(f"{where}, column 'seconds', is not a number of seconds")
            if not isinstance(record, str):
                raise self._damaged(f"{where}, column 'record', holds no match record")
        return config

    def _stored_config(self):
        """The settings in meta 'config', checked field by field, as a TournamentConfig."""
        obj = self._json(self._meta("config"), "meta 'config'", None)
        if not isinstance(obj, dict) or set(obj) != set(_CONFIG_KEYS):
            raise self._damaged("its settings (meta 'config') are not those of a tournament")
        for key, kind in _CONFIG_KEYS.items():
            if not isinstance(obj[key], kind) or isinstance(obj[key], bool):
                raise self._damaged(f"its settings (meta 'config'), field {key!r}, are of the wrong type")
        if not all(isinstance(b, dict) and isinstance(b.get("name"), str) for b in obj["bots"]):
            raise self._damaged("its settings (meta 'config'), field 'bots', are not bot specs")
        from metro_ai.registry import list_games
        if obj["game"] not in list_games():
            raise self._damaged("its game (meta 'config', field 'game') is not one this metro-ai knows (a game of "
                                "a --game-module must be registered to read its tournament)")
        try:
            return TournamentConfig.from_dict(obj)
        except _TooManyGames:
            raise self._damaged(f"its settings schedule more than {MAX_GAMES:,} games") from None
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError):   # BotSpecError too
            raise self._damaged("its settings (meta 'config') are not a tournament this metro-ai can play") from None

    def _json(self, text, where, column):
        """The JSON value of a stored text (a column of a row, or a meta value)."""
        name = where if column is None else f"{where}, column {column!r},"
        if not isinstance(text, str):
            raise self._damaged(f"{name} is not JSON text")

        def bad(message):
            raise self._damaged(f"{name} is {message}")
        return parse_json(text, bad)

    def create(self, config):
        games = config.schedule()
        if self.path is not None:
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(_SCHEMA)
        with self.conn:
            self.conn.execute("DELETE FROM games")
            self.conn.execute("DELETE FROM meta")
            self.conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
                ("schema", str(SCHEMA_VERSION)), ("config", dumps(config.to_dict(), sort_keys=True)),
                ("created", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())), ("description", config.describe())])
            self.conn.executemany(
                "INSERT INTO games (id, deal, table_no, seating, seats, seed, bot_seeds) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(g["id"], g["deal"], g["table"], g["seating"], dumps(g["seats"]), str(g["seed"]),
                  dumps([str(s) for s in g["bot_seeds"]])) for g in games])
        self._config = config

    def counts(self):
        out = {"pending": 0, "done": 0, "failed": 0}
        for status, n in self.conn.execute("SELECT status, COUNT(*) FROM games GROUP BY status"):
            out[status] = n
        out["total"] = sum(out.values())
        return out

    def unfinished(self):
        """Scheduled games not done (pending, or failed before), in schedule order."""
        rows = self.conn.execute(
            "SELECT id, deal, table_no, seating, seats, seed, bot_seeds FROM games WHERE status != 'done' ORDER BY id")
        return [{"id": i, "deal": d, "table": t, "seating": s, "seats": json.loads(seats), "seed": int(seed),
                 "bot_seeds": [int(x) for x in json.loads(bs)]} for i, d, t, s, seats, seed, bs in rows]

    def store(self, game_id, outcome):
        """Store one game's outcome: ``{"record": ...}`` or ``{"error": ...}``. Returns False when the
        game was already done (then nothing changes)."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self.conn:
            if "record" in outcome:
                rec = outcome["record"]
                cur = self.conn.execute(
                    "UPDATE games SET status = 'done', scores = ?, returns = ?, seconds = ?, record = ?, error = NULL, "
                    "finished = ? WHERE id = ? AND status != 'done'",
                    (dumps(rec["scores"]), dumps(rec["returns"]), rec.get("seconds"), dumps(rec), now, game_id))
            else:
                cur = self.conn.execute(
                    "UPDATE games SET status = 'failed', error = ?, finished = ? WHERE id = ? AND status != 'done'",
                    (outcome["error"], now, game_id))
        return cur.rowcount == 1

    def results(self):
        """The games done so far, in schedule order: dicts with id, deal, table, seating, seats,
        scores, returns, seconds."""
        rows = self.conn.execute("SELECT id, deal, table_no, seating, seats, scores, returns, seconds FROM games "
                                 "WHERE status = 'done' ORDER BY id")
        return [{"id": i, "deal": d, "table": t, "seating": s, "seats": json.loads(seats),
                 "scores": json.loads(sc), "returns": json.loads(rt), "seconds": sec}
                for i, d, t, s, seats, sc, rt, sec in rows]

    def failures(self):
        return [{"id": i, "error": e} for i, e in
                self.conn.execute("SELECT id, error FROM games WHERE status = 'failed' ORDER BY id")]

    def record(self, game_id):
        """The full match record of a game done (for :func:`metro_ai.replay`), or None."""
        row = self.conn.execute("SELECT record FROM games WHERE id = ? AND status = 'done'", (game_id,)).fetchone()
        if row is None:
            return None
        record = self._json(row[0], f"game {game_id}", "record")
        if not isinstance(record, dict):
            raise self._damaged(f"game {game_id}, column 'record', is not a match record")
        return record


def _connect_readonly(path):
    """A read-only SQLite connection to the file at `path`. A file in WAL mode needs a ``-shm``
    file beside it even to be read; where the folder cannot take one (read-only media, a folder
    of someone else's), the file is opened as immutable: no other process may be writing it then,
    since nothing can be written there at all."""
    from urllib.parse import quote
    uri = "file:" + quote(str(Path(path).resolve()))
    last = None
    for extra in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = None
        try:
            conn = sqlite3.connect(uri + extra, uri=True, timeout=60)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            last = exc
            if conn is not None:
                conn.close()
            if not isinstance(exc, sqlite3.OperationalError):
                break                               # not an SQLite file: immutable would not help
    raise TournamentError(f"{str(path)!r} is not a metro-ai tournament file, or cannot be read "
                          f"(SQLite says: {last})")


def _check_file(path, write):
    """TournamentError unless `path` is a regular file or nothing yet (a FIFO or a device would
    block or mislead SQLite), and, to be written (`write`), neither it nor the files SQLite keeps
    beside it (``-wal``, ``-shm``, ``-journal``) is a symbolic link: a tournament is never written
    through a link into the file it points at."""
    if write:
        for p in (path, *(Path(str(path) + end) for end in ("-wal", "-shm", "-journal"))):
            if p.is_symlink():
                raise TournamentError(f"the tournament file {str(path)!r} is not written: {str(p)!r} is a symbolic "
                                      "link, and metro-ai never writes a tournament through a link; name the file "
                                      "itself with --db")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise TournamentError(f"cannot use the tournament file {str(path)!r}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise TournamentError(f"cannot use the tournament file {str(path)!r}: it is not a regular file")


def _check_folder(path):
    """TournamentError unless the folder that holds (or will hold) `path` exists."""
    folder = Path(path).parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise TournamentError(f"cannot use the tournament file {str(path)!r}: the folder {str(folder)!r} {what}")


def open_db(config, db, overwrite):
    """Open or create the tournament file `db` for `config` (None: the one stored there); returns
    (TournamentDB, config)."""
    path = None if db is None or str(db) == ":memory:" else Path(db)
    if path is not None:
        _check_file(path, write=True)           # a link is refused before anything is removed or written
    if path is not None and overwrite and path.exists():
        for p in (path, Path(str(path) + "-wal"), Path(str(path) + "-shm")):
            if p.exists():
                p.unlink()
    if path is not None and path.exists():
        store = TournamentDB(path)
        try:
            stored = store.config()
        except sqlite3.DatabaseError as exc:
            store.close()
            raise TournamentError(f"{str(path)!r} is not a metro-ai tournament file (SQLite says: {exc})") from None
        except BaseException:
            store.close()
            raise
        if stored is not None:
            if config is None:
                config = stored
            elif config != stored:
                store.close()
                raise TournamentError(
                    f"{str(path)!r} holds a different tournament ({stored.describe()}); continue it with --resume "
                    "and its own settings, pass --overwrite to start afresh, or choose another --db")
            return store, config
        store.close()
    if config is None:
        if path is None:
            raise TournamentError("no tournament given: pass a TournamentConfig or its settings (game=, options=, bots=, ...)")
        raise TournamentError(f"there is no tournament to resume in {str(db)!r}")
    store = TournamentDB(path)
    store.create(config)
    return store, config
