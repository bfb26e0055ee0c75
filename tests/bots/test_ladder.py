"""The difficulty ladder (bots/elo.py and metro_ai/play/calibrate.py, both through
metro_ai.ladder): the ladder schedule, ratings anchored at random = 0, the budget for a rating,
ISMCTS at an Elo rating through make_bot, bot specs, matches, tournaments and the protocol, the
agreement table, the shipped ladders, and clear errors."""
import json
import math
from pathlib import Path

import pytest

import metro_ai
from metro_ai import Limit
from metro_ai import ladder as lad
from metro_ai.cli import main
from metro_ai.bots.catalogue import BotSpec
from metro_ai.bots.seeding import derive
from metro_ai.play.match import play_match
from metro_ai.play.ratings import wilson
from metro_ai.play.tournament import TournamentConfig, TournamentError
from tests.protocol_client import Client, run

SHIPPED = sorted(lad.DATA.glob("ladder-*.json"))


def _ladder(game="metro", players=2, options=None, rungs=((100, 0.5, 200.0), (400, 0.1, 400.0), (1600, 0.0, 700.0))):
    """A ladder object with random at 0, greedy at 300 and the given ISMCTS rungs
    (iterations, temperature, elo)."""
    levels = [{"level": "random", "spec": "random", "elo": 0.0, "low": None, "high": None, "interval": "anchor",
               "iterations": None, "temperature": None},
              {"level": "greedy", "spec": "greedy", "elo": 300.0, "low": 250.0, "high": 350.0,
               "interval": "two-sided", "iterations": None, "temperature": None}]
    for it, t, e in rungs:
        levels.append({"level": f"ismcts:iterations={it}", "spec": f"ismcts:temperature={t},iterations={it}",
                       "elo": e, "low": e - 40, "high": e + 40, "interval": "two-sided", "iterations": it,
                       "temperature": t})
    return {"format": lad.LADDER_FORMAT, "version": lad.LADDER_VERSION, "game": game, "players": players,
            "options": options or {}, "anchor": "random = 0", "levels": levels}


@pytest.fixture
def ladder_file(tmp_path):
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps(_ladder()))
    return str(path)


# ---- schedule ----

def test_a_ladder_tournament_pairs_each_level_with_the_next_two():
    bots = ["random", "greedy", "ismcts:iterations=10", "ismcts:iterations=20"]
    two = TournamentConfig("metro", {"players": 2}, bots, mode="ladder", deals=1)
    assert two.tables() == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
    assert len(two.schedule()) == 5 * 2                 # each table in both seatings
    three = TournamentConfig("metro", {"players": 3}, bots[:3], mode="ladder", deals=1)
    assert three.tables() == [(0, 1, 1), (1, 0, 0), (0, 2, 2), (2, 0, 0), (1, 2, 2), (2, 1, 1)]


# ---- the budget for a rating ----

def test_a_ladder_that_does_not_rank_its_levels_by_budget_names_no_budget():
    muddled = _ladder(rungs=((100, 0.5, 400.0), (400, 0.1, 200.0)))
    assert not lad.budgets_ordered(muddled) and lad.budgets_ordered(_ladder())
    with pytest.raises(lad.LadderError, match="does not rank its ISMCTS levels by budget"):
        lad.budget_for(muddled, 300)


