"""Game review (metro_ai.play.review, ``metro-ai review``): a planted bad move is marked with the
better move, best play is not, luck and losses explain each seat's swing in win chance, reviews
are reproducible whatever the workers, and bad requests are refused. Most cases use Pick
(tests/pick_game.py, rules K1–K3), whose best moves are known."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import metro_ai
from metro_ai import Limit, registry
from metro_ai.bots.catalogue import BotSpecError
from metro_ai.play.match import RecordError, match_record
from metro_ai.play.review import MARKS, ReviewError, ReviewStopped, accuracy, mark_of, review
from tests.pick_game import PickGame

ROOT = Path(__file__).resolve().parents[2]
BUDGET = Limit(iterations=3000)
TAKE2, TAKE1, GAMBLE = 0, 1, 2


@pytest.fixture(scope="module")
def pick():
    """Pick registered for this module's tests, and unregistered after them."""
    env = os.environ.get("METRO_AI_GAMES")
    cls = metro_ai.register_game(PickGame)
    yield cls
    registry._games().pop(cls.name, None)
    if env is None:
        os.environ.pop("METRO_AI_GAMES", None)
    else:
        os.environ["METRO_AI_GAMES"] = env


def record_of(game, seed, actions, labels=("person", "hard")):
    """The match record of `actions` played from ``game.new_state(seed)``."""
    s = game.new_state(seed)
    moves = []
    for a in actions:
        moves.append({"player": s.current_player, "action": a, "text": s.action_to_string(a), "seconds": 0.0})
        s.apply(a)
    return match_record(game, seed, list(labels), moves, s)


def test_a_planted_bad_move_is_marked_with_the_better_move(pick):
    # seed 0's first coin is tails: the gamble at ply 2 loses (K2)
    r = review(record_of(pick(), 0, [TAKE1, TAKE2, GAMBLE, TAKE2]), bot="ismcts", limit=BUDGET, seed=1)
    first = r.decisions[0]
    assert (first.ply, first.player, first.played, first.best) == (0, 0, TAKE1, TAKE2)
    assert first.mark in ("mistake", "blunder") and first.loss > first.noise
    assert (first.played_text, first.best_text) == ("take 1", "take 2")
    assert [d.mark for d in r.decisions[1:]] == ["best", "best", "best"]
    assert [d.ply for d in r.marked(0)] == [0] and r.marked(1) == []
    p0, p1 = r.players
    assert p0.marks["mistake"] + p0.marks["blunder"] == 1 and p0.accuracy < 90 and p1.accuracy == 100.0
    assert "better take 2" in r.table()


def test_repeated_searches_sum_and_read_their_spread(pick):
    rec = record_of(pick(), 0, [TAKE1, TAKE2, GAMBLE, TAKE2])
    one = review(rec, bot="ismcts", limit=BUDGET, seed=1)
    two = review(rec, bot="ismcts", limit=BUDGET, seed=1, repeats=2)
    again = review(rec, bot="ismcts", limit=BUDGET, seed=1, repeats=2)
    assert two.repeats == 2 and two.iterations == 2 * one.iterations
    assert [d.mark for d in two.decisions] == [d.mark for d in again.decisions]
    assert [d.loss for d in two.decisions] == [d.loss for d in again.decisions]
    first = two.decisions[0]
    assert first.mark in ("mistake", "blunder") and sum(m.visits for m in first.alternatives) == \
        2 * sum(m.visits for m in one.decisions[0].alternatives)
    assert "2 searches of 3,000 iterations a decision" in two.table()
    with pytest.raises(ReviewError, match="repeats"):
        review(rec, bot="ismcts", repeats=0)


def test_best_play_is_not_marked(pick):
    # (the last move: taking 2 ties, a gamble wins or loses at even odds: both are worth 0.5)
    r = review(record_of(pick(), 3, [TAKE2] * 4), bot="ismcts", limit=BUDGET, seed=2)
    assert [d.mark for d in r.decisions[:3]] == ["best"] * 3 and r.decisions[3].mark in ("best", "good")
    assert all(d.loss < 0.05 for d in r.decisions) and r.marked() == []
    assert all(p.accuracy > 95 for p in r.players)


