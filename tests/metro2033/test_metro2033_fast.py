"""Differential test: the fast Metro 2033 engine (engine/metro2033/machine.pyx, played through the
contract's Metro2033State) against the pure-Python reference engine (reference.py): same seeds,
same actions;
after every action the whole state in the reference's layout (decks and their order, the
generator's state, hidden hands and picks included) and the legal actions must be identical.

Uniform random play and the reference tests' card-aware policy, every player count, the shipped
cards and other card files (the default tier: uniform play of 2 players, card-aware of 4; the
slow tier the others).
METRO_AI_SLOW=1 adds a run of 1,200 more games. Then the reference
tests' scenarios on the map (G11 hero attacks through neutral stations, G15's floor) loaded into
the fast engine, and random games with a player cut below 3 stations, which play from the start
almost never shows.
"""
import copy
import json
import os
import random

import pytest

import metro_ai
from metro_ai.engine.metro2033 import reference as ref
from metro_ai.engine.metro2033.board import BOARD
from metro_ai.engine.metro2033.cards import DEFAULT_PATH
from metro_ai.engine.metro2033.reference import RefMetro2033Game
from test_metro2033_reference import HERO_POSITIONS, below_three_position, card_aware, hero_position
from tiers import tiered


# the fields of the contract's JSON state that the reference keeps in its own layout
OWN_LAYOUT = ("pending", "fight", "combat", "agenda")


def fast_data(f):
    """The contract state `f` in the reference's layout (``RefMetro2033State._data()``), for the
    fields both engines keep alike."""
    d = json.loads(f.to_json())
    d["rng_state"] = int(d["rng_state"])
    return {k: v for k, v in d.items() if k in FIELDS}


FIELDS = tuple(k for k in metro_ai.load_game("metro2033").state_fields if k not in OWN_LAYOUT)


def fast_state(players, seed, cards=None, strict=True, round_limit=40):
    """A new game of the fast engine, on the contract."""
    return metro_ai.load_game("metro2033", players=players, cards=None if cards is None else str(cards),
                              strict_counts=strict, round_limit=round_limit).new_state(seed)


def same(r, f, where):
    fd = fast_data(f)
    rd = r._data()
    for k, v in fd.items():
        assert rd[k] == v, f"{where}: field {k!r}: reference {rd[k]!r}, fast {v!r}"
    assert r.legal_actions() == f.legal_actions(), where
    assert r.current_player == f.current_player and r.is_terminal() == f.is_terminal()


def play_pair(players, seed, aware, cards=None, strict=True, round_limit=40, seen=None):
    rg = RefMetro2033Game(players=players, cards=cards, strict_counts=strict, round_limit=round_limit)
    r = rg.new_state(seed)
    f = fast_state(players, seed, cards, strict, round_limit)
    rng = random.Random(seed)
    same(r, f, (seed, 0))
    steps = 0
    while not r.is_terminal():
        a = card_aware(r, rng) if aware else rng.choice(r.legal_actions())
        phase = r.phase
        if seen is not None:
            seen.add((phase, r.action_to_string(a)))
        r.apply(a)
        f.apply(a)
        steps += 1
        same(r, f, (seed, steps, phase, r.action_to_string(a)))
    assert f.returns() == r.returns() and f.scores() == r.scores()
    return r


@pytest.mark.parametrize("aware, players", tiered([(a, p) for a in (False, True) for p in range(2, 7)],
                                                  fast=lambda a, p: p == (4 if a else 2)),
                         ids=[f"{'card-aware' if a else 'uniform'}-{p}" for a in (False, True) for p in range(2, 7)])
def test_fast_engine_matches_reference(aware, players):
    phases, winners = set(), 0
    for g in range(12):
        last = play_pair(players, 1000 * players + g + (500 if aware else 0), aware)
        winners += last.winner is not None
        phases.add(last.stage)
    assert 2 in phases                                   # stage 2 was reached and compared


def test_fast_engine_matches_reference_on_the_players_own_choices():
    """G29, G31, G33: the decisions the players' own choices add (the strength kept at upkeep, the
    Confederation's look at two laws or not, a quest completed at a quest check or kept), each
    way, in both engines after every action."""
    seen = set()
    for g in range(10):
        play_pair(2 + g % 5, 9100 + g, aware=g % 2 == 1, round_limit=20, seen=seen)
    phases = {ph for ph, _ in seen}
    assert {"upkeep", "law_look", "quest_complete"} <= phases
    assert {("law_look", "yes"), ("law_look", "no"), ("quest_complete", "done"), ("upkeep", "count 5")} <= seen
    assert any(ph == "quest_complete" and text.startswith("complete ") for ph, text in seen)
    assert any(ph == "upkeep" and text != "count 5" for ph, text in seen)


