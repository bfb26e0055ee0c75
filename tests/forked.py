"""One piece of work in a forked child process, so that a crash (a signal, a sanitizer's abort or
exit code) or a hang is an outcome reported with its input, not the end of a fuzzing run
(tests/fuzz_inputs.py, tests/fuzz_user_games.py). The child inherits the parent's imports, so a
fork costs milliseconds; its stderr (a sanitizer's report) is kept for a crash's detail."""
from __future__ import annotations

import os
import select
import signal
import sys
import tempfile
import time
import traceback

_ERR = tempfile.TemporaryFile()      # the child's stderr, read on a crash


def describe(exc: BaseException) -> str:
    """An exception and the end of its traceback, for a finding's detail."""
    return f"{type(exc).__name__}: {exc}"[:300] + "\n" + traceback.format_exc()[-1500:]


def run_forked(work, codes: dict, timeout: float):
    """(outcome, detail): `work()` in a forked child, returning (code, detail), `code` a key of
    `codes` (the outcome's name). An exception out of `work` is a crash of the harness
    (code 99); a child killed by a signal or ending with a code not in `codes` is "crashed" (its
    stderr's tail the detail); one with no answer in `timeout` seconds is killed: "hung"."""
    read, write = os.pipe()
    _ERR.seek(0)
    _ERR.truncate()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            os.close(read)
            os.dup2(_ERR.fileno(), 2)
            code, detail = work()
            os.write(write, detail.encode("utf-8", "replace"))
        except BaseException as exc:                  # noqa: BLE001 - the harness failed: a crash
            os.write(write, describe(exc).encode("utf-8", "replace"))
        finally:
            os._exit(code)
    os.close(write)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "hung", f"no answer in {timeout} s"
            chunk = os.read(read, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
    _, status = os.waitpid(pid, 0)
    detail = b"".join(chunks).decode("utf-8", "replace")
    if os.WIFSIGNALED(status):
        return "crashed", f"signal {signal.Signals(os.WTERMSIG(status)).name}\n{stderr_tail()}"
    code = os.WEXITSTATUS(status)
    if code not in codes:             # a sanitizer's exit (ASan, UBSan halt_on_error), os.abort caught...
        return "crashed", f"exit status {code}\n{detail}\n{stderr_tail()}"
    return codes[code], detail


def stderr_tail() -> str:
    """The end of the last child's stderr."""
    _ERR.seek(0)
    return _ERR.read()[-4000:].decode("utf-8", "replace")
