"""The map in C of Metro 2033's fast engine (engine/metro2033/rules.pyx) against the
pure-Python map (board.py): the G11/G23 army paths (the stations reached for an attack on a hero
against the reference engine's) and the G12 hero reach on random positions, on the positions of
random reference games, and bad input refused."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metro_ai.engine.metro2033.board import BOARD, FACTION_ZONES
from metro_ai.engine.metro2033.reference import RefMetro2033Game
from metro_ai.engine.metro2033.rules import Metro2033Map

MAP = Metro2033Map()

owners = st.lists(st.one_of(st.none(), st.integers(0, 5)), min_size=BOARD.n, max_size=BOARD.n)
closed = st.sets(st.sampled_from(FACTION_ZONES), max_size=4)


@settings(max_examples=300, deadline=None)
@given(owner=owners, player=st.integers(0, 5), closed_zones=closed)
def test_army_targets_match_board(owner, player, closed_zones):
    assert MAP.army_targets(owner, player, closed_zones) == BOARD.army_targets(owner, player, closed_zones)


@settings(max_examples=300, deadline=None)
@given(start=st.integers(0, BOARD.n - 1), speed=st.integers(0, 8), closed_zones=closed)
def test_hero_reach_matches_board(start, speed, closed_zones):
    assert MAP.hero_reach(start, speed, closed_zones) == BOARD.hero_reach(start, speed, closed_zones)


def test_the_rulebook_paths_in_c():
    owner = [None] * BOARD.n
    owner[BOARD.station("marksistskaya")] = 0
    names = {BOARD.names[i] for i in MAP.army_targets(owner, 0)}
    assert "paveletskaya_green" in names and "serpuhovskaya_grey" not in names      # G11
    owner = [None] * BOARD.n
    owner[BOARD.station("chehovskaya")] = 2
    assert BOARD.station("ploshad_revolutsii") in MAP.army_targets(owner, 2)
    # G11, G23: an army reaches (for an attack on a hero) the stations it may attack, and Hansa
    # stations, which it may not attack
    assert BOARD.station("arbatskaya_purple") in MAP.army_reach(owner, 2)
    owner = [None] * BOARD.n
    owner[BOARD.station("marksistskaya")] = 0
    reach = {BOARD.names[i] for i in MAP.army_reach(owner, 0)}
    assert {BOARD.names[i] for i in MAP.army_targets(owner, 0)} < reach
    assert {"taganskaya_H", "paveletskaya_H", "paveletskaya_green"} <= reach and "serpuhovskaya_grey" not in reach


def test_positions_of_reference_games_match():
    """Random owners say little about a real game: compare at every army and hero
    decision of random reference games, with the zones out of play."""
    checked = 0
    for seed in range(6):
        n = 2 + seed % 5
        s = RefMetro2033Game(players=n, round_limit=15).new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            p = s.current_player
            if s.phase == "army":
                assert MAP.army_targets(s.owner, p, s.closed_zones()) == BOARD.army_targets(s.owner, p, s.closed_zones())
                assert MAP.army_reach(s.owner, p, s.closed_zones()) == sorted(s._army_reach(p))    # G11 heroes
                checked += 1
            elif s.phase == "hero_move":
                assert MAP.hero_reach(s.hero_at[p], s.speed(p), s.closed_zones()) == \
                    BOARD.hero_reach(s.hero_at[p], s.speed(p), s.closed_zones())
                checked += 1
            s.apply(rng.choice(s.legal_actions()))
    assert checked > 300


@pytest.mark.parametrize("call, message", [
    (lambda: MAP.army_targets([None] * 3, 0), "78 entries"),
    (lambda: MAP.army_targets([None] * 77 + ["x"], 0), r"owner\[77\]"),
    (lambda: MAP.army_targets([None] * 78, 9), "player must be"),
    (lambda: MAP.army_targets([None] * 78, 0, ["atlantis"]), "unknown zone"),
    (lambda: MAP.army_reach([None] * 3, 0), "78 entries"),
    (lambda: MAP.army_reach([None] * 78, -1), "player must be"),
    (lambda: MAP.hero_reach(78, 1), "start must be"),
    (lambda: MAP.hero_reach(0, -1), "speed must be"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
