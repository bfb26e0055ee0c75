"""State contract for the Cython Breakthrough engine: options and card sets, bad actions, JSON,
observation, determinize, invariants in property tests (hypothesis), replay, C-level playouts.

Rules are cited by id: B1-B9 and R1-R24 (docs/rules/breakthrough.md; R1-R24 also in the reference engine's
module docstring, engine/breakthrough/reference.py).
"""
import copy
import json
import math
import pickle
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import metro_ai
from metro_ai.engine import DataError
from metro_ai.engine.breakthrough import BreakthroughGame, BreakthroughState
from metro_ai.engine.breakthrough.cards import DEFAULT_PATH, CardSetError
from breakthrough_positions import setup  # noqa: E402
from stats import chi2_pvalue  # noqa: E402
from metro_ai.engine.breakthrough import reference as ref
from breakthrough_positions import ref_to_dict
from test_breakthrough_differential import fast_to_dict
from test_breakthrough_reference import _policy

C = 133
F = 9 * C
PLAY, PLAY_ROTATED, DISCARD, DISCARD3, CLEANUP, QUEST = range(6)
TAKE_DECK, END_TURN = F + 3, F + 4

_GAMES = {}


def game(players=2, **options):
    key = (players, tuple(sorted(options.items())))
    if key not in _GAMES:
        _GAMES[key] = BreakthroughGame(players=players, **options)
    return _GAMES[key]


def choose(state, rng, greedy):
    return _policy(state, rng, greedy, state.legal_actions())


def play(state, rng, steps=None, greedy=True):
    n = 0
    while not state.is_terminal() and (steps is None or n < steps):
        state.apply(choose(state, rng, greedy))
        n += 1
    return state


def hidden(state, player):
    """Cards `player` cannot see: the deck and the other hands' blind draws (R20)."""
    out = list(state.deck())
    for q in range(state.num_players):
        if q != player:
            out += [c for c in state.hand(q) if c not in state.known(q)]
    return sorted(out)


def check_invariants(s, la=None):
    g = s.game
    n = s.num_players
    seen = s.deck() + s.discard() + [m for m in s.market() if m is not None] + s.factions()
    for p in range(n):
        hand = s.hand(p)
        assert len(hand) <= 5 and hand == sorted(hand)
        seen += hand
        tab = s.tableau(p)
        seen += [c for c, _, _ in tab]
        on = 0
        for c, rot, tok in tab:
            on += tok
            assert tok == 0 or g.card(c).type == "station"
            assert not rot or g.card(c).kind.protection
        assert min(s.above()[p], s.below()[p], s.supply()[p]) >= 0
        assert s.above()[p] + s.below()[p] + on + s.supply()[p] == 10, "10 tokens per colour"
        assert set(s.known(p)) <= set(hand)
        assert sorted(list(s.hand_gen(p)) + s.known(p)) == hand
    box = [f for f in g.faction_ids() if f not in s.factions()]
    assert sorted(seen + box) == list(range(g.num_cards)), "all 133 cards, each exactly once"
    if s.is_terminal():
        assert s.current_player == -1 and s.legal_actions() == []
        if s.winner is not None:
            assert s.tokens(s.winner) == 10                      # B8
        else:
            assert s.turn == g.turn_limit and max(s.scores()) < 10
    else:
        assert max(s.scores()) < 10, "10 tokens end the game"
        assert 0 <= s.current_player < n
        la = s.legal_actions() if la is None else la
        assert la and la == sorted(set(la))


# =============================================================================================
# game, options, card sets
# =============================================================================================
def test_registry_loads_breakthrough():
    assert "breakthrough" in metro_ai.list_games()
    g = metro_ai.load_game("breakthrough", players=3, quest_tokens_stay_down=True)
    assert isinstance(g, BreakthroughGame) and g.name == "breakthrough"
    assert g.num_players == 3 and g.max_actions >= 4 * 5 + 2 * 128
    assert g.options == {"players": 3, "full_protection_required": False,
                         "failed_defence_tokens_down": False, "quest_tokens_stay_down": True,
                         "factions": "random", "turn_limit": 1000, "card_set": None}
    json.dumps(g.options)
    assert BreakthroughGame(**g.options).options == g.options
    assert pickle.loads(pickle.dumps(g)).options == g.options
    g2 = BreakthroughGame(players=2, factions=["hansa", 128])
    assert g2.options["factions"] == ["Hansa", "Fourth Reich"]
    assert [g2.card_names[f] for f in g2.new_state(3).factions()] == ["Hansa", "Fourth Reich"]


