"""Every game says which of its rules are this project's readings rather than the printed rules
(issue: rules as printed, "honest labels"): ``Game.readings`` pairs a decision id with one line,
``describe()`` carries them, ``metro-ai games`` prints them, and every id is defined in
``docs/rules/``."""
import json

import pytest

from metro_ai.registry import game_class, list_games
from metro_ai.cli import main
from metro_ai.cli.games import READINGS_HEADING
from tests.project.test_rules_docs import docs_ids

#: Readings each game must name, the ones the rules audit found unlabelled.
MUST_NAME = {
    "metro": {"M17", "M20", "M21", "C13", "C15", "C33"},
    "metro-solo": {"C22", "C24"},
    "metro2033": {"G25", "G29", "G30", "G33"},
    "breakthrough": {"R18"},
}


@pytest.mark.parametrize("name", sorted(list_games()))
def test_readings_cite_defined_decisions_once(name):
    readings = game_class(name).describe()["readings"]
    ids = [r["rule"] for r in readings]
    assert len(ids) == len(set(ids)), f"{name}: a decision listed twice: {ids}"
    undefined = set(ids) - docs_ids()
    assert not undefined, f"{name}: readings cite ids not defined in docs/rules/: {sorted(undefined)}"
    assert all(isinstance(r["text"], str) and 20 <= len(r["text"]) <= 200 for r in readings), \
        f"{name}: every reading is one line of text"
    assert MUST_NAME.get(name, set()) <= set(ids), f"{name}: missing {MUST_NAME[name] - set(ids)}"


def test_games_command_prints_the_readings(capsys):
    assert main(["games"]) == 0
    blocks: dict[str, list[str]] = {}
    for line in capsys.readouterr().out.splitlines():
        if line.startswith(" "):
            blocks[current].append(line.strip())
        elif not line.startswith("["):
            current = line.split(":", 1)[0]
            blocks[current] = []
    for name in list_games():
        readings = game_class(name).describe()["readings"]
        lines = blocks[name]
        if not readings:
            assert not any(line.startswith("readings") for line in lines), name
            continue
        at = lines.index(READINGS_HEADING + ":")
        assert lines[at + 1:at + 1 + len(readings)] == [f"[{r['rule']}] {r['text']}" for r in readings], name


def test_games_json_and_markdown_carry_the_readings(capsys):
    assert main(["games", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert {r["rule"] for r in info["metro"]["readings"]} >= MUST_NAME["metro"]
    assert info["leduc"]["readings"] == []          # OpenSpiel's rules, no readings of ours
    assert main(["games", "--markdown"]) == 0
    md = capsys.readouterr().out
    assert "- **C22** " in md and "- **G33** " in md
