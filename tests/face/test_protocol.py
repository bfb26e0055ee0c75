"""The protocol's session (metro_ai/protocol/session.py), in process: every method, every error
code, searches that run while other requests are served, and every answer checked against the
shipped JSON Schema (tests/protocol_client.py)."""
import asyncio
import json
import math

import pytest

import metro_ai
from metro_ai import Limit
from metro_ai.protocol import errors as E
from metro_ai.protocol import session as S
from metro_ai.registry import game_class
from tests.protocol_client import Client, run
from seats import seats
from tiers import tiered

GAMES = metro_ai.list_games()
#: Whole games over the protocol: Breakthrough's take longest, the slow tier's.
WHOLE_GAMES = tiered(GAMES, fast=lambda game: game != "breakthrough")


def test_hello_reads_the_games_and_bots_from_the_registry():
    async def main():
        c = Client()
        hello = await c.result("hello", client="tests")
        assert sorted(hello["games"]) == GAMES
        for name in GAMES:
            assert hello["games"][name] == game_class(name).describe()
        assert set(hello["bots"]) | set(hello["presets"]) == set(metro_ai.list_bots())
        assert hello["protocol_version"] == S.PROTOCOL_VERSION
        assert set(hello["methods"]) == set(c.session.methods)
    run(main())


@pytest.mark.parametrize("game", WHOLE_GAMES)
def test_a_whole_game_by_legal_actions_and_apply_then_save_replays(game):
    async def main():
        c = Client()
        g = await c.result("new_game", game=game, options={"players": seats(game)}, seed=4)
        gid = g["game_id"]
        expected = metro_ai.load_game(game, players=seats(game)).new_state(seed=4)
        n = 0
        while True:
            legal = await c.result("legal_actions", game_id=gid)
            if not legal["actions"]:
                break
            assert [a["id"] for a in legal["actions"]] == expected.legal_actions()
            pick = legal["actions"][n % len(legal["actions"])]
            by_text = n % 2 == 1
            done = await c.result("apply", game_id=gid, action=pick["text"] if by_text else pick["id"])
            # by text, two copies of a card share one text: the engine reads it as one of them
            assert done["text"] == pick["text"] and (by_text or done["action"] == pick["id"])
            expected.apply(done["action"])
            n += 1
        state = await c.result("state", game_id=gid)
        assert state["terminal"] and state["scores"] == expected.scores() and state["returns"] == expected.returns()
        saved = await c.result("save", game_id=gid)
        states = metro_ai.replay(saved["record"])
        assert len(states) == n + 1 and states[-1].to_json() == expected.to_json()
        assert json.loads(expected.to_json()) == saved["state"]
        loaded = await c.result("load_state", state=json.dumps(saved["state"]))
        assert loaded["terminal"] and loaded["scores"] == expected.scores()
        assert (await c.result("save", game_id=loaded["game_id"]))["record"] is None
        last = seats(game) - 1
        obs = await c.result("observation", game_id=gid, seat=last)
        assert obs["observation"] == expected.observation(last)
        await c.error("apply", E.GAME_OVER, game_id=gid, action=0)
        await c.error("go", E.GAME_OVER, game_id=gid)
    run(main())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", ["ismcts", "mo-ismcts:workers=2", "pimc:worlds=3", "greedy", "random"])
def test_go_chooses_as_the_blocking_bot_with_the_same_seed_and_iterations(game, spec):
    async def main():
        c = Client()
        g = await c.result("new_game", game=game, options={"players": seats(game, 3)}, seed=2)
        state = metro_ai.load_game(game, players=seats(game, 3)).new_state(seed=2)
        while len(state.legal_actions()) < 2:          # on to a real choice
            forced = state.legal_actions()[0]
            state.apply(forced)
            await c.result("apply", game_id=g["game_id"], action=forced)
        got = await c.result("go", game_id=g["game_id"], bot=spec, seed=77, limit={"iterations": 400})
        expected = metro_ai.make_bot(spec, seed=77).choose(state, Limit(iterations=400))
        assert got["action"] == expected and not got["stopped"] and not got["applied"]
    run(main())


