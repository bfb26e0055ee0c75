"""Tournaments: round robin, gauntlet or ladder over bot specs, seats rotated over duplicate deals, games
in parallel (joblib processes, or a Dask cluster), every result stored in SQLite as it finishes,
resumable after an interruption.

Schedule. A *table* is a multiset of bots, one per seat: in a round robin every set of
``players`` distinct bots (with fewer bots than seats, every multiset holding each bot at least
once, so 2 bots at 3 seats give AAB and ABB); in a gauntlet the first bot (the challenger)
against ``players - 1`` copies of each other bot; in a ladder (the bots listed weakest first,
``metro-ai calibrate``) each bot against the next two in the list, one bot against
``players - 1`` copies of the other and the other way round. Each *deal* (a seed derived from the tournament
seed) is played at every table in every seating: the table's cyclic rotations (``rotate``,
each bot in each seat once) or all its distinct permutations (``all``). So every bot meets the
same chance events (the deal and every draw) from every seat (duplicate deals) and the luck of
the deal cancels out.
Bot seeds derive from the tournament seed too: the same tournament, with iteration budgets,
plays the same games with the same results on any machine, whatever the order or place the
games run in (time budgets are not reproducible).

Storage: see :class:`TournamentDB`.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import json
import math
import os
import sqlite3
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import dumps, parse_json, version_problem
from metro_ai.engine.errors import MetroAIError
from metro_ai.bots.catalogue import BotSpec, parse_specs
from metro_ai.play.match import limit_from_dict, limit_to_dict, play_match
from metro_ai.play.report import build_report
from metro_ai.registry import load_game

MODES = ("round-robin", "gauntlet", "ladder")
LADDER_REACH = 2          # in a ladder, each bot meets the next LADDER_REACH bots of the list
SEATINGS = ("rotate", "all")
SCHEMA_VERSION = 1
#: The most games one tournament may schedule (its settings, or a file that says more, are refused).
MAX_GAMES = 1_000_000


class TournamentError(MetroAIError, ValueError):
    """A tournament that cannot be set up or continued; the message says what is wrong."""


class TournamentFileError(TournamentError):
    """A metro-ai tournament file that cannot be used: of another schema version, or damaged or
    altered (a value of the wrong type, a row that is not its schedule's, a return that is not a
    finite number in [0, 1]). The message names the file and what is wrong, and never quotes what
    it holds; ``metro-ai tournament`` and ``calibrate`` exit with status 1 on it (``exit_status``;
    a file that is no tournament at all, or a link, is a usage error, status 2)."""

    exit_status = 1


class _TooManyGames(TournamentError):
    """Settings that schedule more than :data:`MAX_GAMES` games."""


@dataclass
class TournamentConfig:
    """Everything that defines a tournament's games. Two configs that are equal play the same games."""
    game: str
    options: dict
    bots: list
    mode: str = "round-robin"
    deals: int = 20
    seatings: str = "rotate"
    seed: int = 1
    limit: Limit | None = None      # budget per move for search bots whose spec has none

    def __post_init__(self):
        self.bots = parse_specs(list(self.bots))
        self.options = dict(self.options)
        self._game = load_game(self.game, **self.options)          # validates name and options
        self.options = dict(self._game.options)
        if self.mode not in MODES:
            raise TournamentError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.seatings not in SEATINGS:
            raise TournamentError(f"seatings must be one of {', '.join(SEATINGS)}, got {self.seatings!r}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise TournamentError(f"deals must be a positive int, got {self.deals!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TournamentError(f"seed must be an int, got {self.seed!r}")
        if len(self.bots) < 2:
            raise TournamentError(f"a tournament needs at least 2 bots, got {len(self.bots)}")
        self._total = self._count_games()
        for b in self.bots:
            if "elo" in b.options and b.limit is None:      # its game's ladder, now rather than in every game
                try:
                    b.make(0).calibrate_for(self._game)
                except ValueError as exc:
                    raise TournamentError(f"bot {b.display!r}: {exc}") from None
        seen: set = set()
        for lab in (b.display for b in self.bots):
            if lab in seen:
                raise TournamentError(f"bot {lab!r} is given twice; tell them apart with a label, "
                                      f"e.g. '{lab}{',' if ':' in lab else ':'}label={lab}-2'")
            seen.add(lab)

    def _count_games(self):
        """The number of games of the schedule, counted without making it; TournamentError when it
        is over :data:`MAX_GAMES` (counted no further than that)."""
        k, n = len(self.bots), self.players
        if self.mode == "gauntlet":
            tables = k - 1
        elif self.mode == "ladder":
            tables = sum(min(LADDER_REACH, k - 1 - i) for i in range(k)) * (2 if n > 2 else 1)
        else:
            tables = math.comb(k, n) if k >= n else math.comb(n - 1, k - 1)
        total = 0
        if tables * self.deals <= MAX_GAMES:            # each table has one seating at least
            for table in self.tables():
                total += len(self.seatings_of(table)) * self.deals
                if total > MAX_GAMES:
                    break
        if tables * self.deals > MAX_GAMES or total > MAX_GAMES:
            raise _TooManyGames(f"this tournament would have more than {MAX_GAMES:,} games ({self.deals:,} deals x "
                                  f"{tables:,} tables x their seatings): play fewer deals or bots")
        return total

    @property
    def players(self):
        return self._game.num_players

    @property
    def total(self):
        """The number of games of the schedule (at most :data:`MAX_GAMES`)."""
        return self._total

    @property
    def labels(self):
        return [b.display for b in self.bots]

    def to_dict(self):
        return {"game": self.game, "options": self.options, "bots": [b.to_dict() for b in self.bots],
                "mode": self.mode, "deals": self.deals, "seatings": self.seatings, "seed": self.seed,
                "limit": limit_to_dict(self.limit)}

    @classmethod
    def from_dict(cls, d):
        return cls(d["game"], d["options"], [BotSpec.from_dict(b) for b in d["bots"]], d["mode"], d["deals"],
                   d["seatings"], d["seed"], limit_from_dict(d.get("limit")))

    def key(self):
        return dumps(self.to_dict(), sort_keys=True)

    def __eq__(self, other):
        return isinstance(other, TournamentConfig) and self.key() == other.key()

    def tables(self):
        """The tables, each a tuple of bot indexes (see the module docstring)."""
        k, n = len(self.bots), self.players
        if self.mode == "gauntlet":
            return [(0,) + (j,) * (n - 1) for j in range(1, k)]
        if self.mode == "ladder":
            out = []
            for i in range(k):
                for j in range(i + 1, min(i + 1 + LADDER_REACH, k)):
                    out.append((i,) + (j,) * (n - 1))
                    if n > 2:
                        out.append((j,) + (i,) * (n - 1))
            return out
        if k >= n:
            return list(itertools.combinations(range(k), n))
        return [t for t in itertools.combinations_with_replacement(range(k), n) if len(set(t)) == k]

    def seatings_of(self, table):
        n = len(table)
        if self.seatings == "rotate":
            out = [tuple(table[r:] + table[:r]) for r in range(n)]
        else:
            out = sorted(set(itertools.permutations(table)))
        seen, unique = set(), []
        for s in out:
            if s not in seen:
                seen.add(s)
                unique.append(s)
        return unique

    def schedule(self):
        """Every game of the tournament, deal by deal: dicts with id, deal, table, seating, seats
        (a bot index per seat), seed (the deal's) and bot_seeds (one per seat)."""
        games: list = []
        tables = self.tables()
        for deal in range(self.deals):
            deal_seed = derive(self.seed, 0xDEA1, deal)
            for t, table in enumerate(tables):
                for s, seating in enumerate(self.seatings_of(table)):
                    games.append({"id": len(games), "deal": deal, "table": t, "seating": s, "seats": list(seating),
                                  "seed": deal_seed,
                                  "bot_seeds": [derive(self.seed, 0xB075, deal, t, s, p) for p in range(len(seating))]})
        return games

    def describe(self):
        tables = self.tables()
        per = sum(len(self.seatings_of(t)) for t in tables)
        return (f"{self.game}, {self.players} players, {self.mode}, {len(self.bots)} bots, {self.deals} deals x "
                f"{len(tables)} table(s) x {per // len(tables) if tables else 0} seatings = {self.deals * per} games, "
                f"seed {self.seed}")


# ---- storage ----

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


class RunLock:
    """An exclusive lock on a tournament file for the length of one run: ``<db>.lock``, locked with
    ``flock`` (``msvcrt.locking`` on Windows) and holding the runner's pid. A second run on the same
    file is refused at once with a TournamentError naming the file and that pid, so two runs never
    play the same games twice, report each other's games as missing, or ``--overwrite`` a file
    another run is writing. The operating system drops the lock when the process ends, however it
    ends, so a run killed with SIGKILL blocks no later run (its lock file stays, unlocked, and the
    next run takes it). The file is removed on release; a run that locked a file removed meanwhile
    locks the new one instead. Readers (:func:`load_tournament`) need no lock."""

    def __init__(self, db):
        self.db = Path(db)
        self.path = Path(str(db) + ".lock")
        self.fd = None

    def acquire(self):
        while True:
            fd = self._open_lock_file()
            if not _try_lock(fd):
                holder = _read_pid(fd)
                os.close(fd)
                raise TournamentError(f"{str(self.db)!r} is in use by another run "
                                      f"({'pid ' + holder if holder else 'pid unknown'}); wait for it to end, "
                                      "or choose another --db")
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)                  # the holder before us removed the file: lock the new one
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        os.fsync(fd)
        self.fd = fd
        return self

    def _open_lock_file(self):
        """The lock file, opened for writing: never through a symbolic link (``O_NOFOLLOW``), and
        only if it is a regular file of one link (a FIFO cannot block the open: ``O_NONBLOCK``),
        so that the truncation in :meth:`acquire` can never reach another file."""
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
            raise TournamentError(f"cannot lock the tournament file {str(self.db)!r}: its lock file "
                                  f"{str(self.path)!r} cannot be opened ({why}); remove it if no run is going on") \
                from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(fd)
            what = "not a regular file" if not stat.S_ISREG(st.st_mode) else "a file with other names (hard links)"
            raise TournamentError(f"cannot lock the tournament file {str(self.db)!r}: its lock file "
                                  f"{str(self.path)!r} is {what}; remove it if no run is going on")
        return fd

    def release(self):
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)                 # closing drops the lock
        self.fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def _try_lock(fd):
    """Lock `fd` exclusively without waiting; False when another process holds it."""
    if sys.platform == "win32":                            # pragma: no cover
        import msvcrt
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    import fcntl
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise


