"""Learned evaluators (metro_ai.learn, ``metro-ai train``, issue #44): self-play positions the
same wherever they are played, resumable and refused when the folder holds another run; a fit
that recovers known weights, reproducible from its seed; the evaluator file written, checked and
read back; the command's report and refusals. Leduc keeps the games short."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import metro_ai
from metro_ai.cli import main
from metro_ai.learn import (Evaluator, EvaluatorError, SelfPlaySettings, TrainError, check_evaluator, cross_validate,
                            fit_logistic, load_positions, log_loss, self_play, train_evaluator)
from metro_ai.learn.model import calibration, sigmoid
from metro_ai.learn.selfplay import play_game, soft_rank

LEDUC = SelfPlaySettings("leduc", {"players": 2}, "easy", seed=3, every=1)


def _games(folder):
    return sorted(p.name for p in (folder / "positions").iterdir())


def test_positions_are_the_same_wherever_played_and_a_run_resumes(tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    seen = []
    assert self_play(here, LEDUC, 3, progress=lambda d, t: seen.append((d, t))) == [0, 1, 2]
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    before = (here / "positions" / "game-000001.npz").read_bytes()
    assert self_play(here, LEDUC, 5) == [3, 4]                                 # only the games missing
    assert (here / "positions" / "game-000001.npz").read_bytes() == before
    assert self_play(there, LEDUC, 5, jobs=2) == [0, 1, 2, 3, 4]
    for name in _games(here):
        with np.load(here / "positions" / name) as a, np.load(there / "positions" / name) as b:
            assert all(np.array_equal(a[k], b[k]) for k in ("x", "y", "base", "seat", "ply"))
    assert self_play(here, LEDUC, 5) == []


def test_each_position_is_each_seats_view_labelled_with_its_return():
    """Every kept position appears once a seat: its features are what that seat sees (the game's
    observation features of its own observation), its label the seat's final return, its
    hand-written value the soft rank of the heuristic (Leduc: by the chips; cut-off scale 1)."""
    data = play_game(LEDUC, 7)
    game = metro_ai.load_game("leduc", players=2)
    assert data["x"].shape == (len(data["y"]), game.observation_features().shape[0])
    assert list(data["seat"][:2]) == [0, 1] and list(data["ply"][::2]) == list(range(len(data["y"]) // 2))
    returns = [data["y"][data["seat"] == p][0] for p in (0, 1)]
    assert all((data["y"][data["seat"] == p] == returns[p]).all() for p in (0, 1)) and sum(returns) == pytest.approx(1)
    first = game.new_state(metro_ai.bots.seeding.derive(3, 7))
    assert np.array_equal(data["x"][1], first.observation_tensor(1))          # the deal, seen by seat 1
    assert data["base"][0] == soft_rank(first.heuristic(), 0, 1.0)
    assert soft_rank([3.0, 1.0, 1.0], 0, 2.0) == pytest.approx(1 / (1 + math.exp(-1)))
    assert soft_rank([5.0], 0, 1.0) == 0.5


def test_the_fit_recovers_known_weights_reproducibly():
    rng = np.random.default_rng(0)
    x = (rng.random((4000, 12)) < 0.3).astype(np.float32)
    true = rng.normal(0, 1.5, 12)
    y = (rng.random(4000) < sigmoid(x @ true - 0.5)).astype(float)
    w, b = fit_logistic(x, y, epochs=40, seed=1)
    again = fit_logistic(x, y, epochs=40, seed=1)
    assert np.array_equal(w, again[0]) and b == again[1]
    assert np.corrcoef(w, true)[0, 1] > 0.95
    assert log_loss(sigmoid(x @ w + b), y) < log_loss(sigmoid(x @ true - 0.5), y) + 0.01
    assert log_loss(sigmoid(x @ w + b), y) < log_loss(np.full(len(y), y.mean()), y) - 0.1
    table = calibration([0.05, 0.15, 0.12, 0.95], [0, 1, 0, 1])
    assert [(r["count"], r["outcome"]) for r in table] == [(1, 0.0), (2, 0.5), (1, 1.0)]


def test_log_loss_over_games_weighs_each_game_alike():
    """#44: a few long games can hold most positions; over games each game's mean counts once."""
    p, y = [0.5, 0.5, 0.9], [1, 0, 1]
    assert log_loss(p, y) == pytest.approx((2 * math.log(2) - math.log(0.9)) / 3)
    assert log_loss(p, y, games=[7, 7, 3]) == pytest.approx((math.log(2) - math.log(0.9)) / 2)
    assert log_loss(p, y, games=[1, 2, 3]) == pytest.approx(log_loss(p, y))