def _new(c, game="metro", **options):
    return c.result("new_game", game=game, options={"players": seats(game), **options}, seed=1)


def test_go_runs_in_the_background_with_progress_and_stop_returns_the_best_so_far():
    async def main():
        c = Client(progress_interval=0.01)
        gid = (await _new(c))["game_id"]
        other = (await _new(c))["game_id"]
        i, sending = c.send("go", game_id=gid, bot="ismcts", seed=3, limit={"iterations": 10 ** 12})
        await sending
        # other requests are answered while it searches: on this game (reads) and on another
        legal = await c.result("legal_actions", game_id=gid)
        await c.result("apply", game_id=other, action=legal["actions"][0]["id"])
        assert "busy" in await c.error("apply", E.BUSY, game_id=gid, action=legal["actions"][0]["id"])
        await c.error("go", E.BUSY, game_id=gid)
        await c.error("undo", E.BUSY, game_id=gid)
        for _ in range(6000):                   # a minute at most
            if any(n["params"]["iterations"] > 0 for n in c.notes):
                break
            await asyncio.sleep(0.01)
        note = next(n for n in c.notes if n["params"]["iterations"] > 0)["params"]
        assert note["game_id"] == gid and note["request_id"] == i and note["best"] is not None
        assert note["best"]["label"] == note["best"]["text"]           # Metro's words are its texts
        stopped = await c.result("stop", game_id=gid)
        go = await c.answer(i)
        assert go["result"]["stopped"] and go["result"]["action"] == stopped["action"]
        assert stopped["action"] in [a["id"] for a in legal["actions"]]
        await c.error("stop", E.NO_SEARCH, game_id=gid)
        await c.result("apply", game_id=gid, action=stopped["action"])     # no longer busy
    run(main())


def test_go_with_apply_moves_and_the_record_says_who_moved():
    async def main():
        c = Client()
        gid = (await _new(c))["game_id"]
        go = await c.result("go", game_id=gid, bot="ismcts:iterations=50", apply=True, progress=False)
        assert go["applied"] and go["state"]["ply"] == 1
        rnd = await c.result("go", game_id=gid, bot="random", apply=True)
        assert rnd["state"]["ply"] == 2
        record = (await c.result("save", game_id=gid))["record"]
        assert [m["by"] for m in record["actions"]] == ["ismcts:iterations=50", "random"]
        assert len(metro_ai.replay(record)) == 3
        assert record["people"] == []                   # every move by a bot
        await c.result("apply", game_id=gid, action=(await c.result("legal_actions", game_id=gid))["actions"][0]["id"])
        record = (await c.result("save", game_id=gid))["record"]
        assert record["bots"][0] == "ismcts:iterations=50 + client" and record["people"] == [0]
    run(main())


@pytest.mark.parametrize("game", WHOLE_GAMES)
def test_the_servers_record_and_play_matchs_are_one_shape(game):
    """save's record and play_match's, of the same game and actions, come from one writer: the
    same keys, the same options (as a saved state writes them), the same seats' fields and the
    same moves, and both replay to the same end."""
    n = seats(game)
    rec = metro_ai.play_match(game, ["random"] * n, seed=5)

    async def main():
        c = Client()
        gid = (await c.result("new_game", game=game, options={"players": n}, seed=5))["game_id"]
        for move in rec["actions"]:
            await c.result("apply", game_id=gid, action=move["action"])
        return (await c.result("save", game_id=gid))["record"]
    served = run(main())
    assert set(served) == set(rec)
    assert served["options"] == rec["options"] == metro_ai.load_game(game, players=n).state_options
    assert [set(s) for s in served["seats"]] == [set(s) for s in rec["seats"]]
    assert served["bots"] == ["client"] * n and set(served["versions"]) == set(rec["versions"]) | {"protocol"}
    assert [{k: m[k] for k in rec["actions"][0]} for m in served["actions"]] == \
        [{**m, "seconds": 0.0} for m in rec["actions"]]
    assert served["scores"] == rec["scores"] and served["returns"] == rec["returns"]
    assert metro_ai.replay(served)[-1].to_json() == metro_ai.replay(rec)[-1].to_json()


