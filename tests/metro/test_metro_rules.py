"""The Metro rules M1-M8 on hand-made positions, for the Cython engine (docs/rules/metro.md)."""
import pytest

import metro_ai
from metro_positions import kind, metro, place, position, sq

DRAW = 6144


def test_deal_and_first_turn():
    """M3/M4: every player holds hand_size tiles; player 0 moves; 60 - dealt tiles in the supply."""
    for players in range(2, 7):
        for hand_size in (1, 2, 3):
            s = metro(players, hand_size=hand_size).new_state(seed=players * 10 + hand_size)
            assert s.current_player == 0 and s.phase == "turn"
            assert all(len(s.hand(p)) == hand_size for p in range(players))
            assert s.supply_size == 60 - players * hand_size
            assert DRAW in s.legal_actions()


def test_draw_then_place_keeps_hand_tile():
    """M4: drawing reveals the top supply tile to its player, who must place it and keeps the hand."""
    game = metro(2)
    s = position(game, hands=[["T19"], ["T02"]], supply=["T04"])
    s.apply(DRAW)
    assert s.phase == "place_drawn" and s.drawn_tile() == kind(game, "T04")
    assert s.observation(0)["drawn"] == "T04" and s.observation(1)["drawn"] is None
    assert {a >> 8 for a in s.legal_actions()} == {kind(game, "T04")}          # only the drawn kind
    with pytest.raises(metro_ai.IllegalActionError, match="drawn"):
        s.apply(place(game, "T19", "B1"))
    with pytest.raises(metro_ai.IllegalActionError, match="already drawn"):
        s.apply(DRAW)
    s.apply(place(game, "T04", "B1"))
    assert s.hand(0) == [kind(game, "T19")] and s.current_player == 1 and s.phase == "turn"


def test_placing_hand_tile_draws_replacement():
    """M4: after placing the hand tile the player draws the front supply tile."""
    game = metro(2)
    s = position(game, hands=[["T19"], ["T02"]], supply=["T07"])
    s.apply(place(game, "T19", "A1"))
    assert s.hand(0) == [kind(game, "T07")] and s.current_player == 1


def test_empty_supply_no_draw_and_empty_hands_skipped():
    """M4: no draw from an empty supply; a player without tiles is skipped; M8: all placed ends it."""
    s = metro_ai.load_game("metro", players=3).new_state(seed=5)
    rng_actions = 0
    while s.supply_size > 0:
        acts = s.legal_actions()
        s.apply(acts[rng_actions % len(acts)])
        rng_actions += 7
    assert DRAW not in s.legal_actions()
    with pytest.raises(metro_ai.IllegalActionError, match="supply is empty"):
        s.apply(DRAW)
    seen = []
    while not s.is_terminal():
        p = s.current_player
        assert len(s.hand(p)) > 0
        seen.append(p)
        s.apply(s.legal_actions()[0])
    assert len(seen) == 3 and s.current_player == -1 and s.tiles_placed == 60   # 3 tiles in 3 hands
    assert s.legal_actions() == []
    with pytest.raises(metro_ai.IllegalActionError, match="over"):
        s.apply(DRAW)


def test_placement_squares():
    """M5: empty squares on the edge or beside a tile; never the centre; never a taken square."""
    game = metro(2)
    s = position(game, board={"C3": "T02"}, hands=[["T02"], ["T19"]])   # an interior tile; player 1 to move
    allowed = {(a >> 2) & 63 for a in s.legal_actions() if a != DRAW}
    edge = {r * 8 + c for r in range(8) for c in range(8) if r in (0, 7) or c in (0, 7)}
    beside = {sq("C2"), sq("B3"), sq("D3"), sq("C4")}
    assert allowed <= edge | beside and beside <= allowed
    for bad in ("C3", "D4", "E5", "F3"):     # taken, central, central, interior and alone
        with pytest.raises(metro_ai.IllegalActionError, match="M5"):
            s.apply(place(game, "T19", bad))
    # The central block is not a tile: a square touching only the centre is not eligible.
    assert sq("D3") in allowed and sq("F4") not in allowed


def test_tile_passed_twice_counts_twice():
    """M7: station 1 (A1, player 0 with 2 players) runs A1 -> B1 -> B2 -> A2 -> A1 and back to
    station 1: five passes (A1 twice), five points, scored the moment A2 is placed."""
    game = metro(2)
    s = position(game, board={"A1": "T19", "B1": "T04", "B2": "T20"}, hands=[["T02"], ["T18"]])   # player 1 places
    assert 1 not in {ln["station"] for ln in s.lines()}
    before = s.scores()
    s.apply(place(game, "T18", "A2"))
    lines = {ln["station"]: ln for ln in s.lines()}
    assert lines[1] == {"station": 1, "owner": 0, "tiles": 5, "arrival": 1, "central": False, "points": 5}
    assert s.scores() == [before[0] + 5, before[1]]


def test_five_tiles_into_the_centre_score_ten():
    """M7: station 5 (E1, player 0) runs E1 D1 D2 E2 E3 into the central station: 5 x 2 = 10."""
    game = metro(2)
    s = position(game, board={"E1": "T04", "D1": "T10", "D2": "T19", "E2": "T04"}, hands=[["T02"], ["T07"]])
    before = s.scores()[0]
    s.apply(place(game, "T02", "E3"))
    line = {ln["station"]: ln for ln in s.lines()}[5]
    assert (line["tiles"], line["arrival"], line["central"], line["points"]) == (5, 0, True, 10)
    assert s.scores()[0] == before + 10


