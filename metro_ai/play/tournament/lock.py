"""The lock of a tournament file for the length of one run (`RunLock`): two runs never write
the same file at once."""
from __future__ import annotations

import errno
import os
import stat
import sys
import time
from pathlib import Path

from .errors import TournamentError


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
