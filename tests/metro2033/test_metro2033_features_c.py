"""Metro 2033's observation features in C (``Metro2033State.c_features``, state.pyx, issue #44)
against the Python encoder (features.py, ``observation_tensor``): bit for bit, for every seat,
in random games of 2-6 players (uniform play and play towards VP, which reaches stage 2 and G2
wins), at every ply of short games, at sampled plies of whole ones and at Hypothesis's points,
with other card files and round limits, and in the worlds the search deals (``determinize``).
The default tier takes a sample of each sweep; ``-m slow`` the rest.
"""
import copy
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import metro_ai
from metro_ai.engine.metro2033 import features as features_module
from metro_ai.engine.metro2033.cards import DEFAULT_PATH
from metro_ai.engine.metro2033.machine import PHASES
from tiers import tiered

A_CARD = 213                     # rules.pxd: the card block; then "complete", "use" (C each), 12 fixed


def game(players, **options):
    return metro_ai.load_game("metro2033", players=players, **options)


def towards_vp(s, rng):
    """A random policy that plays towards VP (as the reference tests' ``card_aware``, on the fast
    engine's action ids): completes quests, captures, attacks, buys and takes quests; else uniform."""
    g = s.game
    acts = s.legal_actions()
    fixed = g.num_distinct_actions - 12
    complete = [a for a in acts if A_CARD + g.C <= a < A_CARD + 2 * g.C]
    if complete:
        return complete[0]
    phase = s.phase
    if phase == "capture":
        return fixed                                    # yes
    if phase in ("hire", "upkeep"):
        return acts[-1]
    if phase == "army":
        attacks = [a for a in acts if a < 78]
        if attacks and rng.random() < 0.8:
            return rng.choice(attacks)
    if phase == "hero_act":
        good = [a for a in acts if a in (fixed + 4, fixed + 5, fixed + 8)]     # buy, quest, attack
        if good:
            return rng.choice(good)
    return rng.choice(acts)


def uniform(s, rng):
    return rng.choice(s.legal_actions())


def same(s, where):
    """C and Python features of every seat of `s`, bit for bit; the number of seats compared."""
    for p in range(s.num_players):
        c, py = s._features_c(p), s.observation_tensor(p)
        assert c.dtype == np.float32 and c.shape == py.shape, where
        if c.tobytes() != py.tobytes():
            bad = np.flatnonzero(c.view(np.uint32) != py.view(np.uint32))
            raise AssertionError(f"{where}, seat {p}: features differ at {bad[:10].tolist()} "
                                 f"(C {c[bad[:10]].tolist()}, Python {py[bad[:10]].tolist()})")
    return s.num_players


def play(s, policy, seed, check, stop=None):
    """Play `s` to the end (or `stop` plies) with `policy`, calling ``check(s, ply)`` before every
    action and at the end; the phases seen."""
    rng = random.Random(seed)
    phases, ply = set(), 0
    while not s.is_terminal() and (stop is None or ply < stop):
        phases.add(s.phase)
        check(s, ply)
        s.apply(policy(s, rng))
        ply += 1
    phases.add(s.phase)
    check(s, ply)
    return phases


@pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p in (2, 5)))
def test_features_match_at_every_ply(players):
    """Every ply of games of 10 rounds at most, every seat, both policies."""
    seen, count = set(), 0
    for g, policy in enumerate((uniform, towards_vp, uniform, towards_vp)):
        s = game(players, round_limit=10).new_state(4400 + 10 * players + g)

        def check(s, ply):
            nonlocal count
            count += same(s, (players, g, ply, s.phase))
        seen |= play(s, policy, g, check)
        assert s.is_terminal()
    assert count > 400 * players and {"draft_faction", "declare", "combat_pick", "army", "over"} <= seen


@pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p in (3, 6)))
def test_features_match_over_whole_games(players):
    """Whole games towards VP (stage 2, wins, the round limit), every seat at sampled plies."""
    stages, seen, checked = set(), set(), 0
    for g in range(4):
        s = game(players).new_state(5500 + 10 * players + g)
        rng = random.Random(g)

        def check(s, ply):
            nonlocal checked
            if s.is_terminal() or rng.random() < 0.15:
                seen.add(s.phase)
                checked += same(s, (players, g, ply, s.phase))
                stages.add(s.stage)
        play(s, towards_vp if g < 3 else uniform, 50 + g, check)
    assert 2 in stages and "over" in seen and checked > 100 * players