def test_fast_engine_matches_with_other_card_files(tmp_path):
    doc = json.loads(DEFAULT_PATH.read_text())
    weak = copy.deepcopy(doc)
    for c in weak["cards"]:
        if c["type"] == "threat":
            c["strength"] = 1
    more = copy.deepcopy(doc)
    more["cards"] += [{"type": "combat", "name": f"Extra {i}", "count": 1, "combat_type": "attack",
                       "effects": [{"effect": "strength", "amount": i}], "source": "reconstructed"} for i in range(3)]
    more["cards"] = [c for c in more["cards"] if c["name"] not in ("Shrimp", "Lantern", "Rationing")]
    for name, d, strict in (("weak", weak, True), ("more", more, False)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(d))
        for g in range(6):
            play_pair(2 + g % 5, 77 + g, aware=True, cards=path, strict=strict, round_limit=25)


def test_fast_engine_refuses_illegal_actions_without_change():
    f = fast_state(3, 5)
    before = f.to_json()
    for bad in (-1, 10 ** 6, "1", True, f.legal_actions()[0] + 1000):
        with pytest.raises(ValueError):
            f.apply(bad)
    assert f.to_json() == before
    with pytest.raises(ValueError):
        fast_state(7, 0)
    for bad_seed in ("1", 1.5, None, True):
        with pytest.raises((ValueError, TypeError), match="seed"):
            fast_state(2, bad_seed)
        with pytest.raises(ValueError, match="seed"):
            RefMetro2033Game(players=2).new_state(bad_seed)
    # the same seed as 64 bits: a negative seed and its two's complement deal the same game
    assert fast_state(2, -1).to_json() == fast_state(2, 2 ** 64 - 1).to_json()
    assert RefMetro2033Game(players=2).new_state(-1).to_json() == RefMetro2033Game(players=2).new_state(2 ** 64 - 1).to_json()


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("METRO_AI_SLOW"), reason="long run: set METRO_AI_SLOW=1")
@pytest.mark.parametrize("players", range(2, 7))
def test_fast_engine_matches_reference_long(players):
    for g in range(240):
        play_pair(players, 50000 + 1000 * players + g, aware=g % 2 == 1)


def test_fast_engine_refuses_a_set_too_large_for_its_tables(tmp_path):
    doc = json.loads(DEFAULT_PATH.read_text())
    doc["cards"].append({"type": "equipment", "name": "Crate", "count": 40, "effects": [], "source": "reconstructed"})
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    RefMetro2033Game(players=2, cards=path, strict_counts=False)          # the reference takes it
    with pytest.raises(ValueError, match="at most 128 cards"):
        fast_state(2, 0, path, strict=False)


@pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p == 2))
def test_fast_determinize_matches_reference(players):
    """At random points of random games, for every player and a few seeds, the fast engine's
    determinize deals exactly the reference's world (hidden cards, deck orders and knowledge,
    redrawn declarations, the new generator), and both worlds play on alike."""
    checked, phases = 0, set()
    hidden = ("declare", "combat_pick", "quest_keep", "law_look", "law_peek", "artyom", "stage2_equipment")
    for g in range(4):
        seed = 3000 + 100 * players + g
        rg = RefMetro2033Game(players=players)
        r, f = rg.new_state(seed), fast_state(players, seed)
        rng = random.Random(seed)
        while not r.is_terminal():
            if rng.random() < (0.3 if r.phase in hidden else 0.02):
                phases.add(r.phase)
                for p in range(players):
                    dseed = rng.getrandbits(64)
                    rd, fd = r.determinize(p, dseed), f.determinize(p, dseed)
                    same(rd, fd, (seed, p, dseed, r.phase))
                    play = random.Random(dseed)
                    for _ in range(25):
                        if rd.is_terminal():
                            break
                        a = play.choice(rd.legal_actions())
                        rd.apply(a)
                        fd.apply(a)
                        same(rd, fd, (seed, p, dseed, "after", rd.phase))
                    checked += 1
            a = card_aware(r, rng) if g % 2 else rng.choice(r.legal_actions())
            r.apply(a)
            f.apply(a)
    assert checked > 20 and {"declare", "combat_pick"} <= phases
    with pytest.raises(ValueError):
        f.determinize(players, 0)


