"""The one way metro-ai reads a data file a user names (CSV or JSON): company charts, central-track
layouts, city data, card sets, ladders, saved states and match records.

* Only a regular file is read. The path is checked with ``stat``, then opened non-blocking (so a
  FIFO or a device cannot block the caller, even if the path is swapped between the two calls),
  and ``fstat`` checks again that what was opened is a regular file.
* At most ``max_bytes`` are read (default :data:`MAX_BYTES`, 4 MiB); a larger file is refused.
* The bytes must be UTF-8 (an error gives the byte offset and line); line ends are translated as
  Python's text mode does, so the parsed data is what ``Path.read_text`` would have given.
* JSON: a syntax error gives the line and column; nesting too deep for the parser and integers too
  long to convert are errors like any other. CSV: ``#`` lines and blank lines are skipped, every
  row keeps its line number, and a row with the wrong number of fields is refused.

Every error is a :class:`~metro_ai.engine.errors.DataError` (or the subclass the caller passes as
``error``) that names the file as the user gave it, the line and the column or field, and never
quotes the file's contents: no line text, no values, no key names read from the file. Validators
follow the same rule; a JSON validator attaches the path of the offending value (``at``, a tuple
of keys and indices) and :meth:`JsonFile.error` turns it into a line and column.

A file metro-ai writes says what it is and which version of its format (``"format"`` and
``"version"``: saved states, match records, ladders); :func:`envelope_problem` is the one check of
the two, which every reader of such a file makes, so that a file of another version is refused
with the version found and the versions read. Every JSON text metro-ai writes (files, reports,
protocol messages) is strict JSON, written by :func:`dumps`. What a game makes of a data file (a
card set: tens of KB of Python objects) is made once per text and shared by every game that reads
the same text (:func:`shared`), so that a thousand open games hold one copy.
"""
from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from metro_ai.engine.errors import DataError

__all__ = ["MAX_BYTES", "read_bytes", "read_text", "read_json", "read_csv", "parse_json", "JsonFile",
           "CsvFile", "locate", "with_path", "envelope_problem", "version_problem", "kind_of", "finite_or_null",
           "dumps", "shared"]

#: The default cap on a data file's size: the largest shipped file is a few kilobytes.
MAX_BYTES = 4 * 1024 * 1024
_CHUNK = 1 << 16


def describe(path, what: str = "data file") -> str:
    """How errors name a file: ``what`` and the path as the user gave it (its characters only)."""
    name = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    return f"{what} {name!r}"