def _read_pid(fd):
    """The pid written in a lock file (a moment after it was locked), or ''."""
    for _ in range(20):
        text = os.pread(fd, 32, 0).decode(errors="replace").strip() if hasattr(os, "pread") else ""
        if text:
            return text
        time.sleep(0.01)
    return ""


# ---- playing ----

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
            store, self._config = _open_db(self._config, self.path, overwrite)
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


def _open_db(config, db, overwrite):
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
    try:
        client = Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise TournamentError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def _execute(key, todo, jobs, client):
    """Yield (id, outcome) as games finish, in process, on joblib's loky processes, or on the
    Dask cluster of `client` (:func:`dask_client`). Each game's seeds derive from the
    tournament's seed and the game alone, so where a game runs changes nothing in its result."""
    if not todo:
        return
    if client is None and (jobs == 1 or len(todo) == 1):
        for game in todo:
            yield play_scheduled(key, game)
        return
    from joblib import Parallel, delayed, parallel_config
    if client is not None:
        with parallel_config(backend="dask", client=client):
            yield from Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)(
                delayed(play_scheduled)(key, g) for g in todo)
        return
    n_jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    with parallel_config(backend="loky", n_jobs=n_jobs):
        yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(play_scheduled)(key, g) for g in todo)


__all__ = ["MAX_GAMES", "RunLock", "Tournament", "TournamentConfig", "TournamentDB", "TournamentError",
           "TournamentFileError", "TournamentResult", "dask_client", "load_tournament", "play_scheduled", "run_tournament"]
