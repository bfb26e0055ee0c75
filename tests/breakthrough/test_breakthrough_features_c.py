"""Breakthrough's observation features written in C (``BreakthroughState.c_features``, issue #44)
against the Python encoder (``features.py``, ``BreakthroughFeatures``): ``state._features_c(p)``
(what the search's learned evaluators read, without the GIL) must equal
``state.observation_tensor(p)`` bit for bit, for every seat.

Positions: every ply of whole games of 2-5 players under each option set (the survival switches
B9, fixed factions R22, a short turn limit R18, a card set in another order) with a card-aware
random policy (quests, kept stations, monsters: every phase and pending decision) and uniformly
random play; the worlds ``determinize`` deals (R21) for each seat; random games under Hypothesis;
states rebuilt by the JSON loader. The default tier plays a sample of the sweep that takes every
player count and option set (tests/tiers.py); the slow tier the rest.
"""
import json
import random

import numpy as np
import pytest
from hypothesis import given, strategies as st

from metro_ai.engine.breakthrough import BreakthroughGame
from metro_ai.engine.breakthrough.cards import DEFAULT_PATH
from metro_ai.engine.breakthrough.rules import PHASES
from tiers import each_value, tiered

QUEST, CLEANUP = 5, 4                   # action blocks (state.pyx's module docstring)
KEEP_STATION, PASS = 6, 8               # fixed actions after 9 * C
OPTION_SETS = ("default", "survival", "turn_limit", "factions", "card_set")
SWITCHES = ("full_protection_required", "failed_defence_tokens_down", "quest_tokens_stay_down")

_GAMES = {}


@pytest.fixture(scope="module")
def shuffled_card_set(tmp_path_factory):
    """The shipped card set with its kinds in another order (faction ids among the others) and
    some numbers changed, as the differential test's."""
    doc = json.loads(DEFAULT_PATH.read_text())
    random.Random(3).shuffle(doc["cards"])
    for k in doc["cards"]:
        if k["name"] == "Pork":
            k["cost"] = 1
        if k["type"] == "station" and k["quest"]["amount"] == 3:
            k["quest"]["amount"] = 2
    path = tmp_path_factory.mktemp("cards") / "shuffled.json"
    path.write_text(json.dumps(doc))
    return str(path)


def game(players, option_set="default", card_set=None):
    """The game of `players` under one of OPTION_SETS."""
    key = (players, option_set, card_set)
    if key not in _GAMES:
        if option_set == "default":
            options = {}
        elif option_set == "survival":
            options = dict.fromkeys(SWITCHES, True)
        elif option_set == "turn_limit":
            options = {"turn_limit": 25}
        elif option_set == "factions":
            names = BreakthroughGame(players=players).card_names
            fids = BreakthroughGame(players=players).faction_ids()
            options = {"factions": [names[f] for f in reversed(fids)][:players]}
        else:
            options = {"card_set": card_set}
        _GAMES[key] = BreakthroughGame(players=players, **options)
    return _GAMES[key]