def read_bytes(path, *, what: str = "data file", max_bytes: int = MAX_BYTES, error=DataError,
               follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes` of them; `error` otherwise.

    `follow_symlinks=False` also refuses a path whose last component is a symbolic link."""
    where = describe(path, what)
    try:
        name = os.fspath(path)
    except TypeError:
        raise error(f"{where}: a file name must be text or a path") from None
    try:
        st = os.stat(name) if follow_symlinks else os.lstat(name)
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except (OSError, ValueError) as exc:          # ValueError: a NUL in the name
        raise error(f"{where}: cannot read it ({_reason(exc)})") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{where}: not a regular file")
    if st.st_size > max_bytes:
        raise error(f"{where}: larger than {max_bytes} bytes")
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
             | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0)))
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise error(f"{where}: cannot read it ({_reason(exc)})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):   # swapped for a FIFO or device after the stat
            raise error(f"{where}: not a regular file")
        chunks: list = []
        size = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise error(f"{where}: larger than {max_bytes} bytes")
    except OSError as exc:
        raise error(f"{where}: cannot read it ({_reason(exc)})") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return type(exc).__name__


def read_text(path, *, what: str = "data file", max_bytes: int = MAX_BYTES, error=DataError,
              follow_symlinks: bool = True) -> str:
    """The file decoded as UTF-8, line ends translated as Python's text mode does."""
    data = read_bytes(path, what=what, max_bytes=max_bytes, error=error, follow_symlinks=follow_symlinks)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{describe(path, what)}: not UTF-8 text (byte {exc.start}, line {line})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# ---- JSON ----

def parse_json(text: str | bytes, bad) -> Any:
    """``json.loads(text)``; every way it can fail is reported through ``bad(message)`` (which
    raises), with a message that gives the line and column and quotes nothing of `text`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:           # exc.msg is the parser's own words, never the text
        bad(f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
    except RecursionError:
        bad("not valid JSON here: nested too deeply")
    except ValueError:                            # an integer of more than sys.get_int_max_str_digits()
        bad("not valid JSON here: a number too long to convert")
    raise AssertionError("bad() must raise")


def kind_of(value: Any) -> str:
    """What a JSON value is, in words, without quoting it (for errors about files)."""
    return {bool: "true or false", type(None): "null", int: "an integer", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def version_problem(found: Any, versions: Sequence[int], missing: bool = False,
                    field: str = "field 'version'") -> Optional[str]:
    """None when `found` (a file's format version, held in `field`; `missing`: the file has
    none) is one of `versions`; else what is wrong, for an error message that names the file: the
    version found (told only when it is a plain integer of a sensible size, never other contents)
    and the versions this metro-ai reads."""
    reads = f"this metro-ai reads version {' or '.join(str(v) for v in versions)}"
    if missing:
        return f"it has no format version ({field}); {reads}"
    if isinstance(found, bool) or not isinstance(found, int):
        return f"its format version ({field}) is {kind_of(found)}, not an integer; {reads}"
    if found in versions:
        return None
    shown = str(found) if abs(found) < 10 ** 9 else "a number out of range"
    return f"its format version is {shown}; {reads}"


def envelope_problem(obj: dict, fmt: str, versions: Sequence[int]) -> Optional[tuple]:
    """None when the JSON object `obj` says it is a file of format `fmt` (field ``"format"``) in
    one of `versions` (field ``"version"``); else ``(message, at)``: what is wrong (see
    :func:`version_problem`) and the JSON path of the field at fault, for the caller's error,
    which names the file (the one check of a file's envelope: saved states, match records,
    ladders)."""
    if obj.get("format") != fmt:
        return f"field 'format' must be {fmt!r}", ("format",)
    problem = version_problem(obj.get("version"), versions, missing="version" not in obj)
    return None if problem is None else (problem, ("version",))


def finite_or_null(obj: Any) -> Any:
    """`obj` (JSON-ready: dicts, lists, tuples, numbers, text) with every float that is not finite
    (NaN, ±infinity) replaced by None: strict JSON has no such numbers, and metro-ai writes
    ``null`` for them (an unbounded Elo interval, a rating or a mean of no games)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(v) for v in obj]
    return obj


def dumps(obj: Any, *, indent: Optional[int] = None, sort_keys: bool = False, compact: bool = False) -> str:
    """`obj` as strict JSON text (RFC 8259: no NaN or Infinity, which many readers refuse), the one
    way metro-ai writes JSON: a float that is not finite is written as ``null``
    (:func:`finite_or_null`). `compact`: no spaces after separators (one line a message)."""
    return json.dumps(finite_or_null(obj), indent=indent, sort_keys=sort_keys, allow_nan=False,
                      separators=(",", ":") if compact else None)


def with_path(exc: BaseException, at: Sequence) -> BaseException:
    """`exc` carrying the JSON path (keys and indices) of the value it is about, for
    :meth:`JsonFile.error`; returns `exc` so that a validator can ``raise with_path(Err(...), at)``."""
    exc.at = tuple(at)             # type: ignore[attr-defined]
    return exc


@dataclass
class JsonFile:
    """A JSON data file read by :func:`read_json`: ``data`` (the parsed document), ``text``."""
    where: str
    text: str
    data: Any
    error_class: type = DataError

    def error(self, exc_or_message, at: Optional[Sequence] = None):
        """An error (of ``error_class``) about this file: `exc_or_message` (a validator's error, whose
        ``at`` path is used when `at` is not given, or a message) with the file's name and the line and
        column of the value at `at`. The message must not quote the file (validators here do not)."""
        if isinstance(exc_or_message, BaseException):
            at = getattr(exc_or_message, "at", None) if at is None else at
            message = str(exc_or_message)
        else:
            message = exc_or_message
        if at is None:
            return self.error_class(f"{self.where}: {message}")
        line, col = locate(self.text, at)
        return self.error_class(f"{self.where}: line {line}, column {col}: {message}")


def read_json(path, *, what: str = "data file", max_bytes: int = MAX_BYTES, error=DataError,
              follow_symlinks: bool = True) -> JsonFile:
    """The JSON file `path`, read and parsed (see the module docstring)."""
    text = read_text(path, what=what, max_bytes=max_bytes, error=error, follow_symlinks=follow_symlinks)
    where = describe(path, what)

    def bad(message):
        raise error(f"{where}: {message}")
    return JsonFile(where, text, parse_json(text, bad), error)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\n\r":
        pos += 1
    return pos


def locate(text: str, at: Iterable) -> tuple:
    """``(line, column)``, both from 1, of the value at path `at` (keys and indices) in the JSON
    `text`; where the path leaves the document, the position of the deepest value it reaches (a
    missing key: its object). A key given twice is found where ``json.loads`` takes it, the last."""
    decoder = json.JSONDecoder()
    pos = found = _skip_ws(text, 0)
    try:
        for step in at:
            opener = "{" if isinstance(step, str) else "["
            if text[pos:pos + 1] != opener:
                break
            pos, hit, index = _skip_ws(text, pos + 1), None, 0
            while pos < len(text) and text[pos] not in "]}":
                if opener == "{":
                    key, pos = decoder.raw_decode(text, pos)         # a key is a JSON string
                    pos = _skip_ws(text, _skip_ws(text, pos) + 1)     # past the ':'
                    if key == step:
                        hit = pos
                elif index == step:
                    hit = pos
                index += 1
                _, pos = decoder.raw_decode(text, pos)
                pos = _skip_ws(text, pos)
                if text[pos:pos + 1] == ",":
                    pos = _skip_ws(text, pos + 1)
            if hit is None:
                break
            pos = found = hit
    except (ValueError, RecursionError):   # not reached for a text json.loads accepted
        pass
    line = text.count("\n", 0, found) + 1
    return line, found - (text.rfind("\n", 0, found) + 1) + 1


# ---- what is made of a file, shared ----

#: How many things made from files :func:`shared` keeps (the least recently used is let go).
SHARED_MAX = 32
_shared: OrderedDict = OrderedDict()
_shared_lock = threading.Lock()


def shared(key: tuple, text: str, build: Callable[[], Any]) -> Any:
    """``build()``, or what it gave before for a file of the same `text` (its whole contents) and
    the same `key` (what is built and how: the parser and its settings, hashable): what a game
    builds from a data file (a card set) is built once and shared by every game that reads the
    same contents, wherever the file lies and however often it is read (the file is still read
    and checked each time; only what is built from it is shared). Errors are not kept: a bad file
    fails every time. The value is shared, so it must never be changed. At most
    :data:`SHARED_MAX` values are kept (one that open games use stays alive with them)."""
    full = (*key, hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    with _shared_lock:
        if full in _shared:
            _shared.move_to_end(full)
            return _shared[full]
    value = build()
    with _shared_lock:
        _shared[full] = value
        while len(_shared) > SHARED_MAX:
            _shared.popitem(last=False)
    return value


# ---- CSV ----

@dataclass
class CsvFile:
    """A CSV data file read by :func:`read_csv`: ``columns`` (the header's names, as a list, on
    line ``header_line``) and ``rows``, a list of ``(line, row)`` with ``row`` a dict from column
    to text."""
    where: str
    columns: list
    rows: list = field(default_factory=list)
    error_class: type = DataError
    header_line: int = 1

    def error(self, message: str, line: Optional[int] = None, column: Optional[str] = None):
        """An error (of ``error_class``) naming this file, the line and the column (a name the
        caller expects, never one read from the file)."""
        at = "" if line is None else f"line {line}" + ("" if column is None else f", column {column!r}") + ": "
        return self.error_class(f"{self.where}: {at}{message}")


def read_csv(path, *, what: str = "data file", max_bytes: int = MAX_BYTES, error=DataError,
             follow_symlinks: bool = True) -> CsvFile:
    """The CSV file `path` (see the module docstring): a header line, then rows; lines that are
    blank or start with ``#`` are skipped; a file with no header is an error."""
    text = read_text(path, what=what, max_bytes=max_bytes, error=error, follow_symlinks=follow_symlinks)
    where = describe(path, what)
    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.startswith("#")]
    if not lines:
        raise error(f"{where}: no data rows")
    reader = csv.DictReader([ln for _, ln in lines])
    out = CsvFile(where, [], [], error, lines[0][0])
    try:
        out.columns = list(reader.fieldnames or [])
        for row in reader:
            lineno = lines[reader.line_num - 1][0]
            if None in row or None in row.values():
                raise out.error("wrong number of fields", lineno)
            out.rows.append((lineno, row))
    except csv.Error as exc:                      # the csv module's own words, never the text
        lineno = lines[min(reader.line_num, len(lines)) - 1][0] if reader.line_num else lines[0][0]
        raise out.error(f"not CSV ({exc})", lineno) from None
    return out