def test_the_evaluator_is_written_checked_and_read_back(tmp_path):
    folder = tmp_path / "run"
    self_play(folder, LEDUC, 10)
    data = train_evaluator(folder, epochs=5, command="metro-ai train ...")
    assert check_evaluator(json.loads(json.dumps(data))) and data["training"]["self_play"]["games"] == 10
    train, held, _ = load_positions(folder)
    assert sorted(np.unique(held["game"])) == [4, 9] and data["training"]["fit"]["positions"] == len(train["y"])
    report = data["training"]["held_out"]
    assert report["log_loss_constant"] == pytest.approx(log_loss(np.full(len(held["y"]), train["y"].mean()), held["y"]))
    assert report["log_loss_hand_written"] == pytest.approx(log_loss(held["base"], held["y"]))
    path = tmp_path / "e.json"
    path.write_text(json.dumps(data))
    ev = Evaluator.load(path)
    state = metro_ai.load_game("leduc", players=2).new_state(5)
    hand = data["model"]["hand_written"]                     # by default a correction of the hand-written value
    assert hand["scale"] == 1.0 and math.isfinite(hand["weight"])
    base = [soft_rank(state.heuristic(), 1, 1.0)]
    assert ev.predict(state, 1) == pytest.approx(float(ev.predict_features(state.observation_tensor(1)[None, :],
                                                                           base)[0]))
    assert report["log_loss"] == pytest.approx(log_loss(ev.predict_features(held["x"], held["base"]), held["y"]))
    # over games: each held-out game's mean log-loss, averaged over the games (4 and 9)
    each = [log_loss(held["base"][held["game"] == g], held["y"][held["game"] == g]) for g in (4, 9)]
    assert report["log_loss_hand_written_per_game"] == pytest.approx(sum(each) / 2)
    assert report["log_loss_per_game"] == pytest.approx(
        log_loss(ev.predict_features(held["x"], held["base"]), held["y"], held["game"]))
    plain = train_evaluator(folder, epochs=5, on_hand_written=False)
    assert plain["model"]["hand_written"] is None and plain["training"]["fit"]["on_hand_written"] is False
    assert plain["model"]["weights"] != data["model"]["weights"]
    for change, message in ((lambda d: d["model"].update(weights=d["model"]["weights"][:-1]), "model.weights must be"),
                            (lambda d: d["model"]["weights"].__setitem__(3, "x"), "model.weights\\[3\\] must be a finite"),
                            (lambda d: d.update(version=9), "version"),
                            (lambda d: d["model"]["hand_written"].update(scale=0), "model.hand_written.scale must be > 0"),
                            (lambda d: d["model"]["hand_written"].pop("weight"), "model.hand_written.weight must be a"),
                            (lambda d: d.update(game=7), "field 'game' must be a text")):
        bad = json.loads(json.dumps(data))
        change(bad)
        path.write_text(json.dumps(bad, indent=1))
        with pytest.raises(EvaluatorError, match=rf"evaluator .*e\.json.*: line \d+, column \d+: .*{message}"):
            Evaluator.load(path)
    with pytest.raises(EvaluatorError, match="for leduc, not metro"):
        ev.predict(metro_ai.load_game("metro", players=2).new_state(1), 0)


def test_a_folder_of_another_run_or_damaged_files_are_refused(tmp_path):
    folder = tmp_path / "run"
    self_play(folder, LEDUC, 2)
    other = SelfPlaySettings("leduc", {"players": 2}, "random", seed=3, every=1)
    with pytest.raises(TrainError, match="holds another run .*--overwrite"):
        self_play(folder, other, 2)
    assert self_play(folder, other, 1, overwrite=True) == [0] and _games(folder) == ["game-000000.npz"]
    with pytest.raises(TrainError, match="too few games"):
        train_evaluator(folder)
    (folder / "positions" / "game-000000.npz").write_bytes(b"not a zip")
    with pytest.raises(TrainError, match="game-000000.npz: not a position file of this run"):
        load_positions(folder)
    with pytest.raises(TrainError, match="holds no self-play run"):
        load_positions(tmp_path)
    for bad, message in ((SelfPlaySettings("leduc", {"players": 2}, "easy", seed=1, every=0), "every must be"),
                         (SelfPlaySettings("leduc", {"players": 2}, "nosuchbot", seed=1), "nosuchbot"),
                         (SelfPlaySettings("nosuchgame", {}, "easy", seed=1), "nosuchgame")):
        with pytest.raises(TrainError, match=message):
            self_play(tmp_path / "new", bad, 1)


