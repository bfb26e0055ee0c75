"""Fuzzing the protocol: Hypothesis writes messages (raw bytes, any JSON, requests with any
method and any params, and near-valid requests on open games) and sends them to a session in
process, to a real ``metro-ai serve`` subprocess over stdio, or to a real WebSocket server. Every
answer must validate against the shipped JSON Schema, every request must be answered, the server
must stay up (a ``hello`` after each example) and exit cleanly at the end.

    python tests/fuzz_protocol.py --target inprocess|stdio|ws [--examples N] [--seed S]

The last line printed is ``fuzz: TARGET: N messages in E examples: OUTCOME=COUNT ...``; the
exit code is 1 on any failure. tests/test_protocol_transports.py runs a short pass of each.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, seed as hseed, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.protocol_client import SCHEMA, check_server_message  # noqa: E402

METHODS = sorted(SCHEMA["methods"])
PARAM_NAMES = sorted({k for m in SCHEMA["methods"].values() for k in m["params"]["properties"]})
GAME_IDS = ["g1", "g2", "g3", "g0", "G1", ""]
HUGE = st.sampled_from([10 ** 30, -10 ** 30, 2 ** 63, 2 ** 64 + 1, -1, 0, 10 ** 300])

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), HUGE, st.floats(allow_nan=False, allow_infinity=False),
                      st.text(max_size=20))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                           st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=12)


def _param_value(name):
    plausible = {
        "game_id": st.sampled_from(GAME_IDS), "text": st.booleans(), "progress": st.booleans(),
        "apply": st.booleans(), "game": st.sampled_from(["metro", "breakthrough", "chess", ""]),
        "seed": st.one_of(st.integers(), HUGE), "seat": st.one_of(st.integers(-2, 7), HUGE),
        "action": st.one_of(st.integers(-5, 7000), HUGE, st.sampled_from(["draw", "end turn", "place T01 at A1"])),
        "bot": st.sampled_from(["random", "greedy", "ismcts", "easy", "ismcts:c=2", "pimc:worlds=2", "nope",
                                "ismcts:workers=0", "ismcts:iterations=5"]),
        "limit": st.one_of(st.fixed_dictionaries({}, optional={
            "iterations": st.one_of(st.integers(-3, 200), HUGE, st.floats(allow_nan=False)),
            "time": st.one_of(st.floats(-1, 0.05), st.just(1e308), st.text(max_size=3))}), json_value),
        "options": st.one_of(st.fixed_dictionaries({}, optional={
            "players": st.one_of(st.integers(0, 7), HUGE), "hand_size": st.integers(0, 4),
            "orientation": st.booleans()}), json_value),
        "count": st.one_of(st.integers(-2, 5), HUGE), "top": st.one_of(st.integers(-2, 5), HUGE),
        "state": st.one_of(st.text(max_size=30), st.just({"game": "metro"}), json_value),
    }
    return plausible.get(name, json_value)


@st.composite
def requests(draw):
    """A request: mostly a known method with its own params, plausible values (often), the odd
    foreign param, and now and then a broken envelope."""
    known = draw(st.integers(0, 9)) > 0
    method = draw(st.sampled_from(METHODS)) if known else draw(st.text(max_size=10))
    own = sorted(SCHEMA["methods"][method]["params"]["properties"]) if known else PARAM_NAMES
    names = draw(st.lists(st.sampled_from(own or ["x"]), max_size=len(own) + 1, unique=True))
    if draw(st.integers(0, 9)) == 0:
        names.append(draw(st.sampled_from(PARAM_NAMES + ["x"])))
    params = {}
    for n in names:
        plausible = draw(st.integers(0, 4)) > 0
        params[n] = draw(_param_value(n) if plausible else json_value)
    if known and "game_id" in own and draw(st.integers(0, 4)) > 0:
        params["game_id"] = draw(st.sampled_from(GAME_IDS[:3]))
    if method in ("go", "analyse") and draw(st.booleans()):
        params["limit"] = {"iterations": draw(st.integers(1, 300))}
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if draw(st.integers(0, 19)) == 0:
        msg = draw(st.sampled_from([{**msg, "params": draw(json_value)}, {**msg, "jsonrpc": draw(json_value)},
                                    {k: v for k, v in msg.items() if k != "method"}]))
    return msg


def lines():
    """One message as it travels: text (None: raw bytes drawn separately)."""
    return st.one_of(
        requests().map(lambda m: ("request", m)),
        json_value.map(lambda v: ("raw", json.dumps(v))),
        st.binary(max_size=40).map(lambda b: ("bytes", b)),
        st.text(max_size=40).map(lambda t: ("raw", t)),
    )


SETUP = [{"jsonrpc": "2.0", "method": "new_game", "params": {"game": g, "options": {"players": 2}, "seed": 1}}
         for g in ("metro", "breakthrough")]


class Tally:
    def __init__(self):
        self.outcomes: Counter = Counter()
        self.messages = 0
        self.examples = 0


def outcome(message):
    if "method" in message:
        return "notification"
    if "result" in message:
        return "result"
    return f"error {message['error']['code']}"


# ---- targets ----

def fuzz_inprocess(examples, seed, tally):
    from metro_ai.protocol import Session

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @hseed(seed)
    @given(st.lists(lines(), min_size=1, max_size=8))
    def run(batch):
        asyncio.run(_inprocess(batch, tally, Session))
    run()


async def _inprocess(batch, tally, Session):
    methods: dict = {}
    got: list = []

    async def send(text):
        assert "\n" not in text
        message = json.loads(text)
        check_server_message(message, methods)
        got.append(message)

    s = Session(send, max_games=6)
    for m in SETUP:
        await s.handle_message(m)
    for i, (kind, item) in enumerate(batch):
        if kind == "request" and isinstance(item, dict) and isinstance(item.get("method"), str):
            item = {**item, "id": i}
            methods[i] = item["method"]
        await s.handle_text(json.dumps(item) if kind == "request" else item)
        tally.messages += 1
    s.stop_all()
    await s.drain()
    methods["alive"] = "hello"
    await s.handle_message({"jsonrpc": "2.0", "id": "alive", "method": "hello"})
    assert got[-1].get("id") == "alive" and "result" in got[-1]
    answered = {m.get("id") for m in got}
    assert all(i in answered for i in methods), (methods, got)
    for m in got[:-1]:
        tally.outcomes[outcome(m)] += 1
    tally.examples += 1


class LineServer:
    """A ``metro-ai serve`` subprocess: lines in, parsed messages out (a reader thread)."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve", "--max-games", "6"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: list = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.messages.append(json.loads(line))
                self.cond.notify_all()

    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, i, timeout=60):
        with self.cond:
            ok = self.cond.wait_for(lambda: any(m.get("id") == i for m in self.messages), timeout)
        assert ok, f"no answer to {i!r}: the server is stuck or gone"


