"""The boundary between a game written in plain Python and the compiled layer
(engine/python_game.pyx): each way a user's game can break the contract ends in a clear
`PythonGameError` naming the game and the method, never a crash, a hang, a raw exception or a
search that lies. The games are tests/user_games.py's Relay with faults; the fuzzer
(tests/fuzz_user_games.py, run by tests/project/test_fuzz.py) runs them through every entry point.
"""
from __future__ import annotations

import asyncio
import threading
import time

import pytest

import metro_ai
from metro_ai import Limit, PythonGameError
from metro_ai.bots import background
from metro_ai.engine.core import random_playouts
from metro_ai.engine.python_game import MAX_DISTINCT_ACTIONS
from tests.user_games import GameBug, RelayState, make_game

SEARCH = Limit(iterations=60)
SEARCH_BOTS = ["ismcts", "mo-ismcts", "flat-mc", "pimc:worlds=2", "ismcts:rollout=mast", "ismcts:rollout=heuristic",
               "ismcts:minimax=0.3", "ismcts:workers=2"]


def test_the_relay_game_as_written_plays_every_bot():
    game = make_game()
    for spec in SEARCH_BOTS + ["random", "greedy"]:
        s = game.new_state(3)
        assert s.is_legal(metro_ai.make_bot(spec, seed=1).choose(s, SEARCH))
    record = metro_ai.play_match(game, [metro_ai.make_bot("ismcts", seed=1), metro_ai.make_bot("greedy")],
                                 seed=2, limit=SEARCH)
    assert len(record["actions"]) <= game.max_game_length and sum(record["returns"]) == 1.0


@pytest.mark.parametrize("fault", ["lying_len", "growing", "endless", "too_many"])
def test_legal_actions_are_copied_by_count_never_past_max_actions(fault):
    """An object whose len() is smaller than what it yields, a list that grows while it is read,
    an endless iterator: the adapter copies at most max_actions + 1 items into its own tuple, so
    nothing is written past the C buffer (these overran it before)."""
    game = make_game([("_legal_actions", fault)])
    s = game.new_state(1)
    if fault == "growing":                       # (sorted and in range when copied: a legal list)
        assert s.legal_actions() == [0, 1, 2]
        return
    with pytest.raises(PythonGameError, match=r"relay: _legal_actions\(\) (gave more than max_actions \(3\)|must give)"):
        s.legal_actions()
    for spec in ("ismcts", "mo-ismcts"):
        with pytest.raises(PythonGameError, match=r"_legal_actions\(\)"):
            metro_ai.make_bot(spec, seed=1).choose(game.new_state(1), SEARCH)
    with pytest.raises(PythonGameError, match=r"_legal_actions\(\)"):
        random_playouts(game.new_state(1), 3, 1)


@pytest.mark.parametrize("fault, says", [
    ("unsorted", "sorted, distinct ints"), ("duplicates", "sorted, distinct ints"), ("bools", "sorted, distinct ints"),
    ("strings", "sorted, distinct ints"), ("floats", "sorted, distinct ints"), ("out_of_range", r"ints in 0\.\.2"),
    ("negative", "sorted, distinct ints"), ("none", "must give a list of ints, got None"),
    ("empty_before_end", "gave no action though _current_player.. says player 0 is to move"),
    ("after_the_end", "though _current_player.. says the game is over")])
def test_legal_actions_of_the_wrong_kind_are_named(fault, says):
    game = make_game([("_legal_actions", fault)])
    s = game.new_state(1)
    if fault == "after_the_end":
        s.total = 10
    with pytest.raises(PythonGameError, match=rf"relay: _legal_actions\(\) .*{says}"):
        s.legal_actions()
    if fault == "empty_before_end":
        # before: the search failed with "max() arg is an empty sequence", greedy said "the game is over"
        for spec in ("ismcts", "greedy"):
            with pytest.raises(PythonGameError, match="gave no action"):
                metro_ai.make_bot(spec, seed=1).choose(game.new_state(1), SEARCH)