def test_a_level_rated_below_a_smaller_budget_is_left_out_of_the_interpolation():
    # 400 it at T 0.1 rated below 100 it at T 0.5: near-equal levels the games could not tell apart
    swapped = _ladder(rungs=((100, 0.5, 200.0), (400, 0.1, 190.0), (1600, 0.0, 700.0), (6400, 0.0, 900.0)))
    kept, left_out = lad.chain(swapped)
    assert [lv["iterations"] for lv in kept] == [100, 1600, 6400] and [lv["iterations"] for lv in left_out] == [400]
    assert lad.budgets_ordered(swapped)                # one of four left out: still a dial
    assert lad.budget_for(swapped, 450)["between"] == ["ismcts:iterations=100", "ismcts:iterations=1600"]
    assert "Left out of `ismcts:elo=`" in lad.format_ladder({**swapped, "neighbours": []}) \
        and "ismcts:iterations=400 (190)" in lad.format_ladder({**swapped, "neighbours": []})
    flat = _ladder(rungs=((100, 0.5, 200.0), (400, 0.1, 190.0), (1600, 0.0, 180.0), (6400, 0.0, 210.0)))
    assert not lad.budgets_ordered(flat)               # half left out: the budgets are not told apart
    assert "refuses this ladder" in lad.format_ladder({**flat, "neighbours": []})


def test_budget_at_a_level_is_that_level_and_between_levels_is_interpolated():
    ladder = _ladder()
    assert lad.budget_for(ladder, 400) == {"iterations": 400, "temperature": 0.1, "margin": None, "elo": 400.0,
                                           "between": ["ismcts:iterations=100", "ismcts:iterations=400"]}
    mid = lad.budget_for(ladder, 300)                  # halfway between 100 it (T 0.5) and 400 it (T 0.1)
    assert mid["iterations"] == 200 and math.isclose(mid["temperature"], 0.3)
    assert lad.budget_for(ladder, 200)["iterations"] == 100
    assert lad.budget_for(ladder, 700)["iterations"] == 1600
    third = lad.budget_for(ladder, 500)                # a third of the way from 400 to 1,600
    assert third["iterations"] == round(400 * 4 ** (1 / 3)) and third["between"][1] == "ismcts:iterations=1600"


@pytest.mark.parametrize("elo", [199.0, 701, -50])
def test_a_rating_outside_the_ismcts_levels_is_a_clear_error(elo):
    with pytest.raises(lad.LadderError, match=r"outside the 2-player metro ladder \(200–700\), out of range: .*span "
                                              r"200 \(ismcts:iterations=100\) to 700"):
        lad.budget_for(_ladder(), elo)


@pytest.mark.parametrize("elo", [float("nan"), float("inf"), "high", True])
def test_a_rating_must_be_a_finite_number(elo):
    with pytest.raises(lad.LadderError, match="finite number"):
        lad.budget_for(_ladder(), elo)


def test_margins_are_interpolated_and_a_best_move_level_takes_its_neighbours():
    ladder = _ladder()
    ladder["levels"][2]["margin"] = 0.2                 # 100 it, T 0.5, margin 0.2
    ladder["levels"][3]["margin"] = 0.1                 # 400 it, T 0.1, margin 0.1
    assert math.isclose(lad.budget_for(ladder, 300)["margin"], 0.15)
    assert math.isclose(lad.budget_for(ladder, 550)["margin"], 0.1)   # toward 1,600 it at T 0: no margin of its own
    assert lad.budget_for(ladder, 700)["margin"] is None               # at T 0 a margin changes nothing
    del ladder["levels"][3]["margin"]                  # sampling with no margin counts as margin 1 (keeps every move)
    assert math.isclose(lad.budget_for(ladder, 250)["margin"], 0.2 + 0.25 * 0.8)
    assert lad.budget_for(ladder, 400)["margin"] is None
    same = _ladder(rungs=((100, 0.5, 200.0), (100, 0.5, 300.0)))
    same["levels"][3]["margin"] = 0.05                 # the same budget and temperature, a narrower margin: ordered
    assert lad.budgets_ordered(same)
    same["levels"][2]["margin"], same["levels"][3]["margin"] = 0.05, 0.5
    assert not lad.budgets_ordered(same)