@pytest.mark.parametrize("options,match", [
    ({"players": 1}, "players"), ({"players": 6}, "players"), ({"players": "2"}, "players"),
    ({"players": True}, "players"), ({"turn_limit": 0}, "turn_limit"),
    ({"turn_limit": True}, "turn_limit"), ({"turn_limit": "9"}, "turn_limit"),
    ({"full_protection_required": 1}, "full_protection_required"),
    ({"failed_defence_tokens_down": "yes"}, "failed_defence_tokens_down"),
    ({"quest_tokens_stay_down": None}, "quest_tokens_stay_down"),
    ({"factions": ["Hansa"]}, "factions"), ({"factions": ["Hansa", "Hansa"]}, "factions"),
    ({"factions": ["Hansa", "Nobody"]}, "factions"), ({"factions": "chosen"}, "factions"),
    ({"factions": ["Hansa", 3]}, "factions"), ({"card_set": 5}, "card_set"),
    ({"survival": True}, "unknown option"),
])
def test_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        metro_ai.load_game("breakthrough", **{"players": 2, **options})


def _card_doc():
    return json.loads(Path(DEFAULT_PATH).read_text())


def _kind_index(doc, name):
    return next(i for i, k in enumerate(doc["cards"]) if k["name"] == name)


@pytest.mark.parametrize("name,field,value,match", [
    ("Pork", "cost", -1, r"card \d+: field 'cost'"),
    ("Pork", "resource_type", "gold", r"card \d+: field 'resource_type'"),
    ("Komsomolskaya", "quest", {"class": "peaceful", "amount": 0}, r"card \d+: field 'quest'"),
    ("Giant Amoeba", "loss", None, r"card \d+: field 'loss'"),
    ("Hunter", "doubles", "rum", r"card \d+: field 'doubles'"),
    ("Komsomolskaya", "quest", {"class": "peaceful", "amount": 40}, r"'Komsomolskaya'.*field 'quest'"),
    ("Pork", "quantity", 50, r"'Pork'.*field 'quantity'"),
])
def test_bad_card_set_files_name_card_and_field(tmp_path, name, field, value, match):
    doc = _card_doc()
    doc["cards"][_kind_index(doc, name)][field] = value
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=match) as err:
        metro_ai.load_game("breakthrough", players=2, card_set=str(path))
    if value not in (50,) and not (field == "quest" and value["amount"] == 40):
        assert isinstance(err.value, (DataError, CardSetError))   # schema errors: DataError


