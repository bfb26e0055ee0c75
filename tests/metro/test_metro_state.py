"""State contract for Metro: JSON, observation, determinize, bad input, properties (hypothesis)."""
import json
import random
from collections import Counter

import pytest
from hypothesis import given, strategies as st

import metro_ai
from metro_positions import metro
from stats import chi2_pvalue

DRAW = 6144
CONFIG = st.tuples(st.integers(2, 6), st.booleans(), st.integers(1, 3))


def play_random(state, rng, steps=None):
    n = 0
    while not state.is_terminal() and (steps is None or n < steps):
        state.apply(rng.choice(state.legal_actions()))
        n += 1
    return state


def hidden_multiset(state, player):
    """Tiles `player` cannot see: other hands, an opponent's drawn tile, the supply."""
    tiles = Counter(state.supply())
    for p in range(state.num_players):
        if p != player:
            tiles.update(state.hand(p))
    if state.drawn_tile() is not None and state.current_player != player:
        tiles[state.drawn_tile()] += 1
    return tiles


# ---- game and options ----

def test_list_and_load_games():
    assert "metro" in metro_ai.list_games()
    g = metro_ai.load_game("metro", players=3, orientation=False, hand_size=2)
    assert g.options == {"players": 3, "orientation": False, "hand_size": 2, "companies": False,
                         "company_chart": None, "exchange_limit": 8, "turn_limit": None, "central_stations": False,
                         "central_tracks": False, "central_track_layouts": None, "edition": "classic",
                         "city": None, "city_data": None, "berlin_sides": "A", "berlin_tickets": False}
    # the companies (M11) and City Edition (C1-C3, C5-C10) options at their defaults stay out of states and records
    assert g.state_options == {"players": 3, "orientation": False, "hand_size": 2}


@pytest.mark.parametrize("options,match", [
    ({"players": 1}, "players"), ({"players": 7}, "players"), ({"players": "4"}, "players"),
    ({"players": True}, "players"), ({"hand_size": 4}, "hand_size"), ({"hand_size": 0}, "hand_size"),
    ({"orientation": "no"}, "orientation"), ({"colour": "red"}, "unknown option"),
])
def test_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        metro_ai.load_game("metro", **options)


def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        metro_ai.load_game("chess")


# ---- bad input leaves the state as it was ----

@pytest.mark.parametrize("action,match", [
    (99999, "not a Metro action"), (-5, "not a Metro action"), (2 ** 40, "out of range"),
    ("draw", "an action is an int"), (True, "an action is an int"), (1.0, "an action is an int"),
])
def test_unknown_actions(action, match):
    s = metro(4).new_state(seed=1)
    before = s.to_json()
    with pytest.raises(metro_ai.IllegalActionError, match=match):
        s.apply(action)
    assert s.to_json() == before


def test_action_for_wrong_phase_or_player():
    game = metro(4)
    s = game.new_state(seed=2)
    other = s.hand(1)[0]
    mine = s.hand(0)[0]
    if other != mine:
        with pytest.raises(metro_ai.IllegalActionError, match="not in the player's hand"):
            s.apply(other * 256 + 1 * 4)
    s.apply(DRAW)
    before = s.to_json()
    with pytest.raises(metro_ai.IllegalActionError, match="already drawn") as err:
        s.apply(DRAW)
    assert "player 0 to move" in str(err.value)       # the message names the state
    assert s.to_json() == before


def _valid_json():
    s = metro(4).new_state(seed=4)
    play_random(s, random.Random(4), steps=20)
    return s, json.loads(s.to_json())


@pytest.mark.parametrize("mutate,match", [
    (lambda o: "{", "not valid JSON"),
    (lambda o: "[]", "top level"),
    (lambda o: {k: v for k, v in o.items() if k != "board"}, "missing field 'board'"),
    (lambda o: {**o, "game": "breakthrough"}, "not metro"),
    (lambda o: {**o, "options": {**o["options"], "players": 3}}, "options"),
    (lambda o: {**o, "board": o["board"][:7]}, "8 rows"),
    (lambda o: {**o, "board": [[{"tile": "T99", "rotation": 0}] * 8] + o["board"][1:]}, "unknown tile"),
    (lambda o: {**o, "board": o["board"][:3] + [o["board"][3][:3] + [{"tile": "T01", "rotation": 0}] + o["board"][3][4:]] + o["board"][4:]}, "central station"),
    (lambda o: {**o, "supply": o["supply"][1:]}, "tiles of"),
    (lambda o: {**o, "supply": o["supply"] + ["T01"]}, "tiles of"),
    (lambda o: {**o, "scores": [s + 1 for s in o["scores"]]}, "scores"),
    (lambda o: {**o, "phase": "dancing"}, "phase"),
    (lambda o: {**o, "current_player": 9}, "current_player"),
    (lambda o: {**o, "hands": o["hands"][:2]}, "hands"),
    (lambda o: {**o, "phase": "place_drawn"}, "drawn tile"),
])
def test_malformed_or_inconsistent_json(mutate, match):
    s, obj = _valid_json()
    bad = mutate(obj)
    text = bad if isinstance(bad, str) else json.dumps(bad)
    with pytest.raises(metro_ai.StateFormatError, match=match):
        metro(4).state_from_json(text)