def test_analyse_reports_the_top_moves():
    async def main():
        c = Client()
        gid = (await _new(c))["game_id"]
        got = await c.result("analyse", game_id=gid, bot="ismcts", seed=5, limit={"iterations": 500}, top=3)
        a = got["analysis"]
        assert len(a["actions"]) == 3 and a["iterations"] == 500
        assert a["actions"][0]["visits"] >= a["actions"][1]["visits"] >= a["actions"][2]["visits"]
        state = metro_ai.load_game("metro", players=2).new_state(seed=1)
        assert a["chosen"] == metro_ai.make_bot("ismcts", seed=5).analyse(state, Limit(iterations=500)).chosen
        assert "does not search" in await c.error("analyse", E.INVALID_PARAMS, game_id=gid, bot="random")
        await c.error("analyse", E.INVALID_PARAMS, game_id=gid, top=0)
    run(main())


def test_undo_and_redo_walk_the_history():
    async def main():
        c = Client()
        gid = (await _new(c))["game_id"]
        await c.error("undo", E.NO_HISTORY, game_id=gid)
        start = await c.result("save", game_id=gid)
        texts = []
        for _ in range(3):
            legal = await c.result("legal_actions", game_id=gid)
            texts.append((await c.result("apply", game_id=gid, action=legal["actions"][-1]["id"]))["text"])
        after = await c.result("save", game_id=gid)
        back = await c.result("undo", game_id=gid, count=3)
        assert back["ply"] == 0 and back["can_redo"] and not back["can_undo"]
        assert (await c.result("save", game_id=gid))["state"] == start["state"]
        await c.error("redo", E.NO_HISTORY, game_id=gid, count=4)
        assert (await c.result("redo", game_id=gid, count=3))["ply"] == 3
        assert (await c.result("save", game_id=gid))["state"] == after["state"]
        await c.result("undo", game_id=gid)
        legal = await c.result("legal_actions", game_id=gid)
        await c.result("apply", game_id=gid, action=legal["actions"][0]["id"])   # a new move: no redo
        assert not (await c.result("state", game_id=gid))["can_redo"]
        await c.error("redo", E.NO_HISTORY, game_id=gid)
    run(main())


def test_undo_keeps_max_undo_positions_and_says_so_past_them():
    """A game keeps the current state and ``max_undo`` before it (the memory a client can hold is
    bounded); an undo past the oldest kept is refused with the limit named, and changes nothing."""
    async def main():
        c = Client(max_undo=3)
        assert (await c.result("hello"))["limits"]["max_undo"] == 3
        gid = (await _new(c))["game_id"]
        saved = []
        for _ in range(5):
            saved.append((await c.result("save", game_id=gid))["state"])
            legal = await c.result("legal_actions", game_id=gid)
            await c.result("apply", game_id=gid, action=legal["actions"][0]["id"])
        assert len(c.session.games[gid].states) == 4                        # the current one and 3 before it
        answer = await c.call("undo", game_id=gid, count=4)
        assert answer["error"]["code"] == E.NO_HISTORY and "max_undo" in answer["error"]["message"]
        assert answer["error"]["data"] == {"limit": "max_undo", "max": 3}
        assert (await c.result("state", game_id=gid))["ply"] == 5                # nothing changed
        await c.error("undo", E.NO_HISTORY, game_id=gid, count=6)                 # more than were played
        back = await c.result("undo", game_id=gid, count=3)
        assert back["ply"] == 2 and not back["can_undo"] and back["can_redo"]
        assert (await c.result("save", game_id=gid))["state"] == saved[2]
        assert (await c.result("redo", game_id=gid, count=3))["ply"] == 5
        assert metro_ai.replay((await c.result("save", game_id=gid))["record"])[2].to_dict() == saved[2]
        # a seat's picture marks the last move as the seat saw it, from the state before it: where
        # that state was let go (undone to the oldest kept), the picture comes without the mark
        await c.result("undo", game_id=gid, count=3)
        picture = await c.result("svg", game_id=gid, seat=0)
        assert picture["ply"] == 2 and picture["lastmove"] is None and picture["svg"].startswith("<svg")
    run(main())