def test_numpy_integers_are_actions():
    s = make_game([("_legal_actions", "numpy")]).new_state(1)
    assert s.legal_actions() == [0, 1, 2] and all(type(a) is int for a in s.legal_actions())


def test_a_state_whose_init_skipped_super_is_refused_at_every_entry():
    """Before, the adapter used a None game: AttributeError from a Python call, SIGSEGV in ISMCTS."""
    game = make_game([("__init__", "no_super")])
    says = r"relay|FaultyRelayState: __init__ did not call super\(\).__init__\(game\)"
    for call in (lambda s: s.legal_actions(), lambda s: s.is_terminal(), lambda s: s.apply(0), lambda s: s.clone(),
                 lambda s: random_playouts(s, 3, 1),
                 lambda s: metro_ai.make_bot("ismcts", seed=1).choose(s, SEARCH),
                 lambda s: metro_ai.make_bot("mo-ismcts", seed=1).choose(s, SEARCH)):
        with pytest.raises(PythonGameError, match=says):
            call(game.new_state(1))


@pytest.mark.parametrize("spec", ["mo-ismcts", "ismcts:rollout=mast", "ismcts", "pimc:worlds=2"])
def test_an_impure_current_player_is_read_once_per_step(spec):
    """`_current_player()` answers differently on each call (every answer in range): the search
    reads the mover once per step, so its tree and MAST tables see one mover (before: the tree of
    player -1 in MO-ISMCTS and a negative MAST row, SIGSEGV / heap corruption)."""
    game = make_game([("_current_player", "impure")], after=30)
    s = game.new_state(2)
    try:
        action = metro_ai.make_bot(spec, seed=1).choose(s, Limit(iterations=400))
    except PythonGameError as exc:              # e.g. "gave actions though the game is over"
        assert "relay: _legal_actions()" in str(exc) or "relay: _returns()" in str(exc), exc
    else:
        assert action in (0, 1, 2)


def test_a_game_that_never_ends_is_stopped_at_max_game_length():
    """Before, a match, a timed search and its stop() hung."""
    game = make_game([("_apply_action", "never_ends")])
    says = r"relay: max_game_length exceeded: the game is not over after 10 actions"
    with pytest.raises(PythonGameError, match=says):
        metro_ai.play_match(game, [metro_ai.make_bot("random"), metro_ai.make_bot("random")], seed=1)
    for limit in (SEARCH, Limit(time=0.5)):
        with pytest.raises(PythonGameError, match=says):
            metro_ai.make_bot("ismcts", seed=1).choose(game.new_state(1), limit)
    with pytest.raises(PythonGameError, match=says):
        random_playouts(game.new_state(1), 2, 1)
    s = game.new_state(1)
    for _ in range(10):
        s.apply(0)
    before = s.to_json()
    with pytest.raises(PythonGameError, match=says):            # the 11th action: refused, nothing changed
        s.apply(0)
    assert s.to_json() == before


class _SlowRelay(RelayState):
    """Each step takes 20 ms, and a game lasts 200 steps (a valid but slow game)."""
    def _apply_action(self, action):
        time.sleep(0.02)
        self.total += 0.05
        self.turn = (self.turn + 1) % self.game.players

    def _current_player(self):
        return -1 if self.total >= 9.99 else self.turn


def _slow_game():
    game = make_game()
    type(game).state_class = _SlowRelay
    type(game).max_game_length = 400
    return game


def test_a_search_honours_its_deadline_and_stop_whatever_an_iteration_costs():
    """One play-out of this game takes 4 s: the search still ends near its deadline (the clock is
    read at every play-out step of a Python game), and stop() ends a background search at once."""
    game = _slow_game()
    t0 = time.perf_counter()
    assert metro_ai.make_bot("ismcts", seed=1).choose(game.new_state(1), Limit(time=0.3)) in (0, 1, 2)
    assert time.perf_counter() - t0 < 0.3 + 1.5          # (the bound is loose: a loaded machine)
    handle = metro_ai.make_bot("ismcts", seed=1).start(game.new_state(1), Limit(time=60))
    time.sleep(0.2)
    t0 = time.perf_counter()
    assert handle.stop(timeout=30) in (0, 1, 2)
    assert time.perf_counter() - t0 < background.ABANDON_AFTER