def test_an_elo_bot_takes_the_ladders_margin_and_refuses_one_of_its_own(tmp_path):
    ladder = _ladder()
    for lv in ladder["levels"][2:4]:
        lv["margin"] = 0.05
    path = tmp_path / "m.json"
    path.write_text(json.dumps(ladder))
    game = metro_ai.load_game("metro", players=2)
    bot = metro_ai.make_bot("ismcts", elo=300, ladder=str(path), game=game)
    assert math.isclose(bot.margin, 0.05) and bot.level["margin"] == 0.05
    with pytest.raises(ValueError, match="give elo or margin, not both"):
        metro_ai.make_bot("ismcts", elo=300, margin=0.1)
    ladder["levels"][2]["margin"] = 2
    path.write_text(json.dumps(ladder))
    with pytest.raises(lad.LadderError, match=r"levels\[2\]\.margin must be a number in \[0, 1\]"):
        metro_ai.make_bot("ismcts", elo=300, ladder=str(path), game=game)


def test_level_parameters_read_presets_and_plain_ismcts_only():
    assert lad.level_parameters("easy") == {"iterations": 150, "temperature": 1.0, "margin": 0.03}
    assert lad.level_parameters("hard") == {"iterations": 5000, "temperature": 0.0, "margin": None}
    assert lad.level_parameters("ismcts:iterations=150,temperature=0.5") == {"iterations": 150, "temperature": 0.5,
                                                                             "margin": None}
    assert lad.level_parameters("ismcts:iterations=50,temperature=1,margin=0.03")["margin"] == 0.03
    for other in ("max", "greedy", "random", "pimc:iterations=100", "ismcts:c=1.0,iterations=100", "ismcts:time=0.1"):
        assert lad.level_parameters(other) is None, other


# ---- the ladder file ----

@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="x"), "field 'format' must be 'metro-ai-ladder'"),
    (lambda d: d.update(version=9), "format version is 9; this metro-ai reads version 1"),
    (lambda d: d.update(version="1"), r"format version \(field 'version'\) is text, not an integer"),
    (lambda d: d.pop("version"), "it has no format version"),
    (lambda d: d.pop("levels"), "'levels' must be a list"),
    (lambda d: d.update(players="2"), "'players' must be a int"),
    (lambda d: d["levels"][2].update(elo="x"), r"levels\[2\]\.elo must be a finite number"),
    (lambda d: d["levels"][3].update(iterations=0), r"levels\[3\]\.iterations must be a positive int"),
    (lambda d: d["levels"][3].update(temperature=-1), r"levels\[3\]\.temperature must be a number >= 0"),
    (lambda d: d["levels"][1].pop("spec"), r"levels\[1\]\.spec must be non-empty text"),
    (lambda d: d.update(levels=d["levels"][:1]), "at least two levels"),
])
def test_a_malformed_ladder_file_names_what_is_wrong(tmp_path, change, message):
    data = _ladder()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(lad.LadderError, match=message):
        lad.load_ladder("metro", 2, path=path)


def test_ladder_files_that_do_not_fit_the_game_are_refused(tmp_path, ladder_file):
    with pytest.raises(lad.LadderError, match="is for 2 players, not metro with 3"):
        lad.load_ladder("metro", 3, path=ladder_file)
    with pytest.raises(lad.LadderError, match=r"measured with other options .*, not \{'companies': True\}.*"
                                              r"--option companies=true"):
        lad.load_ladder("metro", 2, {"companies": True}, path=ladder_file)
    with pytest.raises(lad.LadderError, match="no such file"):
        lad.load_ladder("metro", 2, path=tmp_path / "none.json")
    (tmp_path / "text.json").write_text("{not json")
    with pytest.raises(lad.LadderError, match="not valid JSON"):
        lad.load_ladder("metro", 2, path=tmp_path / "text.json")
    with pytest.raises(lad.LadderError, match="no Elo ladder for breakthrough with 5 players.*metro-ai calibrate"):
        lad.load_ladder("breakthrough", 5)


# ---- ISMCTS at a rating ----