def test_luck_and_losses_explain_each_seats_swing(pick):
    # seed 1's coins: heads, tails: seat 0's gamble wins, seat 1's loses
    rec = record_of(pick(), 1, [GAMBLE, GAMBLE, TAKE1, TAKE2])
    r = review(rec, bot="ismcts", limit=BUDGET, seed=3)
    assert r.returns == rec["returns"]
    by_ply = {d.ply: d for d in r.decisions}
    for seat in (0, 1):
        own = [d for d in r.decisions if d.player == seat]
        others = sum(d.loss for d in r.decisions if d.player != seat and d.ply > own[0].ply)
        swing = r.returns[seat] - own[0].value_best
        explained = -sum(d.loss for d in own) + others + r.players[seat].luck
        assert math.isclose(swing, explained, abs_tol=1e-9)
        assert r.win_chance[seat][-1] == r.returns[seat]
        assert r.win_chance[seat][own[0].ply] == own[0].value_best
    # seat 0's interval after its gamble (heads) closes at ply 2 with good luck; seat 1's (tails) at 3 with bad
    luck = {c.ply: c.luck for c in r.chances}
    assert luck[2][0] > 0 and luck[2][1] == 0
    assert luck[3][1] < 0 and luck[3][0] == 0
    assert r.win_chance[1][0] is None and by_ply[1].player == 1


def test_reproducible_whatever_the_workers(pick):
    rec = record_of(pick(), 2, [TAKE1, GAMBLE, TAKE2, TAKE1])
    one = review(rec, bot="ismcts", limit=BUDGET, seed=5, workers=1).to_dict()
    two = review(rec, bot="ismcts", limit=BUDGET, seed=5, workers=2).to_dict()
    other = review(rec, bot="ismcts", limit=BUDGET, seed=6, workers=1).to_dict()
    for d in (one, two, other):
        d.pop("seconds")
    assert one == two
    assert one["decisions"] != other["decisions"]           # the seed is the searches'


