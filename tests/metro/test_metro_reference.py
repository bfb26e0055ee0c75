"""Tests of the pure-Python reference Metro engine (metro_ai.engine.metro.reference) on its own.

Rule ids (M1...) refer to docs/rules/metro.md.
"""

from collections import Counter

import pytest

from metro_ai.engine.metro import reference as ref

RefMetroGame = ref.RefMetroGame
RefMetroState = ref.RefMetroState
PLACE = ref.place_action
DRAW = ref.DRAW


def K(name):
    """Kind index of a tile name such as 'T04'."""
    return ref.TILE_NAMES.index(name)


def sq(row, col):
    return row * 8 + col


EDGE_SQUARES = [s for s in range(64) if ref.is_edge_square(s)]


# ---------------------------------------------------------------------------------------------
# Data sanity (M1, M2)
# ---------------------------------------------------------------------------------------------


def test_tiles_data():
    assert len(ref.TILE_NAMES) == 24
    assert sum(ref.TILE_COUNTS) == 60
    for kind, exits in enumerate(ref.TILE_EXITS):
        for p in range(8):
            assert exits[exits[p]] == p
            assert (exits[p] + p) % 2 == 1  # even <-> odd
        # exit_sides[i]: entering from side i (at its even port 2i) leaves through that side
        sides = "".join(ref.SIDE_LETTERS[exits[2 * i] // 2] for i in range(4))
        assert sides == ref.TILE_EXIT_SIDES[kind], ref.TILE_NAMES[kind]
    supply = ref.shuffled_supply(12345)
    assert len(supply) == 60
    assert Counter(supply) == Counter({k: c for k, c in enumerate(ref.TILE_COUNTS)})


def test_rotation_formula_and_canonical_rotations():
    for kind, exits in enumerate(ref.TILE_EXITS):
        assert ref.ROTATED_EXITS[kind][0] == exits
        for r in range(4):
            rot = ref.ROTATED_EXITS[kind][r]
            for a in range(8):
                assert rot[(a + 2 * r) % 8] == (exits[a] + 2 * r) % 8
        canon = ref.CANONICAL_ROTATIONS[kind]
        assert canon[0] == 0
        distinct = {ref.ROTATED_EXITS[kind][r] for r in range(4)}
        assert len(canon) == len(distinct) and len(canon) in (1, 2, 4)
    assert ref.CANONICAL_ROTATIONS[K("T01")] == [0]  # all four U-turns: symmetric
    assert ref.CANONICAL_ROTATIONS[K("T03")] == [0, 1]


def test_stations_data():
    assert sorted(ref.STATIONS) == list(range(1, 33))
    # every edge port facing off the board is exactly one station's arrival
    off_board = set()
    for s in EDGE_SQUARES:
        for q in (1, 3, 5, 7):
            if ref.neighbour(s, q // 2) is None:
                off_board.add((s, q))
    assert set(ref.ARRIVAL_AT) == off_board and len(off_board) == 32
    for number, (row, col, depart, arrive) in ref.STATIONS.items():
        assert depart % 2 == 0 and arrive == depart + 1
        assert ref.neighbour(sq(row, col), depart // 2) is None
    assert ref.STATIONS_AT_SQUARE[sq(0, 0)] == [1, 32]
    assert ref.STATIONS_AT_SQUARE[sq(7, 7)] == [16, 17]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_charts_partition(players):
    chart = ref.CHARTS[players]
    assert len(chart) == players
    stations = [s for _, owned in chart for s in owned]
    assert len(stations) == len(set(stations))
    expected = set(range(1, 33))
    if players in (3, 5, 6):
        expected -= {16, 17}
    assert set(stations) == expected
    game = RefMetroGame(players)
    assert set(game.owner_of_station) == expected
    assert game.colours[0] == "yellow" and game.colours[1] == "blue"


def test_four_player_colours():
    game = RefMetroGame(4)
    assert game.colours == ["yellow", "blue", "orange", "green"]
    assert game.owner_of_station[4] == 0 and game.owner_of_station[3] == 1
    assert game.owner_of_station[1] == 2 and game.owner_of_station[2] == 3


def test_splitmix64_known_values():
    rng = ref.SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert ref.SplitMix64(-1).state == 2**64 - 1
    rng = ref.SplitMix64(7)
    assert all(0 <= rng.bounded(n) < n for n in range(1, 50))


@pytest.mark.parametrize("kwargs", [
    {"players": 1}, {"players": 7}, {"players": 4.0}, {"players": True},
    {"orientation": 1}, {"orientation": None},
    {"hand_size": 0}, {"hand_size": 4}, {"hand_size": True},
])
def test_bad_options(kwargs):
    with pytest.raises(ValueError):
        RefMetroGame(**kwargs)


# ---------------------------------------------------------------------------------------------
# Setup and turn mechanics (M3, M4)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players,hand_size", [(2, 1), (4, 2), (6, 3)])
def test_deal(players, hand_size):
    game = RefMetroGame(players, hand_size=hand_size)
    state = game.new_state(99)
    supply = ref.shuffled_supply(99)
    for p in range(players):
        dealt = [supply[r * players + p] for r in range(hand_size)]
        assert state.hands[p] == sorted(dealt)
    assert state.supply == supply[players * hand_size:]
    assert state.current_player == 0 and state.phase == "turn" and state.drawn is None
    assert state.board == [None] * 64
    assert state.scores() == [0] * players and state.returns() == [0.0] * players


def test_draw_then_place_keeps_hand():
    game = RefMetroGame(4)
    state = game.new_state(5)
    hand = list(state.hands[0])
    top = state.supply[0]
    assert DRAW in state.legal_actions()
    state.apply(DRAW)
    assert state.phase == "place_drawn" and state.drawn == top and state.current_player == 0
    assert len(state.supply) == 60 - 4 - 1
    legal = state.legal_actions()
    assert legal and DRAW not in legal
    assert all(ref.decode_action(a)[0] == top for a in legal)
    state.apply(legal[0])
    assert state.hands[0] == hand and state.drawn is None
    assert state.current_player == 1 and state.phase == "turn"


def test_place_hand_tile_draws_replacement():
    game = RefMetroGame(3, hand_size=2)
    state = game.new_state(11)
    hand = list(state.hands[0])
    top = state.supply[0]
    action = next(a for a in state.legal_actions() if a != DRAW)
    kind, square, rot = ref.decode_action(action)
    state.apply(action)
    expected = list(hand)
    expected.remove(kind)
    expected = sorted(expected + [top])
    assert state.hands[0] == expected and state.board[square] == (kind, rot)
    assert state.current_player == 1


def test_no_draw_when_supply_empty_and_turn_skips_empty_hands():
    game = RefMetroGame(3)
    # player 1 holds nothing: after player 0 places, player 2 is next.
    state = RefMetroState.from_position(game, hands=[[K("T02")], [], [K("T02")]], supply=[])
    legal = state.legal_actions()
    assert DRAW not in legal
    state.apply(legal[0])
    assert state.hands[0] == [] and state.current_player == 2
    state.apply(state.legal_actions()[0])
    assert state.is_terminal() and state.current_player == -1 and state.phase == "over"
    assert state.legal_actions() == []


def test_illegal_actions_raise_and_leave_state_unchanged():
    game = RefMetroGame(4, orientation=False)
    state = game.new_state(3)
    before = state.clone()
    kind = state.hands[0][0]
    interior = sq(2, 2)  # not on the edge, no neighbour yet (M5)
    other = next(k for k in range(24) if k not in state.hands[0])  # a kind not in hand
    for bad in [PLACE(kind, interior, 0), PLACE(other, 0, 0), PLACE(kind, sq(3, 3), 0), -1,
                6145, "x", 1.0, None, True]:
        with pytest.raises(ValueError):
            state.apply(bad)
    assert state.board == before.board and state.hands == before.hands
    assert state.supply == before.supply and state.legal_actions() == before.legal_actions()


def test_rotations_listed_once():
    game = RefMetroGame(2, orientation=False)
    state = RefMetroState.from_position(game, hands=[[K("T01")], [K("T02")]], supply=[1])
    legal = state.legal_actions()
    assert PLACE(K("T01"), 0, 1) not in legal  # T01 looks the same in every rotation
    assert {ref.decode_action(a)[2] for a in legal if a != DRAW} == {0}
    with pytest.raises(ValueError):
        state.apply(PLACE(K("T01"), 0, 1))
    game_o = RefMetroGame(2, orientation=True)
    s2 = RefMetroState.from_position(game_o, hands=[[K("T05")], []], supply=[])
    assert {ref.decode_action(a)[2] for a in s2.legal_actions()} == {0}
    s3 = RefMetroState.from_position(game, hands=[[K("T05")], []], supply=[])
    assert {ref.decode_action(a)[2] for a in s3.legal_actions()} == {0, 1, 2, 3}


def test_clone_is_deep():
    game = RefMetroGame(4)
    state = game.new_state(1)
    copy = state.clone()
    state.apply(state.legal_actions()[0])
    assert copy.board == [None] * 64 and copy.current_player == 0
    assert copy.hands != state.hands or copy.supply != state.supply


# ---------------------------------------------------------------------------------------------
# Scoring (M7)
# ---------------------------------------------------------------------------------------------


def test_tile_passed_twice_counts_twice():
    """Station 2 (square (0,1), green = player 3 with 4 players) departs at port 0.

    (0,1) T19: 0->3 right   -> (0,2) enters 6
    (0,2) T04: 6->5 down    -> (1,2) enters 0
    (1,2) T04: 0->7 left    -> (1,1) enters 2
    (1,1) T04: 2->1 up      -> (0,1) enters 4   (second pass of the same tile)
    (0,1) T19: 4->1 off the top of (0,1) = station 2 itself.   5 passes, 5 points.
    """
    assert ref.TILE_EXITS[K("T19")][0] == 3 and ref.TILE_EXITS[K("T19")][4] == 1
    assert ref.TILE_EXITS[K("T04")][6] == 5 and ref.TILE_EXITS[K("T04")][0] == 7
    assert ref.TILE_EXITS[K("T04")][2] == 1
    game = RefMetroGame(4)
    state = RefMetroState.from_position(game, hands=[[], [], [], [K("T04")]], supply=[0],
                                        current_player=3)
    state.place_for_test(K("T19"), sq(0, 1))
    state.place_for_test(K("T04"), sq(0, 2))
    state.place_for_test(K("T04"), sq(1, 2))
    assert 2 not in state.lines and state.scores() == [0, 0, 0, 0]
    # The finishing placement, made through apply, scores at once.
    action = PLACE(K("T04"), sq(1, 1), 0)
    assert action in state.legal_actions()
    state.apply(action)
    assert state.lines[2] == (5, 2, False, 5)
    assert state.scores() == [0, 0, 0, 5]
    assert ref.trace_line(state.board, 2) == (5, 2, False, 5)


def test_five_tiles_into_centre_score_ten():
    """Station 4 (square (0,3), yellow = player 0 with 4 players) departs at port 0.

    (0,3) T04: 0->7 left  -> (0,2) enters 2
    (0,2) T10: 2->5 down  -> (1,2) enters 0
    (1,2) T19: 0->3 right -> (1,3) enters 6
    (1,3) T04: 6->5 down  -> (2,3) enters 0
    (2,3) T02: 0->5 down  -> central block: 5 tiles, doubled = 10.
    """
    game = RefMetroGame(4)
    state = RefMetroState.from_position(game)
    for square, name in [(sq(0, 3), "T04"), (sq(0, 2), "T10"), (sq(1, 2), "T19"),
                         (sq(1, 3), "T04"), (sq(2, 3), "T02")]:
        assert 4 not in state.lines
        state.place_for_test(K(name), square)
    assert state.lines == {4: (5, 0, True, 10)}
    assert state.scores() == [10, 0, 0, 0]


def test_unowned_station_lines_are_not_recorded():
    game = RefMetroGame(3)  # stations 16 and 17 (square (7,7)) are unused
    state = RefMetroState.from_position(game)
    state.place_for_test(K("T01"), sq(7, 7))  # U-turns: 16 -> 16 and 17 -> 17
    assert state.lines == {} and state.scores() == [0, 0, 0]
    game4 = RefMetroGame(4)
    state4 = RefMetroState.from_position(game4)
    state4.place_for_test(K("T01"), sq(7, 7))
    assert state4.lines == {16: (1, 16, False, 1), 17: (1, 17, False, 1)}
    # 16 is yellow (player 0), 17 green (player 3)
    assert state4.scores() == [1, 0, 0, 1]


def test_returns_ties():
    game = RefMetroGame(4)
    over = RefMetroState.from_position(game)  # nothing to place: the game is over
    assert over.is_terminal() and over.current_player == -1
    assert over.returns() == [0.5, 0.5, 0.5, 0.5]
    over.place_for_test(K("T01"), sq(7, 7))  # players 0 and 3 get 1 point each
    assert over.scores() == [1, 0, 0, 1]
    assert over.returns() == [pytest.approx(2.5 / 3), 0.5 / 3, 0.5 / 3, pytest.approx(2.5 / 3)]


# ---------------------------------------------------------------------------------------------
# One-tile rule (M6) and placement (M5)
# ---------------------------------------------------------------------------------------------


def test_one_tile_rule_edge_square():
    game = RefMetroGame(4)
    owners = game.owner_of_station
    # Station 3 at (0,2) departs at port 0; T01 sends it straight back out at port 1.
    assert ref.is_one_tile_violation(K("T01"), 0, sq(0, 2), owners)
    assert ref.is_one_tile_violation(K("T03"), 0, sq(0, 2), owners)  # 0->1 as well
    # T04 turns it left into (0,1): not off the board.
    assert not ref.is_one_tile_violation(K("T04"), 0, sq(0, 2), owners)
    # T03 (0-1, 2-7, 3-6, 4-5) violates on the top and bottom edges, not on left/right ones.
    state = RefMetroState.from_position(game, hands=[[K("T03")], [], [], []], supply=[5])
    legal = state.legal_actions()
    squares = sorted(ref.decode_action(a)[1] for a in legal if a != DRAW)
    assert squares == sorted([sq(r, 0) for r in range(1, 7)] + [sq(r, 7) for r in range(1, 7)])
    assert DRAW in legal
    bad = PLACE(K("T03"), sq(0, 2), 0)
    assert bad not in legal
    with pytest.raises(ValueError):
        state.apply(bad)
    assert state.board == [None] * 64


def test_one_tile_rule_corner_square():
    game = RefMetroGame(4)
    owners = game.owner_of_station
    corner = sq(0, 0)  # stations 1 (depart 0, arrive 1) and 32 (depart 6, arrive 7)
    # T04 0->7: station 1's line leaves the left side, arriving at station 32 in one tile.
    assert ref.TILE_EXITS[K("T04")][0] == 7
    assert ref.is_one_tile_violation(K("T04"), 0, corner, owners)
    # T07 0->5 (fine for station 1) but 6->7: station 32 returns to itself.
    assert ref.TILE_EXITS[K("T07")][0] == 5 and ref.TILE_EXITS[K("T07")][6] == 7
    assert ref.is_one_tile_violation(K("T07"), 0, corner, owners)
    # T02 0->5 and 6->3: both lines go inward.
    assert not ref.is_one_tile_violation(K("T02"), 0, corner, owners)
    state = RefMetroState.from_position(game, hands=[[K("T07")], [], [], []], supply=[])
    assert PLACE(K("T07"), corner, 0) not in state.legal_actions()
    # Unowned stations carry no wagon: with 3 players square (7,7) has none.
    game3 = RefMetroGame(3)
    assert not ref.is_one_tile_violation(K("T01"), 0, sq(7, 7), game3.owner_of_station)
    assert ref.is_one_tile_violation(K("T01"), 0, sq(7, 7), owners)


def test_one_tile_rule_exception():
    # T01 makes a U-turn on every side: on an empty board every M5 square is an edge square
    # and every one of them is a violation, so all become legal (M6 exception).
    game = RefMetroGame(4)
    state = RefMetroState.from_position(game, hands=[[K("T01")], [], [], []], supply=[])
    legal = state.legal_actions()
    assert legal == sorted(PLACE(K("T01"), s, 0) for s in EDGE_SQUARES)
    assert len(legal) == 28
    # Same in the no-orientation variant (T01 has one distinct rotation).
    game_f = RefMetroGame(4, orientation=False)
    state_f = RefMetroState.from_position(game_f, hands=[[K("T01")], [], [], []], supply=[])
    assert state_f.legal_actions() == legal
    # With 3 players the (7,7) corner has no wagon, so the exception does not apply there.
    game3 = RefMetroGame(3)
    state3 = RefMetroState.from_position(game3, hands=[[K("T01")], [], []], supply=[])
    assert state3.legal_actions() == [PLACE(K("T01"), sq(7, 7), 0)]
    # Once an inner square is reachable, T01 has a non-violating placement.
    state.place_for_test(K("T02"), sq(0, 3))
    inner = [ref.decode_action(a)[1] for a in state.legal_actions()]
    assert inner == [sq(1, 3)]


def test_one_tile_exception_is_per_kind():
    game = RefMetroGame(4, hand_size=2)
    state = RefMetroState.from_position(game, hands=[[K("T01"), K("T03")], [], [], []],
                                        supply=[])
    legal = state.legal_actions()
    t01 = [a for a in legal if ref.decode_action(a)[0] == K("T01")]
    t03 = [a for a in legal if ref.decode_action(a)[0] == K("T03")]
    assert len(t01) == 28 and len(t03) == 12 and len(legal) == 40
    # The exception also applies to a drawn tile.
    drawn = RefMetroState.from_position(game, hands=[[K("T03")], [], [], []], supply=[],
                                        drawn=K("T01"))
    assert drawn.phase == "place_drawn"
    assert len(drawn.legal_actions()) == 28


def test_placement_adjacency():
    game = RefMetroGame(2)
    state = RefMetroState.from_position(game)
    assert ref.candidate_squares(state.board) == EDGE_SQUARES
    state.place_for_test(K("T02"), sq(0, 3))
    state.place_for_test(K("T02"), sq(1, 3))
    state.place_for_test(K("T02"), sq(2, 3))
    cands = set(ref.candidate_squares(state.board))
    assert sq(1, 2) in cands and sq(1, 4) in cands and sq(2, 2) in cands
    assert sq(3, 3) not in cands  # central block
    assert sq(2, 5) not in cands  # no neighbouring tile, not on the edge
    with pytest.raises(ValueError):
        state.place_for_test(K("T02"), sq(4, 4))


# ---------------------------------------------------------------------------------------------
# Full random games (M8)
# ---------------------------------------------------------------------------------------------


def _check_final(state):
    game = state.game
    assert state.is_terminal() and state.current_player == -1 and state.phase == "over"
    assert state.legal_actions() == [] and state.supply == [] and state.drawn is None
    assert all(h == [] for h in state.hands)
    assert sum(t is not None for t in state.board) == 60
    assert all(state.board[s] is None for s in ref.CENTRAL_SQUARES)
    kinds = Counter(t[0] for t in state.board if t is not None)
    assert kinds == Counter({k: c for k, c in enumerate(ref.TILE_COUNTS)})
    if game.orientation:
        assert all(t[1] == 0 for t in state.board if t is not None)
    else:
        assert all(t[1] in ref.CANONICAL_ROTATIONS[t[0]] for t in state.board if t is not None)
    # every owned line is finished, and the recorded lines match a fresh trace
    assert set(state.lines) == set(state.owner_of_station)
    for station, line in state.lines.items():
        assert ref.trace_line(state.board, station) == line
        passes, arrival, doubled, points = line
        assert points == passes * (2 if doubled else 1) and (arrival == 0) == doubled
    scores = [0] * game.players
    for station, line in state.lines.items():
        scores[state.owner_of_station[station]] += line[3]
    assert state.scores() == scores
    returns = state.returns()
    n = game.players
    for p in range(n):
        lower = sum(scores[q] < scores[p] for q in range(n))
        equal = sum(scores[q] == scores[p] for q in range(n)) - 1
        assert returns[p] == pytest.approx((lower + 0.5 * equal) / (n - 1))
    assert sum(returns) == pytest.approx(n / 2)


@pytest.mark.parametrize("orientation", [True, False])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games(players, orientation):
    for seed in range(3):
        game = RefMetroGame(players, orientation=orientation, hand_size=1 + seed)
        _check_final(ref.random_game(game, seed, 100 + seed))


def test_lines_are_recorded_when_finished():
    """Step by step: lines equal a fresh trace of every owned line after each action, scores
    never decrease, and the tile multiset is conserved."""
    import random

    game = RefMetroGame(4, orientation=False, hand_size=2)
    state = game.new_state(2024)
    rng = random.Random(1)
    all_kinds = Counter({k: c for k, c in enumerate(ref.TILE_COUNTS)})
    prev = state.scores()
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        fresh = {}
        for station in state.owner_of_station:
            line = ref.trace_line(state.board, station)
            if line is not None:
                fresh[station] = line
        assert state.lines == fresh
        now = state.scores()
        assert all(a >= b for a, b in zip(now, prev))
        prev = now
        held = Counter(t[0] for t in state.board if t is not None)
        for hand in state.hands:
            held.update(hand)
        held.update(state.supply)
        if state.drawn is not None:
            held[state.drawn] += 1
        assert held == all_kinds
    _check_final(state)


def test_same_seed_same_game():
    game = RefMetroGame(4, orientation=False, hand_size=2)
    a = ref.random_game(game, 77, 5)
    b = ref.random_game(game, 77, 5)
    assert a.board == b.board and a.lines == b.lines and a.scores() == b.scores()
    assert game.new_state(77).supply == game.new_state(77).supply
    assert game.new_state(77).supply != game.new_state(78).supply
    assert game.new_state(77 + 2**64).supply == game.new_state(77).supply
