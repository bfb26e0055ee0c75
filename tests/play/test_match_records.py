"""Match records, replay, saved states and bot specs."""
import json
import re

import pytest

import metro_ai
from metro_ai import BotSpec, BotSpecError, RecordError, parse_specs


def _breakthrough_or_skip():
    try:
        metro_ai.load_game("breakthrough", players=2).new_state(1)
    except Exception as exc:  # noqa: BLE001 - the engine is being finished elsewhere
        pytest.skip(f"breakthrough engine not available: {exc}")


# ---- bot specs ----

def test_spec_parse_and_canonical_text():
    s = BotSpec.parse("ismcts:rollout=heuristic,c=1.0,time=0.1,label=quick")
    assert s.name == "ismcts" and s.options == {"c": 1.0, "rollout": "heuristic"}
    assert s.time == 0.1 and s.iterations is None and s.label == "quick"
    assert s.text == "ismcts:c=1.0,rollout=heuristic,time=0.1" and s.display == "quick"
    assert BotSpec.parse(str(s)) == s
    assert s.limit == metro_ai.Limit(time=0.1)
    assert BotSpec.parse("hard").limit is None and BotSpec.parse("hard:iterations=5").limit.iterations == 5
    assert BotSpec.parse("random").text == "random"
    assert BotSpec.from_dict(s.to_dict()) == s


def test_spec_lists_continue_options():
    specs = parse_specs(["ismcts:c=1.0,time=0.1,greedy", "random", "medium:temperature=0,label=m0"])
    assert [s.text for s in specs] == ["ismcts:c=1.0,time=0.1", "greedy", "random", "medium:temperature=0"]
    assert specs[3].display == "m0"


@pytest.mark.parametrize("text,message", [
    ("oracle", "unknown bot 'oracle'"),
    ("ismcts:c", "is not KEY=VALUE"),
    ("ismcts:colour=red", "unknown option 'colour' for bot 'ismcts'; options are"),
    ("ismcts:c=-1", "option 'c' must be None (the game's default, else 0.7) or a finite number >= 0, got -1"),
    ("ismcts:iterations=0", "iterations must be a positive int"),
    ("ismcts:time=fast", "time must be a positive number"),
    ("greedy:time=1", "does not search"),
    ("random:seed=3", "seeds are set by the match"),
    ("ismcts:c=1,c=2", "given twice"),
    ("", "non-empty"),
])
def test_spec_errors_say_what_is_wrong(text, message):
    with pytest.raises(BotSpecError, match=re.escape(message)):
        parse_specs([text]) if text else BotSpec.parse(text)


def test_spec_list_option_before_bot():
    with pytest.raises(BotSpecError, match="before any bot"):
        parse_specs(["c=1.0,ismcts"])


# ---- records and replay ----

def test_record_holds_everything_and_is_json():
    game = metro_ai.load_game("metro", players=3)
    rec = metro_ai.play_match(game, ["ismcts:iterations=30,label=i30", "greedy", metro_ai.make_bot("random", seed=4)],
                              seed=11, limit=metro_ai.Limit(iterations=20))
    again = json.loads(json.dumps(rec))
    assert again == rec
    assert rec["format"] == "metro-ai-match" and rec["game"] == "metro" and rec["seed"] == 11
    assert rec["options"] == {"players": 3, "orientation": True, "hand_size": 1}
    assert rec["bots"] == ["i30", "greedy", "random"]
    seats = rec["seats"]
    assert seats[0]["spec"] == "ismcts:iterations=30,label=i30" and seats[0]["limit"] == {"iterations": 30, "time": None}
    assert seats[1]["spec"] == "greedy" and seats[1]["limit"] is None and seats[1]["options"] == {}
    assert seats[2]["spec"] is None and seats[2]["seed"] == 4
    assert rec["limit"] == {"iterations": 20, "time": None}
    assert rec["versions"]["metro_ai"] == metro_ai.__version__
    assert all(set(m) == {"player", "action", "text", "seconds"} for m in rec["actions"])
    assert len(rec["scores"]) == 3 and len(rec["returns"]) == 3
    assert rec["people"] == []                              # bots only (#43: which seats were people)