# ---- scenarios on the map, in the fast engine through the loader (on the contract)
BOARD_FIELDS = ("owner", "vp", "hero_at", "army")


def fast_twin(r, seed=0, fields=BOARD_FIELDS):
    """The fast engine's state (``Metro2033State``) at reference state `r` (of seed `seed`): r's
    actions replayed, then r's `fields` (by default its board: owners, VP, heroes, armies) copied
    in through the loader."""
    g = metro_ai.load_game("metro2033", players=r.n)
    f = g.new_state(seed)
    for a in r.history:
        f.apply(a)
    d = json.loads(f.to_json())
    rd = json.loads(r.to_json())["state"]
    for k in fields:
        d[k] = rd[k]
    return g.state_from_json(json.dumps(d))


def agree(r, f, where=None):
    """The contract's state `f` and reference state `r` alike: every field both save the same
    way (the agenda and the pending decision each engine keeps in its own layout: the legal
    actions and the decider compare those)."""
    fd = json.loads(f.to_json())
    rd = json.loads(r.to_json())["state"]
    if rd["combat"] is not None:                       # the combat cards: by side, as lists
        c = rd["combat"]
        rd["combat"] = {"side": fd["combat"]["side"], "hands": [c["hands"]["att"], c["hands"]["def"]],
                        "aside": c["aside"], "picks": [c["picks"]["att"], c["picks"]["def"]]}
    for k in fd:
        if k in rd and k not in ("agenda", "pending"):
            assert str(fd[k]) == str(rd[k]) if k == "rng_state" else fd[k] == rd[k], (where, k)
    assert f.legal_actions() == r.legal_actions() and f.current_player == r.current_player, where


@pytest.mark.parametrize("name", sorted(HERO_POSITIONS))
def test_g11_g23_army_attacks_a_hero_through_neutral_stations_in_the_fast_engine(name):
    r = hero_position(name)
    f = fast_twin(r)
    agree(r, f)
    assert (ref.PLAYER + 1 in f.legal_actions()) == HERO_POSITIONS[name][3]
    if HERO_POSITIONS[name][3]:
        a = ref.PLAYER + 1
        while True:                                    # the attack, then the combat picks
            r.apply(a)
            f.apply(a)
            agree(r, f)
            if f.phase != "combat_pick":
                break
            a = f.legal_actions()[0]
        assert r.last_fight["def_who"] == "hero"


def test_g15_never_fewer_than_three_stations_in_the_fast_engine():
    r = below_three_position()
    f = fast_twin(r)
    agree(r, f)
    for a in [ref.STATION + BOARD.station("teatralnaya")] + [None] * 3:
        if f.phase == "capture":
            a = f.game.string_to_action("no")
        a = f.legal_actions()[0] if a is None else a
        r.apply(a)
        f.apply(a)
        agree(r, f)
        if f.phase == "free_station":
            break
    assert f.phase == "free_station" and f.current_player == 0
    a = f.legal_actions()[0]
    r.apply(a)
    f.apply(a)
    agree(r, f)
    assert json.loads(f.to_json())["vp"][0] == 2


@pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p == 4))
def test_fast_engine_matches_reference_below_three_stations(players):
    """G15, G28: random games in which, at an army decision of round 3, a player is cut down to
    2 stations or 1 (as if earlier losses had found no free station), then played on at random
    in both engines, compared after every action; each of its later losses brings a free
    station, which random games from the start almost never show."""
    fired = 0
    for g in range(3):
        seed = 7000 + 10 * players + g
        r = RefMetro2033Game(players=players).new_state(seed)
        rng = random.Random(seed)
        while not (r.phase == "army" and r.round >= 3) and not r.is_terminal():
            r.apply(rng.choice(r.legal_actions()))
        if r.is_terminal():
            continue
        p = rng.randrange(players)
        for x in r.stations(p)[1 + g % 2:]:                           # keep 1 or 2
            r.owner[x] = None
            r.vp[p] -= 1
        f = fast_twin(r, seed)
        agree(r, f)
        steps = 0
        while not r.is_terminal():
            if r.phase == "free_station" and len(r.stations(r.current_player)) < 2:
                fired += 1
            a = rng.choice(r.legal_actions())
            r.apply(a)
            f.apply(a)
            steps += 1
            agree(r, f, (seed, steps))
        assert f.returns() == r.returns()
    assert fired >= 1