def test_make_bot_at_a_rating_takes_the_ladders_budget_and_temperature(ladder_file):
    game = metro_ai.load_game("metro", players=2)
    bot = metro_ai.make_bot("ismcts", seed=3, elo=300, ladder=ladder_file, game=game)
    assert isinstance(bot, lad.EloBot) and bot.default_limit == Limit(iterations=200)
    assert math.isclose(bot.temperature, 0.3) and bot.level["between"][0] == "ismcts:iterations=100"
    lazy = metro_ai.make_bot("ismcts", seed=3, elo=300, ladder=ladder_file)        # read at its first search
    assert lazy.level is None
    state = game.new_state(5)
    assert lazy.choose(state) == bot.choose(state)
    assert lazy.default_limit == Limit(iterations=200)
    same = metro_ai.make_bot("ismcts", seed=3, temperature=0.3)        # what it is: ismcts at that budget
    assert metro_ai.make_bot("ismcts", seed=3, elo=300, ladder=ladder_file).choose(state) == \
        same.choose(state, Limit(iterations=200))


def test_an_elo_spec_keeps_its_ladders_budget_in_a_match(ladder_file):
    record = play_match("metro", [f"ismcts:elo=400,ladder={ladder_file}", "random"], seed=2,
                        limit=Limit(iterations=30))
    assert record["seats"][0]["limit"] == {"iterations": 400, "time": None}    # not the match's 30
    assert record["seats"][1]["limit"] is None


def test_elo_errors_are_clear(ladder_file):
    game = metro_ai.load_game("metro", players=2)
    with pytest.raises(ValueError, match="out of range"):
        metro_ai.make_bot("ismcts", elo=5000, ladder=ladder_file, game=game)
    with pytest.raises(ValueError, match="bot 'pimc' has no ladder"):
        metro_ai.make_bot("pimc", elo=1000)
    with pytest.raises(ValueError, match="give elo or temperature, not both"):
        metro_ai.make_bot("ismcts", elo=300, temperature=0.5)
    with pytest.raises(ValueError, match="give elo too"):
        metro_ai.make_bot("ismcts", ladder=ladder_file)
    with pytest.raises(ValueError, match="elo must be a finite number"):
        metro_ai.make_bot("ismcts", elo="strong")
    with pytest.raises(ValueError, match="unknown option"):
        metro_ai.make_bot("ismcts", elo=300, colour="red")
    with pytest.raises(ValueError, match="unknown option 'budget'"):
        metro_ai.make_bot("ismcts", elo=300, budget=50)
    with pytest.raises(ValueError, match="no Elo ladder for breakthrough with 5 players"):
        play_match("breakthrough", ["ismcts:elo=300"] + ["random"] * 4, seed=1)
    with pytest.raises(TournamentError, match="out of range"):
        TournamentConfig("metro", {"players": 2}, [f"ismcts:elo=9000,ladder={ladder_file}", "random"])


def test_the_protocol_plays_at_a_rating(ladder_file):
    """A ladder file over the protocol: named inside the server's --data-dir (docs/security.md)."""
    from metro_ai.protocol.limits import Server

    async def main():
        c = Client(server=Server(data_dir=Path(ladder_file).parent))
        g = await c.result("new_game", game="metro", options={"players": 2}, seed=2)
        got = await c.result("go", game_id=g["game_id"], bot="ismcts:elo=400,ladder=ladder.json", seed=77)
        state = metro_ai.load_game("metro", players=2).new_state(seed=2)
        assert got["action"] == metro_ai.make_bot("ismcts", seed=77, temperature=0.1).choose(state, Limit(iterations=400))
        await c.error("go", -32602, game_id=g["game_id"], bot="ismcts:elo=9000,ladder=ladder.json")
    run(main())


# ---- calibration ----