def fuzz_stdio(examples, seed, tally):
    server = LineServer()
    methods: dict = {}
    for m in SETUP:
        server.write(json.dumps(m).encode() + b"\n")
    counter = [0]

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @hseed(seed)
    @given(st.lists(lines(), min_size=1, max_size=8))
    def run(batch):
        data = b""
        for kind, item in batch:
            counter[0] += 1
            if kind == "request" and isinstance(item.get("method"), str):
                item = {**item, "id": f"m{counter[0]}"}
                methods[item["id"]] = item["method"]
            if kind == "bytes":
                data += item.replace(b"\n", b" ") + b"\n"
            else:
                text = json.dumps(item) if kind == "request" else item
                data += text.replace("\n", " ").encode("utf-8", "surrogatepass") + b"\n"
            tally.messages += 1
        for g in ("g1", "g2", "g3"):      # end the searches the example began
            data += json.dumps({"jsonrpc": "2.0", "method": "stop", "params": {"game_id": g}}).encode() + b"\n"
        sentinel = f"alive{counter[0]}"
        methods[sentinel] = "hello"
        server.write(data + json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "hello"}).encode() + b"\n")
        server.wait_for(sentinel)
        tally.examples += 1
    try:
        run()
    finally:
        server.proc.stdin.close()
        code = server.proc.wait(timeout=120)
        err = server.proc.stderr.read().decode()
    assert code == 0 and "Traceback" not in err, f"exit {code}: {err[-2000:]}"
    for m in server.messages:
        check_server_message(m, methods)
        if not str(m.get("id", "")).startswith("alive"):
            tally.outcomes[outcome(m)] += 1
    answered = {m.get("id") for m in server.messages}
    missing = [i for i in methods if i not in answered]
    assert not missing, f"requests never answered: {missing[:10]}"


def fuzz_ws(examples, seed, tally):
    from websockets.sync.client import connect
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve", "--ws", "127.0.0.1:0", "--max-games", "6"],
                            stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stderr.readline().strip().split()[-1]
        assert url.startswith("ws://"), url
        with connect(url, max_size=None) as ws:
            _ws_examples(ws, examples, seed, tally)
        assert proc.poll() is None, "the WebSocket server died"
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _ws_examples(ws, examples, seed, tally):
    methods: dict = {}
    got: list = []
    for m in SETUP:
        ws.send(json.dumps(m))
    counter = [0]

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @hseed(seed)
    @given(st.lists(lines(), min_size=1, max_size=8))
    def run(batch):
        for kind, item in batch:
            counter[0] += 1
            if kind == "request" and isinstance(item.get("method"), str):
                item = {**item, "id": f"m{counter[0]}"}
                methods[item["id"]] = item["method"]
            if kind == "bytes":
                ws.send(item)                                   # a binary frame
            else:
                text = json.dumps(item) if kind == "request" else item
                ws.send(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
            tally.messages += 1
        for g in ("g1", "g2", "g3"):
            ws.send(json.dumps({"jsonrpc": "2.0", "method": "stop", "params": {"game_id": g}}))
        sentinel = f"alive{counter[0]}"
        methods[sentinel] = "hello"
        ws.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "hello"}))
        while True:
            m = json.loads(ws.recv(timeout=60))
            got.append(m)
            if m.get("id") == sentinel:
                break
        tally.examples += 1
    run()
    for m in got:
        check_server_message(m, methods)
        if not str(m.get("id", "")).startswith("alive"):
            tally.outcomes[outcome(m)] += 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=("inprocess", "stdio", "ws"), required=True)
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    tally = Tally()
    {"inprocess": fuzz_inprocess, "stdio": fuzz_stdio, "ws": fuzz_ws}[args.target](args.examples, args.seed, tally)
    counts = " ".join(f"{k.replace(' ', '_')}={v}" for k, v in sorted(tally.outcomes.items()))
    print(f"fuzz: {args.target}: {tally.messages} messages in {tally.examples} examples: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
