"""The random bot, play_match and the command line."""
import json

import pytest

import metro_ai
from metro_ai.cli import main


def test_random_bot_is_legal_and_reproducible():
    game = metro_ai.load_game("metro", players=3)
    records = [metro_ai.play_match(game, [metro_ai.make_bot("random", seed=s) for s in (1, 2, 3)], seed=8)
               for _ in range(2)]
    strip = [[(m["player"], m["action"]) for m in r["actions"]] for r in records]
    assert strip[0] == strip[1]
    assert records[0]["scores"] == records[1]["scores"]
    json.dumps(records[0])
    other = metro_ai.play_match(game, [metro_ai.make_bot("random", seed=s) for s in (4, 5, 6)], seed=8)
    assert [m["action"] for m in other["actions"]] != [a for _, a in strip[0]]


def test_make_bot_errors():
    with pytest.raises(ValueError, match="unknown bot 'oracle'"):
        metro_ai.make_bot("oracle")
    with pytest.raises(ValueError, match="needs 4 bots"):
        metro_ai.play_match(metro_ai.load_game("metro"), [metro_ai.make_bot("random")])
    with pytest.raises(ValueError, match="iterations"):
        metro_ai.Limit(iterations=0)
    with pytest.raises(ValueError, match="time"):
        metro_ai.Limit(time=-1)