class _StuckRelay(RelayState):
    def _apply_action(self, action):
        if self.game.stuck and self.total >= 3:
            while True:                      # a method that never returns
                pass
        RelayState._apply_action(self, action)


def test_a_search_stuck_in_the_games_code_is_abandoned_and_the_game_marked_broken():
    game = make_game()
    type(game).state_class = _StuckRelay
    type(game).stuck = True
    s = game.new_state(1)
    handle = metro_ai.make_bot("ismcts", seed=1).start(s, Limit(time=60))
    time.sleep(0.2)
    t0 = time.perf_counter()
    with pytest.raises(PythonGameError, match=r"relay: _apply_action\(\) did not return within 2 s after the "
                                              r"search had to stop \(it was told to stop\); the search was abandoned"):
        handle.stop(timeout=30)
    assert time.perf_counter() - t0 < background.ABANDON_AFTER + 2
    assert handle.done() and game.broken
    with pytest.raises(PythonGameError, match="the game marked broken"):
        s.legal_actions()
    deadline = time.monotonic() + 10        # the abandoned thread was interrupted: it ends
    while any(t.name == "metro-ai-search" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "metro-ai-search" for t in threading.enumerate())


@pytest.mark.parametrize("method, fault", [("_apply_action", "exits"), ("_determinize", "exits"),
                                           ("_heuristic", "exits"), ("_apply_action", "interrupts")])
def test_exit_and_interrupt_in_a_search_are_errors_of_the_game(method, fault):
    """sys.exit() (or KeyboardInterrupt) in a game method on a search thread ended the server."""
    game = make_game([(method, fault)])
    spec = "ismcts:rollout=heuristic" if method == "_heuristic" else "ismcts"
    with pytest.raises(PythonGameError, match=rf"relay: {method}\(\) raised (SystemExit|KeyboardInterrupt)"):
        metro_ai.make_bot(spec, seed=1).start(game.new_state(1), SEARCH).result(timeout=60)


def test_sys_exit_from_a_python_call_is_an_error_of_the_game():
    s = make_game([("_apply_action", "exits")]).new_state(1)
    with pytest.raises(PythonGameError, match=r"relay: _apply_action\(\) raised SystemExit: 3"):
        s.apply(0)


@pytest.mark.parametrize("method, fault, says", [
    ("_scores", "nan", "must give finite numbers, got nan for player 0"),
    ("_scores", "inf", "must give finite numbers, got inf"),
    ("_scores", "strings", "must give finite numbers, got '1'"),
    ("_scores", "short", r"must give one number per player \(2\), got \[1\]"),
    ("_scores", "long", "must give one number per player"),
    ("_scores", "lying_len", "must give one number per player"),
    ("_scores", "none", "must give a list of numbers, got None"),
    ("_returns", "out_of_unit", r"must give numbers in \[0, 1\] \(win 1, loss 0\), got 2.0 for player 0"),
    ("_returns", "nan", "must give finite numbers"),
    ("_returns", "strings", "must give finite numbers, got 'x'"),
    ("_heuristic", "inf", "must give finite numbers, got -inf")])
def test_scores_returns_and_heuristics_are_checked_where_they_enter(method, fault, says):
    """NaN, inf, strings, returns outside [0, 1] and lists of the wrong length were taken by the
    search; records then failed to replay and --json reports held Infinity."""
    game = make_game([(method, fault)])
    s = game.new_state(1)
    while not s.is_terminal():
        s.apply(2)
    call = {"_scores": s.scores, "_returns": s.returns, "_heuristic": s.heuristic}[method]
    with pytest.raises(PythonGameError, match=rf"relay: {method}\(\) {says}"):
        call()
    spec = "ismcts:rollout=heuristic,rollout_depth=2" if method == "_heuristic" else "ismcts"
    with pytest.raises(PythonGameError, match=rf"relay: {method}\(\)"):
        metro_ai.make_bot(spec, seed=1).choose(game.new_state(1), SEARCH)


