"""``metro-ai web`` without a browser: the page's files over HTTP and the protocol over WebSocket
on the same port (a real ``metro-ai web`` subprocess), path handling, and the page's files
shipped as package data. The page played in a real browser is tests/face/test_web_browser.py."""
import ast
import fnmatch
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import metro_ai.web
from metro_ai.web import static_file
from tests.protocol_client import check_server_message
from web_server import web_server as serve_page

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "metro_ai" / "web" / "static"


@pytest.fixture()
def web_server():
    """A ``metro-ai web --port 0 --no-browser`` subprocess; yields its page's address and token."""
    with serve_page() as page:
        url, token = page.split("?token=")
        yield url, token


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type"), exc.read()


def test_the_page_and_the_protocol_share_one_port(web_server):
    from websockets.sync.client import connect

    web_server, token = web_server
    status, kind, body = _get(web_server + "?token=" + token)
    assert status == 200 and kind.startswith("text/html") and b'<script src="app.js">' in body
    for name, want in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, kind, body = _get(web_server + name)
        assert status == 200 and kind.startswith(want) and body == (STATIC / name).read_bytes()
    status, _, body = _get(web_server + "missing.js")
    assert status == 404 and b"not found: /missing.js" in body
    status, _, body = _get(web_server + "ws")                  # plain HTTP at the WebSocket's path
    assert status == 426 and b"WebSocket" in body

    methods = {1: "hello", 2: "new_game", 3: "svg"}
    origin = web_server.rstrip("/")                            # the page's own origin, as a browser sends it
    with connect(web_server.replace("http://", "ws://") + "ws?token=" + token, origin=origin) as ws:
        answers = []
        for i, method, params in ((1, "hello", {}), (2, "new_game", {"game": "metro", "options": {"players": 2}}),
                                  (3, "svg", {"game_id": "g1", "seat": 0})):
            ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
            answer = json.loads(ws.recv(timeout=60))
            check_server_message(answer, methods)
            answers.append(answer["result"])
    assert "svg" in answers[0]["methods"] and answers[1]["game_id"] == "g1"
    assert answers[2]["svg"].startswith("<svg") and 'data-square="0"' in answers[2]["svg"]


def test_static_files_are_served_only_from_the_static_folder():
    body, kind = static_file("/")
    assert kind.startswith("text/html") and body == (STATIC / "index.html").read_bytes()
    assert static_file("/app.js?v=1")[0] == (STATIC / "app.js").read_bytes()
    for path in ("/../__init__.py", "/..", "/static/../../cli.py", "/.hidden", "//etc/passwd", "/a\\..\\b",
                 "/nothing.html"):
        assert static_file(path) is None, path


def test_the_page_ships_as_package_data():
    """Every file of the page matches pyproject's package-data patterns for metro_ai.web (so a
    wheel holds it) and is read through importlib.resources, as installed."""
    found = re.search(r'^"metro_ai\.web" = (\[.*\])$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert found, "pyproject.toml has no package-data line for metro_ai.web"
    patterns = ast.literal_eval(found.group(1))
    files = sorted(p.relative_to(STATIC.parent).as_posix() for p in STATIC.rglob("*") if p.is_file())
    assert {"static/index.html", "static/app.js", "static/style.css"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pat) for pat in patterns), f"{name} would not ship in a wheel"


def test_web_opens_its_page_through_a_file_only_this_user_reads(monkeypatch, capsys):
    """The browser is sent to the page's address, token included, through a file of mode 0600
    (a browser started with the address would show the token in the process list), removed when
    the server stops."""
    import html
    import os
    import metro_ai.web as web
    seen = {}

    def fake_open(url):
        assert url.startswith("file://") and "token" not in url
        seen["path"] = url[len("file://"):]
        seen["mode"] = os.stat(seen["path"]).st_mode & 0o777
        seen["text"] = Path(seen["path"]).read_text()
        raise KeyboardInterrupt                                  # as Ctrl-C: the server stops
    monkeypatch.setattr(web.webbrowser, "open", fake_open)
    assert web.run_web("127.0.0.1", 0) == 0
    page = capsys.readouterr().out.split()[2]
    assert "/?token=" in page and seen["mode"] == 0o600
    assert f'content="0;url={html.escape(page)}"' in seen["text"]
    assert not os.path.exists(seen["path"])