def test_max_undo_is_the_operators_on_the_command_line():
    import subprocess
    import sys
    from metro_ai.cli import main
    assert main(["serve", "--max-undo", "0"]) == 2                       # at least 1, as every limit
    proc = subprocess.run([sys.executable, "-m", "metro_ai", "serve", "--max-undo", "2"], capture_output=True,
                          input='{"jsonrpc":"2.0","id":1,"method":"hello"}\n', text=True, timeout=120)
    assert json.loads(proc.stdout)["result"]["limits"]["max_undo"] == 2


def test_save_builds_its_answer_off_the_event_loop(monkeypatch):
    """A long game's record is large: ``save`` makes and encodes it in a thread, so that the event
    loop (every other session of the server) is not held while it does."""
    import threading
    where = []
    real = S.match_record

    def spy(*args, **kwargs):
        where.append(threading.current_thread())
        return real(*args, **kwargs)
    monkeypatch.setattr(S, "match_record", spy)

    async def main():
        c = Client()
        gid = (await _new(c))["game_id"]
        for _ in range(3):
            legal = await c.result("legal_actions", game_id=gid)
            await c.result("apply", game_id=gid, action=legal["actions"][-1]["id"])
        saved = await c.result("save", game_id=gid)
        assert len(saved["record"]["actions"]) == 3 and saved["game_id"] == gid
        assert where and threading.main_thread() not in where
    run(main())


def test_games_are_isolated_and_close_ends_one():
    async def main():
        c = Client()
        a = (await _new(c))["game_id"]
        b = (await c.result("new_game", game=GAMES[0], seed=9))["game_id"]
        before = await c.result("save", game_id=b)
        await c.error("apply", E.ILLEGAL_ACTION, game_id=a, action=-5)
        await c.result("apply", game_id=a, action=(await c.result("legal_actions", game_id=a))["actions"][0]["id"])
        assert (await c.result("save", game_id=b))["state"] == before["state"]
        i, sending = c.send("go", game_id=a, limit={"iterations": 10 ** 12})
        await sending
        assert (await c.result("close", game_id=a))["closed"]
        assert (await c.answer(i))["result"]["stopped"]                     # its search answered
        await c.error("state", E.UNKNOWN_GAME, game_id=a)
        assert (await c.result("state", game_id=b))["ply"] == 0
        other = Client()                                                      # another session
        assert "open games: none" in await other.error("state", E.UNKNOWN_GAME, game_id=b)
    run(main())