def test_card_set_file_errors(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        BreakthroughGame(players=2, card_set=str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(DataError, match="not valid JSON"):
        BreakthroughGame(players=2, card_set=bad)
    doc = _card_doc()
    doc["cards"][_kind_index(doc, "Pork")]["count"] += 1
    bad.write_text(json.dumps(doc))
    with pytest.raises(DataError, match="73 resource cards"):
        BreakthroughGame(players=2, card_set=bad)


def test_another_card_set_is_used(tmp_path):
    """A transcribed set loads without code changes; its numbers drive the rules (B4)."""
    doc = _card_doc()
    doc["name"] = "test set"
    doc["cards"][_kind_index(doc, "Pork")]["cost"] = 1
    path = tmp_path / "my_cards.json"
    path.write_text(json.dumps(doc))
    g = metro_ai.load_game("breakthrough", players=3, card_set=str(path))
    assert g.options["card_set"] == str(path) and g.card_set.name == "test set"
    s = setup(g, hands=[["Pork", "Tea"], ["Knife"], ["Knife"]])
    pork = g.name_to_ids["Pork"][0]
    assert s.play_cost(0, pork) == 1
    assert setup(game(3), hands=[["Pork", "Tea"], ["Knife"], ["Knife"]]).play_cost(0, pork) == 3
    s = g.new_state(4)
    play(s, random.Random(4))
    assert s.is_terminal()
    assert g.state_from_json(s.to_json()) == s
    with pytest.raises(metro_ai.StateFormatError, match="options"):
        game(3).state_from_json(s.to_json())


# =============================================================================================
# bad actions leave the state as it was
# =============================================================================================
@pytest.mark.parametrize("action,match", [
    (99999, "not a Breakthrough action"), (-5, "not a Breakthrough action"),
    (2 ** 40, "out of range"), ("end turn", "an action is an int"),
    (True, "an action is an int"), (1.0, "an action is an int"),
    (END_TURN, "cannot end before the main action"), (TAKE_DECK, "not available in this phase"),
])
def test_unknown_or_illegal_actions(action, match):
    s = game(3).new_state(seed=1)
    before = s.to_json()
    with pytest.raises(metro_ai.IllegalActionError, match=match):
        s.apply(action)
    assert s.to_json() == before
    assert not s.is_legal(action)


def test_illegal_actions_name_reason_and_state():
    g = game(2)
    s = setup(g, hands=[["Pork", "Knife", "Tea", "Caldron", "Rat Meat"], ["Water Filter"] * 5],
                above=[1, 5], below=[4, 0])
    pork, tea = g.name_to_ids["Pork"][0], g.name_to_ids["Tea"][0]
    other = s.hand(1)[0]
    cases = [(PLAY * C + pork, "too few tokens"), (PLAY * C + other, "not in the hand"),
             (QUEST * C + s.factions()[0], "quest is not open or cannot be completed"),
             (CLEANUP * C + pork, "not played in front"),
             (PLAY * C + g.name_to_ids["Giant Amoeba"][0], "not in the hand")]
    for action, match in cases:
        before = s.to_json()
        with pytest.raises(metro_ai.IllegalActionError, match=match) as err:
            s.apply(action)
        assert "turn 1" in str(err.value) and "phase main" in str(err.value)
        assert s.to_json() == before
    s.apply(DISCARD3 * C + s.hand(0)[1])
    before = s.to_json()
    with pytest.raises(metro_ai.IllegalActionError, match="increasing id order"):
        s.apply(DISCARD3 * C + s.hand(0)[0])
    assert s.to_json() == before
    while s.phase != "main":
        s.apply(s.legal_actions()[0])
    with pytest.raises(metro_ai.IllegalActionError, match="already taken"):
        s.apply(DISCARD * C + s.hand(0)[0])
    s.apply(END_TURN)
    assert s.active == 1
    assert tea in s.discard() or tea in s.hand(0)


# =============================================================================================
# JSON
# =============================================================================================
def _valid_obj():
    s = game(3).new_state(seed=4)
    rng = random.Random(4)
    play(s, rng, steps=120)
    while s.phase != "main":
        s.apply(choose(s, rng, True))
    assert not s.is_terminal()
    return s, json.loads(s.to_json())


def _set(obj, path, value):
    obj = copy.deepcopy(obj)
    o = obj
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = value
    return obj


def _hidden_card(obj):
    return obj["deck"][0]


MUTATIONS = [
    (lambda o: "{", "not valid JSON"),
    (lambda o: "[]", "top level"),
    (lambda o: {k: v for k, v in o.items() if k != "deck"}, "missing field 'deck'"),
    (lambda o: {**o, "game": "metro"}, "not breakthrough"),
    (lambda o: {**o, "options": {**o["options"], "players": 2}}, "options"),
    (lambda o: {**o, "deck": o["deck"] + [o["hands"][0][0]]}, "both in"),
    (lambda o: {**o, "deck": o["deck"][1:]}, "missing: every card"),
    (lambda o: {**o, "deck": o["deck"][1:] + [999]}, r"deck\[\d+\] must be an int in 0\.\.\d+, got 999"),
    (lambda o: {**o, "deck": o["deck"][1:] + [o["factions"][0]]}, "both in|faction"),
    (lambda o: _set(o, ["above", 0], o["above"][0] + 1), "a colour has 10 tokens"),
    (lambda o: _set(o, ["above"], [1, 2]), "above must be a list of 3"),
    (lambda o: {**o, "tokens": [9, 9, 9]}, "tokens"),
    (lambda o: {**o, "phase": "dancing"}, "phase must be one of"),
    (lambda o: {**o, "current_player": 9}, "current_player"),
    (lambda o: _set(o, ["hands", 1], list(reversed(o["hands"][1]))), "sorted"),
    (lambda o: _set(o, ["hands", 1], o["hands"][1] + [o["deck"][0]]) | {"deck": o["deck"][1:]},
     "at most 5"),
    (lambda o: _set(o, ["known", 0], [o["hands"][1][0]]), r"not in player 0's hand|hand_gen of player 0: card \d+ needs"),
    (lambda o: {**o, "hand_gen": [{c: 99 for c in g} for g in o["hand_gen"]]}, "deck generation"),
    (lambda o: {**o, "phase": "draw", "current_player": o["active"]}, "agenda"),
    (lambda o: {**o, "phase": "keep_station"}, "pending"),
    (lambda o: {**o, "rng_state": "-3"}, "rng_state"),
    (lambda o: {**o, "winner": 1}, "winner|over"),
    (lambda o: {**o, "turn": 5000}, "turn must be"),
    (lambda o: {**o, "phase": "over", "current_player": -1}, "turn limit"),
    (lambda o: {**o, "agenda": [{"task": "next_turn"}]}, "agenda"),
    (lambda o: {**o, "factions": [o["factions"][0]] * 3}, "both in"),
    (lambda o: {**o, "faction_done": [1, 0, 0]}, "faction_done"),
    (lambda o: {**o, "market": [None, None]}, "market"),
]


@pytest.mark.parametrize("i", range(len(MUTATIONS)))
def test_malformed_or_inconsistent_json(i):
    mutate, match = MUTATIONS[i]
    s, obj = _valid_obj()
    bad = mutate(obj)
    text = bad if isinstance(bad, str) else json.dumps(bad)
    with pytest.raises(metro_ai.StateFormatError, match=match):
        game(3).state_from_json(text)


def test_tableau_entries_are_checked():
    g = game(2)
    s = setup(g, hands=[["Knife"], ["Tea"]], tableaux=[["Pork", "Paveletskaya"], []])
    obj = json.loads(s.to_json())
    pork = g.name_to_ids["Pork"][0]
    pav = g.name_to_ids["Paveletskaya"][0]
    bad = copy.deepcopy(obj)
    bad["tableaux"][0] = [{"card": pork, "rotated": True, "tokens": 0}, bad["tableaux"][0][1]]
    with pytest.raises(metro_ai.StateFormatError, match="cannot be played rotated"):
        g.state_from_json(json.dumps(bad))
    bad = copy.deepcopy(obj)
    bad["tableaux"][0][0]["tokens"] = 1
    bad["supply"][0] -= 1
    with pytest.raises(metro_ai.StateFormatError, match="cannot carry tokens"):
        g.state_from_json(json.dumps(bad))
    good = copy.deepcopy(obj)
    good["tableaux"][0][1]["tokens"] = 2
    good["supply"][0] -= 2
    good["tokens"][0] += 2
    s2 = g.state_from_json(json.dumps(good))
    assert (pav, False, 2) in s2.tableau(0) and s2.scores()[0] == 7
    assert s2.play_cost(0, pork) == 3   # Paveletskaya rewards bullets, not food


def test_json_format_and_pickle():
    s, obj = _valid_obj()
    assert obj["format"] == "metro-ai-state" and obj["game"] == "breakthrough"
    assert len(obj["tableaux"]) == 3 and all("card" in e for t in obj["tableaux"] for e in t)
    assert obj["tokens"] == s.scores()
    assert pickle.loads(pickle.dumps(s)) == s
    assert game(3).state_from_json(obj) == s          # a dict is accepted too


# =============================================================================================
# observation and determinize
# =============================================================================================
def test_observation_shows_only_what_the_player_sees():
    s = game(4).new_state(seed=13)
    play(s, random.Random(1), steps=300)
    assert not s.is_terminal()
    assert any(s.known(q) for q in range(4)), "some hand holds a card taken from the market"
    for p in range(4):
        obs = s.observation(p)
        json.dumps(obs)
        assert obs["hand"] == s.hand(p)
        assert obs["hand_sizes"] == [len(s.hand(q)) for q in range(4)]
        assert obs["deck_size"] == len(s.deck()) and "deck" not in obs and "hands" not in obs
        assert obs["discard"] == s.discard() and obs["market"] == s.market()
        assert obs["tableaux"] == [[{"card": c, "rotated": r, "tokens": k} for c, r, k in s.tableau(q)]
                                   for q in range(4)]
        assert obs["tokens"] == s.scores() and obs["above"] == s.above()
        assert obs["known_in_hands"] == {str(q): s.known(q) for q in range(4) if q != p}
        visible = set(obs["hand"]) | {m for m in obs["market"] if m is not None}
        visible |= set(obs["discard"]) | set(obs["factions"])
        for cards in obs["known_in_hands"].values():
            visible |= set(cards)
        for tab in obs["tableaux"]:
            visible |= {e["card"] for e in tab}
        assert not visible & set(hidden(s, p)), "no hidden card is visible"
        # Redeal what p cannot see: the observation must not move, though the full state does.
        twin = s.determinize(p, 99 + p)
        assert twin.to_json() != s.to_json()
        assert twin.observation(p) == obs
        assert twin.heuristic() == s.heuristic()        # the heuristic is public information
    with pytest.raises(ValueError, match="player"):
        s.observation(4)


@given(st.integers(2, 5), st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32),
       st.integers(0, 600), st.integers(0, 2 ** 64 - 1))
def test_determinize_keeps_what_the_player_sees(players, seed, pick, steps, dseed):
    g = game(players)
    s = play(g.new_state(seed), random.Random(pick), steps=steps)
    for p in range(players):
        d = s.determinize(p, dseed)
        assert d.observation(p) == s.observation(p)
        assert d.hand(p) == s.hand(p)
        for q in range(players):
            assert d.known(q) == s.known(q)               # known cards stay where they are
            assert len(d.hand(q)) == len(s.hand(q))
        assert d.discard() == s.discard() and d.market() == s.market()
        assert hidden(d, p) == hidden(s, p)               # the hidden multiset is preserved
        assert d.legal_actions() == s.legal_actions() or s.current_player != p
        check_invariants(d)
        g.state_from_json(d.to_json())                   # a valid state
        # Depends only on what p sees: a state p cannot tell from s gives the same world.
        twin = s.determinize(p, dseed ^ 0x5555)
        assert twin.observation(p) == s.observation(p)
        assert twin.determinize(p, dseed) == d


def test_determinize_respects_deck_generations():
    """R21: blind draws from an older deck generation never go back into the deck."""
    g = game(2)
    s = g.new_state(11)
    obj = s.to_dict()
    obj["discard"] = obj["deck"][:-2]
    obj["deck"] = obj["deck"][-2:]
    s = g.state_from_json(obj)
    while s.deck_generation == 0 or s.current_player != 0 or s.phase != "main":
        la = s.legal_actions()
        s.apply(la[-1] if s.phase == "draw" else
                next(a for a in la if DISCARD * C <= a < DISCARD3 * C or a >= F))
    old = {c for c, gen in s.hand_gen(1).items() if gen == 0}
    assert s.deck_generation == 1 and old
    for seed in range(20):
        d = s.determinize(0, seed)
        assert not old & set(d.deck())
        assert sum(1 for c, gen in d.hand_gen(1).items() if gen == 0) == len(old)


def test_determinize_is_seeded_and_validated():
    s = game(4).new_state(seed=21)
    d1, d2 = s.determinize(0, 1), s.determinize(0, 2)
    assert d1 == s.determinize(0, 1) and d1.deck() != d2.deck()
    with pytest.raises(ValueError, match="player"):
        s.determinize(4, 1)
    with pytest.raises(TypeError, match="seed"):
        s.determinize(0, "x")


def _small_pool_state():
    """Two players, player 0 observing: hidden = player 1's 5 cards + a deck of 3."""
    g = game(2)
    obj = g.new_state(21).to_dict()
    obj["discard"] = obj["deck"][3:]
    obj["deck"] = obj["deck"][:3]
    return g.state_from_json(obj)


@pytest.mark.parametrize("where", ["deck_top", "deck_bottom", "hand"])
def test_determinize_is_uniform_chi_square(where):
    """Chi-square goodness of fit (fails at p < 1e-4): the card in a hidden slot is uniform over
    the 8 hidden cards. The same statistic rejects a biased shuffle (Sattolo's: no card stays)."""
    s = _small_pool_state()
    pool = hidden(s, 0)
    assert len(pool) == 8
    trials = 4000
    pick = {"deck_top": lambda d: d.deck()[0], "deck_bottom": lambda d: d.deck()[-1],
            "hand": lambda d: d.hand(1)[0]}[where]
    counts = Counter(pick(s.determinize(0, seed)) for seed in range(trials))
    assert set(counts) <= set(pool)
    if where == "hand":          # the lowest of five cards: expected frequencies by rank
        expect = {c: trials * math.comb(7 - i, 4) / math.comb(8, 5) for i, c in enumerate(pool)}
    else:
        expect = {c: trials / 8 for c in pool}
    cells = [c for c in pool if expect[c] > 0]
    stat = sum((counts[c] - expect[c]) ** 2 / expect[c] for c in cells)
    assert chi2_pvalue(stat, len(cells) - 1) > 1e-4, (stat, counts)
    if where == "deck_top":
        def biased(seed):
            p = list(pool)
            rng = ref.SplitMix64(seed)
            for i in range(len(p) - 1, 0, -1):
                j = rng.bounded(i)
                p[i], p[j] = p[j], p[i]
            return p[5]
        counts = Counter(biased(seed) for seed in range(trials))
        stat = sum((counts[c] - trials / 8) ** 2 / (trials / 8) for c in pool)
        assert chi2_pvalue(stat, 7) < 1e-4


# =============================================================================================
# properties: invariants, replay, playouts
# =============================================================================================
@given(st.integers(2, 5), st.integers(0, 7), st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32),
       st.booleans())