def test_calibrate_rates_the_levels_from_random_at_zero_and_is_reproducible(tmp_path):
    levels = ["random", "ismcts:iterations=8,temperature=1.0", "greedy"]
    a = lad.calibrate("leduc", 2, levels=levels, deals=6, seed=4, jobs=1, db=tmp_path / "a.sqlite", positions=5,
                      bootstrap=50)
    b = lad.calibrate("leduc", 2, levels=levels, deals=6, seed=4, jobs=1, db=None, positions=5, bootstrap=50)
    assert a["levels"][0] == {**a["levels"][0], "level": "random", "elo": 0.0, "interval": "anchor"}
    assert [lv["level"] for lv in a["levels"]] == [BotSpec.parse(s).display for s in levels]
    assert a["levels"][1]["iterations"] == 8 and a["levels"][1]["temperature"] == 1.0
    assert a["games"] == 3 * 6 * 2 and a["tournament"]["mode"] == "ladder"
    for key in ("levels", "neighbours", "head_to_head", "agreement", "games", "notes"):
        assert a[key] == b[key], key
    assert lad.neighbours(a["levels"], a["head_to_head"]) == a["neighbours"]
    again = lad.calibrate("leduc", 2, levels=levels, deals=6, seed=4, jobs=1, db=tmp_path / "a.sqlite", positions=5,
                          bootstrap=50)                 # every game already in the file: none replayed
    assert again["levels"] == a["levels"] and again["game_seconds"] == a["game_seconds"]   # the same games
    assert "| neighbours |" in lad.format_ladder(a)


def test_agreement_counts_the_strongest_levels_move():
    game = metro_ai.load_game("metro", players=2)
    states = []
    state = game.new_state(3)
    while len(states) < 6:
        if len(state.legal_actions()) > 1:
            states.append(state.clone())
        state.apply(metro_ai.make_bot("random", seed=len(states)).choose(state))
    rows = lad.agreement(["random", "greedy"], states, seed=1)
    # the strongest level's move by its search with one seed, each level's with another (documented)
    best = [metro_ai.make_bot("greedy", seed=derive(1, 0xA9E, i, 0)).choose(s) for i, s in enumerate(states)]
    for j, name in enumerate(["random", "greedy"]):
        picks = [metro_ai.make_bot(name, seed=derive(1, 0xA9E, i, 1, j)).choose(s) for i, s in enumerate(states)]
        agree = sum(p == b for p, b in zip(picks, best))
        low, high = wilson(agree / 6, 6)
        assert rows[j] == {"level": name, "agree": agree / 6, "positions": 6, "low": low, "high": high, "loss": None,
                           "blunders": None}
    assert rows[1]["agree"] > rows[0]["agree"]          # greedy mostly repeats itself; random rarely hits it
    assert lad.agreement(["random", "greedy"], states, seed=1) == rows


def test_agreement_prices_each_levels_move_by_the_strongest_search():
    states = [metro_ai.load_game("metro", players=2).new_state(k) for k in range(4)]
    rows = lad.agreement(["random", "ismcts:iterations=300"], states, seed=2)
    losses = []
    for i, s in enumerate(states):
        found = metro_ai.make_bot("ismcts", seed=derive(2, 0xA9E, i, 0)).analyse(s, Limit(iterations=300))
        q = {a.action: a.mean for a in found.actions if a.visits > 0}
        pick = metro_ai.make_bot("random", seed=derive(2, 0xA9E, i, 1, 0)).choose(s)
        losses.append(q[found.chosen] - q.get(pick, min(q.values())))
        assert max(q.values()) - min(q.values()) >= losses[-1] >= q[found.chosen] - max(q.values())
    assert rows[0]["loss"] == round(sum(losses) / 4, 4)
    assert rows[0]["blunders"] == sum(x >= lad.BLUNDER for x in losses) / 4
    assert rows[1]["loss"] is not None and rows[1]["positions"] == 4