def test_unowned_station_scores_nobody():
    """M1/M7: with 3 players stations 16 and 17 (H8) carry no wagon: their lines score nobody."""
    game = metro(3)
    s = position(game, hands=[["T01"], ["T02"], ["T07"]])
    s.apply(place(game, "T01", "H8"))        # U-turns: 16 -> 16 and 17 -> 17 in one tile
    assert s.scores() == [0, 0, 0] and s.lines() == []


def test_one_tile_rule_edge_square():
    """M6: T01 (four U-turns) on D1 sends station 4 straight back to itself: illegal while the
    tile has another place to go, and the state is left unchanged."""
    game = metro(2)
    s = position(game, board={"B2": "T02"}, hands=[["T02"], ["T01"]])    # player 1 to move
    legal = s.legal_actions()
    assert place(game, "T01", "D1") not in legal
    assert place(game, "T01", "B3") in legal                  # interior: no station there
    before = s.to_json()
    with pytest.raises(metro_ai.IllegalActionError, match="M6"):
        s.apply(place(game, "T01", "D1"))
    assert s.to_json() == before


def test_one_tile_rule_corner_square():
    """M6 at a corner: T04 on A1 joins station 1 (departing top) to station 32 (arriving left)."""
    game = metro(2)
    s = position(game, hands=[["T04"], ["T02"]])
    assert place(game, "T04", "A1") not in s.legal_actions()
    assert place(game, "T04", "B1") in s.legal_actions()     # T04 on B1: 0 -> 7 leads into A1
    s = position(game, hands=[["T19"], ["T02"]])
    assert place(game, "T19", "A1") in s.legal_actions()     # T19 on A1 leads both lines inward


def test_one_tile_rule_exception():
    """M6 exception: on an empty board every place for T01 breaks the rule, so all are legal."""
    game = metro(2)
    s = position(game, hands=[["T01"], ["T02"]])
    squares = {(a >> 2) & 63 for a in s.legal_actions() if a != DRAW}
    assert squares == {r * 8 + c for r in range(8) for c in range(8) if r in (0, 7) or c in (0, 7)}
    s.apply(place(game, "T01", "D1"))
    assert {ln["station"]: ln["points"] for ln in s.lines()} == {4: 1}


def test_one_tile_exception_is_per_kind_and_rotation_aware():
    """M6 exception is judged per tile kind; under M9 every rotation counts."""
    game = metro(2, hand_size=2)
    s = position(game, hands=[["T01", "T04"], ["T02", "T07"]])
    acts = s.legal_actions()
    t01 = {(a >> 2) & 63 for a in acts if a >> 8 == kind(game, "T01") and a != DRAW}
    t04 = {(a >> 2) & 63 for a in acts if a >> 8 == kind(game, "T04") and a != DRAW}
    assert len(t01) == 28                      # the exception, for T01 only
    assert sq("A1") not in t04 and sq("B1") in t04
    rot = metro(2, orientation=False)
    s = position(rot, hands=[["T01"], ["T02"]])     # T01 looks the same in every rotation
    assert {a & 3 for a in s.legal_actions() if a != DRAW} == {0}


def test_rotations_listed_once_under_m9():
    """M9: rotations that give the same layout are one action; the others are refused."""
    game = metro(2, orientation=False)
    s = position(game, hands=[["T03"], ["T07"]])       # T03 looks the same turned half round
    rots = {a & 3 for a in s.legal_actions() if a != DRAW}
    assert rots == {0, 1}
    with pytest.raises(metro_ai.IllegalActionError, match="rotation"):
        s.apply(place(game, "T03", "C1", rot=2))
    s = position(game, hands=[["T19"], ["T07"]])       # T19: four different layouts
    assert {a & 3 for a in s.legal_actions() if a != DRAW} == {0, 1, 2, 3}
    plain = position(metro(2), hands=[["T02"], ["T07"]])
    with pytest.raises(metro_ai.IllegalActionError, match="rotation"):
        plain.apply(place(metro(2), "T02", "C1", rot=1))


def test_game_end_and_rank_returns():
    """M8: the game ends when all 60 tiles are placed; returns are rank-based with ties shared."""
    for players in (2, 4):
        s = metro(players).new_state(seed=11)
        while not s.is_terminal():
            assert s.returns() == [0.0] * players
            s.apply(s.legal_actions()[-1])
        scores, rets = s.scores(), s.returns()
        for p in range(players):
            below = sum(q < scores[p] for q in scores) + 0.5 * (sum(q == scores[p] for q in scores) - 1)
            assert rets[p] == pytest.approx(below / (players - 1))


def test_string_actions_round_trip():
    game = metro(4, orientation=False, hand_size=2)
    s = game.new_state(seed=3)
    for a in s.legal_actions():
        text = s.action_to_string(a)
        assert s.string_to_action(text) == a
        assert s.string_to_action("  " + text.upper() + " ") == a
    assert s.action_to_string(DRAW) == "draw"
    with pytest.raises(ValueError, match="cannot read"):
        s.string_to_action("put it somewhere")
    with pytest.raises(ValueError, match="unknown tile"):
        s.string_to_action("place T99 at A1")