def test_invariants_after_every_action(players, switches, seed, pick, greedy):
    g = game(players, full_protection_required=bool(switches & 1),
             failed_defence_tokens_down=bool(switches & 2), quest_tokens_stay_down=bool(switches & 4),
             turn_limit=1000 if greedy else 25)
    s = g.new_state(seed)
    rng = random.Random(pick)
    last_turn = 0
    while not s.is_terminal():
        la = s.legal_actions()
        check_invariants(s, la)
        if s.phase == "main" and not s.main_done and s.turn != last_turn:
            last_turn = s.turn
            assert all(len(s.hand(q)) == 5 for q in range(players)), "hands of five (B1)"
        s.apply(_policy(s, rng, greedy, la))
    check_invariants(s)
    if greedy:
        assert s.winner is not None and s.returns()[s.winner] == 1.0
    assert sum(s.returns()) == pytest.approx(players / 2)


@given(st.integers(2, 5), st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32))
def test_same_seed_replays_bit_for_bit(players, seed, pick):
    g = game(players)
    a = play(g.new_state(seed), random.Random(pick))
    b = play(g.new_state(seed), random.Random(pick))
    assert a.to_json() == b.to_json()
    assert g.new_state(seed).to_json() != g.new_state(seed + 1).to_json()


def test_heuristic_is_tokens_plus_quest_progress():
    g = game(2)
    s = setup(g, hands=[["Knife"], ["Tea"]], tableaux=[["Uniform", "Backpack", "Paveletskaya"], []],
                above=[4, 5], below=[1, 0])
    h = s.heuristic()
    # Paveletskaya (military 5): Uniform 2 + Backpack 1 = 3 of 5; faction quests need 6+.
    assert h[0] == pytest.approx(5 + 0.5 * max(3 / 5, 3 / 6))
    assert 5 <= h[1] < 5.5
    s2 = setup(g, hands=[["Knife"], ["Tea"]],
                 tableaux=[["Uniform", "Backpack", "Paveletskaya", "Hunter"], []], above=[4, 2],
                 below=[1, 0])
    assert s2.heuristic()[0] == pytest.approx(5 + 0.5)        # Hunter doubles: 6 >= 5


