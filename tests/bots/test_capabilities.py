"""Bots declare what they can do (issue #42): ``searches``, ``rated`` and ``resources()``/``cap``,
read by matches, the command line and the server instead of probing bot objects with
``hasattr``/``getattr``/``setattr``."""
import re
from pathlib import Path

import pytest

import metro_ai
from metro_ai.bots.base import Bot, Resources
from metro_ai.bots.catalogue import BOTS, PRESETS, bot_catalogue, bot_class
from metro_ai.play.match import make_seats

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(BOTS) + sorted(PRESETS))
def test_each_bot_declares_whether_it_searches(name):
    bot = metro_ai.make_bot(name, seed=1)
    searching = name not in ("random", "greedy", "greedy-classic")
    assert bot.searches is bot_class(name).searches is searching
    assert bot_catalogue()["bots"].get(name, {"searches": searching})["searches"] is searching
    assert not bot.rated
    state = metro_ai.load_game("leduc").new_state(3)
    if searching:
        assert bot.analyse(state, metro_ai.Limit(iterations=30)).iterations == 30
        assert bot.default_limit is not None
    else:
        with pytest.raises(TypeError, match="does not search, so it has no analysis"):
            bot.analyse(state)
        assert bot.default_limit is None and bot.resources() == Resources()


def test_an_elo_bot_is_rated_and_a_match_reads_its_ladder_for_it():
    bot = metro_ai.make_bot("ismcts", elo=1200)
    assert bot.rated and bot.searches


def test_resources_and_cap():
    bot = metro_ai.make_bot("ismcts", workers=3, backend="processes", max_nodes=9_000)
    used = bot.resources()
    assert (used.workers, used.backend, used.max_nodes, used.processes) == (3, "processes", 9_000, True)
    assert not metro_ai.make_bot("ismcts", backend="processes").resources().processes     # one worker: no process
    bot.cap(500)
    assert bot.max_nodes == 500 and bot.resources().max_nodes == 500
    bot.cap(10_000)                         # a cap never raises the bot's own
    assert bot.max_nodes == 500
    random = metro_ai.make_bot("random")
    random.cap(10)
    assert random.resources() == Resources()


class Probed(Bot):
    """A bot with methods of the names the upper floors used to probe for, declaring neither
    capability: it must be taken at its word."""
    name = "probed"

    def choose(self, state, limit=None):
        return state.legal_actions()[0]

    def analyse(self, state, limit=None):           # not a search: declared searches = False
        raise AssertionError("a bot that does not search is never asked for an analysis")

    def calibrate_for(self, game):
        raise AssertionError("a bot that is not rated is never calibrated")


def test_a_match_takes_a_bot_at_its_declared_word():
    game = metro_ai.load_game("leduc")
    limit = metro_ai.Limit(iterations=10)
    players, limits, seats = make_seats([Probed(seed=4), "random"], seed=1, limit=limit, game=game)
    assert seats[0]["limit"] is None and seats[0]["name"] == "probed" and seats[0]["seed"] == 4
    record = metro_ai.play_match(game, [Probed(seed=4), "random"], seed=1, limit=limit)
    assert record["seats"][0]["limit"] is None


def test_the_upper_floors_do_not_probe_bots():
    pattern = re.compile(r"\b(hasattr|getattr|setattr)\([^,()]+,\s*\"(analyse|calibrate_for|workers|backend|"
                         r"max_nodes|default_limit|search_cores|_built_cores)\"")
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in sorted((ROOT / "metro_ai").rglob("*.py"))
             for m in pattern.finditer(path.read_text())]
    assert not found, found
