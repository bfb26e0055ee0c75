"""The other build: its ``serve`` over stdio (`OtherBuild`), started from its ``metro-ai``
executable, its Python or its virtual environment's folder (`serve_command`), and spoken to in
the protocol of docs/protocol.md; `VersusError` when it fails, refuses a request or plays
another game."""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

from metro_ai.engine.datafile import dumps

class VersusError(RuntimeError):
    """The match cannot go on: the other build failed, refused a request, or plays another game."""


def serve_command(other: str) -> list[str]:
    """The command that starts `other`'s protocol server over stdio: ``OTHER serve`` for a
    ``metro-ai`` executable, ``OTHER -m metro_ai serve`` for a Python; a virtual environment's
    folder is read as its ``bin/metro-ai``. ValueError if there is no such program."""
    path = Path(other).expanduser()
    if path.is_dir():
        for candidate in (path / "bin" / "metro-ai", path / "Scripts" / "metro-ai.exe"):
            if candidate.exists():
                path = candidate
                break
        else:
            raise ValueError(f"--versus {other}: a folder without bin/metro-ai (give the other build's "
                             "metro-ai executable or its python)")
    if not path.exists():
        found = shutil.which(other)
        if found is None:
            raise ValueError(f"--versus {other}: no such file (give the other build's metro-ai executable "
                             "or its python, e.g. /path/.venv/bin/metro-ai)")
        path = Path(found)
    if not os.access(path, os.X_OK):
        raise ValueError(f"--versus {other}: not an executable file")
    path = path.absolute()     # the servers start in a folder of their own: a relative path would not lead there
    if re.fullmatch(r"python[0-9.]*(\.exe)?", path.name):
        return [str(path), "-m", "metro_ai", "serve"]
    return [str(path), "serve"]


class OtherBuild:
    """The other build's ``serve`` over stdio: ``call(method, **params)`` returns a result or
    raises VersusError with the server's error. A context manager (closes the server)."""

    def __init__(self, other: str, startup_seconds: float = 120.0, data_dir: Optional[str] = None):
        self.command = serve_command(other) + ([] if data_dir is None else ["--data-dir", data_dir])
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            # Run outside any checkout: `python -m` looks in the working directory first.
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, cwd=tempfile.gettempdir(), bufsize=0)
        except OSError as exc:
            raise ValueError(f"--versus: cannot start {' '.join(self.command)}: {exc}") from None
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0
        self.hello = self.call("hello", timeout=startup_seconds, client="metro-ai bench --versus")
        if self.hello.get("protocol") != "metro-ai":
            raise VersusError(f"{' '.join(self.command)} does not speak the metro-ai protocol")

    def _read(self):
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-2000:]

    def call(self, method: str, timeout: float = 120.0, **params) -> Any:
        self._next += 1
        request = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((dumps(request, compact=True) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as exc:
            raise VersusError(f"the other build ({' '.join(self.command)}) stopped: {exc}\n{self._stderr_tail()}") from None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise VersusError(f"the other build did not answer {method} within {timeout:g} s") from None
            if line is None:
                raise VersusError(f"the other build ({' '.join(self.command)}) ended while asked {method}:\n"
                                  f"{self._stderr_tail()}")
            message = json.loads(line)
            if message.get("id") != self._next:
                continue                          # a progress notification (or a stray answer)
            if "error" in message:
                err = message["error"]
                raise VersusError(f"the other build refused {method} ({err.get('code')}): {err.get('message')}")
            return message["result"]

    def close(self):
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()           # stdio: the server ends when its input ends
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