def test_every_error_has_its_code_and_names_the_problem():
    async def main():
        c = Client(max_games=2, max_message_bytes=10_000)
        assert (await c.raw("{not json"))[0]["error"]["code"] == E.PARSE_ERROR
        assert (await c.raw(b"\xff\xfe"))[0]["error"]["code"] == E.PARSE_ERROR
        assert (await c.raw('{"a": NaN}'))[0]["error"]["code"] == E.PARSE_ERROR
        assert (await c.raw("[" * 100_000))[0]["error"]["code"] in (E.PARSE_ERROR, E.MESSAGE_TOO_LONG)
        assert (await c.raw("[" * 5000 + "]" * 5000))[0]["error"]["code"] == E.PARSE_ERROR
        assert (await c.raw("1" * 5000))[0]["error"]["code"] == E.PARSE_ERROR          # > 4,300 digits
        assert (await c.raw("x" * 10_001))[0]["error"]["code"] == E.MESSAGE_TOO_LONG
        assert "batches" in (await c.raw("[]"))[0]["error"]["message"]
        assert (await c.raw('"hello"'))[0]["error"]["code"] == E.INVALID_REQUEST
        assert (await c.raw('{"jsonrpc": "1.0", "method": "hello"}'))[0]["error"]["code"] == E.INVALID_REQUEST
        bad_id = await c.raw('{"jsonrpc": "2.0", "id": [1], "method": "hello"}')
        assert bad_id[0]["error"]["code"] == E.INVALID_REQUEST
        assert (await c.raw('{"jsonrpc": "2.0", "id": 1.5, "method": "hello"}'))[0]["error"]["code"] == E.INVALID_REQUEST
        await c.session.handle_text('{"jsonrpc": "2.0", "id": 99, "method": 3}')
        assert c.answers[99]["error"]["code"] == E.INVALID_REQUEST
        await c.session.handle_text('{"jsonrpc": "2.0", "id": 98, "method": "hello", "params": [1]}')
        assert c.answers[98]["error"]["code"] == E.INVALID_PARAMS
        assert "'nope'" in await c.error("nope", E.METHOD_NOT_FOUND)
        assert "missing parameter 'game'" in await c.error("new_game", E.INVALID_PARAMS)
        assert "seed must be an integer" in await c.error("new_game", E.INVALID_PARAMS, game="metro", seed="x")
        assert "unknown game 'chess'" in await c.error("new_game", E.INVALID_PARAMS, game="chess")
        assert "'colour'" in await c.error("new_game", E.INVALID_PARAMS, game="metro", colour=1)
        assert "players" in await c.error("new_game", E.INVALID_PARAMS, game="metro", options={"players": 10 ** 40})
        gid = (await c.result("new_game", game="metro", seed=10 ** 40))["game_id"]    # any int seeds
        assert 'unknown game id "g9"' in await c.error("state", E.UNKNOWN_GAME, game_id="g9")
        assert "game_id must be a string" in await c.error("state", E.INVALID_PARAMS, game_id=1)
        reason = await c.error("apply", E.ILLEGAL_ACTION, game_id=gid, action=10 ** 30)
        assert "out of range" in reason
        assert "cannot read" in await c.error("apply", E.ILLEGAL_ACTION, game_id=gid, action="fly away")
        assert "action must be an action id" in await c.error("apply", E.INVALID_PARAMS, game_id=gid, action=True)
        assert "seat must be" in await c.error("observation", E.INVALID_PARAMS, game_id=gid, seat=10 ** 30)
        assert "unknown bot" in await c.error("go", E.INVALID_PARAMS, game_id=gid, bot="deep-blue")
        await c.error("go", E.INVALID_PARAMS, game_id=gid, limit={"iterations": 0})
        await c.error("go", E.INVALID_PARAMS, game_id=gid, limit={"iterations": 1.5})
        await c.error("go", E.INVALID_PARAMS, game_id=gid, limit={"nodes": 5})
        await c.error("go", E.INVALID_PARAMS, game_id=gid, limit={"time": 1e308 * 10})
        await c.error("go", E.INVALID_PARAMS, game_id=gid, bot="ismcts:workers=100000")
        await c.error("undo", E.NO_HISTORY, game_id=gid, count=10 ** 30)
        await c.error("load_state", E.BAD_STATE, state="{")
        await c.error("load_state", E.BAD_STATE, state={"game": "metro", "options": {"players": 2}})
        await c.error("load_state", E.BAD_STATE, state={"game": "chess"})
        await c.error("load_state", E.BAD_STATE, state="/etc/passwd")       # text is JSON, never a path
        await c.error("load_state", E.INVALID_PARAMS, state=5)
        await c.result("new_game", game="metro")
        assert "too many" in await c.error("new_game", E.TOO_MANY_GAMES, game="metro")
        assert (await c.result("hello"))["limits"]["max_games"] == 2                  # still serving
    run(main())


def test_every_message_is_strict_json():
    """A value with no finite number goes out as null (strict JSON), never NaN or Infinity."""
    sent = []

    async def send(text):
        sent.append(text)

    async def main():
        await S.Session(send).send({"jsonrpc": "2.0", "id": 1, "result": {"mean": math.nan, "elo": [-math.inf, 1.5]}})
    run(main())
    assert json.loads(sent[0], parse_constant=lambda c: pytest.fail(c)) == {
        "jsonrpc": "2.0", "id": 1, "result": {"mean": None, "elo": [None, 1.5]}}


