"""Files named by protocol clients: only inside the data directory the operator chose.

A game option of kind "path" (``Option.path``: a company chart, a card file, ...) or a bot option
naming a file (``ladder=FILE``) comes from a client as a *name relative to* ``--data-dir``.
`DataDir.resolve` turns it into the real path of a regular file inside that folder, or refuses
it with one error that says nothing of what lies outside: an absolute path, ``..``, a link that
leads out, a missing file all read "no such file in the data directory". Inside it, a FIFO, a
device or a folder is not a regular file, and a file over the size cap is refused before
anything opens it. Without ``--data-dir`` every file option is refused.

A session reads a game's or a bot's files through `game_files` (the names resolved) and
`read_files` (in a thread, for `FILE_SECONDS` at most, an error naming each file as the client
named it).
"""
from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from metro_ai.bots.catalogue import BOTS

from .errors import FILE_REFUSED, ProtocolError

#: Bot options that name a file, besides any a bot class declares with ``Option.path``.
BOT_FILE_OPTIONS = ("ladder",)
FILE_SECONDS = 10.0                 # the longest a game or bot may take to read its data files


class FileRefused(Exception):
    """A file option refused; the message says why without telling what lies outside."""


class DataDir:
    """The folder protocol clients may name files in (``--data-dir``), and the size cap."""

    def __init__(self, root: Any, max_bytes: int):
        path = Path(os.fsdecode(root)).expanduser()
        if not path.is_dir():
            raise ValueError(f"--data-dir {str(path)!r} is not a folder")
        self.root = path.resolve()
        self.max_bytes = max_bytes

    def resolve(self, value: Any, what: str) -> str:
        """The real path of `value`, a name relative to the data directory, for option `what`;
        FileRefused otherwise."""
        if not isinstance(value, str) or not value or "\x00" in value or len(value) > 1024:
            raise FileRefused(f"{what}: a file is named by a non-empty text relative to the data directory")
        missing = FileRefused(f"{what}: no such file in the data directory: {value!r} (names are relative to "
                              "it, with no '..' and no link leading out)")
        parts = value.replace("\\", "/").split("/")
        if os.path.isabs(value) or value.startswith(("/", "\\", "~")) or ".." in parts or \
                (len(value) > 1 and value[1] == ":"):
            raise missing
        real = os.path.realpath(self.root / value)
        try:
            inside = os.path.commonpath([real, str(self.root)]) == str(self.root) and real != str(self.root)
        except ValueError:
            inside = False
        if not inside:
            raise missing
        try:
            info = os.stat(real)
        except OSError:
            raise missing from None
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{what}: {value!r} is not a regular file")
        if info.st_size > self.max_bytes:
            raise FileRefused(f"{what}: {value!r} is {info.st_size:,} bytes, over the server's cap of "
                              f"{self.max_bytes:,} (max_file_bytes)")
        return real


def resolve_options(data_dir: Optional[DataDir], names: Iterable[str], options: dict, owner: str) -> dict:
    """`options` with each of `names` given (and not None) resolved inside `data_dir`;
    FileRefused if any is given and there is no data directory, or it is not a file there."""
    out = dict(options)
    for name in names:
        value = out.get(name)
        if value is None:
            continue
        if data_dir is None:
            raise FileRefused(f"{owner}: option {name!r} names a file, and this server reads no files from "
                              "clients (start it with --data-dir DIR to allow files inside DIR)")
        out[name] = data_dir.resolve(value, f"{owner}: option {name!r}")
    return out


def game_file_options(cls: Any) -> tuple[str, ...]:
    """The names of a game class's options that name files (kind "path")."""
    return tuple(o.name for o in getattr(cls, "OPTIONS", ()) if o.kind == "path")


def bot_file_options(name: str) -> tuple[str, ...]:
    """The names of the options of bot `name` (or a preset) that name files: those it declares
    with kind "path", and `BOT_FILE_OPTIONS`."""
    cls = BOTS.get(name, (None,))[0]
    declared = tuple(o.name for o in getattr(cls, "options", ()) if o.kind == "path")
    return declared + tuple(n for n in BOT_FILE_OPTIONS if n not in declared)


def game_files(data_dir: Optional[DataDir], cls: Any, options: dict[str, Any],
               method: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """`options` with the game's file options resolved in the data directory, and those
    options as the client named them; ProtocolError(FILE_REFUSED) if one may not be read."""
    keys = game_file_options(cls)
    try:
        resolved = resolve_options(data_dir, keys, options, f"game {cls.name!r}")
    except FileRefused as exc:
        raise ProtocolError(FILE_REFUSED, f"{method}: {exc}") from None
    return resolved, {k: options[k] for k in keys if options.get(k) is not None}


async def read_files(data_dir: Optional[DataDir], fn: Callable[[], Any], names: dict[str, Any],
                     resolved: dict[str, Any], code: int, method: str) -> Any:
    """``fn()``: at once when no file is named; else in a thread, for FILE_SECONDS at most,
    so that reading a file never holds up the event loop (other sessions). An error names a
    file by the client's name for it, never its real path."""
    try:
        if not names:
            return fn()
        future = asyncio.get_running_loop().run_in_executor(None, fn)
        try:
            return await asyncio.wait_for(asyncio.shield(future), FILE_SECONDS)
        except asyncio.TimeoutError:
            future.add_done_callback(_stop_orphan)
            raise ProtocolError(FILE_REFUSED, f"{method}: reading the data files took over {FILE_SECONDS:g} s"
                                ) from None
    except (ValueError, TypeError, OverflowError, OSError) as exc:
        text = str(exc)
        for key, name in names.items():
            text = text.replace(str(resolved[key]), str(name))
        if data_dir is not None:
            text = text.replace(str(data_dir.root), "<data-dir>")
        raise ProtocolError(code, f"{method}: {text}") from None


def _stop_orphan(future: Any) -> None:
    """A search started after its request gave up waiting: stop it."""
    if not future.cancelled() and future.exception() is None and hasattr(future.result(), "request_stop"):
        future.result().request_stop()