def test_cli_match_prints_final_scores(capsys):
    assert main(["match", "--game", "metro", "--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "game over" in out and "1. player" in out and "4. player" in out


def test_cli_match_json_and_options(capsys):
    assert main(["match", "--players", "2", "--seed", "3", "--option", "hand_size=2",
                 "--option", "orientation=false", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["options"] == {"players": 2, "orientation": False, "hand_size": 2}
    assert len(rec["scores"]) == 2


@pytest.mark.parametrize("text,value", [
    ("3", 3), ("0.5", 0.5), ("true", True), ("none", None), ("Hansa", "Hansa"),
    ("Hansa,Polis", ["Hansa", "Polis"]), (" Hansa , Polis ", ["Hansa", "Polis"]), ("Hansa,", ["Hansa"]),
    ("1,2,3", [1, 2, 3]), ('["Hansa", "Polis"]', ["Hansa", "Polis"]), ('"a, b"', "a, b"), ("[]", []),
])
def test_option_values(text, value):
    from metro_ai.optionspec import option_value
    assert option_value(text) == value


@pytest.mark.parametrize("text,err", [("a,,b", "empty item"), (",", "empty item"), ("[Hansa", "starts like JSON but is not")])
def test_option_value_errors(text, err):
    from metro_ai.optionspec import option_value
    with pytest.raises(ValueError, match=err):
        option_value(text)


def _breakthrough_or_skip():
    try:
        metro_ai.load_game("breakthrough", players=2).new_state(1)
    except Exception as exc:  # noqa: BLE001 - the engine is being finished elsewhere
        pytest.skip(f"breakthrough engine not available: {exc}")


@pytest.mark.parametrize("value", ["Hansa,Polis", '["Hansa","Polis"]', "hansa, polis"])
def test_cli_list_options_reach_the_game(value, capsys, tmp_path):
    # a game option that takes a list (breakthrough's factions), in both forms
    _breakthrough_or_skip()
    assert main(["match", "--game", "breakthrough", "--players", "2", "--bots", "random",
                 "--option", f"factions={value}", "--json", "--seed", "1"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["options"]["factions"] == ["Hansa", "Polis"]
    assert metro_ai.replay(rec)[0].to_json() == metro_ai.load_game(
        "breakthrough", players=2, factions=["Hansa", "Polis"]).new_state(1).to_json()
    db = str(tmp_path / "f.sqlite")
    argv = ["tournament", "--game", "breakthrough", "--option", f"factions={value}", "--bots", "greedy,random",
            "--deals", "1", "--db", db, "--jobs", "1", "--quiet", "--bootstrap", "0"]
    assert main(argv + ["--max-games", "1"]) == 0
    assert main(argv) == 0                                    # the same options: the same tournament, continued
    assert "games played: 2/2" in capsys.readouterr().out
    assert main(["match", "--game", "breakthrough", "--players", "2", "--option", "factions=Hansa,Nobody"]) == 2
    assert "unknown faction 'Nobody'" in capsys.readouterr().err


def test_cli_option_given_twice_and_help(capsys):
    assert main(["match", "--option", "hand_size=2", "--option", "hand_size=3"]) == 2
    assert "option 'hand_size' given twice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["match", "--help"])
    assert "a value with commas is a list" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["serve", "web"])
def test_server_limits_help_prints_plain_numbers(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())          # argparse wraps lines
    assert "(default: 1,048,576)" in out and "(default: 5,000,000)" in out and "(default: 60)" in out
    assert "e+0" not in out


@pytest.mark.parametrize("argv,code,err", [
    (["match", "--players", "9"], 2, "option 'players' must be an int in [2, 6] (M1), got 9"),
    (["match", "--bots", "oracle"], 2, "unknown bot"),
    (["match", "--option", "colour=red"], 2, "unknown option"),
    (["match", "--game", "chess"], 2, "unknown game"),
])
def test_cli_bad_usage(argv, code, err, capsys):
    assert main(argv) == code
    assert err in capsys.readouterr().err


def test_cli_lists(capsys):
    assert main(["games"]) == 0 and "metro" in capsys.readouterr().out
    assert main(["bots", "--json"]) == 0 and "random" in json.loads(capsys.readouterr().out)
    assert main(["match", "--bots", "ismcts:colour=red"]) == 2
    assert "unknown option 'colour' for bot 'ismcts'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0


def test_cli_bot_catalogue_reads_the_option_declarations(capsys):
    from metro_ai.bots.catalogue import BOTS
    assert main(["bots", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)["bots"]
    for name, (cls, _) in BOTS.items():
        assert list(info[name]["options"]) == [o.name for o in cls.options]
        assert info[name]["option_help"] == {o.name: {"allowed": o.allowed, "description": o.description}
                                             for o in cls.options}
    assert info["pimc"]["options"]["worlds"] == 8 and info["random"]["options"] == {}
    assert info["ismcts"]["option_help"]["workers"]["allowed"] == "an int in [1, 256]"
    assert main(["bots"]) == 0
    assert "workers=1: threads (or processes) searching at once" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--csv", "--games-csv"])
def test_tournament_output_paths_are_checked_before_any_game(flag, tmp_path, capsys):
    db = tmp_path / "t.sqlite"
    code = main(["tournament", "--players", "2", "--bots", "random,random", "--deals", "1", "--quiet",
                 "--db", str(db), flag, str(tmp_path / "missing" / "out.csv")])
    assert code == 2
    assert f"{flag} {tmp_path / 'missing' / 'out.csv'}: no such directory" in capsys.readouterr().err
    assert not db.exists()


# ---- budgets as keywords; a rating checked against the game it meets ----

def test_make_bot_takes_budgets_as_keywords():
    from metro_ai import Limit
    state = metro_ai.load_game("metro", players=2).new_state(3)
    kw = metro_ai.make_bot("ismcts", seed=5, iterations=100)
    spec = metro_ai.make_bot("ismcts:iterations=100", seed=5)
    assert kw.default_limit == spec.default_limit == Limit(iterations=100)
    assert kw.choose(state) == spec.choose(state)
    assert metro_ai.make_bot("ismcts", time=0.5, c=1.0).default_limit == Limit(time=0.5)
    assert metro_ai.make_bot("hard", time=2).default_limit == Limit(time=2)           # replaces the preset's
    assert metro_ai.make_bot("pimc", iterations=50, time=1).default_limit == Limit(iterations=50, time=1)
    assert metro_ai.make_bot("ismcts", iterations=None).default_limit == Limit(iterations=1000)
    with pytest.raises(ValueError, match="bot 'random' does not search, so it takes no budget"):
        metro_ai.make_bot("random", iterations=10)
    with pytest.raises(ValueError, match="iterations must be a positive int, got 0"):
        metro_ai.make_bot("ismcts", iterations=0)
    with pytest.raises(ValueError, match="not both"):
        metro_ai.make_bot("ismcts:iterations=5", iterations=6)


def test_a_rating_is_checked_when_the_bot_meets_the_game_and_a_budget_replaces_it():
    from metro_ai import Limit
    from metro_ai.bots.elo import LadderError
    game = metro_ai.load_game("metro", players=4)
    state = game.new_state(7)
    rated = metro_ai.make_bot("ismcts", seed=3, elo=1400)             # no game yet: nothing to check
    from metro_ai.ladder import load_ladder
    top = round(max(level["elo"] for level in load_ladder("metro", 4)["levels"]))
    assert top < 1400                                                   # the shipped ladder's range
    with pytest.raises(LadderError, match=rf"elo 1400 is outside the 4-player metro ladder \(\d+–{top}\)"):
        rated.choose(state)
    with pytest.raises(LadderError, match="outside the 4-player metro ladder"):
        metro_ai.make_bot("ismcts", elo=1400, game=game)
    with pytest.raises(LadderError, match="outside the 4-player metro ladder"):
        metro_ai.play_match(game, ["ismcts:elo=1400", "random", "random", "random"], seed=1)
    # an explicit budget replaces the rating: ISMCTS's best move at that budget, no ladder read
    plain = metro_ai.make_bot("ismcts", seed=3).choose(state, Limit(iterations=100))
    assert rated.choose(state, Limit(iterations=100)) == plain
    assert metro_ai.make_bot("ismcts", seed=3, elo=1400, iterations=100).choose(state) == plain
    assert metro_ai.make_bot("ismcts:elo=1400,iterations=100", seed=3).choose(state) == plain
    assert metro_ai.make_bot("ismcts", seed=3, elo=1400, iterations=100, game=game).choose(state) == plain
    record = metro_ai.play_match(game, ["ismcts:elo=1400,iterations=10", "random", "random", "random"], seed=1)
    assert record["seats"][0]["limit"] == {"iterations": 10, "time": None} and "returns" in record
    # a rating the ladder reaches still plays the ladder's level
    fine = metro_ai.make_bot("ismcts", seed=3, elo=700)
    assert fine.choose(state) in state.legal_actions() and fine.level["elo"] == 700