def test_notifications_get_no_answer():
    async def main():
        c = Client()
        await c.session.handle_message({"jsonrpc": "2.0", "method": "new_game", "params": {"game": "metro"}})
        await c.session.handle_message({"jsonrpc": "2.0", "method": "nope"})
        await c.session.handle_message({"jsonrpc": "2.0", "method": "go", "params": {"game_id": "g1",
                                                                                     "limit": {"iterations": 20}}})
        await c.session.drain()
        assert c.answers == {} and "g1" in c.session.games
    run(main())


def test_closing_the_session_stops_its_searches():
    async def main():
        c = Client()
        gid = (await _new(c))["game_id"]
        i, sending = c.send("go", game_id=gid, limit={"iterations": 10 ** 12})
        await sending
        handle = c.session.games[gid].search
        await c.session.close()
        handle.result(timeout=60)
        assert handle.stopping()
        await c.session.drain()
    run(main())


def test_the_schema_and_the_spec_cover_every_method_and_error():
    from pathlib import Path
    from metro_ai.protocol import schema
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    methods = set(Client().session.methods)
    assert set(schema()["methods"]) == methods
    headings = "\n".join(line for line in doc.splitlines() if line.startswith("### "))
    for m in methods:
        assert f"`{m}`" in headings, f"docs/protocol.md has no section for {m}"
    for code, name in E.ERROR_NAMES.items():
        assert f"| {code} | {name} |" in doc, f"docs/protocol.md's error table lacks {code} ({name})"


@pytest.mark.parametrize("game", GAMES)
def test_svg_draws_the_position_for_a_seat_with_the_last_move_marked(game):
    """``svg`` is ``state.svg(player=seat, lastmove=the last move)``; null seat: the public table;
    ``lastmove: false`` marks nothing; a bad seat or game id is an error naming it."""
    import xml.etree.ElementTree as ET

    async def main():
        c = Client()
        g = await c.result("new_game", game=game, options={"players": seats(game)}, seed=3)
        gid = g["game_id"]
        start = await c.result("svg", game_id=gid)
        assert start["seat"] is None and start["ply"] == 0 and start["lastmove"] is None
        expected = metro_ai.load_game(game, players=seats(game)).new_state(seed=3)
        assert start["svg"] == expected.svg()
        action = expected.legal_actions()[0]
        await c.result("apply", game_id=gid, action=action)
        expected.apply(action)
        seat = expected.current_player
        pic = await c.result("svg", game_id=gid, seat=seat)
        assert pic["seat"] == seat and pic["ply"] == 1 and pic["lastmove"] == action
        assert pic["svg"] == expected.svg(player=seat, lastmove=action)
        ET.fromstring(pic["svg"])                                   # well-formed XML
        plain = await c.result("svg", game_id=gid, seat=seat, lastmove=False)
        assert plain["lastmove"] is None and plain["svg"] == expected.svg(player=seat)
        assert plain["svg"] != pic["svg"]                           # the mark shows
        n = seats(game)
        assert f"seat must be 0-{n - 1}" in await c.error("svg", E.INVALID_PARAMS, game_id=gid, seat=n)
        assert "seat must be an integer" in await c.error("svg", E.INVALID_PARAMS, game_id=gid, seat="0")
        assert "g9" in await c.error("svg", E.UNKNOWN_GAME, game_id="g9")
    run(main())