def test_numpy_scores_are_numbers():
    s = make_game([("_scores", "numpy")]).new_state(1)
    assert s.scores() == RelayState._scores(s)


def test_a_copy_that_shares_objects_is_caught_before_it_changes_the_callers_state_unseen():
    """A `_copy_from` that shares the state's lists lets the copies the search plays on write into
    the position: the search (and random_playouts) now says so instead of ending "normally"."""
    game = make_game([("_copy_from", "shares")])
    for run in (lambda s: metro_ai.make_bot("ismcts", seed=1).choose(s, SEARCH), lambda s: random_playouts(s, 3, 1)):
        with pytest.raises(PythonGameError, match=r"relay: .* changed the state it was given by playing on copies "
                                                  r"of it: _copy_from\(\) must copy"):
            run(game.new_state(1))


def test_errors_belong_to_the_search_not_to_the_game():
    """A fault inside one search is raised by that search only: a caller polling the real state,
    or another search of the same game, neither sees the game as over nor receives the error."""
    game = make_game([("_apply_action", "raises")], after=200)
    s = game.new_state(1)
    handle = metro_ai.make_bot("ismcts", seed=1).start(s, Limit(iterations=100_000))
    while True:              # polled while the search runs and once it is over, however soon that is
        done = handle.done()
        assert not s.is_terminal() and s.legal_actions() == [0, 1, 2]   # (never the search's GameBug)
        if done:
            break
        time.sleep(0.001)
    with pytest.raises(PythonGameError, match=r"relay: _apply_action\(\) raised GameBug") as info:
        handle.result()
    assert isinstance(info.value.__cause__, GameBug)


@pytest.mark.parametrize("attr, value, says", [
    ("num_distinct_actions", 2 ** 31 - 1, f"num_distinct_actions must be an int from 1 to {MAX_DISTINCT_ACTIONS:,}"),
    ("num_distinct_actions", 0, "num_distinct_actions must be an int from 1"),
    ("num_distinct_actions", "3", "num_distinct_actions must be an int from 1"),
    ("max_actions", 4, r"max_actions must be an int from 1 to num_distinct_actions \(3\), got 4"),
    ("max_game_length", 0, "max_game_length must be an int from 1"),
    ("max_game_length", 2 ** 40, "max_game_length must be an int from 1")])
def test_the_games_limits_are_checked_before_anything_is_allocated(attr, value, says):
    """num_distinct_actions up to 2**31 - 1 was taken (8 GiB per legal_actions call)."""
    game = make_game([(attr, {2 ** 31 - 1: "huge", 0: "zero", "3": "string", 4: "over", 2 ** 40: "huge"}[value])])
    for call in (lambda s: s.legal_actions(), lambda s: random_playouts(s, 1, 1),
                 lambda s: metro_ai.make_bot("ismcts", seed=1).choose(s, SEARCH)):
        with pytest.raises(PythonGameError, match=f"relay: {says}"):
            call(game.new_state(1))


def test_action_text_must_be_text():
    game = make_game([("_action_text", "not_text")])
    with pytest.raises(PythonGameError, match=r"relay: _action_text\(\) must give text \(a str\), got 0"):
        game.action_to_string(0)


# ---------------------------------------------------------------- the protocol and the CLI

GAME_CODE_FAILED = -32013


def _registered(game):
    """`game`'s class registered under its name for one test (the server plays registered games),
    and the undoing of it (the registry and $METRO_AI_GAMES, which registering sets for workers)."""
    import os
    from metro_ai import registry
    from metro_ai.usergames import ENV
    cls, env = type(game), os.environ.get(ENV)
    metro_ai.register_game(cls)

    def unregister():
        registry._games().pop(cls.name, None)
        if env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = env
    return cls, unregister