# =============================================================================================
# rulebook examples on hand-made positions, and the text API
# =============================================================================================
def test_setup_matches_the_reference_setup():
    kw = dict(hands=[["Hunter", "Knife", "Tea", "Pork", "Rat Meat"], ["Water Filter"] * 5],
              tableaux=[["Uniform", "Backpack", "Paveletskaya"], [{"card": "Caldron", "rotated": True}]],
              above=[4, 5], below=[1, 0], market=["Pork", "Tea"], deck_top=["Shrimp"],
              discard=["Rats"], seed=7)
    fast = setup(game(2), **kw)
    slow = ref.RefBreakthroughGame(players=2).setup(**kw)
    assert fast_to_dict(fast) == ref_to_dict(slow)


def test_hunter_doubles_equipment_for_paveletskaya():
    """Rulebook example: Uniform + Backpack, Hunter played for 3, Paveletskaya completed (B5)."""
    g = game(2)
    s = setup(g, hands=[["Hunter", "Knife", "Tea", "Pork", "Rat Meat"], ["Water Filter"] * 5],
                tableaux=[["Uniform", "Backpack", "Paveletskaya"], []], above=[4, 5], below=[1, 0])
    ids = {name: g.name_to_ids[name][0] for name in ("Hunter", "Uniform", "Backpack", "Paveletskaya")}
    assert QUEST * C + ids["Paveletskaya"] not in s.legal_actions()
    s.apply(s.string_to_action("play Hunter as hero (cost 3)"))
    assert s.above() == [1, 5] and s.below()[0] == 4
    s.apply(s.string_to_action("take the top card of the deck"))
    s.apply(s.string_to_action("complete quest: Paveletskaya"))
    assert s.phase == "quest_hero" and s.legal_actions() == [6 * C + ids["Hunter"]]
    s.apply(s.string_to_action("complete the quest with hero Hunter"))
    assert s.discard() == [ids["Backpack"], ids["Uniform"], ids["Hunter"]]      # R24
    assert s.tokens(0) == 6 and s.above()[0] == 6
    assert s.pending() == {"kind": "keep_station", "card": ids["Paveletskaya"], "k": 1}
    s.apply(s.string_to_action("keep the station"))
    assert s.tableau(0) == [(ids["Paveletskaya"], False, 1)] and s.above()[0] == 5