def test_calibrate_refuses_a_one_player_game_and_bad_settings(tmp_path, capsys):
    assert main(["calibrate", "--game", "metro-solo", "--players", "1", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "needs two or more players" in capsys.readouterr().err
    assert main(["calibrate", "--game", "leduc", "--deals", "0"]) == 2
    assert "--deals must be positive" in capsys.readouterr().err
    assert main(["calibrate", "--game", "leduc", "--out", str(tmp_path / "no" / "l.json")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["calibrate", "--game", "leduc", "--levels", "random", "--db", str(tmp_path / "y.sqlite")]) == 2
    assert "at least two levels" in capsys.readouterr().err


def test_the_calibrate_command_writes_a_ladder_that_elo_bots_use(tmp_path, capsys):
    # 16 deals: at 8 the two ISMCTS levels' order in Leduc was the luck of the deals (it turned
    # when the search tree's availability counts changed), and an unordered ladder has no budgets.
    out = tmp_path / "leduc.json"
    assert main(["calibrate", "--game", "leduc", "--levels", "random", "ismcts:iterations=4,temperature=2",
                 "ismcts:iterations=64", "--deals", "16", "--positions", "4", "--jobs", "1", "--quiet",
                 "--db", str(tmp_path / "c.sqlite"), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    ladder = lad.load_ladder("leduc", 2, path=out)
    assert ladder["command"].startswith("metro-ai calibrate --game leduc")
    top = lad.rungs(ladder)[-1]
    bot = metro_ai.make_bot("ismcts", elo=top["elo"], ladder=str(out), game=metro_ai.load_game("leduc", players=2))
    assert bot.default_limit == Limit(iterations=top["iterations"])


def test_calibrations_of_two_ladders_keep_their_games_apart_by_default(tmp_path, monkeypatch):
    """Without --db each calibration's games go to its ladder's name with .sqlite in the working
    directory, so two run side by side (or one after the other) no longer share one file, whose
    games each run would wipe."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    for name in ("one", "two"):
        assert main(["calibrate", *TINY, "--quiet", "--out", str(tmp_path / "out" / f"{name}.json")]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == ["one.sqlite", "two.sqlite"]
    assert not (tmp_path / "metro-ai-calibrate.sqlite").exists()


#: What a calibration records of when and how it ran rather than of the games: left out when two
#: runs of one calibration are compared.
RUN_FIELDS = ("seconds", "game_seconds", "created", "command")

TINY = ["--game", "leduc", "--levels", "random", "ismcts:iterations=64,temperature=1", "--deals", "4",
        "--positions", "3", "--seed", "9"]


def _tiny_ladder(tmp_path, name, *flags):
    out = tmp_path / f"{name}.json"
    assert main(["calibrate", *TINY, "--quiet", "--db", str(tmp_path / f"{name}.sqlite"), "--out", str(out),
                 *flags]) == 0
    ladder = json.loads(out.read_text())
    assert ladder["games"] == 4 * 2 and ladder["command"].endswith(" ".join(flags))   # one pairing, 4 deals, 2 seatings
    return {k: v for k, v in ladder.items() if k not in RUN_FIELDS}


@pytest.mark.slow          # a Dask cluster's start; tournaments on one stay in the default tier
def test_a_calibration_on_a_dask_cluster_gives_the_ladder_of_a_local_run(tmp_path, capsys):
    """The same seed gives the same ladder, bit for bit, in this process, on two local processes
    and on a Dask cluster (--dask, through the tournament's Dask path), the timings aside."""
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client, LocalCluster, get_task_stream
    here = _tiny_ladder(tmp_path, "here", "--jobs", "1")
    assert _tiny_ladder(tmp_path, "jobs", "--jobs", "2") == here
    with LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as watcher:
        with get_task_stream(client=watcher) as stream:
            assert _tiny_ladder(tmp_path, "dask", "--dask", cluster.scheduler_address) == here
        assert len(stream.data) >= 8                    # the games ran on the cluster's workers
        calls = []
        ladder = lad.calibrate("leduc", 2, levels=["random", "ismcts:iterations=64,temperature=1"], deals=4, seed=9,
                               positions=3, dask=cluster.scheduler_address,
                               progress=lambda done, total, result: calls.append((done, total)))
    assert calls[0] == (0, 8) and calls[-1] == (8, 8) and len(calls) == 9     # progress as the local path
    assert {k: v for k, v in ladder.items() if k not in RUN_FIELDS} == here


def test_calibrate_dask_errors_are_clear_and_write_nothing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("dask.distributed")
    import sys
    from metro_ai.play.tournament import runner
    db, out = tmp_path / "c.sqlite", tmp_path / "l.json"
    args = ["calibrate", *TINY, "--quiet", "--db", str(db), "--out", str(out)]
    assert main([*args, "--dask", "no-port-here"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at 'no-port-here'" in err and "Traceback" not in err
    monkeypatch.setattr(runner, "DASK_TIMEOUT", 1)
    status = main([*args, "--dask", "tcp://127.0.0.1:1"])                # nothing listens on port 1
    err = capsys.readouterr().err
    assert status == 2 and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'" in err, err
    monkeypatch.setitem(sys.modules, "dask.distributed", None)          # as if Dask were not installed
    assert main([*args, "--dask", "tcp://127.0.0.1:1"]) == 2
    assert "pip install 'metro-ai[dask]'" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == []                             # no games file, no lock, no ladder


# ---- the shipped ladders ----

def test_ladders_ship_for_the_two_player_games():
    assert {p.name for p in SHIPPED} >= {"ladder-metro-2p.json", "ladder-breakthrough-2p.json", "ladder-leduc-2p.json"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_ladder_is_whole_and_consistent(path):
    data = json.loads(path.read_text())
    ladder = lad.load_ladder(data["game"], data["players"], {})
    assert ladder["levels"][0]["elo"] == 0.0 and ladder["levels"][0]["interval"] == "anchor"
    assert [lv["spec"] for lv in ladder["levels"]] == [str(s) for s in
                                                         TournamentConfig.from_dict(ladder["tournament"]).bots]
    assert lad.neighbours(ladder["levels"], ladder["head_to_head"]) == ladder["neighbours"]
    assert len(ladder["agreement"]) == len(ladder["levels"]) and ladder["agreement"][0]["positions"] > 0
    rungs = lad.chain(ladder)[0]
    game = metro_ai.load_game(ladder["game"], players=ladder["players"])
    if not lad.budgets_ordered(ladder):
        with pytest.raises(ValueError, match="does not rank its ISMCTS levels by budget"):
            metro_ai.make_bot("ismcts", elo=rungs[0]["elo"], game=game)
        return
    for a, b in zip(rungs, rungs[1:]):
        bot = metro_ai.make_bot("ismcts", elo=(a["elo"] + b["elo"]) / 2, game=game)
        assert a["iterations"] <= bot.default_limit.iterations <= b["iterations"]
        assert min(a["temperature"], b["temperature"]) <= bot.temperature <= max(a["temperature"], b["temperature"])


def test_the_docs_show_the_shipped_ladders():
    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "difficulty.md").read_text(encoding="utf-8")
    for path in SHIPPED:
        ladder = json.loads(path.read_text())
        table = lad.format_ladder(ladder)
        assert table in page, f"docs/guide/difficulty.md's table for {path.name} is not the file's: " \
                              "run python docs/generate.py"


@pytest.mark.parametrize("path", [p for p in SHIPPED if p.name.startswith("ladder-metro-")], ids=lambda p: p.name)
def test_metros_weak_levels_blunder_less_than_random_in_the_shipped_ladders(path):
    """What the docs say of the weak levels, as the shipped measurements have it: easy plays
    the strongest level's move more often than random and blunders less, as medium does."""
    rows = {a["level"]: a for a in json.loads(path.read_text())["agreement"]}
    for level in ("easy", "medium"):
        assert rows[level]["blunders"] < rows["random"]["blunders"] / 1.5, level
        assert rows[level]["agree"] > rows["random"]["agree"], level