def test_rotation_in_json_must_be_allowed():
    s = metro(2).new_state(seed=9)
    while s.tiles_placed == 0:
        s.apply(s.legal_actions()[0])
    obj = json.loads(s.to_json())
    cell = next(c for row in obj["board"] for c in row if c)
    cell["rotation"] = 1
    with pytest.raises(metro_ai.StateFormatError, match="rotation"):
        metro(2).state_from_json(json.dumps(obj))


# ---- JSON and observation ----

def test_json_board_format():
    s = metro(4).new_state(seed=12)
    play_random(s, random.Random(0), steps=10)
    obj = json.loads(s.to_json())
    assert len(obj["board"]) == 8 and all(len(r) == 8 for r in obj["board"])
    cells = [c for r in obj["board"] for c in r if c is not None]
    assert len(cells) == s.tiles_placed and all(set(c) == {"tile", "rotation"} for c in cells)
    assert obj["stations"][0] == [4, 7, 11, 16, 20, 23, 27, 32]     # yellow with 4 players (M1)
    assert obj["scores"] == s.scores()


def test_observation_shows_only_what_the_player_sees():
    s = metro(4, hand_size=2).new_state(seed=13)
    play_random(s, random.Random(1), steps=9)
    for p in range(4):
        obs = s.observation(p)
        json.dumps(obs)
        assert obs["hand"] == [s.game.tile_ids[k] for k in s.hand(p)]
        assert "hands" not in obs and "supply" not in obs
        assert obs["hand_sizes"] == [len(s.hand(q)) for q in range(4)]
        # Redeal what p cannot see: the observation must not move, though the full state does.
        twin = s.determinize(p, 99 + p)
        assert twin.to_json() != s.to_json()
        assert twin.observation(p) == obs
    with pytest.raises(ValueError, match="player"):
        s.observation(4)


# ---- properties ----

@given(CONFIG, st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32))
def test_every_game_ends_with_60_tiles_and_every_owned_line_scored(cfg, seed, pick):
    players, orientation, hand_size = cfg
    game = metro(players, orientation=orientation, hand_size=hand_size)
    s = play_random(game.new_state(seed), random.Random(pick))
    assert s.tiles_placed == 60 and s.current_player == -1 and s.phase == "over"
    owned = {n for p in range(players) for n in game.owners[p]}
    lines = s.lines()
    assert {ln["station"] for ln in lines} == owned
    for p in range(players):
        assert s.scores()[p] == sum(ln["points"] for ln in lines if ln["owner"] == p)
    assert sum(s.returns()) == pytest.approx(players / 2)


@given(st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32))
def test_same_seed_replays_bit_for_bit(seed, pick):
    game = metro(4)
    a = play_random(game.new_state(seed), random.Random(pick))
    b = play_random(game.new_state(seed), random.Random(pick))
    assert a.to_json() == b.to_json()


@given(CONFIG, st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 32), st.integers(0, 80), st.integers(0, 2 ** 64 - 1))
def test_determinize_keeps_what_the_player_sees(cfg, seed, pick, steps, dseed):
    players, orientation, hand_size = cfg
    game = metro(players, orientation=orientation, hand_size=hand_size)
    s = play_random(game.new_state(seed), random.Random(pick), steps=steps)
    for p in range(players):
        d = s.determinize(p, dseed)
        assert d.observation(p) == s.observation(p)
        assert hidden_multiset(d, p) == hidden_multiset(s, p)
        assert d.legal_actions() == s.legal_actions() or s.current_player != p
        game.state_from_json(d.to_json())          # a valid state
        # The result depends only on what p sees: a state p cannot tell from s gives the same.
        twin = s.determinize(p, dseed ^ 0x5555)
        assert twin.observation(p) == s.observation(p)
        assert twin.determinize(p, dseed) == d


