"""The server's edges (docs/security.md): who may connect (the token on every handshake, then Host
and Origin) to ``metro-ai serve --ws`` and ``metro-ai web``, tried with a real WebSocket client
and raw HTTP, on loopback and in the network set-up (``--allow-remote --token``); file options only
inside ``--data-dir`` (FIFOs, devices, links out, ``..``, absolute paths refused quickly, without
telling what lies outside or quoting a file); and the operator's limits, which a client cannot
exceed, down to a greedy client that cannot starve another (its figures are printed: ``-s``)."""
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from metro_ai.protocol import errors as E
from metro_ai.protocol.access import Access
from metro_ai.protocol.limits import Limits, Server
from tests.protocol_client import Client, check_server_message, run

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "engine" / "metro" / "data" / "companies_chart.csv"
LADDER = ROOT / "bots" / "data" / "ladder-metro-2p.json"
SERVE = [sys.executable, "-m", "metro_ai", "serve"]


# ---- servers as subprocesses ----

class Proc:
    """A server subprocess; `url` is the address it printed (the token included)."""

    def __init__(self, args, web=False):
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stream = self.proc.stdout if web else self.proc.stderr
        line = stream.readline()
        while line and not line.startswith(("serving on ", "listening on ")):
            line = stream.readline()
        assert line, self.proc.stderr.read()
        if web:
            self.page = line.split()[2]                                 # http://127.0.0.1:PORT/?token=...
            self.url = self.page.split("?")[0]                          # http://127.0.0.1:PORT/
            self.ws = line.split("programs: ")[1].split(")")[0]          # ws://.../ws?token=...
        else:
            self.ws = line.split()[-1]                                  # ws://127.0.0.1:PORT/?token=...
            self.url = self.ws.replace("ws://", "http://").split("?")[0]
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
        self.bare = self.ws.split("?")[0]                               # without the token

    def close(self):
        alive = self.proc.poll() is None
        self.proc.terminate()
        self.proc.wait(timeout=60)
        assert alive, "the server died"


@pytest.fixture()
def ws_server():
    p = Proc(SERVE + ["--ws", "127.0.0.1:0"])
    yield p
    p.close()


@pytest.fixture()
def page_server():
    p = Proc([sys.executable, "-m", "metro_ai", "web", "--port", "0", "--no-browser"], web=True)
    yield p
    p.close()


def _http(port, path="/", host=None, headers=()):
    """A raw HTTP/1.1 GET: (status, body)."""
    host = host if host is not None else f"127.0.0.1:{port}"
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Connection: close", *headers, "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall("\r\n".join(lines).encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def _handshake(port, path, host=None, origin=None):
    """A raw WebSocket handshake: the HTTP status (101 accepted)."""
    headers = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
               "Sec-WebSocket-Version: 13"] + ([f"Origin: {origin}"] if origin else [])
    host = host if host is not None else f"127.0.0.1:{port}"
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", *headers, "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall("\r\n".join(lines).encode())
        return int(s.recv(65536).split()[1])


def _hello(url, origin=None):
    from websockets.sync.client import connect
    with connect(url, origin=origin, open_timeout=30) as ws:
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {}}))
        answer = json.loads(ws.recv(timeout=60))
        check_server_message(answer, {1: "hello"})
        return answer["result"]


def _refused(url, origin=None):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect
    with pytest.raises(InvalidStatus) as refused:
        with connect(url, origin=origin, open_timeout=30):
            pass
    return refused.value.response.status_code


# ---- who may connect ----

def _own_origins(port, host="127.0.0.1"):
    return [f"http://{host}:{port}"] + ([f"http://localhost:{port}", f"http://[::1]:{port}"]
                                         if host == "127.0.0.1" else [])