def test_the_command_plays_fits_reports_and_resumes(tmp_path, capsys):
    folder, out = tmp_path / "run", tmp_path / "ev.json"
    args = ["train", "--dir", str(folder), "--game", "leduc", "--bot", "easy", "--seed", "3", "--every", "1",
            "--jobs", "1", "--quiet", "--epochs", "5"]
    assert main(args + ["--games", "6", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("leduc {'players': 2}: 6 games of easy (seed 3, a position every 1 plies)")
    assert "held-out log-loss: learned" in text and "hand-written" in text
    data = json.loads(out.read_text())
    assert data["training"]["command"] == ("metro-ai train --dir DIR --game leduc --option players=2 --bot easy "
                                           "--seed 3 --every 1 --games 6 --hidden 0 --l2 0.01 --rate 0.001 --epochs 5 --fit-seed 0")
    again = tmp_path / "again"                                  # the recorded command makes the same evaluator
    words = [str(again) if w == "DIR" else w for w in data["training"]["command"].split()[1:]]
    assert main(words + ["--quiet", "--jobs", "2"]) == 0
    assert json.loads((again / "evaluator.json").read_text())["model"] == data["model"]
    assert main(["train", "--dir", str(folder), "--games", "0", "--quiet", "--epochs", "5"]) == 0      # fit only
    assert json.loads((folder / "evaluator.json").read_text())["model"] == data["model"]
    capsys.readouterr()
    for extra, message in ((["--game", "leduc", "--bot", "random"], "holds another run"),
                           (["--games", "-1"], "--games must be >= 0"),
                           (["--out", str(tmp_path / "no" / "e.json")], "no such directory"),
                           (["--folds", "1"], "--folds must be 0 (none) or at least 2")):
        assert main(["train", "--dir", str(folder), "--quiet"] + extra) == 2
        assert message in capsys.readouterr().err


def test_cross_validation_holds_out_every_part_of_the_games_in_turn(tmp_path, capsys):
    """#44: one held-out fifth is a noisy measure; fold f holds out the games g % K == f and fits
    the rest with the same settings, so fold 4 of 5 is train_evaluator's own held-out measure."""
    folder = tmp_path / "run"
    self_play(folder, LEDUC, 10)
    data = train_evaluator(folder, epochs=5)
    seen = []
    cv = cross_validate(folder, 5, epochs=5, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(k, 5) for k in range(6)]
    assert [r["fold"] for r in cv["rows"]] == [0, 1, 2, 3, 4] and all(r["games"] == 2 for r in cv["rows"])
    held = data["training"]["held_out"]
    last = cv["rows"][4]
    for key in ("log_loss", "log_loss_hand_written", "log_loss_per_game", "log_loss_hand_written_per_game"):
        assert last[key] == held[key]
        assert cv["mean"][key] == pytest.approx(np.mean([r[key] for r in cv["rows"]]))
    assert cv["model_better_per_game"] == sum(r["log_loss_per_game"] < r["log_loss_hand_written_per_game"]
                                              for r in cv["rows"])
    assert cv["rows"][0]["log_loss"] != last["log_loss"]        # other games, another fit
    with pytest.raises(TrainError, match="folds must be an int >= 2"):
        cross_validate(folder, 1)
    with pytest.raises(TrainError, match="too few games for 20 folds"):
        cross_validate(folder, 20)
    assert main(["train", "--dir", str(folder), "--games", "0", "--quiet", "--epochs", "5", "--folds", "5"]) == 0
    text = capsys.readouterr().out
    assert "5 folds (games g with g % 5 == fold held out)" in text and "better in" in text
    stored = json.loads((folder / "evaluator.json").read_text())
    assert stored["model"] == data["model"] and stored["training"]["cross_validation"]["rows"][4] == last


def test_a_hidden_layer_learns_what_a_line_cannot_and_is_read_back(tmp_path):
    """XOR of two features: no logistic regression does better than a coin, one hidden layer of
    tanh units does; its evaluator file is checked and predicts as the fit did."""
    from metro_ai.learn import fit_mlp
    from metro_ai.learn.model import evaluator_data, model_value
    rng = np.random.default_rng(1)
    x = (rng.random((3000, 4)) < 0.5).astype(np.float32)
    y = (x[:, 0] != x[:, 1]).astype(float)
    w, b = fit_logistic(x, y, epochs=30, seed=2)
    assert log_loss(sigmoid(x @ w + b), y) > 0.65
    p = fit_mlp(x, y, 8, epochs=60, rate=0.01, seed=2)
    assert log_loss(model_value({"kind": "mlp", **p}, x), y) < 0.2
    assert all(np.array_equal(p[k], fit_mlp(x, y, 8, epochs=60, rate=0.01, seed=2)[k]) for k in p)   # its seed
    game = metro_ai.load_game("leduc", players=2)
    size = game.observation_features().shape[0]
    q = fit_mlp(np.zeros((10, size), np.float32), np.full(10, 0.5), 3, epochs=1, seed=0)
    data = evaluator_data(game, {"kind": "mlp", "hidden": 3, **q, "b2": float(q["b2"])}, {})
    path = tmp_path / "mlp.json"
    path.write_text(json.dumps(data, indent=1))
    ev = Evaluator.load(path)
    state = game.new_state(2)
    assert ev.predict(state, 0) == pytest.approx(float(model_value(data["model"], state.observation_tensor(0)[None])[0]))
    for change, message in ((lambda d: d["model"].update(hidden=99), "model.hidden must be an int in \\[1, 32\\]"),
                            (lambda d: d["model"]["w1"][2].pop(), "model.w1\\[2\\] must be a list of features.size"),
                            (lambda d: d["model"].update(b1=[0.0]), "model.b1 must be a list of model.hidden \\(3\\)"),
                            (lambda d: d["model"].update(kind="forest"), 'model.kind must be "logistic" or "mlp"')):
        bad = json.loads(json.dumps(data))
        change(bad)
        path.write_text(json.dumps(bad, indent=1))
        with pytest.raises(EvaluatorError, match=message):
            Evaluator.load(path)
    with pytest.raises(TrainError, match="hidden must be an int in \\[0, 32\\]"):
        train_evaluator(tmp_path, hidden=40)
    with pytest.raises(TrainError, match="a model with a hidden layer reads the features alone"):
        train_evaluator(tmp_path, hidden=4)


def test_the_selfplay_games_script_reads_a_run(tmp_path, capsys):
    """benches/selfplay_games.py: the length bands hold every game and position once, the
    winner's column reads the positions of the seat that won, and the scale table's s = 1 row is
    the hand-written evaluation's own log-loss (the one ``metro-ai train`` reports)."""
    from tests.bench_scripts import bench_script
    script = bench_script("selfplay_games")
    folder = tmp_path / "run"
    self_play(folder, LEDUC, 10)
    train, held, _ = load_positions(folder)
    both = {k: np.concatenate([train[k], held[k]]) for k in train}
    rows = script.lengths_table(both)
    assert sum(r["games"] for r in rows) == 10 and sum(r["positions"] for r in rows) == pytest.approx(1.0)
    last = [int(both["ply"][both["game"] == g].max()) for g in range(10)]
    assert script.length_summary(both) == {"games": 10, "mean": pytest.approx(np.mean(last)),
                                           "median": np.median(last), "p90": pytest.approx(np.percentile(last, 90)),
                                           "max": max(last), "long": sum(n >= 600 for n in last)}
    g = both["game"] == 9                           # the one game of this run with a single winner (seat 1)
    assert list(np.unique(both["seat"][g & (both["y"] == 1)])) == [1]
    alone = script.lengths_table({k: v[g] for k, v in both.items()})[0]
    won = g & (both["seat"] == 1)
    assert alone["games"] == 1 and alone["winner_behind"] == pytest.approx(np.mean(both["base"][won] < 0.5))
    assert alone["winner_value"] == pytest.approx(np.mean(both["base"][won]))
    one, two = script.scale_table(train, held, [1.0, 2.0])
    assert one["held_out"] == pytest.approx(log_loss(held["base"], held["y"]))    # s = 1: the evaluation itself
    assert one["held_out_per_game"] == pytest.approx(log_loss(held["base"], held["y"], held["game"]))
    half = sigmoid(np.log(train["base"] / (1 - train["base"])) / 2)
    assert two["training_per_game"] == pytest.approx(log_loss(half, train["y"], train["game"]))
    assert script.main([str(folder), "--scales", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "| scale | training |" in out and "leduc" in out and f"longest {max(last)}" in out
    with pytest.raises(SystemExit):
        script.main([str(folder), "--scales", "0"])
    # --replay: the run's game again, move for move (its deal and bot seeds), its moves counted
    again = script.replay(folder, 9)
    assert again["same_as_run"] and again["winners"] == [1]
    assert sum(sum(c.values()) for c in again["counts"].values()) == again["plies"]
    assert not script.replay(folder, 9, bot="random")["same_as_run"]         # another bot, another game
    assert script.main([str(folder), "--replay", "9"]) == 0 and "the same game as the run" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        script.main([str(folder), "--replay", "10"])                # no game 10 in a 10-game run


LABELLED = SelfPlaySettings("leduc", {"players": 2}, "easy", seed=3, every=1, label="ismcts:iterations=60")


def test_a_labeller_keeps_each_positions_search_value_and_changes_nothing_else():
    """#44: with a labeller, each kept position also holds its search value: the labeller's
    analysis (its own seed, drawn from the run's seed and the game) of the position for the player
    to move, the mean of the action it would choose; 2 players: the other seat's is 1 minus it.
    The game's moves and every other array are the run's without a labeller."""
    data, plain = play_game(LABELLED, 7), play_game(LEDUC, 7)
    assert all(np.array_equal(data[k], plain[k]) for k in ("x", "y", "base", "seat", "ply"))
    assert np.isnan(plain["v"]).all() and np.isfinite(data["v"]).all()
    assert np.allclose(data["v"][0::2] + data["v"][1::2], 1.0)
    game = metro_ai.load_game("leduc", players=2)
    state = game.new_state(metro_ai.bots.seeding.derive(3, 7))
    bot = metro_ai.bots.catalogue.BotSpec.parse("ismcts:iterations=60").make(seed=metro_ai.bots.seeding.derive(3, 7, 0x1AB))
    handle = bot.start(state, analyse=True)
    handle.result()
    analysis = handle.analysis()
    mean = next(a.mean for a in analysis.actions if a.action == analysis.chosen)
    assert data["v"][state.current_player] == mean and 0 < mean < 1
    assert data["v"][1 - state.current_player] == 1 - mean
    with pytest.raises(TrainError, match="not a search bot"):
        SelfPlaySettings("leduc", {"players": 2}, "easy", seed=3, label="random").check()


def test_search_value_targets_mix_with_the_results_and_need_a_labeller(tmp_path, capsys):
    """#44: ``target`` fits (1 - T) * result + T * search value over the positions that have one;
    held out the model is measured against the results as always, and against the search values
    too; a run without a labeller has none to fit."""
    from metro_ai.learn.model import targeted
    part = {"y": np.array([1.0, 0.0, 1.0]), "v": np.array([0.8, np.nan, 0.4]), "x": np.arange(3.0)[:, None]}
    mixed = targeted(part, 0.25)
    assert mixed["y"].tolist() == [0.75 * 1 + 0.25 * 0.8, 0.75 * 1 + 0.25 * 0.4] and mixed["x"][:, 0].tolist() == [0, 2]
    assert targeted(part, 0.0) is part
    plain, labelled = tmp_path / "plain", tmp_path / "labelled"
    self_play(plain, LEDUC, 5)
    with pytest.raises(TrainError, match="no search values"):
        train_evaluator(plain, target=0.5, epochs=2)
    with pytest.raises(TrainError, match="target must be a number in"):
        train_evaluator(plain, target=1.5, epochs=2)
    self_play(labelled, LABELLED, 10)
    on_results = train_evaluator(labelled, epochs=3)
    on_values = train_evaluator(labelled, epochs=3, target=1.0)
    assert on_values["model"] != on_results["model"]
    held_results, held_values = on_results["training"]["held_out"], on_values["training"]["held_out"]
    assert held_results["search"]["log_loss_hand_written"] == held_values["search"]["log_loss_hand_written"]
    assert held_values["search"]["log_loss"] < held_results["search"]["log_loss"]   # it fits what it was fitted to
    assert held_values["search"]["positions"] == held_values["positions"]
    assert main(["train", "--dir", str(tmp_path / "cli"), "--game", "leduc", "--bot", "easy", "--seed", "3",
                 "--every", "1", "--label", "ismcts:iterations=60", "--games", "10", "--target", "1", "--epochs", "3",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "search values by ismcts:iterations=60" in text and "fitted to 0 x result + 1 x search value" in text
    assert "held-out log-loss against the search values" in text
    stored = json.loads((tmp_path / "cli" / "evaluator.json").read_text())
    assert stored["model"] == on_values["model"]
    assert stored["training"]["command"] == ("metro-ai train --dir DIR --game leduc --option players=2 --bot easy "
                                             "--seed 3 --every 1 --label ismcts:iterations=60 --games 10 --target 1.0 "
                                             "--hidden 0 --l2 0.01 --rate 0.001 --epochs 3 --fit-seed 0")