def test_the_server_answers_a_failing_game_with_an_error_and_plays_on():
    from tests.protocol_client import Client, run
    cls, unregister = _registered(make_game([("__init__", "no_super")]))

    async def main():
        c = Client()
        # before: new_game answered an error yet left the game open; its next call killed the server
        message = await c.error("new_game", GAME_CODE_FAILED, game="relay", options={"players": 2}, seed=1)
        assert "__init__ did not call super().__init__(game)" in message
        assert c.session.games == {}
        await c.error("legal_actions", -32000, game_id="g1")
        assert (await c.result("hello"))["server"] == "metro-ai"
    try:
        run(main())
    finally:
        unregister()


def test_a_search_of_a_failing_game_answers_game_code_failed_and_frees_its_slot():
    from tests.protocol_client import Client, run
    cls, unregister = _registered(make_game([("_apply_action", "exits")], after=3))

    async def main():
        c = Client()
        g = await c.result("new_game", game="relay", options={"players": 2}, seed=1)
        message = await c.error("go", GAME_CODE_FAILED, game_id=g["game_id"], bot="ismcts:iterations=200",
                                progress=False)
        assert "relay: _apply_action() raised SystemExit" in message
        assert c.session.searching == 0 and c.session.server.searches == 0
        assert (await c.result("state", game_id=g["game_id"]))["ply"] == 0
    try:
        run(main())
    finally:
        unregister()


def test_a_stuck_search_is_abandoned_at_the_servers_time_limit_and_after_the_client_left():
    """A game method that never returns: `go` still answers (at the server's max_search_seconds,
    plus the grace of ABANDON_AFTER), its slot is freed, the game answers -32013 from then on; and a
    session closed while such a search runs leaves no thread burning CPU."""
    from tests.protocol_client import Client, run
    game = make_game()
    type(game).state_class = _StuckRelay
    type(game).stuck = True
    cls, unregister = _registered(game)

    async def main():
        c = Client(max_search_seconds=0.5)
        g = await c.result("new_game", game="relay", options={"players": 2}, seed=1)
        t0 = time.perf_counter()
        message = await c.error("go", GAME_CODE_FAILED, game_id=g["game_id"], bot="ismcts:iterations=100000",
                                progress=False)
        assert time.perf_counter() - t0 < 0.5 + background.ABANDON_AFTER + 3
        assert "_apply_action() did not return" in message and "abandoned" in message
        assert c.session.searching == 0 and c.session.server.searches == 0
        await c.error("legal_actions", GAME_CODE_FAILED, game_id=g["game_id"])       # marked broken
        c2 = Client()
        g2 = await c2.result("new_game", game="relay", options={"players": 2}, seed=1)
        i, sending = c2.send("go", game_id=g2["game_id"], bot="ismcts:iterations=100000", progress=False)
        await sending
        await asyncio.sleep(0.2)
        await c2.session.close()                       # the client has left
    try:
        run(main())
    finally:
        unregister()
    deadline = time.monotonic() + background.ABANDON_AFTER + 10
    while any(t.name == "metro-ai-search" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "metro-ai-search" for t in threading.enumerate())


def test_the_command_line_reports_a_failing_game_and_exits_1(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    module = tmp_path / "never_ends.py"
    module.write_text("import sys\nsys.path.insert(0, %r)\nfrom user_games import make_game\n"
                      "NeverEnds = type(make_game([('_apply_action', 'never_ends')]))\n"
                      % str(Path(__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, "-m", "metro_ai", "--game-module", f"{module}:NeverEnds", "match",
                          "--game", "relay", "--bots", "random", "random"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "metro-ai: error in the game's code: relay: max_game_length exceeded" in out.stderr
    assert "Traceback" not in out.stderr
