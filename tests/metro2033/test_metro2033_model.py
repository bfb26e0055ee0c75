"""Worlds dealt with the model of the other players' secret choices (issue #44, the search option
``opponents='model'``): the threat declarations not yet shown and the attacker's combat pick are
drawn epsilon-greedily (3 times in 4 the choice with the most wins less losses against what the
player cannot know, else any) instead of uniformly. The fast engine deals exactly the pure-Python
reference's world, every world stays one the player cannot tell from the real state, and the
model's choices are the best ones as often as it says."""
import importlib.util
import json
import random
from pathlib import Path

import pytest

import metro_ai
from metro_ai.bots.search import SearchCore
from metro_ai.bots.settings import SearchSettings
from metro_ai.engine.metro2033.reference import STATION, STATION_HERO, RefMetro2033Game
from test_metro2033_fast import fast_state, same

HIDDEN = ("declare", "combat_pick")
ROOT = Path(__file__).resolve().parents[2]


def positions(players, games, seed, *, rate=0.3):
    """(reference state, fast state) pairs at random points of random games, the phases with a
    secret choice pending taken more often."""
    for g in range(games):
        r, f = RefMetro2033Game(players=players).new_state(seed + g), fast_state(players, seed + g)
        rng = random.Random(seed + g)
        while not r.is_terminal():
            if rng.random() < (rate if r.phase in HIDDEN else 0.02):
                yield r.clone(), f.clone()
            a = rng.choice(r.legal_actions())
            r.apply(a)
            f.apply(a)


def secret(state):
    d = json.loads(state.to_json())
    return d["declared"], (d["combat"] or {}).get("picks"), (d["combat"] or {}).get("hands")


@pytest.mark.parametrize("players", (2, 3))
def test_the_fast_engine_deals_the_references_modelled_world(players):
    """Same seed, same world (hidden cards, declarations, picks, the generator after), with the
    model as without it; the model changes a choice somewhere (so the comparison tests it) and
    nothing where no secret choice is pending."""
    checked, changed, phases = 0, 0, set()
    for r, f in positions(players, 3, 700 + players):
        rng = random.Random(checked)
        for p in range(players):
            dseed = rng.getrandbits(64)
            world = f.determinize(p, dseed, model=True)
            same(r.determinize(p, dseed, model=True), world, (p, dseed, r.phase))
            uniform = f.determinize(p, dseed)
            if r.phase in HIDDEN:
                phases.add(r.phase)
                changed += secret(world) != secret(uniform)
            else:
                assert world.to_json() == uniform.to_json()
            # a world the player cannot tell from the real state
            assert world.observation(p) == f.observation(p)
            if p == f.current_player:
                assert world.legal_actions() == f.legal_actions()
            checked += 1
    assert checked > 40 and phases == set(HIDDEN) and changed > 5


def attacker_values(world):
    """For the attacker's three cards in `world` (hand and pick), each card's wins less losses
    against every combat card outside them, from the reference's combat strengths."""
    cb = world.combat
    own = sorted(cb["hands"]["att"] + cb["picks"]["att"])
    answers = [c for c in world.game.of_type["combat"] if c not in own]
    return own, [sum(world._combat_strengths(cb["ctx"], c, d)[2] for d in answers) for c in own]


def test_the_modelled_attacker_picks_its_best_card_three_times_in_four_and_more():
    """In combats the defender is to answer, the attacker's pick in the defender's worlds is one
    of its best cards at least 3/4 of the time with the model (3/4 + 1/4 of the uniform share), a
    uniform share without it."""
    hits = {True: 0, False: 0}
    expected = {True: 0.0, False: 0.0}
    n = 0
    for r, f in positions(3, 8, 800, rate=1.0):
        if r.phase != "combat_pick" or r.pending["side"] != "def":
            continue
        me = r.decider
        for k in range(10):
            for model in (True, False):
                world = r.determinize(me, 1000 * n + k, model=model)
                own, values = attacker_values(world)
                best = [c for c, v in zip(own, values) if v == max(values)]
                hits[model] += world.combat["picks"]["att"][0] in best
                share = len(best) / len(own)
                expected[model] += 0.75 + 0.25 * share if model else share
        n += 1
    draws = 10 * n
    assert n >= 50, n
    # (the two expectations lie 0.15 and more apart here: many hands hold two equal cards)
    assert expected[True] - expected[False] > 0.15 * draws, (expected, draws)
    assert abs(hits[True] - expected[True]) < 0.03 * draws, (hits, expected, draws)
    assert abs(hits[False] - expected[False]) < 0.03 * draws, (hits, expected, draws)