def test_determinize_changes_hidden_tiles_and_is_seeded():
    s = metro(4).new_state(seed=21)
    d1, d2 = s.determinize(0, 1), s.determinize(0, 2)
    assert d1 == s.determinize(0, 1)
    assert d1.supply() != d2.supply()
    with pytest.raises(ValueError, match="player"):
        s.determinize(4, 1)
    with pytest.raises(TypeError, match="seed"):
        s.determinize(0, "x")


@pytest.mark.parametrize("where", ["hand", "supply_front", "supply_back"])
def test_determinize_spreads_hidden_tiles_evenly(where):
    """Chi-square goodness of fit: the tile that lands in a hidden slot follows the unseen
    multiset. It fails (p < 0.001) if determinize favours some kinds or some slots."""
    game = metro(4)
    s = game.new_state(seed=5)
    play_random(s, random.Random(5), steps=12)
    unseen = hidden_multiset(s, 0)
    total = sum(unseen.values())
    draws = 4000
    counts = Counter()
    for i in range(draws):
        d = s.determinize(0, 10_000 + i)
        tile = {"hand": lambda: d.hand(1)[0], "supply_front": lambda: d.supply()[0],
                "supply_back": lambda: d.supply()[-1]}[where]()
        counts[tile] += 1
    kinds = sorted(unseen)
    chi2 = sum((counts[k] - draws * unseen[k] / total) ** 2 / (draws * unseen[k] / total) for k in kinds)
    assert set(counts) <= set(kinds)
    assert chi2_pvalue(chi2, len(kinds) - 1) > 0.001, (chi2, counts)


# ---- loader hardening: sizes before writes, turn order ----

def _json_of(state):
    return json.loads(state.to_json())


def test_an_oversized_supply_is_refused_before_anything_is_written():
    game = metro_ai.load_game("metro", players=2)
    for n in (61, 189, 317, 572, 8000):      # 189+ wrapped a narrow int into a valid-looking index
        obj = _json_of(game.new_state(seed=1))
        obj["supply"] = ["T01"] * n
        with pytest.raises(metro_ai.StateFormatError, match=f"supply has {n} tiles; the game has 60"):
            game.state_from_json(json.dumps(obj))


def test_the_player_to_move_follows_the_tiles_placed():
    """M3: turns go round the table, one tile a turn, so a state whose current_player is moved to
    another seat (which would then play out with unequal turns) is refused."""
    game = metro_ai.load_game("metro", players=3)
    s = game.new_state(seed=4)
    rng = random.Random(4)
    for _ in range(7):
        s.apply(rng.choice(s.legal_actions()))
    obj = _json_of(s)
    for shifted in range(3):
        obj["current_player"] = shifted
        if shifted == s.current_player:
            assert game.state_from_json(json.dumps(obj)) == s
        else:
            with pytest.raises(metro_ai.StateFormatError, match="turns go round the table"):
                game.state_from_json(json.dumps(obj))


def test_hand_sizes_after_the_supply_must_follow_the_turn_order():
    """Once the supply is out each turn empties the mover's hand by one, in seat order: with two
    players the one to move never holds fewer tiles than the other. Swapping the hands of such a
    state (same tiles, so every count check still passes) is refused."""
    game = metro_ai.load_game("metro", players=2, hand_size=3)
    s = game.new_state(seed=2)
    rng = random.Random(2)
    while not (s.supply_size == 0 and len(s.hand(0)) != len(s.hand(1))):
        s.apply(rng.choice(s.legal_actions()))
    mover = s.current_player
    assert len(s.hand(mover)) == len(s.hand(1 - mover)) + 1
    obj = _json_of(s)
    obj["hands"] = obj["hands"][::-1]
    with pytest.raises(metro_ai.StateFormatError, match="hand sizes .* cannot arise with player"):
        game.state_from_json(json.dumps(obj))


@pytest.mark.parametrize("bad", [-1, 64, 200000, True, 1.5, "A1"])
def test_square_name_checks_its_argument(bad):
    from metro_ai.engine.metro import square_name
    with pytest.raises(ValueError, match="a square is an int in 0..63"):
        square_name(bad)
    assert square_name(0) == "A1" and square_name(63) == "H8"
