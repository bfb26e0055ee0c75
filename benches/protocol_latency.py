"""Protocol latency, side by side in one run: a round trip (``legal_actions`` then ``apply``) and
``go`` with 1,000 ISMCTS iterations, over stdio (``metro-ai serve`` as a subprocess) and over
WebSocket (``metro-ai serve --ws``), next to the same calls in process: the Python API itself,
and the protocol's `Session` without a transport (JSON and dispatch only). Medians, and the
ratio of each to the Python API.

    python benches/protocol_latency.py [--game metro] [--round-trips 2000] [--goes 50] [--markdown FILE]

Each round trip plays the first legal action of a seeded deal (a new deal when a game ends, not
timed), so every way makes the same calls on the same positions. The clients are as thin as the
standard library and ``websockets`` allow (blocking calls, one request at a time).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time

import metro_ai
from metro_ai import Limit

GO_ITERATIONS = 1000


def _req(i, method, **params):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})


class _Rpc:
    """A blocking client: ``call(method, **params)`` -> result, over some send/receive pair."""

    def __init__(self, send, recv):
        self._send, self._recv, self._i = send, recv, 0

    def call(self, method, **params):
        self._i += 1
        self._send(_req(self._i, method, **params))
        while True:
            m = json.loads(self._recv())
            if m.get("id") == self._i:
                if "error" in m:
                    raise RuntimeError(m["error"]["message"])
                return m["result"]


def _protocol_samples(rpc, game, players, round_trips, goes):
    trips, go_times = [], []
    seed = 1
    gid = rpc.call("new_game", game=game, options={"players": players}, seed=seed)["game_id"]
    while len(trips) < round_trips:
        t0 = time.perf_counter()
        legal = rpc.call("legal_actions", game_id=gid)
        state = rpc.call("apply", game_id=gid, action=legal["actions"][0]["id"])["state"]
        trips.append(time.perf_counter() - t0)
        if state["terminal"]:
            rpc.call("close", game_id=gid)
            seed += 1
            gid = rpc.call("new_game", game=game, options={"players": players}, seed=seed)["game_id"]
    gid = rpc.call("new_game", game=game, options={"players": players}, seed=1)["game_id"]
    for k in range(goes):
        t0 = time.perf_counter()
        rpc.call("go", game_id=gid, bot="ismcts", seed=k, limit={"iterations": GO_ITERATIONS}, progress=False)
        go_times.append(time.perf_counter() - t0)
    return trips, go_times


def _api_samples(game, players, round_trips, goes):
    trips, go_times = [], []
    g = metro_ai.load_game(game, players=players)
    seed = 1
    state = g.new_state(seed)
    while len(trips) < round_trips:
        t0 = time.perf_counter()
        actions = state.legal_actions()
        [state.action_to_string(a) for a in actions]            # the protocol sends the texts too
        after = state.clone()                                    # the protocol keeps the history
        after.apply(actions[0])
        state = after
        trips.append(time.perf_counter() - t0)
        if state.is_terminal():
            seed += 1
            state = g.new_state(seed)
    state = g.new_state(1)
    for k in range(goes):
        bot = metro_ai.make_bot("ismcts", seed=k)
        t0 = time.perf_counter()
        bot.choose(state, Limit(iterations=GO_ITERATIONS))
        go_times.append(time.perf_counter() - t0)
    return trips, go_times


def _session_samples(game, players, round_trips, goes):
    """The Session in process: JSON text in and out, no transport (an event loop drives it)."""
    from metro_ai.protocol import Session

    async def main():
        inbox: asyncio.Queue = asyncio.Queue()

        async def send(text):
            inbox.put_nowait(text)
        s = Session(send)

        class AsyncRpc:
            i = 0

            async def call(self, method, **params):
                self.i += 1
                await s.handle_text(_req(self.i, method, **params))
                while True:
                    m = json.loads(await inbox.get())
                    if m.get("id") == self.i:
                        return m["result"]
        rpc = AsyncRpc()
        trips, go_times = [], []
        seed = 1
        gid = (await rpc.call("new_game", game=game, options={"players": players}, seed=seed))["game_id"]
        while len(trips) < round_trips:
            t0 = time.perf_counter()
            legal = await rpc.call("legal_actions", game_id=gid)
            state = (await rpc.call("apply", game_id=gid, action=legal["actions"][0]["id"]))["state"]
            trips.append(time.perf_counter() - t0)
            if state["terminal"]:
                await rpc.call("close", game_id=gid)
                seed += 1
                gid = (await rpc.call("new_game", game=game, options={"players": players}, seed=seed))["game_id"]
        gid = (await rpc.call("new_game", game=game, options={"players": players}, seed=1))["game_id"]
        for k in range(goes):
            t0 = time.perf_counter()
            await rpc.call("go", game_id=gid, bot="ismcts", seed=k, limit={"iterations": GO_ITERATIONS},
                           progress=False)
            go_times.append(time.perf_counter() - t0)
        return trips, go_times
    return asyncio.run(main())


def _stdio_samples(game, players, round_trips, goes):
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, bufsize=0)

    def send(text):
        proc.stdin.write(text.encode() + b"\n")

    try:
        return _protocol_samples(_Rpc(send, proc.stdout.readline), game, players, round_trips, goes)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def _ws_samples(game, players, round_trips, goes):
    from websockets.sync.client import connect
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "serve", "--ws", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stderr.readline().split()[-1]
        with connect(url, compression=None, max_size=None) as ws:
            return _protocol_samples(_Rpc(ws.send, ws.recv), game, players, round_trips, goes)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


WAYS = {"Python API (in process)": _api_samples, "Session (in process, JSON)": _session_samples,
        "stdio (metro-ai serve)": _stdio_samples, "WebSocket (metro-ai serve --ws)": _ws_samples}


def measure(game="metro", players=2, round_trips=2000, goes=50):
    """{way: {"round_trip": median seconds, "go": median seconds}} for every way, in one run."""
    out = {}
    for way, fn in WAYS.items():
        trips, go_times = fn(game, players, round_trips, goes)
        out[way] = {"round_trip": statistics.median(trips), "go": statistics.median(go_times),
                    "round_trips": len(trips), "goes": len(go_times)}
    return out


def markdown(results, game, players):
    base = results["Python API (in process)"]
    rows = [f"{game}, {players} players; medians; ratio to the Python API in brackets",
            "", "| way | round trip (legal_actions + apply) | go, 1,000 ISMCTS iterations |", "|---|---|---|"]
    for way, r in results.items():
        rows.append(f"| {way} | {r['round_trip'] * 1e3:.3f} ms (x{r['round_trip'] / base['round_trip']:.1f}) | "
                    f"{r['go'] * 1e3:.2f} ms (x{r['go'] / base['go']:.2f}) |")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="metro", choices=metro_ai.list_games())
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--round-trips", type=int, default=2000)
    ap.add_argument("--goes", type=int, default=50)
    ap.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = ap.parse_args(argv)
    results = measure(args.game, args.players, args.round_trips, args.goes)
    table = markdown(results, args.game, args.players)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
