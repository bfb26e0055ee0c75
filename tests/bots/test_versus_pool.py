"""Versus runs read as one (metro_ai.bench.versus.pool, benches/versus_pool.py): the pooled
figures are those of one run of every pair, and runs that are not one match-up are refused."""
import copy
import json
import math
from pathlib import Path

import pytest

from metro_ai.bench.versus.pool import PoolError, load_report, pool, text
from metro_ai.bench.versus.sprt import elo_from_score, elo_interval, llr, pair_grid
from tests.bench_scripts import BENCHES, bench_script

RESULTS = BENCHES / "results"
#: Three runs of one match-up (Metro 2033's hard against the build before #44, 3 players) whose
#: pooled figure the docs quote: 236 games, +28 Elo (+2 to +55), LLR -9.6 for +100.
THREE_P = ["versus_rollout_epsilon035_metro2033_3p_pre44.json", "versus_rollout_epsilon035_metro2033_3p_pre44_b.json",
           "versus_hard_metro2033_3p_pre44_eps035.json"]


def _report(pairs, seed0=1, players=2, time=0.05, lone=()):
    """A versus report whose deals score `pairs` (two game scores each), deal seeds from seed0,
    and games without a partner scoring `lone`."""
    games = []
    for d, (a, b) in enumerate(pairs):
        for swapped, s in ((False, a), (True, b)):
            games.append({"deal": d, "seed": seed0 + d, "swapped": swapped, "score": s,
                          "this_iterations": 100 + d, "other_iterations": 200 + d})
    for k, s in enumerate(lone):
        games.append({"deal": len(pairs) + k, "seed": seed0 + len(pairs) + k, "swapped": False, "score": s,
                      "this_iterations": 100, "other_iterations": 200})
    return {"format": "metro-ai-versus", "this": {"version": "0.1.0"},
            "settings": {"game": "metro", "options": {}, "players": players, "time": time, "iterations": None,
                         "bot": "hard", "other_bot": "hard", "seed": seed0},
            "summary": {"elo": 0.0}, "games": games}


def test_one_run_pooled_is_that_run():
    """Pooled alone, a real run gives the figures its own report gave (score, Elo and its
    interval, wins and draws, and the LLR for its own hypotheses)."""
    name = "versus_hard_metro2033_3p_pre44_eps035.json"
    report = load_report(RESULTS / name)
    s = report["summary"]
    got = pool([(name, report)], s["elo0"], s["elo1"], s["alpha"], s["beta"])["summary"]
    for key in ("games", "pairs", "score", "wins", "draws", "losses", "pair_scores", "elo", "elo_low", "elo_high",
                "llr", "verdict"):
        assert got[key] == pytest.approx(s[key]) if isinstance(s[key], float) else got[key] == s[key], key


def test_pooled_figures_are_those_of_every_pair_together():
    a = _report([(1.0, 1.0), (0.0, 1.0)], seed0=1)
    b = _report([(0.5, 0.5), (1.0, 0.0), (0.5, 1.0)], seed0=100, lone=[1.0])
    pooled = pool([("a", a), ("b", b)], elo0=0, elo1=50)
    s = pooled["summary"]
    pairs = [1.0, 0.5, 0.5, 0.5, 0.75]
    assert (s["games"], s["pairs"], pooled["left_out"]) == (10, 5, 1)          # b's lone game left out
    assert s["score"] == pytest.approx(sum(pairs) / 5)
    assert (s["elo"], s["elo_low"], s["elo_high"]) == pytest.approx(elo_interval(pairs))
    counts = {0.5: 3, 0.75: 1, 1.0: 1}
    assert s["llr"] == pytest.approx(llr(counts, 0, 50, grid=pair_grid(2)))
    assert s["elo"] == pytest.approx(elo_from_score(0.65))
    assert [r["games"] for r in pooled["runs"]] == [4, 6]
    assert pooled["median_iterations"] == {"this": 101, "other": 201}
    assert "2 runs pooled: metro, 2 players, 0.05 s a move" in text(pooled)
    assert "left out: 1 games without their pair" in text(pooled)


def test_the_docs_pooled_3p_figure_repeats():
    pooled = pool([(n, load_report(RESULTS / n)) for n in THREE_P], elo0=0, elo1=100)
    s = pooled["summary"]
    assert s["games"] == 236
    assert (round(s["elo"]), round(s["elo_low"]), round(s["elo_high"])) == (28, 2, 55)
    assert round(s["llr"], 1) == -9.6 and s["verdict"] == "H0"
    assert [r["bot"] for r in pooled["runs"]] == ["hard:rollout_epsilon=0.35"] * 2 + ["hard"]   # listed as played


def test_runs_of_another_match_up_or_the_same_deals_are_refused():
    a = _report([(1.0, 0.0)], seed0=1)
    with pytest.raises(PoolError, match="differ in players"):
        pool([("a", a), ("b", _report([(1.0, 0.0)], seed0=9, players=3))])
    with pytest.raises(PoolError, match="differ in time"):
        pool([("a", a), ("b", _report([(1.0, 0.0)], seed0=9, time=0.5))])
    with pytest.raises(PoolError, match="a and a both played the deal of seed 1"):
        pool([("a", a), ("a", copy.deepcopy(a))])
    with pytest.raises(PoolError, match="no report"):
        pool([])


@pytest.mark.parametrize("content, message", [
    ("not json", "cannot read a versus report"),
    (json.dumps({"format": "metro-ai-bench"}), "not a versus report"),
    (json.dumps({"format": "metro-ai-versus", "settings": {}, "games": []}), "lack 'game'"),
    (json.dumps({**_report([]), "settings": {**_report([])["settings"], "players": 10 ** 20}}),
     "players 100000000000000000000 is not a whole number from 2 to 16"),     # not a grid of 10^40 values
    (json.dumps({**_report([]), "settings": {**_report([])["settings"], "players": True}}), "players True"),
    (json.dumps({**_report([]), "settings": {**_report([])["settings"], "bot": ["hard"]}}), "or bots are not"),
])
def test_a_file_that_is_not_a_report_is_refused(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(PoolError, match=message):
        load_report(path)


def test_a_game_without_a_score_between_0_and_1_is_refused(tmp_path):
    report = _report([(1.0, 0.0)])
    report["games"][1]["score"] = 2
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    with pytest.raises(PoolError, match="game 1's score 2 is not between 0 and 1"):
        load_report(path)
    report["games"][1]["score"] = 1.0
    report["games"][0]["deal"] = [0]
    path.write_text(json.dumps(report))
    with pytest.raises(PoolError, match="game 0's deal and seed are not whole numbers"):
        load_report(path)
    report["games"][0]["deal"] = 0
    del report["games"][1]["score"]
    path.write_text(json.dumps(report))
    with pytest.raises(PoolError, match="game 1 lacks"):
        load_report(path)


def test_the_script(tmp_path, capsys):
    script = bench_script("versus_pool")
    out = tmp_path / "pooled.json"
    assert script.main([str(RESULTS / n) for n in THREE_P] + ["--elo1", "100", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "236 games (118 pairs), score 54.0%, Elo +28 (+2 to +55), LLR -9.63 for Elo 100 against 0" in printed
    data = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert data["summary"]["games"] == 236 and math.isfinite(data["summary"]["elo_high"])
    with pytest.raises(SystemExit) as e:
        script.main([str(RESULTS / THREE_P[0]), "--elo0", "10", "--elo1", "0"])
    assert e.value.code == 2 and "elo1 (0.0) must be above elo0 (10.0)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        script.main([str(Path(__file__))])
    assert e.value.code == 2 and "cannot read a versus report" in capsys.readouterr().err