@pytest.mark.parametrize("game", GAMES)
def test_svg_with_labels_is_metro_ai_svg_with_labels(game):
    """``labels: true`` draws ``metro_ai.svg(..., labels=True)`` (a Metro board's open lines and
    hand ids; the same picture where a game has no extras); false or absent: the
    plain picture; not a boolean: an error naming it."""
    async def main():
        c = Client()
        gid = (await c.result("new_game", game=game, options={"players": seats(game)}, seed=3))["game_id"]
        expected = metro_ai.load_game(game, players=seats(game)).new_state(seed=3)
        pic = await c.result("svg", game_id=gid, seat=0, labels=True)
        assert pic["svg"] == metro_ai.svg(expected, player=0, labels=True)
        plain = await c.result("svg", game_id=gid, seat=0, labels=False)
        assert plain["svg"] == expected.svg(player=0)
        if game in ("metro", "metro-solo", "breakthrough"):
            assert pic["svg"] != plain["svg"]
        if game.startswith("metro") and game != "metro2033":
            assert 'class="hand-id"' in pic["svg"] and 'class="hand-id"' not in plain["svg"]
            assert 'class="edge-label"' in plain["svg"]           # (every Metro board names its squares, #43)
        assert "labels must be" in await c.error("svg", E.INVALID_PARAMS, game_id=gid, labels="yes")
    run(main())


