"""A learned evaluator inside the search (issue #44): ``LearnedValue`` computes what the Python
``Evaluator`` predicts, from the features the search computes (``c_features``); the search options
``eval=learned``, ``eval_mix`` and ``evaluator`` build it into the play-out's cut-off, a mix of 0
searches exactly as the hand-written evaluation does and a mix of 1 differently, the same seed
gives the same search, and every wrong use is refused with what was wrong. Evaluators here are
made from seeded random weights (no self-play), so the tests take seconds."""
from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

import metro_ai
from metro_ai import registry
from metro_ai.bots.catalogue import BotSpec
from metro_ai.bots.limit import Limit
from metro_ai.bots.search import LearnedValue
from metro_ai.bots.evaluator import EvaluatorError, load_learned, shipped_evaluator
from metro_ai.bots.settings import SearchSettings
from metro_ai.learn import Evaluator
from metro_ai.learn.model import evaluator_data
from metro_ai.usergames import ENV

TUNNEL_DRAFT = "examples/tunnel_draft.py:TunnelDraftGame"


@pytest.fixture
def tunnel_draft():
    """The tutorial's game registered (directly, or by the command line's --game-module) for one
    test, and unregistered after it, the environment as it was (no other test sees the game)."""
    env = os.environ.get(ENV)
    yield metro_ai.register_game(TUNNEL_DRAFT)
    registry._games().pop("tunnel-draft", None)
    if env is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = env


GAMES = [("breakthrough", {"players": 2}), ("breakthrough", {"players": 3}), ("metro2033", {"players": 2}),
         ("leduc", {"players": 2})]


def _model(game, kind, seed=0):
    """A model of `kind` ("logistic", "hand" on the hand-written value too, "mlp") for `game`,
    seeded random weights of a size that makes predictions spread over (0, 1)."""
    rng = np.random.default_rng(seed)
    n = game.observation_features().size
    if kind == "mlp":
        return {"kind": "mlp", "hidden": 4, "w1": rng.normal(0, 0.3, (4, n)), "b1": rng.normal(0, 0.1, 4),
                "w2": rng.normal(0, 1, 4), "b2": 0.1}
    return {"kind": "logistic", "weights": rng.normal(0, 0.2, n), "bias": -0.2,
            "hand_written": {"weight": 0.8, "scale": 1.0} if kind == "hand" else None}


def _evaluator_file(tmp_path, game, kind="hand", seed=0, name="evaluator.json"):
    path = tmp_path / name
    path.write_text(json.dumps(evaluator_data(game, _model(game, kind, seed), {"command": None})))
    return path


def _positions(game, count=12, seed=5):
    """`count` states of games played by random legal actions, every other ply (the next game
    dealt where one ends)."""
    rng = np.random.default_rng(seed)
    out: list = []
    deal = seed
    while len(out) < count:
        state = game.new_state(deal)
        while not state.is_terminal() and len(out) < count:
            out.append(state.clone())
            for _ in range(2):
                if not state.is_terminal():
                    legal = state.legal_actions()
                    state.apply(legal[int(rng.integers(len(legal)))])
        deal += 1
    return out


@pytest.mark.parametrize("name,options", GAMES)
@pytest.mark.parametrize("kind", ["logistic", "hand", "mlp"])
def test_the_search_computes_what_the_evaluator_predicts(tmp_path, name, options, kind):
    game = metro_ai.load_game(name, **options)
    path = _evaluator_file(tmp_path, game, kind)
    python, fast = Evaluator.load(path), load_learned(path)
    got = [(fast.predict(s, p), python.predict(s, p)) for s in _positions(game) for p in range(game.num_players)]
    assert len(got) >= 8
    assert all(abs(a - b) < 1e-5 for a, b in got)                       # (weights in single precision)
    assert max(a for a, _ in got) - min(a for a, _ in got) > 0.01        # not a constant