def test_modelled_declarations_defend_with_what_beats_most_threats():
    """Each other player's declaration not yet shown, in the model's worlds, is one of those with
    the most wins less losses against the threat deck 3/4 of the time and more (3/4 + 1/4 of the
    uniform share; the hero where it beats more threats than the army, a station of the army's
    otherwise)."""
    hits = total = expected = uniform = 0
    for r, _ in positions(3, 8, 900, rate=1.0):
        if r.phase != "declare":
            continue
        me = r.decider
        others = [q for q in range(3) if q != me and r.declared[q] is not None]
        for k in range(10):
            world = r.determinize(me, 50 * total + k, model=True)
            deck = world.decks[world._threat_key()]
            for q in others:
                opts = world._declare_options(q)
                values = [sum(world._threat_outcome(q, "hero" if o >= STATION_HERO else "army", c) for c in deck)
                          for o in opts]
                best = {o for o, v in zip(opts, values) if v == max(values)}
                s, who = world.declared[q]
                hits += (STATION_HERO if who == "hero" else STATION) + s in best
                expected += 0.75 + 0.25 * len(best) / len(opts)
                uniform += len(best) / len(opts)
                total += 1
    assert total >= 1000, total
    assert expected - uniform > 0.06 * total, (expected, uniform, total)     # (a uniform draw: 0.87 here)
    assert abs(hits - expected) < 0.03 * total, (hits, expected, total)


def test_the_search_option_reaches_the_worlds_and_games_without_a_model_refuse_it():
    state = metro_ai.load_game("metro2033", players=3).new_state(5)
    bot = metro_ai.make_bot("ismcts:iterations=200,opponents=model", seed=3)
    again = metro_ai.make_bot("ismcts:iterations=200,opponents=model", seed=3)
    assert bot.choose(state) == again.choose(state)
    assert bot.settings_for(state.game).opponents == "model"
    assert metro_ai.make_bot("hard").settings_for(state.game).opponents == "uniform"
    for name, players in (("metro", 2), ("breakthrough", 2)):
        other = metro_ai.load_game(name, players=players)
        s = other.new_state(1)
        before = s.to_json()
        with pytest.raises(ValueError, match=f"'{name}' has none"):
            metro_ai.make_bot("ismcts:iterations=20,opponents=model").choose(s)
        with pytest.raises(ValueError, match="no model of its players' secret choices"):
            SearchCore(s, 0, 1, SearchSettings(opponents="model"))
        with pytest.raises(ValueError, match="no model of its players' secret choices"):
            s.determinize(0, 1, model=True)
        assert s.to_json() == before
    with pytest.raises(metro_ai.BotSpecError):
        metro_ai.make_bot("hard:opponents=greedy")
    # a game written in Python has no model either (the tutorial's)
    spec = importlib.util.spec_from_file_location("tunnel_draft_model_test", ROOT / "examples" / "tunnel_draft.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tunnel = module.TunnelDraftGame(players=2).new_state(1)
    assert not tunnel.game.models_opponents
    with pytest.raises(ValueError, match="no model of its players' secret choices"):
        tunnel.determinize(0, 1, model=True)
    tunnel.determinize(0, 1)


def test_the_root_prior_deals_its_worlds_as_the_search_does(monkeypatch):
    """With ``opponents="model"`` the root prior's worlds (the greedy bot's one-ply values) draw
    the others' secret choices from the model too, as the search's worlds do: at an attacker's
    pick the modelled worlds give another prior than uniform ones, and a bot with the option and
    a prior asks for them."""
    from metro_ai.bots import mcts
    from metro_ai.bots.baselines import GreedyBot
    s, rng = metro_ai.load_game("metro2033", players=3).new_state(4), random.Random(4)
    while not (s.phase == "combat_pick" and mcts.root_prior(s, 7, 2, True) != mcts.root_prior(s, 7, 2)):
        assert not s.is_terminal()
        s.apply(rng.choice(s.legal_actions()))
    assert GreedyBot.scores(s, 7, 2, model=True) != GreedyBot.scores(s, 7, 2)
    asked = []
    real = mcts.root_prior
    monkeypatch.setattr(mcts, "root_prior", lambda *a: asked.append(a[3:]) or real(*a))
    for spec, model in (("ismcts:prior=1,opponents=model", True), ("ismcts:prior=1", False)):
        metro_ai.make_bot(spec, seed=2).search_cores(s, s.current_player, 5)
        assert asked.pop() == (model,)
