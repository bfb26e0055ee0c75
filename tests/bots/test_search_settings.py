"""A game's search settings (``Game.search_settings()``, from its ``search_defaults``) are read by
the search through one checked reader, ``game_search_settings`` (bots/mcts.py): each key must be a
search option's name and each value one that option allows (issue #42: a misspelt key used to be
ignored without a word)."""
import importlib.util
from pathlib import Path

import pytest

import metro_ai
from metro_ai import Limit
from metro_ai.bots.mcts import SearchBot, game_search_settings
from metro_ai.registry import game_class

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "add_a_game.py"
SETS = [pytest.param(name, i, id=f"{name}-{i}") for name in metro_ai.list_games()
        for i in range(len(game_class(name).option_sets()))]


@pytest.mark.parametrize("name, index", SETS)
def test_every_game_and_option_set_names_search_options_with_allowed_values(name, index):
    game = game_class(name)(**game_class(name).option_sets()[index])
    settings = game_search_settings(game)
    assert settings == game.search_settings() and settings         # every game sets its play-out
    assert set(settings) <= {o.name for o in SearchBot.options}


def _stones(defaults):
    spec = importlib.util.spec_from_file_location("add_a_game_settings", TUTORIAL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class Stones(module.StonesGame):
        search_defaults = defaults
    return Stones()


@pytest.mark.parametrize("defaults, message", [
    ({"rollout": "random", "prior ": 1.0}, "'prior ' is not a search option"),
    ({"rollout_depht": 10}, "'rollout_depht' is not a search option"),
    ({"rollout": "greedy"}, "option 'rollout' must be None (the game's default) or 'random'"),
    ({"minimax": 2.0}, "option 'minimax' must be"),
])
def test_a_misspelt_or_out_of_range_setting_is_an_error_naming_the_game(defaults, message):
    game = _stones(defaults)
    state = game.new_state(1)
    with pytest.raises(ValueError, match="game 'stones', search_settings()") as info:
        metro_ai.make_bot("ismcts", seed=1).choose(state, Limit(iterations=20))
    assert message in str(info.value)


def test_settings_the_search_knows_are_used():
    # the same game with a correct key searches; its prior is read (a root prior changes the tree)
    plain = metro_ai.make_bot("ismcts", seed=1).analyse(_stones({"rollout": "random"}).new_state(1),
                                                        Limit(iterations=200))
    prior = metro_ai.make_bot("ismcts", seed=1).analyse(_stones({"rollout": "random", "prior": 4.0}).new_state(1),
                                                        Limit(iterations=200))
    assert [a.visits for a in plain.actions] != [a.visits for a in prior.actions]
