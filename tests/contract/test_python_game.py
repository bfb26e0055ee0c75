"""Games written in plain Python (engine/python_game.pyx) with the example game
examples/tunnel_draft.py: the contract suite, the bots, the command line (match, tournament), the
protocol, errors in the game's own code, and who may register a game."""
from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import metro_ai
from metro_ai import Limit, registry
from metro_ai.engine.core import random_playouts
from metro_ai.engine.options import Option
from metro_ai.engine.python_game import PythonGame, PythonGameError, PythonState
from metro_ai.usergames import ENV
from tests.protocol_client import Client, run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tunnel_draft.py"
SPEC = f"{EXAMPLE}:TunnelDraftGame"
NAME = "tunnel-draft"

_spec = importlib.util.spec_from_file_location("metro_ai_contract_suite", ROOT / "tests" / "contract" / "test_contract.py")
contract = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(contract)      # (bound to names without test_: pytest collects nothing twice)
CONTRACT_CHECKS = sorted(name for name in vars(contract) if name.startswith("test_"))


@pytest.fixture(scope="module")
def example():
    """The example game registered for this module's tests, and unregistered after them."""
    env = os.environ.get(ENV)
    cls = metro_ai.register_game(SPEC)
    yield cls
    registry._games().pop(NAME, None)
    if env is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = env