@pytest.mark.parametrize("game", GAMES)
def test_legal_actions_with_labels_say_each_action_in_words(game):
    """``labels: true`` adds each action's words (Metro 2033: its readable label, e.g. ``hire 2
    soldiers``; other games: the text) and the decision's prompt; without it the reply is as
    before. The text stays the engine's, the one ``apply`` reads."""
    from metro_ai.play import terminal

    async def main():
        c = Client()
        gid = (await c.result("new_game", game=game, options={"players": seats(game)}, seed=5))["game_id"]
        state = metro_ai.load_game(game, players=seats(game)).new_state(seed=5)
        for _ in range(12):
            if state.is_terminal():
                break
            plain = await c.result("legal_actions", game_id=gid)
            assert "prompt" not in plain and all(set(a) == {"id", "text"} for a in plain["actions"])
            worded = await c.result("legal_actions", game_id=gid, labels=True)
            assert [(a["id"], a["text"]) for a in worded["actions"]] == [(a["id"], a["text"]) for a in plain["actions"]]
            assert [a["label"] for a in worded["actions"]] == [terminal.describe(state, a) for a in state.legal_actions()]
            assert worded["prompt"] == terminal.prompt(state)
            if game == "metro2033":
                assert worded["prompt"] and not any("_" in a["label"] for a in worded["actions"])
            else:
                assert all(a["label"] == a["text"] for a in worded["actions"]) and worded["prompt"] is None
            action = state.legal_actions()[len(state.legal_actions()) // 2]
            await c.result("apply", game_id=gid, action=action)
            state.apply(action)
        assert "labels must be" in await c.error("legal_actions", E.INVALID_PARAMS, game_id=gid, labels=1)
    run(main())


def test_review_answers_as_the_library_does_with_progress_and_stop():
    """#43: ``review`` reviews an open game's record as ``metro_ai.review`` does (same seed, same
    budget, same review), sends ``review_progress``, keeps the game busy, and ``stop`` ends it."""
    async def main():
        c = Client(progress_interval=0.001)
        gid = (await c.result("new_game", game="leduc", options={"players": 2}, seed=3))["game_id"]
        while not (await c.result("state", game_id=gid))["terminal"]:
            legal = await c.result("legal_actions", game_id=gid)
            await c.result("apply", game_id=gid, action=legal["actions"][-1]["id"])
        record = (await c.result("save", game_id=gid))["record"]
        i, sending = c.send("review", game_id=gid, bot="ismcts", limit={"iterations": 3000}, seed=4, repeats=2)
        await sending
        await c.error("apply", E.BUSY, game_id=gid, action=0)
        answer = (await c.answer(i))["result"]
        assert answer["game_id"] == gid and answer["stopped"] is False
        expected = metro_ai.review(record, bot="ismcts", limit=Limit(iterations=3000), seed=4, repeats=2).to_dict()
        got = answer["review"]
        got.pop("seconds"), expected.pop("seconds")
        # each of its searches also ends at the server's max_search_seconds (not reached here)
        assert got.pop("limit") == {"iterations": 3000, "time": c.session.limits.max_search_seconds}
        expected.pop("limit")
        assert got == json.loads(json.dumps(expected))
        notes = [n["params"] for n in c.notes if n["method"] == "review_progress"]
        assert notes and all(n["request_id"] == i and n["total"] == 2 * len(got["decisions"]) for n in notes)
        one = await c.result("review", game_id=gid, bot="ismcts", limit={"iterations": 300}, seat=1,
                             progress=False)
        assert one["review"]["seats"] == [1] and all(d["player"] == 1 for d in one["review"]["decisions"])
        # stopped: the review answers with no review, stop with the game's id, the game is free again
        big = (await c.result("new_game", game="metro", options={"players": 2}, seed=5))["game_id"]
        for _ in range(6):
            legal = await c.result("legal_actions", game_id=big)
            await c.result("apply", game_id=big, action=legal["actions"][0]["id"])
        i, sending = c.send("review", game_id=big, bot="ismcts", limit={"iterations": 10 ** 9, "time": 0.5})
        await sending
        assert await c.result("stop", game_id=big) == {"game_id": big, "stopped": True}
        assert (await c.answer(i))["result"] == {"game_id": big, "stopped": True, "review": None}
        legal = await c.result("legal_actions", game_id=big)
        await c.result("apply", game_id=big, action=legal["actions"][0]["id"])
    run(main())


def test_review_refuses_what_it_cannot_review():
    async def main():
        c = Client()
        gid = (await c.result("new_game", game="leduc", options={"players": 2}, seed=3))["game_id"]
        assert "does not search" in await c.error("review", E.INVALID_PARAMS, game_id=gid, bot="greedy")
        assert "repeats must be 1-8" in await c.error("review", E.INVALID_PARAMS, game_id=gid, repeats=9)
        assert "seat must be 0-1" in await c.error("review", E.INVALID_PARAMS, game_id=gid, seat=2)
        assert "max_workers" in await c.error("review", E.OVER_LIMIT, game_id=gid, workers=5)
        assert "max_workers" in await c.error("review", E.OVER_LIMIT, game_id=gid, workers=2,
                                             bot="ismcts:workers=3")
        state = (await c.result("save", game_id=gid))["state"]
        loaded = (await c.result("load_state", state=state))["game_id"]
        assert "no record" in await c.error("review", E.INVALID_PARAMS, game_id=loaded)
    run(main())


def test_svg_draws_any_ply_of_the_game():
    """#43: ``svg`` with ``ply`` draws the position before that move (the move leading to it
    marked), from the states kept for undo or replayed from the deal; a loaded game reaches back
    over the states it keeps only."""
    async def main():
        c = Client(max_undo=2)
        gid = (await c.result("new_game", game="metro", options={"players": 2}, seed=4))["game_id"]
        for _ in range(6):
            legal = await c.result("legal_actions", game_id=gid)
            await c.result("apply", game_id=gid, action=legal["actions"][1]["id"])
        record = (await c.result("save", game_id=gid))["record"]
        states = metro_ai.replay(record)
        for ply in (0, 2, 5, 6):                  # replayed from the deal, and kept for undo
            pic = await c.result("svg", game_id=gid, ply=ply, labels=True)
            last = record["actions"][ply - 1]["action"] if ply else None
            assert (pic["ply"], pic["lastmove"]) == (ply, last)
            assert pic["svg"] == metro_ai.svg(states[ply], lastmove=last, labels=True)
        assert "ply must be 0-6" in await c.error("svg", E.NO_HISTORY, game_id=gid, ply=7)
        state = (await c.result("save", game_id=gid))["state"]
        loaded = (await c.result("load_state", state=state))["game_id"]
        for _ in range(3):
            legal = await c.result("legal_actions", game_id=loaded)
            await c.result("apply", game_id=loaded, action=legal["actions"][0]["id"])
        assert (await c.result("svg", game_id=loaded, ply=1))["ply"] == 1          # kept: plies 1-3
        assert "loaded from a saved state" in await c.error("svg", E.NO_HISTORY, game_id=loaded, ply=0)
    run(main())
