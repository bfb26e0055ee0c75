"""Worlds dealt with part of the hidden information known (issue #44): the measurement of what
opponent modelling could give at most. A world dealt with the hidden parts ``decks``, ``hands``
or ``choices`` kept holds those parts as the real state does, redeals the rest as
``determinize`` does, and stays a world the player cannot tell from the real one."""
import json
import random

import pytest

import metro_ai
from metro_ai.bots.search import SearchCore
from metro_ai.engine.core import PEEK

ALL = PEEK["decks"] | PEEK["hands"] | PEEK["choices"]


def fields(state):
    d = json.loads(state.to_json())
    combat = d["combat"] or {}
    return {"decks": d["decks"], "rng": d["rng_state"], "aside": combat.get("aside"),
            "quests": d["quests"], "scouted": d["scouted"], "pending": d["pending"],
            "hands": combat.get("hands"), "picks": combat.get("picks"), "declared": d["declared"]}


def positions(players, games, seed):
    """States at random points of random games, the hidden phases taken more often."""
    game = metro_ai.load_game("metro2033", players=players)
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_state(seed + g)
        while not state.is_terminal():
            phase = json.loads(state.to_json())["phase"]
            if rng.random() < (0.3 if phase in ("declare", "combat_pick", "quest_keep") else 0.03):
                yield state.clone()
            state.apply(rng.choice(state.legal_actions()))


def test_the_parts_kept_are_the_real_ones_and_the_rest_is_redealt():
    kept_differs = {name: 0 for name in PEEK}          # times a part differed when dealt honestly
    seen = 0
    for state in positions(3, 3, 44):
        p = state.current_player
        real = fields(state)
        honest = fields(state.determinize(p, 7))
        for name, bit in PEEK.items():
            world = state._determinize_peeking(p, 7, bit)
            dealt = fields(world)
            # the world is one the player cannot tell from the real state
            assert (world.observation_tensor(p) == state.observation_tensor(p)).all()
            assert world.legal_actions() == state.legal_actions()
            if name == "decks":
                assert (dealt["decks"], dealt["rng"], dealt["aside"]) == (real["decks"], real["rng"], real["aside"])
                kept_differs[name] += (honest["decks"], honest["rng"]) != (real["decks"], real["rng"])
            elif name == "hands":
                others = [q for q in range(3) if q != p]
                assert [dealt["quests"][q] for q in others] == [real["quests"][q] for q in others]
                assert [dealt["scouted"][q] for q in others] == [real["scouted"][q] for q in others]
                kept_differs[name] += [honest["quests"][q] for q in others] != [real["quests"][q] for q in others]
            else:
                assert dealt["declared"] == real["declared"] and dealt["picks"] == real["picks"]
                kept_differs[name] += (honest["declared"], honest["picks"]) != (real["declared"], real["picks"])
        everything = state._determinize_peeking(p, 7, ALL)
        assert fields(everything) == real
        seen += 1
    assert seen > 20
    # honest dealing changes every part somewhere, so the assertions above test the keeping
    assert all(kept_differs.values()), kept_differs


def test_honest_dealing_is_the_reference_engines():
    """With no part kept the world is the one the pure-Python reference deals (what
    ``determinize`` gave before the parts existed), at every decision of random games."""
    from metro_ai.engine.metro2033.reference import RefMetro2033Game
    from test_metro2033_fast import fast_state, same
    for seed in (45, 46):
        r, f = RefMetro2033Game(players=3).new_state(seed), fast_state(3, seed)
        rng = random.Random(seed)
        while not r.is_terminal():
            if rng.random() < 0.1:
                p, dseed = rng.randrange(3), rng.getrandbits(64)
                same(r.determinize(p, dseed), f._determinize_peeking(p, dseed, 0), (seed, p, dseed))
            a = rng.choice(r.legal_actions())
            r.apply(a)
            f.apply(a)


def test_games_that_cannot_keep_a_part_refuse_it_and_all_works_everywhere():
    game = metro_ai.load_game("breakthrough", players=2)
    state = game.new_state(3)
    with pytest.raises(ValueError, match="only honestly"):
        state._determinize_peeking(0, 1, PEEK["hands"])
    with pytest.raises(ValueError, match="only honestly"):
        SearchCore(state, 0, 1, peek="hands")
    with pytest.raises(ValueError, match="peek names hidden parts"):
        SearchCore(state, 0, 1, peek="opponents")
    with pytest.raises(ValueError, match="exclude each other"):
        SearchCore(state, 0, 1, peek="all", fixed_world=state.clone())
    core = SearchCore(state, 0, 1, peek="all")          # the real state searched: every game can
    core.run(50)
    assert core.worlds == 1
    m33 = metro_ai.load_game("metro2033", players=2).new_state(3)
    with pytest.raises(ValueError, match="unknown hidden parts"):
        m33._determinize_peeking(0, 1, 8)


def test_no_bot_option_peeks():
    """Peeking reaches a search only through SearchCore's argument: no spec or option sets it."""
    with pytest.raises(metro_ai.BotSpecError):
        metro_ai.make_bot("hard:peek=all")
    names = {o.name for name in metro_ai.list_bots() for o in type(metro_ai.make_bot(name)).options}
    assert names and not any("peek" in n for n in names)


def test_the_strength_bench_peeks_only_when_asked(tmp_path):
    """benches/strength.py --bot-peek: the bot searches its worlds with the parts kept, and
    summarises its games with an interval on the mean return."""
    from tests.bench_scripts import bench_script
    strength = bench_script("strength")
    honest = metro_ai.make_bot("hard", seed=5)
    bot = strength.peeking(honest, ("hands", "choices"))
    assert type(bot).__name__ == "PeekingISMCTSBot" and bot.peek == ("hands", "choices")
    assert all(getattr(bot, o.name) == getattr(honest, o.name) for o in honest.options)
    state = metro_ai.load_game("metro2033", players=2).new_state(9)
    core, = bot._cores(state, state.current_player, 1, bot.settings_for(state.game))
    core.run(20)
    assert core.worlds == 20
    with pytest.raises(ValueError, match="single-observer"):
        strength.peeking(metro_ai.make_bot("mo-ismcts"), ("all",))
    out = tmp_path / "s.jsonl"
    strength.main(["--game", "metro2033", "--players", "2", "--bot", "hard", "--opponent", "hard",
                   "--iterations", "30", "--opponent-iterations", "30", "--games", "2",
                   "--bot-peek", "all", "--json", str(out)])
    row = __import__("json").loads(out.read_text())
    assert row["peek"] == ["all"] and row["games_played"] == 2
    lo, hi = row["mean_return_ci95"]
    assert lo <= row["mean_return"] <= hi