def test_web_command_refuses_a_bad_port(capsys):
    from metro_ai.cli import main
    assert main(["web", "--port", "70000", "--no-browser"]) == 2
    assert "--port must be 0-65535" in capsys.readouterr().err


def _page_function(name):
    """The source of one top-level function of the page's script (app.js)."""
    import re
    text = (Path(metro_ai.web.__file__).parent / "static" / "app.js").read_text()
    found = re.search(rf"^(?:async )?function {name}\(.*?^}}$", text, re.M | re.S)
    assert found, f"app.js has no function {name}"
    return found.group(0)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_page_shows_ties_as_shared_places():
    code = _page_function("placeLabels") + (
        "\nconsole.log(JSON.stringify([placeLabels([0.5, 0.5, 0.5]), placeLabels([1, 0.5, 0.5, 0]), placeLabels([1, 0])]));")
    run = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [["=1", "=1", "=1"], ["1", "=2", "=2", "4"], ["1", "2"]]
    assert "placeLabels(s.returns)" in _page_function("statusLine")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_page_deals_a_random_seed_unless_one_is_typed():
    page = (Path(metro_ai.web.__file__).parent / "static" / "index.html").read_text()
    seed_box = next(line for line in page.splitlines() if 'id="seed"' in line)
    assert "value=" not in seed_box and 'placeholder="random"' in seed_box       # no fixed deal
    code = ("const crypto = require('crypto').webcrypto;\n" + _page_function("randomSeed")
            + "\nconst seen = new Set(); for (let i = 0; i < 20; i++) seen.add(randomSeed());"
              "\nconsole.log(JSON.stringify([...seen]));")
    run = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    seeds = json.loads(run.stdout)
    assert len(seeds) > 1 and all(isinstance(x, int) and 0 <= x < 1_000_000 for x in seeds)
    assert "randomSeed()" in _page_function("startGame") and "seed ${seed}" in _page_function("startGame")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_page_names_every_games_options_in_words():
    """#43: the options form of every registered game shows no engine names (``hand_size``), no
    rule codes (``(M11-M14)``) and no None/null/True/False: each option's name and the first
    sentence of its description in words, as the page's own functions make them from ``hello``."""
    from metro_ai.registry import game_class, list_games
    options = {name: game_class(name).describe()["options"] for name in list_games()}
    text = (Path(metro_ai.web.__file__).parent / "static" / "app.js").read_text()
    rule_code = re.search(r"^const RULE_CODE = .*$", text, re.M).group(0)
    code = "\n".join([_page_function("optionLabel"), _page_function("valueWords"), rule_code,
                      _page_function("helpWords"),
                      f"const all = {json.dumps(options)};",
                      "const out = [];",
                      "for (const opts of Object.values(all)) for (const [n, o] of Object.entries(opts))",
                      "  out.push([n, optionLabel(n), helpWords(o.help, Object.keys(opts)), (o.choices || []).map(valueWords)]);",
                      "console.log(JSON.stringify(out));"])
    run = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert ["hand_size", "Hand size"] == shown[[s[0] for s in shown].index("hand_size")][:2]
    for name, label, help_text, choices in shown:
        words = " ".join([label, help_text, *choices])
        assert help_text and not re.search(r"\w_\w|\bNone\b|\bnull\b|\bTrue\b|\bFalse\b|\([A-Z]\d", words), (name, words)
        assert not re.search(r"\b[A-Z]\d+(\.\d+)?\b", words), (name, words)