def test_a_real_game_from_a_file_forced_moves_skipped_and_seats(tmp_path):
    game = metro_ai.load_game("metro", players=2)
    rec = metro_ai.play_match(game, ["random", "random"], seed=4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    states = metro_ai.replay(rec)
    choices = [i for i, s in enumerate(states[:-1]) if len(s.legal_actions()) > 1]
    r = review(str(path), bot="ismcts", limit=Limit(iterations=200), seed=1, seats=[1])
    assert r.seats == (1,) and [p.seat for p in r.players] == [1]
    assert [d.ply for d in r.decisions] == [i for i in choices if states[i].current_player == 1]
    assert all(d.mark in MARKS and d.loss >= 0 and d.legal > 1 for d in r.decisions)
    assert len(r.win_chance[1]) == len(rec["actions"]) + 1 and all(v is None for v in r.win_chance[0])
    data = json.loads(json.dumps(r.to_dict()))
    assert data["format"] == "metro-ai-review" and data["limit"] == {"iterations": 200, "time": None}
    assert {"ply", "player", "played", "best", "loss", "mark"} <= set(data["decisions"][0])


def test_bad_requests_are_refused(pick):
    rec = record_of(pick(), 0, [TAKE2] * 4)
    with pytest.raises(BotSpecError, match="does not search"):
        review(rec, bot="random")
    with pytest.raises(ReviewError, match="seats must be 0-1"):
        review(rec, bot="ismcts", seats=[2])
    with pytest.raises(ReviewError, match="got \\['x'\\]"):
        review(rec, bot="ismcts", seats=[0, "x"])
    with pytest.raises(ReviewError, match="workers"):
        review(rec, bot="ismcts", workers=0)
    bad = dict(rec, actions=[dict(rec["actions"][0], action=7)] + rec["actions"][1:])
    with pytest.raises(RecordError, match="action 0: not legal"):
        review(bad, bot="ismcts")
    stop = threading.Event()
    stop.set()
    with pytest.raises(ReviewStopped):
        review(rec, bot="ismcts", limit=BUDGET, stop=stop)


def test_marks_and_accuracy_follow_the_documented_thresholds():
    assert mark_of(3, 3, 0.0, 0.0) == "best"
    assert mark_of(1, 3, 0.5, 0.6) == "good"                  # within the search's noise
    assert [mark_of(1, 3, x, 0.01) for x in (0.04, 0.05, 0.10, 0.20)] == ["good", "inaccuracy", "mistake", "blunder"]
    assert accuracy([]) is None and accuracy([0.0]) == 100.0
    assert [round(accuracy([x])) for x in (0.05, 0.1, 0.2)] == [80, 64, 40]
    assert accuracy([0.0, 0.1]) == pytest.approx((100.0 + accuracy([0.1])) / 2)


def test_the_command_writes_json_and_a_plot(tmp_path):
    pytest.importorskip("matplotlib")
    rec = metro_ai.play_match(metro_ai.load_game("leduc", players=2), ["random", "random"], seed=2)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    env = {k: v for k, v in os.environ.items() if k != "METRO_AI_GAMES"}      # (Pick is this process's)
    run = subprocess.run([sys.executable, "-m", "metro_ai", "review", str(path), "--bot", "ismcts", "--iterations",
                          "300", "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"), "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("review of leduc by ismcts (300 iterations a decision, seed 0)")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["seats"] == [0, 1] and len(data["players"]) == 2
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "metro_ai", "review", str(path), "--bot", "greedy"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert bad.returncode == 2 and "does not search" in bad.stderr


def _same(a, b):
    """Two reviews with the same findings (their seconds aside)."""
    return {**a.to_dict(), "seconds": 0} == {**b.to_dict(), "seconds": 0}


def test_many_games_reviewed_each_as_alone_wherever_they_run_and_summed_up_per_bot():
    """#43's bulk review: game i reviewed as review() reviews it with seed derive(seed, keys[i]),
    the same on two processes; the summary pools each bot's decisions."""
    from metro_ai.bots.seeding import derive
    from metro_ai.play.review import review_games, review_summary, summary_table
    records = [metro_ai.play_match("leduc", ["greedy", "random"], seed=s) for s in range(3)]
    limit = Limit(iterations=300)
    here = review_games(records, bot="ismcts", limit=limit, seed=5, keys=[10, 11, 12])
    assert all(_same(r, review(rec, bot="ismcts", limit=limit, seed=derive(5, k)))
               for r, rec, k in zip(here, records, (10, 11, 12)))
    seen = []
    apart = review_games(records, bot="ismcts", limit=limit, seed=5, keys=[10, 11, 12], jobs=2,
                         progress=lambda done, total: seen.append((done, total)))
    assert all(_same(a, b) for a, b in zip(here, apart)) and seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    rows = {row["bot"]: row for row in review_summary(here)}
    for bot, seat in (("greedy", 0), ("random", 1)):
        own = [d for r in here for d in r.decisions if d.player == seat]
        assert rows[bot]["games"] == 3 and rows[bot]["decisions"] == len(own)
        assert rows[bot]["accuracy"] == pytest.approx(accuracy(d.loss for d in own))
        assert rows[bot]["marks"]["best"] == sum(d.mark == "best" for d in own)
        assert rows[bot]["luck"] == pytest.approx(sum(r.players[seat].luck for r in here) / 3)
    assert summary_table(list(rows.values())).splitlines()[1].startswith(("greedy ", "random "))
    with pytest.raises(ReviewError, match="2 keys for 3 records"):
        review_games(records, keys=[1, 2])
    with pytest.raises(ReviewError, match="jobs must be"):
        review_games(records, jobs=0)


def test_the_command_reviews_a_tournament_in_bulk(tmp_path, capsys, monkeypatch):
    from metro_ai.cli import main
    db = tmp_path / "t.sqlite"
    assert main(["tournament", "--game", "leduc", "--quiet", "--bots", "greedy,random", "--deals", "1", "--db", str(db),
                 "--bootstrap", "0", "--records", str(tmp_path / "r")]) == 0
    capsys.readouterr()
    out = tmp_path / "bulk.json"
    assert main(["review", str(db), "--iterations", "200", "--jobs", "1", "--quiet", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("2 games reviewed by hard (200 iterations a decision, seed 0), per bot:")
    data = json.loads(out.read_text())
    assert data["format"] == "metro-ai-reviews" and [g["source"] for g in data["games"]] == ["0", "1"]
    assert sorted(row["bot"] for row in data["bots"]) == ["greedy", "random"]
    files = sorted(str(p) for p in (tmp_path / "r").iterdir())
    assert main(["review", *files, "--iterations", "200", "--jobs", "1", "--quiet", "--json", "-"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [g["source"] for g in again["games"]] == files
    assert [g["decisions"] for g in again["games"]] == [g["decisions"] for g in data["games"]]   # keys 0, 1 both
    for args, why in (([*files, "--plot", str(tmp_path / "p.png")], "--plot is for one record"),
                      ([*files, "--seat", "0"], "--seat is for one record"),
                      ([files[0], "--dask", "tcp://127.0.0.1:1"], "--dask reviews several games")):
        assert main(["review", *args, "--quiet"]) == 2
        assert why in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # without the plot extra: the combination's error first
    assert main(["review", *files, "--plot", str(tmp_path / "p.png"), "--quiet"]) == 2
    assert "--plot is for one record" in capsys.readouterr().err
    assert main(["review", files[0], "--plot", str(tmp_path / "p.png"), "--quiet"]) == 2
    assert "plots need matplotlib" in capsys.readouterr().err


@pytest.mark.slow          # a Dask cluster's start
def test_a_dask_cluster_reviews_games_as_this_process_does():
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster
    from metro_ai.play.review import review_games
    records = [metro_ai.play_match("leduc", ["greedy", "random"], seed=s) for s in range(3)]
    here = review_games(records, bot="ismcts", limit=Limit(iterations=200), seed=2)
    with LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        there = review_games(records, bot="ismcts", limit=Limit(iterations=200), seed=2,
                             dask=cluster.scheduler_address)
    assert all(_same(a, b) for a, b in zip(here, there))


def test_the_loss_in_points_is_the_score_margin_given_up(pick):
    """#43's loss in points: at the last move (no coin left to flip) taking 2 rather than 1 is
    worth exactly one point of margin in every world; at the first move about one point, and
    the best move's loss in points is 0."""
    r = review(record_of(pick(), 0, [TAKE1, TAKE2, GAMBLE, TAKE2]), bot="ismcts", limit=BUDGET, seed=1)
    last = {m.action: m.points for m in r.decisions[3].alternatives}
    assert last[TAKE2] - last[TAKE1] == pytest.approx(1.0)
    first = r.decisions[0]
    assert first.points_best - first.points_played == first.loss_points and 0.5 < first.loss_points < 2.0
    assert [d.loss_points for d in r.decisions[1:]] == [0.0, 0.0, 0.0]
    assert r.players[0].loss_points == first.loss_points and r.players[1].loss_points == 0.0
    assert f"{first.loss_points:+.1f} points)" in r.table()
    assert r.to_dict()["decisions"][0]["loss_points"] == first.loss_points


@pytest.mark.parametrize("spec", ["ismcts", "mo-ismcts", "ismcts:workers=2,backend=processes"])
def test_keeping_points_changes_no_choice_and_crosses_to_worker_processes(spec):
    from metro_ai.bots.catalogue import BotSpec
    state = metro_ai.load_game("metro", players=3).new_state(4)
    plain = BotSpec.parse(spec).make(seed=3).analyse(state, Limit(iterations=600))
    kept = BotSpec.parse(spec).make(seed=3).analyse(state, Limit(iterations=600), points=True)
    assert [(a.action, a.visits, a.mean) for a in kept.actions] == [(a.action, a.visits, a.mean) for a in plain.actions]
    assert all(a.points is None for a in plain.actions) and "points" not in plain.to_dict()["actions"][0]
    tried = [a for a in kept.actions if a.visits]
    assert tried and all(isinstance(a.points, float) and math.isfinite(a.points) for a in tried)
    if "processes" in spec:
        threads = BotSpec.parse("ismcts:workers=2").make(seed=3).analyse(state, Limit(iterations=600), points=True)
        assert [a.points for a in threads.actions] == [a.points for a in kept.actions]