def _cli(*args, env_games=None, timeout=300):
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if env_games is not None:
        env[ENV] = env_games
    return subprocess.run([sys.executable, "-m", "metro_ai", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout)


# ---------------------------------------------------------------- the contract suite

@pytest.mark.parametrize("check", CONTRACT_CHECKS)
def test_the_contract_suite_passes_on_the_example_game(check, example, tmp_path):
    """Every check of tests/contract/ on every option set of the example game (every bot for the
    bot check), called with the same arguments its parametrisation gives a registered game."""
    fn = getattr(contract, check)
    params = inspect.signature(fn).parameters
    indexes = [0] if "bot" in params else range(len(example.option_sets())) if "index" in params else [None]
    bots = metro_ai.list_bots() if "bot" in params else [None]
    ran = 0
    for index in indexes:
        for bot in bots:
            kwargs = {"name": NAME, "index": index, "bot": bot, "tmp_path": tmp_path}
            try:
                fn(**{k: kwargs[k] for k in params})
            except pytest.skip.Exception:
                continue
            ran += 1
    if check == "test_the_fast_engine_matches_its_reference" and example.reference is None:
        assert ran == 0                  # no reference engine to compare with: skipped, not failed
    else:
        assert ran, f"{check} skipped on every option set"


def test_the_example_game_has_hidden_information_that_determinize_redeals(example):
    game = metro_ai.load_game(NAME, players=3)
    s = game.new_state(5)
    worlds = {json.dumps(s.determinize(0, seed).hands[1]) for seed in range(20)}
    assert len(worlds) > 1                                # the others' hands are redealt
    assert all(s.determinize(0, seed).hands[0] == s.hands[0] for seed in range(5))
    bury = game.cards + s.hands[0][0]
    assert s._observed_action(bury, 1) == game.cards and s._observed_action(bury, 0) == bury
    assert game.new_state(5).to_json() == s.to_json() and game.new_state(6).to_json() != s.to_json()


def test_action_texts_are_read_by_the_contracts_default(example):
    """The example writes no ``string_to_action``: the contract's default reads every action's
    text back, case and runs of white space aside, and names the game when it cannot."""
    game = metro_ai.load_game(NAME, players=3)
    assert "string_to_action" not in vars(type(game))
    for a in range(game.num_distinct_actions):
        text = game.action_to_string(a)
        assert game.string_to_action(text) == a
        assert game.string_to_action("  " + "   ".join(text.upper().split()) + " ") == a
    with pytest.raises(ValueError, match="cannot read tunnel-draft action 'no such action'"):
        game.string_to_action("no such action")


def test_the_rules_score_runs_and_stations(example):
    """T4 and T5 on a hand-made position: runs of two or more score their values, one card
    nothing, the station goes to the first to reach a run of three."""
    game = metro_ai.load_game(NAME, players=2, values=5)
    s = game.new_state(1)
    # red 1..5 are cards 0..4, blue 1..5 are 5..9
    s.tunnels = [[0, 1, 2, 9], [5, 6, 3]]
    s.deck, s.hands = [], [[], []]
    s.buried = [[c for c in range(game.cards) if c not in s.tunnels[0] + s.tunnels[1]], []]
    s.stations = [0, -1, -1, -1]
    s.turn = -1
    assert s.scores() == [1 + 2 + 3 + 5, 1 + 2]
    assert s.returns() == [1.0, 0.0]
    assert game.state_from_json(s.to_json()) == s
    bad = json.loads(s.to_json())
    bad["stations"] = [1, -1, -1, -1]
    with pytest.raises(metro_ai.StateFormatError, match="station"):
        game.state_from_json(bad)


# ---------------------------------------------------------------- bots and speed paths

@pytest.mark.parametrize("spec", ["ismcts", "mo-ismcts", "pimc:worlds=3", "flat-mc", "greedy", "ismcts:workers=2"])
def test_search_bots_play_it_reproducibly_and_in_the_background(example, spec):
    state = metro_ai.load_game(NAME, players=3).new_state(2)
    limit = Limit(iterations=120)
    a = metro_ai.make_bot(spec, seed=4).choose(state, limit)
    assert state.is_legal(a) and metro_ai.make_bot(spec, seed=4).choose(state, limit) == a
    handle = metro_ai.make_bot(spec, seed=4).start(state, limit)
    assert handle.result(timeout=120) == a


def test_processes_backend_is_refused_for_a_game_loaded_from_a_file(example):
    state = metro_ai.load_game(NAME).new_state(1)
    bot = metro_ai.make_bot("ismcts", seed=1, workers=2, backend="processes")
    with pytest.raises(ValueError, match="backend='threads'"):
        bot.choose(state, Limit(iterations=50))


# ---------------------------------------------------------------- errors in the game's code

class _Faulty(PythonState):
    """A one-player counting game whose _apply_action fails on action 2."""

    def __init__(self, game):
        super().__init__(game)
        self.n = 0

    def _current_player(self):
        return -1 if self.n >= 6 else 0

    def _legal_actions(self):
        return [] if self.n >= 6 else [0, 1, 2]

    def _apply_action(self, action):
        if action == 2 and self.game.fail:
            raise KeyError("boom")
        self.n += 1

    def _scores(self):
        return [self.n]

    def _returns(self):
        return [self.n / 6 if self.n >= 6 else 0.0]          # one player: a return in [0, 1]

    def _state_fields(self):
        return {"n": self.n}

    def observation(self, player):
        return {"n": self.n}


class _FaultyGame(PythonGame):
    name = "faulty-zz"
    min_players = max_players = 1
    OPTIONS = (Option.integer("players", 1, "players", low=1, high=1),)
    fail = True
    num_distinct_actions = 3
    max_game_length = 6

    def new_state(self, seed=0):
        return _Faulty(self)


def test_an_error_in_the_games_code_is_raised_not_swallowed():
    game = _FaultyGame()
    s = game.new_state()
    with pytest.raises(KeyError, match="boom"):          # a Python call: the error itself
        s.apply(2)
    assert s.n == 0 and s.legal_actions() == [0, 1, 2]   # raised once, then the state plays on
    # inside a search or a C play-out: recorded, the search winds down, PythonGameError from it
    with pytest.raises(PythonGameError, match="faulty-zz: _apply_action.*KeyError.*boom") as info:
        metro_ai.make_bot("ismcts", seed=1).choose(s, Limit(iterations=50))
    assert isinstance(info.value.__cause__, KeyError)
    assert s.legal_actions() == [0, 1, 2]               # the error was the search's, not the state's
    with pytest.raises(PythonGameError, match="boom"):
        random_playouts(s, 20, 3)
    game.fail = False
    assert random_playouts(s, 2, 3) == [2.0] and s.n == 0
    assert s.returns() == [0.0]


def test_values_of_the_wrong_kind_from_the_games_code_are_errors():
    game = _FaultyGame()
    s = game.new_state()
    s._legal_actions = lambda: [2, 1]                     # not sorted
    with pytest.raises(PythonGameError, match=r"faulty-zz: _legal_actions\(\) must give sorted"):
        s.legal_actions()
    s._legal_actions = lambda: [0, 1, 2, 3]               # more than max_actions (3)
    with pytest.raises(PythonGameError, match="more than max_actions"):
        s.legal_actions()
    s._current_player = lambda: 5
    with pytest.raises(PythonGameError, match="_current_player"):
        s.is_terminal()
    with pytest.raises(PythonGameError, match="_current_player"):     # in a search: the same
        random_playouts(s, 1, 1)


# ---------------------------------------------------------------- the command line

def test_match_from_the_command_line_is_reproducible_bit_for_bit(example, tmp_path):
    args = ["--game-module", SPEC, "match", "--game", NAME, "--players", "3",
            "--bots", "ismcts:iterations=200", "random", "mo-ismcts:iterations=100", "--seed", "7"]
    one = _cli(*args, "--save", str(tmp_path / "a.json"))
    two = _cli(*args, "--save", str(tmp_path / "b.json"))
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    # the same record, bit for bit, but for the clock (the seconds each move and the game took)
    timeless = [re.sub(rb'"seconds": [0-9.e-]+', b'"seconds": 0', (tmp_path / f).read_bytes()) for f in ("a.json", "b.json")]
    assert timeless[0] == timeless[1] and b'"seconds": 0' in timeless[0]
    record = json.loads((tmp_path / "a.json").read_text())
    assert record["game"] == NAME
    assert [re.sub(r"[0-9.]+ s$", "", line) for line in one.stdout.splitlines()] == \
        [re.sub(r"[0-9.]+ s$", "", line) for line in two.stdout.splitlines()]
    states = metro_ai.replay(record)
    assert states[-1].is_terminal() and len(states) == example(players=3).max_game_length + 1


def test_match_names_a_game_module_that_is_not_a_game():
    bad = _cli("--game-module", f"{EXAMPLE}:LINES", "match", "--game", NAME)
    assert bad.returncode == 2 and "is not a game" in bad.stderr
    missing = _cli("--game-module", "no/such/file.py:Game", "match")
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_a_tournament_with_worker_processes_plays_it(tmp_path):
    """--jobs 2: the workers find the game through $METRO_AI_GAMES, set by --game-module."""
    out = _cli("--game-module", SPEC, "tournament", "--game", NAME, "--bots", "ismcts:iterations=50", "random",
               "--deals", "2", "--jobs", "2", "--db", str(tmp_path / "t.sqlite"), "--quiet", "--bootstrap", "20")
    assert out.returncode == 0, out.stderr + out.stdout
    assert "ismcts" in out.stdout and "random" in out.stdout


def test_the_environment_variable_registers_it_too():
    out = _cli("games", "--json", env_games=SPEC)
    assert out.returncode == 0, out.stderr
    assert NAME in json.loads(out.stdout)


# ---------------------------------------------------------------- the protocol

def test_the_protocol_plays_a_whole_game_of_it(example):
    async def main():
        c = Client()
        assert NAME in metro_ai.list_games()
        g = await c.result("new_game", game=NAME, options={"players": 2}, seed=3)
        gid = g["game_id"]
        plies = 0
        while True:
            legal = await c.result("legal_actions", game_id=gid)
            if not legal["actions"]:
                break
            await c.result("go", game_id=gid, bot="ismcts:iterations=60" if plies % 2 else "random", seed=plies,
                           apply=True, progress=False)
            plies += 1
        state = await c.result("state", game_id=gid)
        assert state["terminal"] and plies == example(players=2).max_game_length
        record = (await c.result("save", game_id=gid))["record"]
        assert len(metro_ai.replay(record)) == plies + 1
    run(main())


def test_a_client_cannot_make_the_server_import_a_module():
    """Only the operator registers games; a client naming a module gets an unknown game."""
    before = set(sys.modules)

    async def main():
        c = Client()
        for name in (SPEC, "examples.tunnel_draft:TunnelDraftGame", "json:JSONDecoder"):
            answer = await c.call("new_game", game=name, options={}, seed=1)
            assert "error" in answer and "unknown game" in json.dumps(answer)
    run(main())
    added = set(sys.modules) - before
    assert not [m for m in added if "tunnel" in m or m.startswith("metro_ai_user_games")], added