def test_giant_amoeba_repelled_and_suffered():
    """Rulebook example (B7): Caldron repels Giant Amoeba (then a free play); Backpack and Rat
    Meat do not, so that player loses a station."""
    g = game(3)
    s = setup(g, hands=[["Giant Amoeba", "Knife", "Tea", "Pork", "Medicine"], ["Pork", "Tea"],
                       ["Knife"]],
                tableaux=[[{"card": "Caldron", "rotated": True}],
                          [{"card": "Backpack", "rotated": True}, {"card": "Rat Meat", "rotated": True},
                           "Komsomolskaya", "Sokolniki"],
                          [{"card": "Nosalis", "rotated": True}]],
                above=[2, 5, 5], below=[5, 0, 0])
    s.apply(s.string_to_action("discard Giant Amoeba as monster (move up 5)"))
    assert s.above()[0] == 7 and s.below()[0] == 0
    assert s.phase == "protect" and s.current_player == 0
    s.apply(s.string_to_action("protect with Caldron"))
    assert s.phase == "free_play" and s.current_player == 0
    s.apply(s.string_to_action("play Pork as resource (free)"))
    assert s.above()[0] == 7
    assert s.phase == "lose_station" and s.current_player == 1
    s.apply(s.string_to_action("lose station Sokolniki"))
    assert s.phase == "protect" and s.current_player == 2
    s.apply(s.string_to_action("protect with Nosalis"))
    s.apply(s.string_to_action("decline the free play"))
    assert s.phase == "draw" and s.current_player == 0 and s.pending() is None     # refill (B7)