def test_features_match_every_phase():
    """Random games until every phase but ``none`` has been compared for every seat."""
    missing = set(PHASES) - {"none"}
    for g in range(60):
        s = game(2 + g % 5, round_limit=15).new_state(7700 + g)
        rng = random.Random(g)

        def check(s, ply):
            if s.phase in missing or rng.random() < 0.01:
                same(s, (g, ply, s.phase))
                missing.discard(s.phase)
        play(s, towards_vp if g % 2 else uniform, g, check)
        if not missing:
            break
    assert not missing, f"phases never reached: {sorted(missing)}"


def card_files(tmp_path):
    """Other card files: weak threats (the same cards) and a set with three more combat cards
    (another C, loaded with strict_counts off)."""
    doc = json.loads(DEFAULT_PATH.read_text())
    weak = copy.deepcopy(doc)
    for c in weak["cards"]:
        if c["type"] == "threat":
            c["strength"] = 1
    more = copy.deepcopy(doc)
    more["cards"] += [{"type": "combat", "name": f"Extra {i}", "count": 1, "combat_type": "attack",
                       "effects": [{"effect": "strength", "amount": i}], "source": "reconstructed"} for i in range(3)]
    out = []
    for name, d, strict in (("weak", weak, True), ("more", more, False)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(d))
        out.append((str(path), strict))
    return out


def test_features_match_with_other_card_files_and_limits(tmp_path):
    """The card files of the fast engine's tests (one with another number of cards), the shipped
    set with strict counts off, and round limits 1 and 2 (a game ends at the limit: round / limit
    at 1)."""
    sizes = set()
    cases = [(path, strict, 12) for path, strict in card_files(tmp_path)]
    cases += [(None, False, 12), (None, True, 1), (None, True, 2)]
    for k, (path, strict, limit) in enumerate(cases):
        for players in (2 + k % 5, 6 - k % 3):
            g = game(players, cards=path, strict_counts=strict, round_limit=limit)
            sizes.add(g.C)
            s = g.new_state(8800 + k)
            rng = random.Random(k)

            def check(s, ply):
                if s.is_terminal() or rng.random() < 0.3:
                    same(s, (path, strict, limit, players, ply, s.phase))
            play(s, towards_vp, k, check)
    assert len(sizes) == 2


@pytest.mark.parametrize("players", tiered(range(2, 7), fast=lambda p: p in (2, 4)))
def test_features_match_in_determinised_worlds(players):
    """The worlds the search deals for each seat (``determinize``) at random points of random
    games, and a few plies played on in each: C and Python agree for every seat of the world,
    and the seat it was dealt for sees in it the features it sees in the true state."""
    worlds, phases = 0, set()
    hidden = ("declare", "combat_pick", "quest_keep", "law_look", "law_peek", "artyom", "stage2_equipment")
    for g in range(4):
        s = game(players, round_limit=15).new_state(9900 + 10 * players + g)
        rng = random.Random(g)
        while not s.is_terminal():
            if rng.random() < (0.3 if s.phase in hidden else 0.02):
                phases.add(s.phase)
                for p in range(players):
                    w = s.determinize(p, rng.getrandbits(64))
                    assert w._features_c(p).tobytes() == s._features_c(p).tobytes()
                    play(w, uniform, rng.getrandbits(32), lambda w, ply: same(w, (g, p, ply, w.phase)), stop=10)
                    worlds += 1
            s.apply(towards_vp(s, rng) if g % 2 else uniform(s, rng))
    assert worlds > 20 * players and {"declare", "combat_pick"} <= phases


@settings(max_examples=30)
@given(players=st.integers(2, 6), seed=st.integers(0, 2 ** 32 - 1), plies=st.integers(0, 700),
       aware=st.booleans())
def test_features_match_at_random_points(players, seed, plies, aware):
    s = game(players).new_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if s.is_terminal():
            break
        s.apply((towards_vp if aware else uniform)(s, rng))
    same(s, (players, seed, plies))


def test_features_are_computed_in_c_and_check_the_size(monkeypatch):
    """``_features_c`` does not go through the Python encoder (an encoder changed to write ones
    leaves it as it was), and a size other than the layout's is refused (c_features returns -1)."""
    s = game(4).new_state(1)
    before = [s._features_c(p) for p in range(4)]
    monkeypatch.setattr(features_module.Metro2033Features, "encode", lambda self, obs: np.ones(self.size, np.float32))
    assert not np.array_equal(s.observation_tensor(0), before[0])
    for p in range(4):
        assert s._features_c(p).tobytes() == before[p].tobytes()
    init = features_module.Metro2033Features.__init__

    def one_more(self, game):
        init(self, game)
        self.size += 1
    monkeypatch.setattr(features_module.Metro2033Features, "__init__", one_more)
    with pytest.raises(ValueError, match="could not be computed"):
        s._features_c(0)
    monkeypatch.setattr(features_module.Metro2033Features, "__init__", init)
    assert s._features_c(0).tobytes() == before[0].tobytes()