def test_loading_is_checked_and_kept_while_the_file_is_unchanged(tmp_path):
    game = metro_ai.load_game("breakthrough", players=2)
    path = _evaluator_file(tmp_path, game)
    first = load_learned(path)
    assert load_learned(path) is first
    path.write_text(json.dumps(evaluator_data(game, _model(game, "hand", seed=1), {"command": None})))
    second = load_learned(path)
    assert second is not first and second != first
    assert pickle.loads(pickle.dumps(second)) == second
    bad = json.loads(path.read_text())
    bad["model"]["weights"][3] = "x"
    path.write_text(json.dumps(bad))
    with pytest.raises(EvaluatorError, match=r"model\.weights\[3\] must be a finite number"):
        load_learned(path)
    with pytest.raises(EvaluatorError, match="evaluator file .*nowhere.json"):
        load_learned(tmp_path / "nowhere.json")


def _choice(game, count):
    """A position with a choice (more than one legal action), among the first `count`."""
    return next(s for s in reversed(_positions(game, count)) if len(s.legal_actions()) > 1)


def _analysis(spec, state, iterations=300):
    """What a seeded search of `state` found (its time left out)."""
    bot = BotSpec.parse(spec).make(seed=11)
    out = bot.analyse(state, Limit(iterations=iterations)).to_dict()
    del out["seconds"]
    return out