def test_action_strings_round_trip():
    rng = random.Random(0)
    for n in (2, 5):
        s = game(n).new_state(n)
        for _ in range(300):
            if s.is_terminal():
                break
            for a in s.legal_actions():
                text = s.action_to_string(a)
                b = s.string_to_action(text)
                assert s.action_to_string(b) == text and b <= a      # copies map to the lowest id
                assert s.string_to_action(text.upper()) == b
            s.apply(choose(s, rng, True))
    with pytest.raises(ValueError):
        game(2).new_state(0).string_to_action("teleport to Polis")
    s = game(2).new_state(0)
    for a in (10 ** 6, -5, F + 9 + C, True, 1.0):         # as Metro's: not an action at all
        with pytest.raises(ValueError, match="not a Breakthrough action"):
            s.action_to_string(a)
    for c in (-1, C, 10 ** 6):                            # never reads past the tableau bitset
        with pytest.raises(ValueError, match="unknown card id"):
            s._played_name(c)
    assert s._played_name(0) == s.game.card_names[0]


def test_render_and_repr():
    s = game(3).new_state(2)
    play(s, random.Random(2), steps=40)
    text = s.render(player=1)
    assert "Breakthrough" in text and "P1 hand:" in text and "market:" in text
    assert "BreakthroughState" in repr(s) and isinstance(s, BreakthroughState)
    assert str(s) == s.render()