def test_specs_make_matches_reproducible():
    game = metro_ai.load_game("metro", players=2)
    a = metro_ai.play_match(game, ["ismcts:iterations=40", "greedy"], seed=5)
    b = metro_ai.play_match("metro", ["ismcts:iterations=40", "greedy"], seed=5)
    assert [m["action"] for m in a["actions"]] == [m["action"] for m in b["actions"]]
    assert a["scores"] == b["scores"]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_replay_ends_in_the_recorded_scores(players):
    game = metro_ai.load_game("metro", players=players)
    rec = metro_ai.play_match(game, ["greedy"] + ["random"] * (players - 1), seed=players)
    states = metro_ai.replay(json.dumps(rec))
    assert len(states) == len(rec["actions"]) + 1
    assert states[-1].is_terminal()
    assert states[-1].scores() == rec["scores"] and states[-1].returns() == rec["returns"]
    assert states[0].to_json() == game.new_state(players).to_json()
    for s, m in zip(states, rec["actions"]):
        assert s.current_player == m["player"] and m["action"] in s.legal_actions()


def test_replay_breakthrough():
    _breakthrough_or_skip()
    game = metro_ai.load_game("breakthrough", players=3)
    rec = metro_ai.play_match(game, ["random"] * 3, seed=2)
    states = metro_ai.replay(rec)
    assert states[-1].scores() == rec["scores"]


def test_replay_refuses_corrupt_records():
    game = metro_ai.load_game("metro", players=2)
    rec = metro_ai.play_match(game, ["random", "random"], seed=3)
    bad = json.loads(json.dumps(rec))
    bad["actions"][5]["action"] = 99999
    with pytest.raises(RecordError, match="action 5: not legal for player"):
        metro_ai.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["actions"][2]["player"] = 1 - bad["actions"][2]["player"]
    with pytest.raises(RecordError, match="action 2: recorded for another player"):
        metro_ai.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["scores"] = [0, 0]
    with pytest.raises(RecordError, match="replay ends with scores"):
        metro_ai.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["actions"] = bad["actions"][:-3]
    with pytest.raises(RecordError):
        metro_ai.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["seed"] = 4
    with pytest.raises(RecordError):
        metro_ai.replay(bad)
    for people in ([2], [True], "0", [-1]):
        with pytest.raises(RecordError, match="'people' must be a list of seats 0-1"):
            metro_ai.replay({**rec, "people": people})
    assert len(metro_ai.replay({**rec, "people": [1]})) == len(rec["actions"]) + 1
    with pytest.raises(RecordError, match="lacks"):
        metro_ai.replay({"format": "metro-ai-match", "version": 1, "game": "metro"})
    with pytest.raises(RecordError, match="must be JSON"):
        metro_ai.replay("{not json")
    with pytest.raises(RecordError, match="cannot set up"):
        metro_ai.replay({**rec, "game": "chess"})


# ---- saved states ----

def test_load_state_from_text_and_path(tmp_path):
    game = metro_ai.load_game("metro", players=3, hand_size=2)
    state = game.new_state(9)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    text = state.to_json()
    path = tmp_path / "state.json"
    path.write_text(text)
    for source in (text, str(path), path):
        loaded = metro_ai.load_state(source)
        assert loaded.to_json() == text and loaded.game.options == game.options
    with pytest.raises(metro_ai.StateFormatError, match="not valid JSON .*; it must be the JSON of state.to_json()"):
        metro_ai.load_state("{nope")
    with pytest.raises(metro_ai.StateFormatError, match="'game' field"):
        metro_ai.load_state("{}")
    with pytest.raises(metro_ai.StateFormatError, match="unknown game"):
        metro_ai.load_state(json.dumps({**json.loads(text), "game": "chess"}))
    with pytest.raises(metro_ai.StateFormatError, match="no such file"):
        metro_ai.load_state(str(tmp_path / "missing.json"))
