"""The protocol's transports for real: ``metro-ai serve`` as a subprocess over stdio and over
WebSocket (line framing and its cap, a 100 MB line, clients that leave mid-search), and short
fuzzing passes of each (tests/fuzz_protocol.py, in child processes)."""
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from metro_ai.protocol import LineFramer
from metro_ai.protocol import errors as E
from tests.protocol_client import check_server_message
from tiers import tiered

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz_protocol.py"
SERVE = [sys.executable, "-m", "metro_ai", "serve"]


def test_line_framer_splits_caps_and_reads_on():
    f = LineFramer(max_bytes=5)
    assert f.feed(b"ab") == [] and f.feed(b"c\r\nde\n\nxyz") == [b"abc", b"de", b""]
    assert f.feed(b"123") == [None]                    # "xyz123" passed the cap: skipped, reported once
    assert f.feed(b"4567") == [] and f.feed(b"89\nok\n") == [b"ok"]
    assert f.feed(b"tail") == [] and f.end() == [b"tail"]
    assert LineFramer(3).feed(b"abcd\nabc\n") == [None, b"abc"]


def _request(i, method, **params):
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()


class Served:
    """``metro-ai serve`` with its answers read by a thread and checked against the schema."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(SERVE + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.messages, self.methods = [], {}
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            m = json.loads(line)
            with self.cond:
                self.messages.append(m)
                self.cond.notify_all()

    def send(self, i, method, **params):
        self.methods[i] = method
        self.write(_request(i, method, **params))

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, i, timeout=120):
        with self.cond:
            assert self.cond.wait_for(lambda: any(m.get("id") == i for m in self.messages), timeout), \
                f"no answer to {i!r}"
            return next(m for m in self.messages if m.get("id") == i)

    def wait_for(self, predicate, timeout=120):
        with self.cond:
            assert self.cond.wait_for(lambda: any(predicate(m) for m in self.messages), timeout)

    def finish(self):
        """Close stdin; the server must end by itself, cleanly."""
        self.proc.stdin.close()
        code = self.proc.wait(timeout=120)
        err = self.proc.stderr.read().decode()
        assert code == 0 and "Traceback" not in err, f"exit {code}: {err[-2000:]}"
        for m in self.messages:
            check_server_message(m, self.methods)


def test_stdio_serves_survives_a_100_mb_line_and_garbage():
    s = Served()
    s.send(1, "new_game", game="metro", options={"players": 2}, seed=3)
    assert s.answer(1)["result"]["game_id"] == "g1"
    chunk = b"x" * (1 << 20)
    writer = threading.Thread(target=lambda: [s.write(chunk) for _ in range(100)] and s.write(b"\n"))
    writer.start()                                          # 100 MB on one line, written as it is read
    writer.join(timeout=300)
    s.write(b"\xff garbage\n{\"jsonrpc\": \"2.0\"}\n\n")
    s.send(2, "legal_actions", game_id="g1")
    assert s.answer(2)["result"]["actions"]
    nulls = [m for m in s.messages if m.get("id") is None]
    assert [m["error"]["code"] for m in nulls] == [E.MESSAGE_TOO_LONG, E.PARSE_ERROR, E.INVALID_REQUEST]
    s.finish()


def test_stdio_end_of_input_mid_search_answers_with_the_best_move_and_exits():
    s = Served()
    s.send(1, "new_game", game="metro", options={"players": 2})
    s.send(2, "go", game_id="g1", limit={"iterations": 10 ** 12})
    s.wait_for(lambda m: m.get("method") == "progress" and m["params"]["iterations"] > 0)
    s.finish()
    go = next(m for m in s.messages if m.get("id") == 2)["result"]
    assert go["stopped"] and go["iterations"] > 0


def test_stdio_a_client_that_stops_reading_mid_search_does_not_hang_the_server():
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(_request(1, "new_game", game="metro") + _request(2, "go", game_id="g1",
                                                                       limit={"iterations": 10 ** 12}))
    proc.stdin.flush()
    proc.stdout.readline()                              # the new_game answer
    proc.stdout.close()                                 # gone: the next progress fails to write
    proc.stdin.close()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in proc.stderr.read().decode()


@pytest.fixture()
def ws_server():
    proc = subprocess.Popen(SERVE + ["--ws", "127.0.0.1:0", "--max-message-bytes", "100000"],
                            stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert line.startswith("listening on ws://127.0.0.1:"), line
    yield line.split()[-1]
    assert proc.poll() is None, "the WebSocket server died"
    proc.terminate()
    proc.wait(timeout=60)


def test_websocket_serves_several_clients_and_survives_rude_ones(ws_server):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    def call(ws, i, method, methods, **params):
        methods[i] = method
        ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
        while True:
            m = json.loads(ws.recv(timeout=120))
            check_server_message(m, methods)
            if m.get("id") == i:
                return m

    methods = {}
    with connect(ws_server) as a, connect(ws_server) as b:
        assert call(a, 1, "hello", methods)["result"]["protocol"] == "metro-ai"
        gid = call(a, 2, "new_game", methods, game="metro")["result"]["game_id"]
        assert call(b, 3, "state", methods, game_id=gid)["error"]["code"] == E.UNKNOWN_GAME   # per connection
        a.send(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "go",
                           "params": {"game_id": gid, "limit": {"iterations": 10 ** 12}}}))
        methods[4] = "go"
        stop = call(a, 5, "stop", methods, game_id=gid)["result"]
        assert stop["stopped"]
        a.send(b"\xff\xfe")                                 # binary, not UTF-8
        assert json.loads(a.recv(timeout=60))["error"]["code"] == E.PARSE_ERROR
    with connect(ws_server) as rude:                        # leaves mid-search
        call(rude, 6, "new_game", methods, game="metro")
        rude.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "go",
                              "params": {"game_id": "g1", "limit": {"iterations": 10 ** 12}}}))
    with connect(ws_server) as big:                         # over --max-message-bytes: closed, 1009
        big.send("x" * 200_000)
        with pytest.raises(ConnectionClosed) as closed:
            big.recv(timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with connect(ws_server) as after:                       # the server is still there
        assert "result" in call(after, 8, "hello", methods)


@pytest.mark.parametrize("target", tiered(["inprocess", "stdio", "ws"], fast=lambda target: target == "inprocess"))
def test_fuzzed_messages_get_schema_valid_answers_and_never_stop_the_server(target):
    run = subprocess.run([sys.executable, str(FUZZ), "--target", target, "--examples", "60"],
                         capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir())
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith(f"fuzz: {target}: ") and "error_-32700" in last and "result=" in last, last


def test_stdio_requests_sent_right_after_stop_find_the_game_idle():
    s = Served()
    s.send(1, "new_game", game="metro", options={"players": 2}, seed=5)
    s.send(2, "go", game_id="g1", limit={"iterations": 10 ** 12})
    s.wait_for(lambda m: m.get("method") == "progress")
    s.methods.update({3: "stop", 4: "apply"})
    s.write(_request(3, "stop", game_id="g1") + _request(4, "apply", game_id="g1", action="draw"))
    assert s.answer(4)["result"]["text"] == "draw"
    order = [m.get("id") for m in s.messages if m.get("id") in (2, 3, 4)]
    assert order == [2, 3, 4]
    s.finish()