@pytest.mark.parametrize("below, label", [(0, "move up 0 of 3"), (2, "move up 2 of 3"), (4, "move up 3")])
def test_a_discard_is_labelled_with_the_tokens_it_really_moves(below, label):
    """R10: discarding Pork (cost 3) moves up to 3 tokens from below the faction card: no more
    than there are. Both engines label the real amount."""
    kw = dict(hands=[["Pork", "Knife"], ["Tea"]], below=[below, 0])
    for s in (setup(game(2), **kw), ref.RefBreakthroughGame(players=2).setup(**kw)):
        texts = [s.action_to_string(a) for a in s.legal_actions()]
        assert f"discard Pork ({label})" in texts, texts


def test_render_shows_what_each_card_does():
    """Terminal view (front ends issue): every card in the viewer's hand, in play and in the
    market with its cost or value, quantity, quest and reward, monster icons and protection."""
    s = game(2).new_state(3)
    text = s.render(player=0)
    for c in s.hand(0) + [m for m in s.market() if m is not None]:
        k = s.game.card(c).kind
        assert f"{k.name} ({k.summary()})" in text
    mask = next(k for k in s.game.card_set.kinds if k.name == "Gas Mask")
    assert mask.summary() == (f"cost {mask.cost}, {mask.quantity} equipment; shield {mask.protection_cost}: "
                              + ", ".join(mask.protection))
    komso = next(k for k in s.game.card_set.kinds if k.name == "Komsomolskaya")
    assert f"quest {komso.quest.amount} {komso.quest.cls} -> free food" in komso.summary()
    assert "P1 hand" not in text and "hand 5" in text           # the other hand only as a size


def test_action_ids_are_decoded_in_one_place():
    """An action id is block * C + card, then 9 * C + option (B1): decoded by rules.pxd's
    ``decode_action`` alone, which the rules (apply_action, reason_code) and the state's texts
    call (issue #42: the decoding was written out in three places)."""
    root = Path(__file__).resolve().parents[2] / "engine" / "breakthrough"
    decoding = re.compile(r"\ba\s*(//|%)\s*C\b|divmod\(a,|\ba\s*-\s*fixed\b")
    assert "cdef inline int decode_action(" in (root / "rules.pxd").read_text(encoding="utf-8")
    for name in ("rules.pyx", "state.pyx"):
        text = (root / name).read_text(encoding="utf-8")
        found = [line.strip() for line in text.splitlines() if decoding.search(line)]
        assert "decode_action(" in text and not found, (name, found)
