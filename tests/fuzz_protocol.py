"""Fuzzing the protocol: Hypothesis writes messages (raw bytes, any JSON, requests with any
method and any params, and near-valid requests on open games) and sends them to a session in
process, to a real ``metro-ai serve`` subprocess over stdio, or to a real WebSocket server. Every
answer must validate against the shipped JSON Schema, every request must be answered, the server
must stay up (a ``hello`` after each example) and exit cleanly at the end.

    python tests/fuzz_protocol.py --target inprocess|stdio|ws [--examples N] [--seed S]

The last line printed is ``fuzz: TARGET: N messages in E examples: OUTCOME=COUNT ...``; the
exit code is 1 on any failure. tests/face/test_protocol_transports.py runs a short pass of each.
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
GAME_IDS = ["@0", "@1", "@0", "g0", "G1", ""]        # @k: the example's own k-th game (a fresh one)
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
            # (finite: JSON has no infinity; json.dumps would write `Infinity`, a message that is
            # not JSON at all, which the server rightly answers with a parse error and no id)
            "iterations": st.one_of(st.integers(-3, 200), HUGE, st.floats(allow_nan=False, allow_infinity=False)),
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
            item = {**substitute(item, ["g1", "g2"]), "id": i}
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


def substitute(message, ids):
    """The message with "@k" game ids replaced by the example's k-th game id."""
    params = message.get("params") if isinstance(message, dict) else None
    if isinstance(params, dict) and isinstance(params.get("game_id"), str) and params["game_id"].startswith("@"):
        message = {**message, "params": {**params, "game_id": ids[int(params["game_id"][1:])]}}
    return message


class Remote:
    """A real server over a transport: ``send(data)`` sends one message (bytes or text),
    ``receive(timeout)`` returns the next message from the server (parsed)."""

    def __init__(self, send, receive):
        self._send, self._receive = send, receive
        self.messages: list = []
        self.methods: dict = {}
        self.n = 0

    def request(self, method, **params):
        self.n += 1
        i = f"h{self.n}"
        self.methods[i] = method
        self._send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
        return i

    def notify(self, method, **params):
        self._send(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))

    def wait_for(self, i):
        while not any(m.get("id") == i for m in self.messages[-50:]):
            m = self._receive(60)
            check_server_message(m, self.methods)
            self.messages.append(m)
        return next(m for m in reversed(self.messages) if m.get("id") == i)

    def example(self, batch, tally):
        """Fresh games, the fuzzed batch on them, then a hello that must be answered; the games
        made (fresh or by the batch) are stopped and closed afterwards."""
        setup = [self.request("new_game", game=g, options={"players": 2}, seed=1) for g in ("metro", "breakthrough")]
        ids = [self.wait_for(i)["result"]["game_id"] for i in setup]
        sent = []
        for kind, item in batch:
            self.n += 1
            if kind == "request" and isinstance(item.get("method"), str):
                item = {**substitute(item, ids), "id": f"m{self.n}"}
                self.methods[item["id"]] = item["method"]
                sent.append(item["id"])
            if kind == "bytes":
                self._send(item)
            else:
                self._send(json.dumps(item) if kind == "request" else item)
            tally.messages += 1
        alive = self.request("hello")
        self.wait_for(alive)
        made = set(ids) | {m["result"]["game_id"] for m in self.messages[-100:]
                           if self.methods.get(m.get("id")) in ("new_game", "load_state") and "result" in m}
        for g in sorted(made):
            self.notify("close", game_id=g)               # stops its search too
        tally.examples += 1

    def tally(self, tally):
        fuzzed = [m for m in self.messages if not str(m.get("id", "")).startswith("h")]
        for m in fuzzed:
            tally.outcomes[outcome(m)] += 1
        answered = {m.get("id") for m in self.messages}
        missing = [i for i in self.methods if i.startswith("m") and i not in answered]
        return missing


def _fuzz_remote(remote, examples, seed, tally):
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @hseed(seed)
    @given(st.lists(lines(), min_size=1, max_size=8))
    def run(batch):
        remote.example(batch, tally)
    run()


def fuzz_stdio(examples, seed, tally):
    import queue
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve", "--max-games", "16"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    inbox: queue.Queue = queue.Queue()

    def read():
        for line in proc.stdout:
            inbox.put(json.loads(line))
    threading.Thread(target=read, daemon=True).start()

    def send(data):
        data = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        proc.stdin.write(data.replace(b"\n", b" ") + b"\n")
        proc.stdin.flush()

    remote = Remote(send, lambda timeout: inbox.get(timeout=timeout))
    try:
        _fuzz_remote(remote, examples, seed, tally)
    finally:
        proc.stdin.close()
        code = proc.wait(timeout=120)
        err = proc.stderr.read().decode()
    while not inbox.empty():
        m = inbox.get()
        check_server_message(m, remote.methods)
        remote.messages.append(m)
    assert code == 0 and "Traceback" not in err, f"exit {code}: {err[-2000:]}"
    missing = remote.tally(tally)
    assert not missing, f"requests never answered: {missing[:10]}"


def fuzz_ws(examples, seed, tally):
    from websockets.sync.client import connect
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve", "--ws", "127.0.0.1:0", "--max-games", "16"],
                            stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stderr.readline().strip().split()[-1]
        assert url.startswith("ws://"), url
        with connect(url, max_size=None) as ws:
            def send(data):
                ws.send(data if isinstance(data, bytes) else
                        data.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
            remote = Remote(send, lambda timeout: json.loads(ws.recv(timeout=timeout)))
            _fuzz_remote(remote, examples, seed, tally)
            alive = remote.request("hello")                    # the answers still owed come first
            remote.wait_for(alive)
        remote.tally(tally)
        assert proc.poll() is None, "the WebSocket server died"
    finally:
        proc.terminate()
        proc.wait(timeout=60)


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