def test_serve_ws_takes_its_token_and_nothing_else(ws_server):
    p = ws_server
    assert "token=" in p.ws and _hello(p.ws)["limits"]["max_workers"] == Limits().max_workers
    for own in _own_origins(p.port):
        assert _hello(p.ws, origin=own)["protocol"] == "metro-ai"           # its own page's origin, with the token
        assert _refused(p.bare, origin=own) == 403                          # a forged own Origin is no credential
        assert _handshake(p.port, "/", origin=own) == 403
    assert _refused(p.bare) == 403                                      # a program without the token
    assert _refused(p.bare + "?token=wrong-token-0123456789") == 403
    token = p.ws.split("token=")[1]
    assert _refused(p.bare + f"?token={token}&token={token}") == 403     # one token, not two
    for foreign in ("http://evil.example", f"http://evil.example:{p.port}", "null", f"https://127.0.0.1:{p.port}",
                    f"http://127.0.0.1:{p.port + 1}"):
        assert _refused(p.ws, origin=foreign) == 403, foreign           # the token does not excuse a foreign page
    assert _handshake(p.port, "/?" + p.ws.split("?")[1], host=f"evil.example:{p.port}") == 421   # DNS rebinding
    assert _handshake(p.port, "/?" + p.ws.split("?")[1], origin=f"http://127.0.0.1:{p.port}") == 101
    assert _hello(p.ws)["protocol"] == "metro-ai"                        # still serving


def test_web_serves_its_page_to_its_own_host_and_takes_only_the_token(page_server):
    p = page_server
    assert p.page == f"{p.url}?token={p.ws.split('token=')[1]}"         # the page's address carries the token
    for host in (f"127.0.0.1:{p.port}", f"localhost:{p.port}", f"[::1]:{p.port}", f"LOCALHOST:{p.port}"):
        status, body = _http(p.port, host=host)
        assert status == 200 and b"<script" in body, host
    for host in (f"evil.example:{p.port}", "evil.example", f"127.0.0.1:{p.port + 1}", "", f"127.0.0.1.nip.io:{p.port}"):
        status, body = _http(p.port, host=host)
        assert status == 421 and b"Host" in body, host
    for own in _own_origins(p.port):
        assert _hello(p.ws, origin=own)["data_dir"] is False             # the page: its own origin and the token
        assert _refused(p.bare, origin=own) == 403                       # its origin alone: refused
    assert _hello(p.ws)["protocol"] == "metro-ai"                         # a program with the token
    assert _refused(p.bare) == 403
    assert _refused(p.ws, origin="http://evil.example") == 403
    assert _handshake(p.port, "/ws", host=f"evil.example:{p.port}", origin=f"http://evil.example:{p.port}") == 421
    assert _handshake(p.port, "/ws", origin=f"http://127.0.0.1:{p.port}") == 403
    assert _handshake(p.port, "/ws?" + p.ws.split("?")[1], origin=f"http://127.0.0.1:{p.port}") == 101


def test_allow_origin_admits_a_page_of_that_origin_with_the_token_only():
    p = Proc(SERVE + ["--ws", "127.0.0.1:0", "--allow-origin", "http://localhost:3000"])
    try:
        assert _hello(p.ws, origin="http://localhost:3000")["protocol"] == "metro-ai"
        assert _refused(p.bare, origin="http://localhost:3000") == 403
        assert _refused(p.bare) == 403
        assert _refused(p.ws, origin="http://localhost:3001") == 403
        assert _http(p.port, host="localhost:3000")[0] != 421            # the allowed origin's host
    finally:
        p.close()
    for command in (["serve", "--ws", "127.0.0.1:0"], ["web", "--port", "0", "--no-browser"]):
        run_ = subprocess.run([sys.executable, "-m", "metro_ai", *command, "--allow-no-origin"], capture_output=True,
                              text=True, timeout=120)
        assert run_.returncode == 2 and "--allow-no-origin" in run_.stderr, run_.stderr   # no way round the token