def choose(state, rng, greedy):
    """A legal action: uniformly random, or (greedy) random play that completes quests, keeps
    stations, takes free plays and rarely cleans up, so that games end with a winner (B8)."""
    la = state.legal_actions()
    if not greedy or rng.random() < 0.03:
        return rng.choice(la)
    C = state.game.num_cards
    F = 9 * C
    quests = [a for a in la if a < F and a // C == QUEST]
    if quests:
        return rng.choice(quests)
    if F + KEEP_STATION in la:
        return F + KEEP_STATION
    rest = [a for a in la if not (a < F and a // C == CLEANUP)]
    if state.phase == "free_play" and len(rest) > 1:
        rest = [a for a in rest if a != F + PASS]
    return rng.choice(rest or la)


def assert_same(state, where):
    """``_features_c`` equals ``observation_tensor`` bit for bit for every seat."""
    for p in range(state.num_players):
        fast, slow = state._features_c(p), state.observation_tensor(p)
        assert fast.dtype == slow.dtype == np.float32
        assert fast.shape == slow.shape
        if fast.tobytes() != slow.tobytes():
            bad = np.flatnonzero(fast.view(np.uint32) != slow.view(np.uint32))
            raise AssertionError(f"{where}, seat {p}, phase {state.phase}: features differ at "
                                 f"{bad[:8].tolist()}: C {fast[bad[:8]].tolist()}, Python {slow[bad[:8]].tolist()}")


def play_compared(state, rng, greedy, max_plies=None, seen=None, where=()):
    """Play from `state`, comparing the features before every ply and at the end."""
    ply = 0
    while True:
        if seen is not None:
            seen.add(state.phase)
        assert_same(state, (*where, ply))
        if state.is_terminal() or (max_plies is not None and ply >= max_plies):
            return state
        state.apply(choose(state, rng, greedy))
        ply += 1


SWEEP = [(players, option_set) for players in range(2, 6) for option_set in OPTION_SETS]


@pytest.mark.parametrize("players,option_set", tiered(SWEEP, fast=each_value(SWEEP)))
def test_every_ply_every_seat(players, option_set, shuffled_card_set):
    """Two card-aware games to their end and 300 plies of uniform play (to the end under the
    short turn limit), every seat compared before every ply and at the end."""
    g = game(players, option_set, shuffled_card_set)
    seed = 100 * players + 10 * OPTION_SETS.index(option_set)
    for k in range(2):
        end = play_compared(g.new_state(seed + k), random.Random(seed + k), True,
                            where=(players, option_set, seed + k))
        assert end.is_terminal()
    uniform = play_compared(g.new_state(seed + 2), random.Random(seed + 2), False,
                            max_plies=None if option_set == "turn_limit" else 300,
                            where=(players, option_set, seed + 2, "uniform"))
    assert uniform.is_terminal() or option_set != "turn_limit"


def test_every_phase_and_the_end_are_compared():
    """Card-aware games of 3 and 5 players (5: relative seat 4's faction channel) until every
    phase has been compared, each pending decision (quest_hero, quest_pay, keep_station,
    discard3, protect, free_play, lose_station) and ended games among them."""
    seen = set()
    games = 0
    for seed in range(40):
        for players in (3, 5):
            play_compared(game(players).new_state(seed), random.Random(seed), True, seen=seen,
                          where=(players, seed))
            games += 1
        if seen == set(PHASES):
            break
    assert seen == set(PHASES), (sorted(set(PHASES) - seen), games)


def test_the_pending_card_has_a_channel_of_its_own():
    """Channel 19 marks the pending decision's card, channel 18 only the faction card of relative
    seat 4 (5 players): the two once shared channel 18, and 19 was never written."""
    g = game(5)
    C = g.num_cards
    for seed in range(40):
        state, rng = g.new_state(seed), random.Random(seed)
        while not state.is_terminal():
            pending = (state.observation(0)["pending"] or {}).get("card")
            if pending is not None:
                x = state._features_c(0)
                cards = x[:C * 20].reshape(C, 20)
                assert cards[pending, 19] == 1 and cards[:, 19].sum() == 1
                assert cards[:, 18].sum() == 1 and cards[state.observation(0)["factions"][4], 18] == 1
                return
            state.apply(choose(state, rng, True))
    raise AssertionError("no pending decision in 40 games")


@pytest.mark.parametrize("players", tiered(range(2, 6), fast=lambda p: p in (2, 5)))
def test_determinised_worlds(players):
    """The worlds ``determinize(p, seed)`` deals (R21), every 9th ply of a card-aware game and
    for every seat: the C features equal the encoder's for every seat of the world, and the
    determinising seat sees the world as it sees the real state."""
    g = game(players)
    rng = random.Random(players)
    s = g.new_state(7 * players)
    ply = worlds = 0
    discard3 = False
    while not s.is_terminal():
        if ply % 9 == 0 or (s.phase == "discard3" and not discard3):
            discard3 = discard3 or s.phase == "discard3"
            for p in range(players):
                world = s.determinize(p, 1000 * ply + p)
                assert_same(world, ("world", players, ply, p))
                assert world._features_c(p).tobytes() == s._features_c(p).tobytes()
                worlds += 1
        s.apply(choose(s, rng, True))
        ply += 1
    assert discard3 and worlds > 50


@given(st.integers(2, 5), st.integers(0, 7), st.sampled_from(OPTION_SETS[2:4]), st.integers(0, 2 ** 32),
       st.booleans(), st.integers(0, 400), st.integers(0, 2 ** 32))
def test_random_positions(players, switches, option_set, seed, greedy, steps, dseed):
    """Random games under any survival switches (and a short turn limit or fixed factions, both
    from the sweep's games), compared after `steps` plies, also in a determinised world."""
    options = {name: bool(switches >> i & 1) for i, name in enumerate(SWITCHES)}
    base = game(players, option_set)
    g = BreakthroughGame(**{**base.options, **options})
    s = g.new_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(choose(s, rng, greedy))
    assert_same(s, (players, switches, option_set, seed, greedy, steps))
    viewer = dseed % players
    assert_same(s.determinize(viewer, dseed), ("world", viewer, dseed))


def test_states_loaded_from_json():
    """States rebuilt by the JSON loader (``state_from_json(to_json())``), one in each phase a
    card-aware 4-player game reaches: the same features as the state they were saved from."""
    g = game(4)
    s = g.new_state(11)
    rng = random.Random(11)
    loaded = set()
    while True:
        if s.phase not in loaded:
            twin = g.state_from_json(s.to_json())
            assert_same(twin, ("loaded", s.phase))
            for p in range(4):
                assert twin._features_c(p).tobytes() == s.observation_tensor(p).tobytes()
            loaded.add(s.phase)
        if s.is_terminal():
            break
        s.apply(choose(s, rng, True))
    assert {"main", "draw", "discard3", "over"} <= loaded


@pytest.mark.parametrize("players", range(2, 6))
def test_size_is_the_encoders(players, shuffled_card_set):
    """c_features accepts exactly the encoder's size (it returns -1 for any other n, which only
    Cython callers can pass): C cards x 20 channels, 5 seats x 6, len(PHASES) + 1 + 2 x 5 + 4
    for the turn; and it writes a vector that is not all zeros for every seat."""
    for option_set in ("default", "card_set"):
        g = game(players, option_set, shuffled_card_set)
        feats = g.observation_features()
        assert feats.size == g.num_cards * 20 + 5 * 6 + len(PHASES) + 1 + 2 * 5 + 4
        s = g.new_state(players)
        for p in range(players):
            x = s._features_c(p)
            assert x.shape == (feats.size,) and x.dtype == np.float32
            assert np.count_nonzero(x) > 10
            assert ((x >= 0) & (x <= 1)).all()
        with pytest.raises(ValueError):
            s._features_c(players)