@pytest.mark.parametrize("name,players,ply", [("breakthrough", 2, 6), ("metro2033", 2, 12), ("breakthrough", 3, 4)])
def test_a_mix_of_0_searches_as_the_hand_written_and_a_mix_of_1_differently(tmp_path, name, players, ply):
    game = metro_ai.load_game(name, players=players)
    state = _choice(game, ply // 2 + 1)
    path = _evaluator_file(tmp_path, game)
    hand = _analysis("ismcts:eval=hand-written", state)
    none = _analysis(f"ismcts:eval=learned,evaluator={path},eval_mix=0", state)
    learned = _analysis(f"ismcts:eval=learned,evaluator={path}", state)
    again = _analysis(f"ismcts:evaluator={path}", state)                 # evaluator= alone means learned
    assert none == hand
    assert learned != hand
    assert again == learned                          # the same seed, the same search


def test_threads_and_processes_search_alike_with_a_learned_value(tmp_path):
    game = metro_ai.load_game("breakthrough", players=2)
    state = _choice(game, 3)
    path = _evaluator_file(tmp_path, game)
    threads = _analysis(f"ismcts:evaluator={path},workers=2", state, 200)
    processes = _analysis(f"ismcts:evaluator={path},workers=2,backend=processes", state, 200)
    assert threads == processes


def test_a_game_written_in_python_searches_with_its_evaluator(tmp_path, tunnel_draft):
    """The tutorial's game (examples/tunnel_draft.py): features in Python, the same path."""
    game = metro_ai.load_game("tunnel-draft", players=2)
    path = _evaluator_file(tmp_path, game)
    state = _choice(game, 2)
    fast, python = load_learned(path), Evaluator.load(path)
    assert abs(fast.predict(state, 1) - python.predict(state, 1)) < 1e-5
    hand = _analysis("ismcts:rollout_depth=2", state, 200)
    learned = _analysis(f"ismcts:rollout_depth=2,evaluator={path}", state, 200)
    assert learned != hand


def test_wrong_uses_are_refused_with_what_was_wrong(tmp_path):
    bt = metro_ai.load_game("breakthrough", players=2)
    m2033 = metro_ai.load_game("metro2033", players=2)
    path = _evaluator_file(tmp_path, bt)
    state = m2033.new_state(1)
    with pytest.raises(ValueError, match="this evaluator is for breakthrough, not metro2033"):
        BotSpec.parse(f"ismcts:evaluator={path}").make(seed=1).choose(state)
    with pytest.raises(ValueError, match=r"other options: players=2 there, 3 here"):
        BotSpec.parse(f"ismcts:evaluator={path}").make(seed=1).choose(
            metro_ai.load_game("breakthrough", players=3).new_state(1))
    with pytest.raises(ValueError, match="eval_mix is a setting of eval=learned"):
        SearchSettings(eval_mix=0.5)
    with pytest.raises(ValueError, match="evaluator is the file eval=learned reads"):
        SearchSettings(eval="hand-written", evaluator=str(path))
    with pytest.raises(ValueError, match=r"eval=learned needs an evaluator file"):
        SearchSettings(eval="learned")
    with pytest.raises(ValueError, match=r"eval_mix"):
        SearchSettings(eval="learned", evaluator=str(path), eval_mix=1.5)
    with pytest.raises(ValueError, match="no evaluator ships for leduc with 2 players"):
        shipped_evaluator(metro_ai.load_game("leduc", players=2))
    with pytest.raises(ValueError, match="no evaluator ships for leduc"):
        BotSpec.parse("ismcts:eval=learned").make(seed=1).choose(metro_ai.load_game("leduc").new_state(1))
    with pytest.raises(ValueError, match="learned must be None or a LearnedValue"):
        SearchSettings().playout.replace(learned="x")


def test_a_learned_value_reads_each_seats_own_view():
    """What one seat's value depends on is that seat's observation: changing a hidden card of
    another seat (a determinisation for seat 0) leaves seat 0's features, and value, as they were."""
    game = metro_ai.load_game("breakthrough", players=2)
    learned = LearnedValue(evaluator_data(game, _model(game, "hand"), {"command": None}))
    state = _positions(game, count=4)[-1]
    other = state.determinize(0, 99)
    assert np.array_equal(other._features_c(0), state._features_c(0))
    assert learned.predict(other, 0) == learned.predict(state, 0)
    assert not np.array_equal(other._features_c(1), state._features_c(1))


def test_the_tutorials_game_trains_with_one_command_and_plays_against_its_evaluator(tmp_path, capsys, tunnel_draft):
    """The user's path (docs/guide/train.md): ``metro-ai --game-module ... train`` on the
    tutorial's game written in Python, then a match against the bot reading what it wrote."""
    from metro_ai.cli import main
    module = ["--game-module", TUNNEL_DRAFT]
    folder = tmp_path / "td"
    assert main(module + ["train", "--dir", str(folder), "--game", "tunnel-draft", "--bot", "easy", "--games", "5",
                          "--jobs", "1", "--quiet", "--epochs", "2"]) == 0
    evaluator = folder / "evaluator.json"
    assert Evaluator.load(evaluator).game == "tunnel-draft"
    capsys.readouterr()
    bot = f"ismcts:rollout_depth=3,evaluator={evaluator}"
    assert main(module + ["match", "--game", "tunnel-draft", "--bots", bot, "random", "--iterations", "50",
                          "--seed", "2"]) == 0
    assert f"player 0 (ismcts:evaluator={evaluator},rollout_depth=3)" in capsys.readouterr().out   # (spec normalised)


@pytest.mark.parametrize("name, on, off, variant", [
    ("breakthrough", 2, None, {"full_protection_required": True}),
    ("breakthrough", 3, None, {"failed_defence_tokens_down": True}),
    ("breakthrough", 4, None, {"quest_tokens_stay_down": True}),
    ("breakthrough", 5, None, {"full_protection_required": True}),
    ("metro2033", 3, 2, {"round_limit": 30}),
])
def test_a_games_bots_read_its_shipped_evaluator_where_it_was_measured(name, on, off, variant):
    """#44, measured (each game's ``search_settings``, docs/guide/train.md): Breakthrough at
    every player count (2 to 5) and Metro 2033 at 3, every search bot and preset scores its
    cut-offs with the evaluator shipped for the game and players, mixed at 1;
    ``eval=hand-written`` searches as without it; at another player count (`off`: Metro 2033 at
    2), and with rules the evaluator was not trained on, nothing learned is read."""
    game = metro_ai.load_game(name, players=on)
    assert game.search_settings()["eval"] == "learned"
    others = [metro_ai.load_game(name, players=off)] if off is not None else []
    assert all("eval" not in other.search_settings() for other in others)
    shipped = load_learned(shipped_evaluator(game))
    for spec in ("easy", "medium", "hard", "ismcts", "mo-ismcts"):
        playout = BotSpec.parse(spec).make(seed=1).settings_for(game).playout
        assert playout.learned == shipped and playout.eval_mix == 1.0
        for other in others:
            assert BotSpec.parse(spec).make(seed=1).settings_for(other).playout.learned is None
        assert BotSpec.parse(f"{spec}:eval=hand-written").make(seed=1).settings_for(game).playout.learned is None
    # other rules than it was trained on (a variant): scored by hand, as asking for it is refused
    changed = metro_ai.load_game(name, players=on, **variant)
    assert BotSpec.parse("hard").make(seed=1).settings_for(changed).playout.learned is None
    assert BotSpec.parse("hard:eval_mix=0.5").make(seed=1).settings_for(game).playout.eval_mix == 0.5
    with pytest.raises(ValueError, match="eval_mix is a setting of eval=learned"):
        BotSpec.parse("hard:eval_mix=0.5").make(seed=1).settings_for(changed)
    with pytest.raises(ValueError, match=f"trained on {name} with other options: {next(iter(variant))}"):
        BotSpec.parse("hard:eval=learned").make(seed=1).choose(changed.new_state(1))
    state = _choice(game, 4)
    path = shipped_evaluator(game)
    assert _analysis("ismcts", state) == _analysis(f"ismcts:evaluator={path}", state)
    assert _analysis("ismcts", state) != _analysis("ismcts:eval=hand-written", state)


def test_every_shipped_evaluator_reads_its_game_and_says_how_it_was_trained():
    from metro_ai.bots.evaluator import DATA
    shipped = sorted(DATA.glob("evaluator-*.json"))
    assert {p.name for p in shipped} >= {"evaluator-breakthrough-2p.json", "evaluator-breakthrough-3p.json",
                                         "evaluator-breakthrough-4p.json", "evaluator-breakthrough-5p.json",
                                         "evaluator-metro2033-2p.json",
                                         "evaluator-metro2033-3p.json"}
    for path in shipped:
        learned = load_learned(path)
        game = metro_ai.load_game(learned.game, **learned.data["options"])
        assert path.name == f"evaluator-{game.name}-{game.num_players}p.json"
        assert shipped_evaluator(game) == path
        learned.check_game(game)
        training = learned.data["training"]
        assert training["command"].startswith(f"metro-ai train --dir DIR --game {game.name} ")
        held = training["held_out"]
        assert held["log_loss"] < held["log_loss_hand_written"] < held["log_loss_constant"]
        state = game.new_state(1)
        assert 0 < learned.predict(state, 0) < 1


@pytest.mark.parametrize("bad,message", [(lambda x: x[:-1], "must give 141 finite numbers"),
                                         (lambda x: np.where(np.arange(len(x)) == 3, np.nan, x), "finite"),
                                         (lambda x: 1 / 0, "ZeroDivisionError")])
def test_a_python_games_broken_features_stop_the_search_with_what_was_wrong(tmp_path, tunnel_draft, monkeypatch,
                                                                              bad, message):
    """A game written in Python is outside input: features of the wrong size, not finite, or an
    encoder that raises end the search with a PythonGameError naming observation_tensor, and the
    state is as it was."""
    from metro_ai.engine.errors import PythonGameError
    game = metro_ai.load_game("tunnel-draft", players=2)
    path = _evaluator_file(tmp_path, game)
    state = _choice(game, 2)
    before = state.to_json()
    encoder = type(game.observation_features())
    right = encoder.encode
    monkeypatch.setattr(encoder, "encode", lambda self, obs: bad(right(self, obs)))
    with pytest.raises(PythonGameError, match=rf"observation_tensor.*{message}|{message}.*observation_tensor"):
        BotSpec.parse(f"ismcts:rollout_depth=2,evaluator={path}").make(seed=1).choose(state)
    assert state.to_json() == before