def _reachable_address():
    """An address of this machine that is not loopback (the one it would reach the network
    from), or None. Nothing is sent: a UDP socket is only pointed at a documentation address."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = s.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.mark.parametrize("where", ["wildcard", "address"])
def test_in_the_network_set_up_a_forged_host_and_origin_without_the_token_are_refused(where):
    """``serve --ws ADDR:PORT --allow-remote --token LONG``: a remote client that sends the Host
    and Origin of the server itself, without the token, is refused; with it, it plays."""
    address = "0.0.0.0" if where == "wildcard" else _reachable_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    token = "a-long-token-for-this-test-0123456789"
    p = Proc(SERVE + ["--ws", f"{address}:0", "--allow-remote", "--token", token])
    try:
        name = "127.0.0.1" if where == "wildcard" else address
        bare = f"ws://{name}:{p.port}/"
        for origin in _own_origins(p.port, name):
            assert _refused(bare, origin=origin) == 403, origin
        assert _refused(bare) == 403
        assert _refused(bare + "?token=" + token[:-1] + "X") == 403
        assert _hello(bare + "?token=" + token, origin=f"http://{name}:{p.port}")["protocol"] == "metro-ai"
    finally:
        p.close()


def test_listening_beyond_loopback_needs_allow_remote_and_warns():
    for command in (["serve", "--ws", "0.0.0.0:0"], ["web", "--host", "0.0.0.0", "--port", "0", "--no-browser"]):
        run_ = subprocess.run([sys.executable, "-m", "metro_ai", *command], capture_output=True, text=True,
                              timeout=120)
        assert run_.returncode == 2 and "--allow-remote" in run_.stderr, run_.stderr
    proc = subprocess.Popen(SERVE + ["--ws", "0.0.0.0:0", "--allow-remote"], stderr=subprocess.PIPE, text=True)
    try:
        warning = proc.stderr.readline()
        assert "WARNING" in warning and "beyond this machine" in warning, warning
        assert proc.stderr.readline().startswith("listening on ws://0.0.0.0:")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_access_rules_in_isolation():
    with pytest.raises(ValueError, match="--allow-remote"):
        Access("192.0.2.1")
    with pytest.raises(ValueError, match="--allow-origin"):
        Access("127.0.0.1", allow_origins=["localhost:3000"])
    with pytest.raises(ValueError, match="--token"):
        Access("127.0.0.1", token="short")
    a = Access("localhost", token="a-token-of-enough-length")
    a.bind(8000)
    assert a.hosts == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert Access("127.0.0.1").token != Access("127.0.0.1").token          # fresh each start


def test_every_handshake_needs_the_token_in_isolation():
    """The rules on requests built by hand, the network set-up included: an Origin or Host of the
    server itself, however many Upgrade headers, never stands in for the token."""
    from websockets.datastructures import Headers
    from websockets.http11 import Request
    token = "a-long-token-for-this-test"
    remote = Access("192.0.2.1", token=token, allow_remote=True)
    remote.bind(8765)

    def refused(path, *headers):
        request = Request(path, Headers([("Host", "192.0.2.1:8765"), ("Connection", "Upgrade"), *headers]))
        found = remote.refuse(request)
        return None if found is None else found[0]
    own = ("Origin", "http://192.0.2.1:8765")
    assert refused("/", ("Upgrade", "websocket"), own) == 403
    assert refused("/", ("Upgrade", "h2c"), ("Upgrade", "WebSocket"), own) == 403
    assert refused("/", ("Upgrade", "websocket")) == 403
    assert refused(f"/?token={token}x", ("Upgrade", "websocket"), own) == 403
    assert refused(f"/?token={token}", ("Upgrade", "websocket"), own) is None
    assert refused(f"/?token={token}", ("Upgrade", "websocket")) is None          # a program: no Origin
    assert refused(f"/?token={token}", ("Upgrade", "websocket"), ("Origin", "http://evil.example")) == 403
    assert refused("/index.html") is None                                      # a page's file needs none


# ---- files only inside --data-dir ----

@pytest.fixture()
def data_dir(tmp_path):
    """A data directory holding a chart, a ladder, a FIFO, links out, a big file; and a secret beside it."""
    d = tmp_path / "data"
    d.mkdir()
    shutil.copy(CHART, d / "chart.csv")
    shutil.copy(LADDER, d / "ladder.json")
    os.mkfifo(d / "fifo.csv")
    (d / "sub").mkdir()
    (tmp_path / "secret.csv").write_text("root:SECRET-VALUE:0:0\n")
    os.symlink(tmp_path / "secret.csv", d / "out.csv")
    os.symlink("/dev/zero", d / "zero.csv")
    os.symlink(d / "chart.csv", d / "inside.csv")                       # a link that stays inside: fine
    (d / "big.csv").write_bytes(b"x" * (Limits().max_file_bytes + 1))
    return d


def _chart_error(client, name, code=E.FILE_REFUSED):
    async def go():
        t0 = time.perf_counter()
        message = await client.error("new_game", code, game="metro",
                                     options={"players": 2, "companies": True, "company_chart": name})
        return message, time.perf_counter() - t0
    return go()


def test_no_data_dir_no_files():
    async def go():
        c = Client()
        assert (await c.result("hello"))["data_dir"] is False
        for name in ("chart.csv", "/etc/passwd", str(CHART)):
            message, _ = await _chart_error(c, name)
            assert "--data-dir" in message and "passwd" not in message.replace(name, "")
        message = await c.error("load_state", E.FILE_REFUSED, state={"game": "metro", "options": {
            "players": 2, "companies": True, "company_chart": "/etc/passwd"}})
        assert "--data-dir" in message
        g = (await c.result("new_game", game="metro", options={"players": 2}))["game_id"]
        message = await c.error("go", E.FILE_REFUSED, game_id=g, bot="ismcts:elo=1400,ladder=/etc/passwd")
        assert "--data-dir" in message
        for bot in ("ismcts:evaluator=/etc/passwd", "mo-ismcts:eval=learned,evaluator=/etc/passwd"):
            message = await c.error("go", E.FILE_REFUSED, game_id=g, bot=bot)     # a learned evaluator's file
            assert "--data-dir" in message and "evaluator" in message
    run(go())


def test_files_outside_or_not_regular_are_refused_quickly_and_alike(data_dir):
    async def go():
        c = Client(server=Server(Limits(), data_dir))
        assert (await c.result("hello"))["data_dir"] is True
        missing = {}
        for name in ("/etc/passwd", "/dev/zero", "../secret.csv", "sub/../../secret.csv", str(data_dir / "chart.csv"),
                     "out.csv", "zero.csv", "nothing.csv", "../../../../../../etc/shadow", "~/x.csv", "C:/x"):
            message, seconds = await _chart_error(c, name)
            assert seconds < 1.0, (name, seconds)
            assert "no such file in the data directory" in message, message
            own = message.replace(repr(name), "NAME")                 # the client's own words aside
            assert "SECRET" not in own and "root" not in own and str(data_dir) not in own, message
            missing[name] = own
        assert len(set(missing.values())) == 1, missing               # outside or missing: one answer
        for name, why in (("fifo.csv", "not a regular file"), ("sub", "not a regular file"), ("big.csv", "over")):
            message, seconds = await _chart_error(c, name)
            assert why in message and seconds < 1.0, (name, message, seconds)
        for name in ("", 3, "a\x00b"):
            await _chart_error(c, name)
        hello = await c.result("hello")                                # the session goes on
        assert hello["limits"]["max_file_bytes"] == Limits().max_file_bytes
    run(go())


def test_every_file_option_of_every_game_is_held_to_the_data_dir(data_dir):
    """The file options are found from the games' declared options (kind "path"), for new_game and
    load_state alike."""
    from metro_ai.protocol.files import game_file_options
    from metro_ai.registry import game_class, list_games
    found = {name: game_file_options(game_class(name)) for name in list_games()}
    assert {"company_chart", "central_track_layouts", "city_data", "card_set", "cards"} <= \
        {o for opts in found.values() for o in opts}

    async def go():
        c = Client(server=Server(Limits(), data_dir))
        for game, options in found.items():
            for option in options:
                for bad in ("fifo.csv", "/dev/zero", "../secret.csv", "out.csv", "/etc/passwd"):
                    t0 = time.perf_counter()
                    message = await c.error("new_game", E.FILE_REFUSED, game=game, options={option: bad})
                    assert option in message and time.perf_counter() - t0 < 1.0, message
                    message = await c.error("load_state", E.FILE_REFUSED, state={"game": game, "options": {option: bad}})
                    assert "SECRET" not in message and "root:" not in message
    run(go())


def test_a_file_inside_the_data_dir_plays_and_round_trips_by_its_name(data_dir):
    async def go():
        c = Client(server=Server(Limits(), data_dir))
        for name in ("chart.csv", "inside.csv", "./chart.csv"):
            summary = await c.result("new_game", game="metro", seed=4,
                                     options={"players": 2, "companies": True, "company_chart": name})
            assert summary["options"]["company_chart"] == name        # the client's name, not the real path
        saved = await c.result("save", game_id="g1")
        assert saved["state"]["options"]["company_chart"] == "chart.csv"
        assert str(data_dir) not in json.dumps(saved)
        loaded = await c.result("load_state", state=saved["state"])
        assert loaded["options"]["company_chart"] == "chart.csv"
        message = await c.error("go", E.INVALID_PARAMS, game_id="g1", bot="ismcts:elo=1400,ladder=ladder.json")
        assert "measured with other options" in message and str(data_dir) not in message     # the chart's path hidden
        plain = (await c.result("new_game", game="metro", options={"players": 2}))["game_id"]
        go_ = await c.result("go", game_id=plain, bot="ismcts:elo=1400,ladder=ladder.json", limit={"iterations": 50})
        assert go_["bot"] == "ismcts:elo=1400,ladder=ladder.json"
        for bad in ("../secret.csv", "/etc/passwd", "fifo.csv", "zero.csv"):
            message = await c.error("go", E.FILE_REFUSED, game_id="g1", bot=f"ismcts:elo=1400,ladder={bad}")
            assert "SECRET" not in message and str(data_dir) not in message
        message = await c.error("go", E.INVALID_PARAMS, game_id="g1", bot="ismcts:elo=1400,ladder=chart.csv")
        assert str(data_dir) not in message                            # not a ladder: named as the client named it
    run(go())


def test_over_websocket_a_fifo_refused_and_the_server_keeps_serving(data_dir):
    from websockets.sync.client import connect
    p = Proc(SERVE + ["--ws", "127.0.0.1:0", "--data-dir", str(data_dir)])
    try:
        with connect(p.ws) as a, connect(p.ws) as b:
            for i, name in enumerate(("fifo.csv", "zero.csv", "/dev/zero", "../secret.csv")):
                t0 = time.perf_counter()
                a.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "new_game", "params": {
                    "game": "metro", "options": {"players": 2, "companies": True, "company_chart": name}}}))
                answer = json.loads(a.recv(timeout=10))
                assert answer["error"]["code"] == E.FILE_REFUSED and time.perf_counter() - t0 < 2, answer
                b.send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "hello", "params": {}}))
                assert json.loads(b.recv(timeout=10))["result"]["data_dir"] is True
    finally:
        p.close()


# ---- limits ----

def test_a_client_cannot_exceed_the_limits():
    async def go():
        server = Server(Limits(max_workers=2, max_nodes=100_000, max_search_seconds=0.5, max_searches=3,
                               max_searches_per_connection=2))
        a, b = Client(server=server), Client(server=server)
        hello = await a.result("hello")
        assert hello["limits"]["max_workers"] == 2 and hello["limits"]["max_search_seconds"] == 0.5
        games = [(await a.result("new_game", game="metro", options={"players": 2}))["game_id"] for _ in range(3)]
        for bot, limit, what in (("ismcts:workers=3", None, "max_workers"),
                                 ("max:workers=256", None, "max_workers"),
                                 ("ismcts:max_nodes=1000000", None, "max_nodes"),
                                 ("ismcts:time=5", None, "max_search_seconds"),
                                 ("ismcts", {"time": 1.0}, "max_search_seconds"),
                                 ("ismcts:workers=2,backend=processes", None, "backend")):
            answer = await a.call("go", game_id=games[0], bot=bot, **({"limit": limit} if limit else {}))
            assert answer["error"]["code"] == E.OVER_LIMIT and answer["error"]["data"]["limit"] == what, answer
            assert what in answer["error"]["message"] or what == "backend"
        # a search on iterations only stops by the time limit, with its best move
        t0 = time.perf_counter()
        result = await a.result("go", game_id=games[0], bot="ismcts:workers=2", limit={"iterations": 10 ** 12})
        assert result["stopped"] and 0.4 < time.perf_counter() - t0 < 3, result
        # searches at once: 2 on this connection, 3 on the server
        runs = [a.send("go", game_id=g, limit={"iterations": 10 ** 12}) for g in games[:2]]
        for _, sending in runs:
            await sending
        answer = await a.call("go", game_id=games[2])
        assert answer["error"]["code"] == E.TOO_MANY_SEARCHES
        assert answer["error"]["data"] == {"limit": "max_searches_per_connection", "max": 2}
        g = (await b.result("new_game", game="metro", options={"players": 2}))["game_id"]
        g2 = (await b.result("new_game", game="metro", options={"players": 2}))["game_id"]
        i, sending = b.send("go", game_id=g, limit={"iterations": 10 ** 12})
        await sending
        answer = await b.call("go", game_id=g2)
        assert answer["error"]["data"] == {"limit": "max_searches", "max": 3}
        for i_, _ in runs:
            assert (await a.answer(i_))["result"]["stopped"]
        assert (await b.answer(i))["result"]["stopped"]
        assert "result" in await b.call("go", game_id=g2, limit={"iterations": 20})   # room again
    run(go())


def test_max_connections_is_told_and_closed():
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    p = Proc(SERVE + ["--ws", "127.0.0.1:0", "--max-connections", "2"])
    try:
        with connect(p.ws) as a, connect(p.ws) as b:
            with connect(p.ws) as c:
                message = json.loads(c.recv(timeout=30))
                assert message["error"]["code"] == E.TOO_MANY_CONNECTIONS and message["id"] is None
                with pytest.raises(ConnectionClosed) as closed:
                    c.recv(timeout=30)
                assert closed.value.rcvd.code == 1013
            for ws in (a, b):
                ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {}}))
                assert "result" in json.loads(ws.recv(timeout=30))
        time.sleep(0.2)
        assert _hello(p.ws)["limits"]["max_connections"] == 2           # room again once they left
    finally:
        p.close()


def test_limits_on_the_command_line():
    from metro_ai.cli import main
    assert main(["serve", "--ws", "127.0.0.1:0", "--max-workers", "0"]) == 2
    assert main(["serve", "--max-search-seconds", "-1"]) == 2
    assert main(["serve", "--ws", "127.0.0.1:0", "--data-dir", "/nonexistent/folder"]) == 2
    proc = subprocess.run(SERVE + ["--max-workers", "3", "--max-search-seconds", "2.5"],
                          input='{"jsonrpc":"2.0","id":1,"method":"hello"}\n', capture_output=True, text=True,
                          timeout=120)
    limits = json.loads(proc.stdout)["result"]["limits"]
    assert limits["max_workers"] == 3 and limits["max_search_seconds"] == 2.5


def test_a_greedy_client_cannot_starve_another():
    """One client opens many games and asks for every search it can at the most workers (and for
    more); another client's hello, new_game and legal_actions still answer promptly, and its own
    search runs. The latencies are printed (run with -s)."""
    from websockets.sync.client import connect
    p = Proc(SERVE + ["--ws", "127.0.0.1:0"])
    limits = Limits()

    def timed(ws, i, method, **params):
        t0 = time.perf_counter()
        ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
        while True:
            m = json.loads(ws.recv(timeout=120))
            if m.get("id") == i:
                return m, time.perf_counter() - t0

    def bystander(ws, base):
        times = {"hello": [], "new_game": [], "legal_actions": []}
        for k in range(5):
            times["hello"].append(timed(ws, base + 3 * k, "hello")[1])
            m, t = timed(ws, base + 3 * k + 1, "new_game", game="metro", options={"players": 2}, seed=k)
            times["new_game"].append(t)
            times["legal_actions"].append(timed(ws, base + 3 * k + 2, "legal_actions", game_id=m["result"]["game_id"])[1])
        m, t = timed(ws, base + 99, "go", game_id="g1", limit={"iterations": 2000}, progress=False)
        assert m["result"]["iterations"] == 2000, m
        return times, t, m["result"]["seconds"]

    try:
        with connect(p.ws) as quiet:
            calm, calm_go, _ = bystander(quiet, 1000)
        with connect(p.ws, max_size=None) as greedy, connect(p.ws) as other:
            refused = {}
            n_games = 64
            for k in range(n_games):
                greedy.send(json.dumps({"jsonrpc": "2.0", "id": f"n{k}", "method": "new_game",
                                        "params": {"game": "metro2033", "seed": k}}))
            for k in range(n_games):
                greedy.send(json.dumps({"jsonrpc": "2.0", "id": f"w{k}", "method": "go", "params": {
                    "game_id": f"g{k + 1}", "bot": "ismcts:workers=256", "limit": {"iterations": 10 ** 12}}}))
                greedy.send(json.dumps({"jsonrpc": "2.0", "id": f"s{k}", "method": "go", "params": {
                    "game_id": f"g{k + 1}", "bot": f"ismcts:workers={limits.max_workers}",
                    "limit": {"iterations": 10 ** 12}, "progress": False}}))
            want = 2 * n_games - limits.max_searches_per_connection
            while sum(refused.values()) < want:
                m = json.loads(greedy.recv(timeout=60))
                if "error" in m:
                    refused[m["error"]["code"]] = refused.get(m["error"]["code"], 0) + 1
            busy, busy_go, busy_go_seconds = bystander(other, 2000)
            assert refused.get(E.OVER_LIMIT) == n_games                 # workers=256: never
            assert refused.get(E.TOO_MANY_SEARCHES) == n_games - limits.max_searches_per_connection
    finally:
        p.close()

    def fig(xs):
        return f"median {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"
    print(f"\ngreedy client: {n_games} Metro 2033 games, {limits.max_searches_per_connection} searches at "
          f"workers={limits.max_workers} running, {refused.get(E.OVER_LIMIT)} asks for workers=256 refused "
          f"(-32010), {refused.get(E.TOO_MANY_SEARCHES)} more searches refused (-32011)")
    for method in ("hello", "new_game", "legal_actions"):
        print(f"  other client's {method}: alone {fig(calm[method])}; beside the greedy one {fig(busy[method])}")
    print(f"  other client's go (2,000 iterations): alone {calm_go:.3f} s; beside the greedy one {busy_go:.3f} s "
          f"({busy_go_seconds:.3f} s searching)")
    for method in ("hello", "new_game", "legal_actions"):
        assert max(busy[method]) < 2.0, (method, busy[method])
    assert busy_go < 60
