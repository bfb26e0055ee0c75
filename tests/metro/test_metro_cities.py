"""Scenario and bad-input tests of the City Edition cities (rules C5-C11, decisions C26-C35).

Scenarios start from a position reached by random play and edit its city part through the state
JSON (the loader checks the edit), then play one placement onto a square with a tourist.
"""
import collections
import json
import random
import re

import pytest

import metro_ai
from metro_ai.engine.errors import DataError, StateFormatError
from metro_ai.engine.metro import city_data
from metro_ai.engine.metro.cities import INNER_SQUARES, BERLIN_SQUARES
from metro_ai.engine.metro.state import square_name


def onto(game, seed, want=lambda s, sq: sq in s.tourists()):
    """A state after random play where the player to move may place onto a square `want` accepts,
    and such a placement (the hand tile's)."""
    s = game.new_state(seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        if s.phase == "turn":
            for a in s.legal_actions():
                if a < 6144 and want(s, (a >> 2) & 63):
                    return s, a
        s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no such placement")


def edit(game, s, change):
    obj = s.to_dict()
    change(obj["city"])
    return game.state_from_json(json.dumps(obj))


def square_of(a):
    return (a >> 2) & 63


# ---------------------------------------------------------------- London (C8, C30)

@pytest.mark.parametrize("distance", [1, 4])
def test_london_taxi_finds_the_colour_within_four(distance):
    game = metro_ai.load_game("metro", players=3, city="london")
    s, a = onto(game, 3)
    c = s.tourists()[square_of(a)][0]
    others = [i for i in range(8) if i != c]         # landmark i has colour i (data/cities.json)

    def put(city):
        row = others[:distance - 1] + [c] + others[distance - 1:]
        city["row"], city["taxi"] = row, -1
    s = edit(game, s, put)
    p, before, aside = s.current_player, s.city_points(), s.to_dict()["city"]["set_aside"]
    s.apply(a)
    city = s.to_dict()["city"]
    assert city["taxi"] == distance - 1
    assert s.city_points()[p] == before[p] + distance
    assert city["set_aside"] == aside + 1 and square_name(square_of(a)) not in city["tourists"]


def test_london_taxi_gets_nothing_beyond_four_and_wraps_round():
    game = metro_ai.load_game("metro", players=3, city="london")
    s, a = onto(game, 3)
    c = s.tourists()[square_of(a)][0]
    others = [i for i in range(8) if i != c]
    # taxi on place 6: places 7, 0, 1, 2 are the next four (the arrows are no spaces), c is at 3
    s = edit(game, s, lambda city: city.update(row=others[1:4] + [c] + others[4:] + others[:1], taxi=6))
    s2 = s.clone()
    p, before = s.current_player, s.city_points()
    s.apply(a)
    assert s.to_dict()["city"]["taxi"] == 6 and s.city_points() == before
    assert s.to_dict()["city"]["set_aside"] == 1 + s2.to_dict()["city"]["set_aside"]
    # and round the end: c at place 1 is 3 spaces from place 6 (7, 0, 1)
    s2 = edit(game, s2, lambda city: city.update(row=others[:1] + [c] + others[1:], taxi=6))
    s2.apply(a)
    assert s2.to_dict()["city"]["taxi"] == 1 and s2.city_points()[p] == before[p] + 3


# ---------------------------------------------------------------- Paris (C6, C28)

def paris_case(players=4, seed=5):
    game = metro_ai.load_game("metro", players=players, city="paris")
    s, a = onto(game, seed)
    return game, s, a, square_of(a), s.current_player


def spaces_of(game, lm):
    return game.city_rules.data["landmarks"][lm]["spaces"]


def test_paris_tourists_go_onto_the_movers_landmarks_all_of_them():
    game, s, a, sq, p = paris_case()
    mine = [lm["id"] for lm in s.to_dict()["city"]["landmarks"][p]]
    colours = sorted({c for lm in mine for c in spaces_of(game, lm)})
    first, second = colours[0], colours[1]

    def two_here(city):        # two tourists of the mover's colours on the square
        t = city["tourists"]
        t.clear()
        t[square_name(sq)] = [first, second]
        city["out"] = 30
    s = edit(game, s, two_here)
    before = s.city_points()[p]
    s.apply(a)
    filled = [c for lm in s.to_dict()["city"]["landmarks"][p] for c in lm["filled"] if c is not None]
    assert sorted(filled) == [first, second]
    assert s.city_points()[p] == before + 2 and s.tourists() == {}


def _paris_overflow(game, s, sq, p, keep):
    """The square's tourist has no free space of its colour on the mover's landmarks (those
    spaces are filled); `keep`: the other squares that keep a tourist."""
    c = s.tourists()[sq][0]

    def change(city):
        filled = 0
        for lm in city["landmarks"][p]:
            for j, colour in enumerate(spaces_of(game, lm["id"])):
                if colour == c:
                    lm["filled"][j] = c
                    filled += 1
        city["points"][p] = filled
        t = {square_name(sq): [c]}
        for k in keep:
            t[square_name(k)] = [(c + 1) % 8]
        city["tourists"] = t
        city["out"] = 32 - len(t) - filled
    return edit(game, s, change), c


def test_paris_overflow_to_an_adjacent_tourist():
    game, s, a, sq, p = paris_case()
    adjacent = [x for x in (sq - 8, sq + 1, sq + 8, sq - 1) if x in INNER_SQUARES and x in s.tourists()]
    far = [x for x in INNER_SQUARES if abs(x // 8 - sq // 8) + abs(x % 8 - sq % 8) > 2 and x in s.tourists()]
    s, c = _paris_overflow(game, s, sq, p, [far[0], adjacent[0]])
    before = s.city_points()
    s.apply(a)
    assert s.tourists()[adjacent[0]] == sorted([c, (c + 1) % 8]) and s.city_points() == before


def test_paris_overflow_to_any_tourist_of_the_players_choice_when_none_is_adjacent():
    game, s, a, sq, p = paris_case()
    tour = s.tourists()
    far = sorted(x for x in tour if abs(x // 8 - sq // 8) + abs(x % 8 - sq % 8) >= 2)
    s, c = _paris_overflow(game, s, sq, p, [far[0], far[-1]])
    s.apply(a)
    # the mover chooses among every square with tourists; the turn waits for them (C28)
    assert s.current_player == p and s.legal_actions() == [6481 + far[0], 6481 + far[-1]]
    assert s.pending() == {"player": p, "square": square_name(sq), "colours": [c]}
    assert game.action_to_string(6481 + far[-1]) == f"tourist to {square_name(far[-1])}"
    back = game.state_from_json(s.to_json())
    assert back == s and back.legal_actions() == s.legal_actions()
    before = s.to_json()
    with pytest.raises(ValueError, match="choose where it goes"):
        s.apply(6144)
    assert s.to_json() == before and s.observation(p)["current_player"] == p
    s.apply(game.string_to_action(f"tourist to {square_name(far[-1])}"))
    assert s.tourists()[far[-1]] == sorted([c, (c + 1) % 8]) and s.tourists()[far[0]] == [(c + 1) % 8]
    assert s.pending() is None and s.current_player != p


def test_paris_overflow_choice_among_several_adjacent_tourists():
    game, s, a, sq, p = paris_case()
    adjacent = [x for x in (sq - 8, sq + 1, sq + 8, sq - 1) if x in s.tourists()]
    assert len(adjacent) >= 2
    s, c = _paris_overflow(game, s, sq, p, adjacent[:2] + [x for x in INNER_SQUARES if x in s.tourists()
                                                           and abs(x // 8 - sq // 8) + abs(x % 8 - sq % 8) > 2][:1])
    s.apply(a)
    assert s.legal_actions() == sorted(6481 + x for x in adjacent[:2])


def test_paris_choice_among_the_movers_landmarks():
    game, s, a, sq, p = paris_case(players=2, seed=5)
    c = s.tourists()[sq][0]
    mine = [lm["id"] for lm in s.to_dict()["city"]["landmarks"][p] if c in spaces_of(game, lm["id"])]
    assert len(mine) >= 2
    s.apply(a)
    assert s.legal_actions() == sorted(6465 + lm for lm in mine)
    before = s.city_points()[p]
    s.apply(6465 + mine[-1])
    row = {lm["id"]: lm["filled"] for lm in s.to_dict()["city"]["landmarks"][p]}
    assert c in row[mine[-1]] and c not in row[mine[0]] and s.city_points()[p] == before + 1


def test_paris_overflow_leaves_the_game_when_no_tourist_is_left():
    game, s, a, sq, p = paris_case()
    s, c = _paris_overflow(game, s, sq, p, [])
    out = s.to_dict()["city"]["out"]
    s.apply(a)
    assert s.tourists() == {} and s.to_dict()["city"]["out"] == out + 1


def test_paris_deals_the_landmarks_evenly():
    for n, k in {2: 6, 3: 4, 4: 3, 5: 2, 6: 2}.items():
        c = metro_ai.load_game("metro", players=n, city="paris").new_state(1).to_dict()["city"]
        ids = [lm["id"] for row in c["landmarks"] for lm in row]
        assert [len(row) for row in c["landmarks"]] == [k] * n and len(set(ids)) == n * k


# ---------------------------------------------------------------- Stockholm (C7, C29)

def test_stockholm_tourist_goes_to_the_leftmost_free_space_and_markers_score_at_the_end():
    game = metro_ai.load_game("metro", players=2, city="stockholm")
    s, a = onto(game, 9)
    sq = square_of(a)
    c = s.tourists()[sq][0]
    other = [x for x in s.tourists() if x != sq][:2]

    def change(city):           # two tourists already on the row's first landmark
        cols = [city["tourists"].pop(square_name(x))[0] for x in other]
        city["row"][0]["filled"][:2] = cols
    s = edit(game, s, change)
    s.apply(a)
    row = s.to_dict()["city"]["row"]
    assert row[0]["filled"][2] == c and row[0]["filled"][3] is None
    assert s.city_points() == [0, 0]
    markers = s.to_dict()["city"]["markers"]
    assert sorted(m for m in markers if m is not None) == [0, 0, 0, 1, 1, 1]     # 3 each at 2 players
    rng = random.Random(2)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    city = s.to_dict()["city"]
    points = game.city_rules.data["landmarks"]
    want = [0, 0]
    for lm in city["row"]:
        for x in lm["filled"]:
            if x is not None and city["markers"][x] is not None:
                want[city["markers"][x]] += points[lm["id"]]["points"]
    assert s.hidden_points() == want and want != [0, 0]
    assert s.scores() == [x + y for x, y in zip([ln for ln in _line_points(s)], want)]


def _line_points(s):
    out = [0] * s.num_players
    for ln in s.lines():
        out[ln["owner"]] += ln["points"]
    return out


# ---------------------------------------------------------------- New York (C9, C31)

def test_new_york_line_owner_takes_the_tourist_at_its_arrival():
    game = metro_ai.load_game("metro", players=3, city="new_york")
    s = game.new_state(4)
    rng = random.Random(4)
    taken = 0
    while not s.is_terminal():
        before = s.to_dict()["city"]
        lines = {ln["station"] for ln in s.lines()}
        s.apply(rng.choice(s.legal_actions()))
        after = s.to_dict()["city"]
        for ln in s.lines():
            if ln["station"] in lines or not 1 <= ln["arrival"] <= 32:
                continue
            colour = before["stations"][ln["arrival"] - 1]
            if colour is not None:
                assert after["stations"][ln["arrival"] - 1] is None
                assert after["boards"][ln["owner"]][colour] == before["boards"][ln["owner"]][colour] + 1
                taken += 1
    assert taken > 0 and sum(map(sum, after["boards"])) == taken
    bonus = game.city_rules.data["colour_bonus"]
    assert s.city_points() == [sum(b) + bonus[sum(1 for x in b if x)] for b in after["boards"]]


def test_new_york_with_companies_boards_are_the_companies_and_their_points_profit():
    game = metro_ai.load_game("metro", players=3, city="new_york", companies=True)
    s = game.new_state(4)
    rng = random.Random(4)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    city = s.to_dict()["city"]
    assert len(city["boards"]) == len(city["points"]) == 8 and sum(map(sum, city["boards"])) > 0
    lines = [0] * 8
    for ln in s.lines():
        lines[ln["owner"]] += ln["points"]
    assert s.profits() == [a + b for a, b in zip(lines, city["points"])]        # C35
    assert game.state_from_json(s.to_json()) == s


# ---------------------------------------------------------------- Berlin (C10, C32, C33)

def test_berlin_tile_on_a_landmark_carries_its_tourist_and_lines_through_it_earn_pieces():
    game = metro_ai.load_game("metro", players=2, city="berlin")
    s, a = onto(game, 6, want=lambda s, sq: sq in BERLIN_SQUARES and square_name(sq) in s.to_dict()["city"]["landmarks"])
    name = square_name(square_of(a))
    colour = s.to_dict()["city"]["landmarks"][name]
    s.apply(a)
    city = s.to_dict()["city"]
    assert name not in city["landmarks"] and city["carried"][name] == {"colour": colour, "from": "landmark"}
    rng = random.Random(6)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    city = s.to_dict()["city"]
    assert sum(len(v) for p in city["vp"] for v in p) == sum(map(sum, city["vp_counts"])) > 0
    assert s.hidden_points() == [sum(map(sum, p)) for p in city["vp"]]


def test_berlin_lines_earn_a_piece_or_ticket_per_pass_through_a_carrying_tile():
    from metro_ai.engine.metro.svg import _line_path          # the picture's own line tracer
    game = metro_ai.load_game("metro", players=2, city="berlin", berlin_tickets=True)
    twice = 0
    for seed in range(6):
        s = game.new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            before, closed = s.to_dict()["city"], {ln["station"] for ln in s.lines()}
            s.apply(rng.choice(s.legal_actions()))
            city = s.to_dict()["city"]
            carried = {(int(k[1]) - 1) * 8 + "ABCDEFGH".index(k[0]): v for k, v in city["carried"].items()}
            want = {p: {"landmark": [0] * 8, "tourist": [0] * 8} for p in range(2)}
            for ln in s.lines():
                if ln["station"] not in closed:
                    squares = [sq for sq, _, _ in _line_path(game, s.board(), ln["station"])]
                    twice += any(squares.count(sq) > 1 for sq in carried)
                    for sq in squares:
                        if sq in carried:
                            want[ln["owner"]][carried[sq]["from"]][carried[sq]["colour"]] += 1
            for p in range(2):
                got_t = [a - b for a, b in zip(city["tickets"][p], before["tickets"][p])]
                got_vp = [a - b for a, b in zip(city["vp_counts"][p], before["vp_counts"][p])]
                assert got_t == want[p]["tourist"]                     # tickets are unlimited
                for c in range(8):                                     # pieces while the pile lasts
                    assert got_vp[c] == min(want[p]["landmark"][c], before["pile_sizes"][c]) or \
                        sum(want[q]["landmark"][c] for q in range(2)) > before["pile_sizes"][c]
    assert twice > 0                                                   # a tile passed twice was seen


def test_berlin_setup_landmarks_on_the_diagonals_without_tickets():
    game = metro_ai.load_game("metro", players=4, city="berlin", berlin_sides="B")
    city = game.new_state(2).to_dict()["city"]
    assert sorted(city["landmarks"]) == sorted(map(square_name, BERLIN_SQUARES))
    assert sorted(city["landmarks"].values()) == list(range(8)) and city["sides"] == ["B"] * 8
    assert city["tourists"] == {} and "row" not in city
    assert all(sorted(p) == [0, 1, 2, 4, 5, 6] for p in city["piles"])


def _quarter(sq):
    """0 A1-D4, 1 E1-H4, 2 A5-D8, 3 E5-H8 (C33), from the square's row and column."""
    return (0 if sq // 8 < 4 else 2) + (0 if sq % 8 < 4 else 1)


def _ticket_groups(city):
    """The ticket tourists' colours by quarter, waiting or carried (C33)."""
    groups = [[] for _ in range(4)]
    for name, v in city["tourists"].items():
        groups[_quarter((int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0]))] += v
    for name, v in city["carried"].items():
        groups[_quarter((int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0]))].append(v["colour"])
    return groups


@pytest.mark.parametrize("players", [2, 4, 6])
def test_berlin_ticket_setup_row_beside_the_board_and_a_group_of_4_per_quarter(players):
    """C33: the landmarks lie in a row beside the board, each piece with one tourist (one of each
    colour); the 16 tourists are one a square on inner squares, 4 in each quarter of the board,
    no quarter with two of a colour; the diagonal squares, free now, take tourists too."""
    game = metro_ai.load_game("metro", players=players, city="berlin", berlin_tickets=True, berlin_sides="B")
    on_diagonal = 0
    for seed in range(40):
        city = game.new_state(seed).to_dict()["city"]
        assert city["landmarks"] == {} and sorted(city["row"]) == list(range(8))
        squares = [(int(k[1]) - 1) * 8 + "ABCDEFGH".index(k[0]) for k in city["tourists"]]
        assert len(squares) == 16 and set(squares) <= set(INNER_SQUARES)
        assert all(len(v) == 1 for v in city["tourists"].values())
        assert sorted(c for v in city["tourists"].values() for c in v) == sorted(list(range(8)) * 2)
        for g in _ticket_groups(city):
            assert len(g) == 4 and len(set(g)) == 4
        on_diagonal += any(sq in BERLIN_SQUARES for sq in squares)
        assert all(sorted(p) == [0, 1, 2, 4, 5, 6] for p in city["piles"])   # the VP pieces stay by the board
    assert on_diagonal > 0


def _groupings_shared_colours():
    """Exact law of |colours of quarter 0 & colours of quarter 1| over the valid groupings (4 sets
    of 4 colours, each colour in exactly 2), every grouping counted once."""
    from itertools import combinations
    sets = [frozenset(s) for s in combinations(range(8), 4)]
    law = [0] * 5
    for a in sets:
        for b in sets:
            for c in sets:
                left = [2 - (x in a) - (x in b) - (x in c) for x in range(8)]
                if all(v in (0, 1) for v in left) and sum(left) == 4:
                    law[len(a & b)] += 1
    assert sum(law) == 44730
    return [x / 44730 for x in law]


def test_berlin_ticket_groupings_are_drawn_uniformly():
    """C33: uniform among the valid groupings: the colours two quarters share follow the exact
    law of the groupings (and every quarter's inner square is taken half the time)."""
    game = metro_ai.load_game("metro", players=2, city="berlin", berlin_tickets=True)
    law, n = _groupings_shared_colours(), 2000
    shared, taken = [0] * 5, collections.Counter()
    for seed in range(n):
        city = game.new_state(seed).to_dict()["city"]
        g = _ticket_groups(city)
        shared[len(set(g[0]) & set(g[1]))] += 1
        taken.update(list(city["tourists"]))
    for k in range(5):
        sd = (law[k] * (1 - law[k]) / n) ** 0.5
        assert abs(shared[k] / n - law[k]) <= 4 * sd + 1e-9, (k, shared, law)
    assert shared[0] > 0 and shared[4] > 0                   # both extremes occur
    for sq in INNER_SQUARES:
        assert abs(taken[square_name(sq)] / n - 0.5) < 0.05, square_name(sq)


def test_berlin_ticket_tourist_on_a_diagonal_square_is_carried_and_no_vp_piece_is_won():
    """C33: with tickets a diagonal square holds a tourist, not a landmark; a tile there carries it
    (a ticket tourist); over whole games tickets are won and no VP piece ever is."""
    game = metro_ai.load_game("metro", players=2, city="berlin", berlin_tickets=True)
    s, a = onto(game, 5, want=lambda s, sq: sq in BERLIN_SQUARES and sq in s.tourists())
    name, colour = square_name(square_of(a)), s.tourists()[square_of(a)][0]
    s.apply(a)
    assert s.to_dict()["city"]["carried"][name] == {"colour": colour, "from": "tourist"}
    won = 0
    for seed in range(4):
        s = game.new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
        city = s.to_dict()["city"]
        won += sum(map(sum, city["tickets"]))
        assert city["vp"] == [[[]] * 8] * 2 and s.hidden_points() == [0, 0]
        assert city["pile_sizes"] == [6] * 8 and city["landmarks"] == {}
    assert won > 0


def test_berlin_ticket_row_is_drawn_and_rendered():
    game = metro_ai.load_game("metro", players=2, city="berlin", berlin_tickets=True)
    s = game.new_state(3)
    row = s.to_dict()["city"]["row"]
    assert "landmark row (tourists): " + " ".join(game.city_rules.colours[c] for c in row) in s.render()
    assert s.observation(1)["city"]["row"] == row                  # public


def _ticket_state(seed=11, steps=20):
    game = metro_ai.load_game("metro", players=3, city="berlin", berlin_tickets=True)
    s = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        s.apply(rng.choice(s.legal_actions()))
    return game, s


def _move_tourist_to_other_quarter(city):
    """Move a waiting tourist to a free inner square of another quarter (the counts per colour
    stay right, the groups do not)."""
    taken = set(city["tourists"]) | set(city["carried"])
    name = next(iter(city["tourists"]))
    q = _quarter((int(name[1]) - 1) * 8 + "ABCDEFGH".index(name[0]))
    free = next(square_name(sq) for sq in INNER_SQUARES if _quarter(sq) != q and square_name(sq) not in taken)
    city["tourists"][free] = city["tourists"].pop(name)


@pytest.mark.parametrize("change,words", [
    (lambda c: c.update(landmarks={"B2": c["row"][0]}), "landmarks must be {} with berlin_tickets"),
    (lambda c: c.update(row=c["row"][:7] + [c["row"][0]]), "row must list the colours"),
    (lambda c: c.update(row=c["row"][:7]), "row must list the colours"),
    (lambda c: c.pop("row"), "must be an object with the fields"),
    (_move_tourist_to_other_quarter, "each quarter holds a group of 4 of 4 colours"),
    (lambda c: (c["vp"][0][c["row"][0]].append(c["piles"][c["row"][0]].pop()),
                c["vp_counts"][0].__setitem__(c["row"][0], 1),
                c["pile_sizes"].__setitem__(c["row"][0], 5)), "no VP piece is won"),
])
def test_berlin_ticket_state_fields_are_checked(change, words):
    """The loader checks the ticket variant's fields (C33) before writing anything, and says what
    is wrong; the untouched state loads and is the same."""
    game, s = _ticket_state()
    assert game.state_from_json(s.to_json()).to_json() == s.to_json()
    with pytest.raises(StateFormatError, match=re.escape(words)):
        edit(game, s, change)


def test_berlin_ticket_carried_landmark_tourist_and_row_without_tickets_are_refused():
    game, s = _ticket_state(seed=12, steps=60)
    assert s.to_dict()["city"]["carried"], "a tile carries a tourist"

    def from_landmark(c):
        k = next(iter(c["carried"]))
        c["carried"][k]["from"] = "landmark"
    with pytest.raises(StateFormatError, match="carries only a ticket tourist"):
        edit(game, s, from_landmark)
    plain = metro_ai.load_game("metro", players=3, city="berlin")
    obj = plain.new_state(1).to_dict()
    obj["city"]["row"] = list(range(8))
    with pytest.raises(StateFormatError, match="must be an object with the fields"):
        plain.state_from_json(json.dumps(obj))


# ---------------------------------------------------------------- hidden information (C34)

@pytest.mark.parametrize("city,key,mine", [("stockholm", "markers", "my_markers"), ("berlin", "vp", "my_vp")])
def test_hidden_parts_are_seen_by_their_owner_only_and_redrawn(city, key, mine):
    game = metro_ai.load_game("metro", players=3, city=city)
    s = game.new_state(8)
    rng = random.Random(8)
    while s.tiles_placed < 45:
        s.apply(rng.choice(s.legal_actions()))
    full = s.to_dict()["city"][key]
    for p in range(3):
        obs = s.observation(p)["city"]
        assert key not in obs and "piles" not in obs
        own = [c for c in range(8) if full[c] == p] if city == "stockholm" else full[p]
        assert obs[mine] == own
        worlds = {json.dumps(s.determinize(p, seed).to_dict()["city"][key]) for seed in range(12)}
        assert len(worlds) > 1                       # the others' parts are redrawn
        for w in worlds:
            w = json.loads(w)
            assert (([c for c in range(8) if w[c] == p] if city == "stockholm" else w[p]) == own)
    s.apply(s.legal_actions()[0])
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    assert s.observation(0)["city"][key] == s.to_dict()["city"][key]     # shown at the end


# ---------------------------------------------------------------- bad input

def test_st_petersburg_is_refused_clearly():
    with pytest.raises(ValueError, match="st_petersburg.*not available.*C11"):
        metro_ai.load_game("metro", city="st_petersburg")


@pytest.mark.parametrize("options,words", [
    (dict(city="paris", companies=True), "cannot be combined with companies"),
    (dict(city="new_york", central_stations=True), "cannot be combined with central_stations"),
    (dict(city="berlin", companies=True), "only for New York"),
    (dict(city="paris", berlin_tickets=True), "'berlin_tickets' needs city='berlin'"),
    (dict(berlin_sides="B"), "'berlin_sides' needs a city"),
    (dict(city="rome"), "option 'city' must be"),
])
def test_city_with_what_it_cannot_combine_with_names_the_conflict(options, words):
    with pytest.raises(ValueError, match=words):
        metro_ai.load_game("metro", **options)


def _data(tmp_path, change):
    raw = json.loads(city_data.CITY_DATA.read_text())
    change(raw)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize("change,field", [
    (lambda r: r["paris"]["landmarks"][3]["spaces"].__setitem__(1, "pink"), "paris.landmarks[3].spaces[1]"),
    (lambda r: r["paris"]["landmarks"].pop(), "paris.landmarks"),
    (lambda r: r["stockholm"]["landmarks"][0].__setitem__("points", -1), "stockholm.landmarks[0].points"),
    (lambda r: r["berlin"]["vp_pieces"]["B"].pop(), "berlin.vp_pieces"),
    (lambda r: r["new_york"].pop("colour_bonus"), "new_york.colour_bonus"),
    (lambda r: r.pop("source"), "source"),
    (lambda r: r["london"]["landmarks"][0].__setitem__("colour", 3), "london.landmarks[0].colour"),
])
def test_malformed_city_data_names_the_field(tmp_path, change, field):
    path = _data(tmp_path, change)
    with pytest.raises(DataError, match=f"field '{field}'".replace("[", r"\[").replace("]", r"\]")):
        metro_ai.load_game("metro", city="paris", city_data=str(path))


def test_city_data_file_that_is_not_json_or_missing(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        metro_ai.load_game("metro", city="london", city_data=str(bad))
    with pytest.raises(DataError, match="no such file"):
        metro_ai.load_game("metro", city="london", city_data=str(tmp_path / "none.json"))


def test_user_city_data_replaces_the_numbers(tmp_path):
    path = _data(tmp_path, lambda r: r["new_york"].update(tourist_points=5))
    game = metro_ai.load_game("metro", players=2, city="new_york", city_data=str(path))
    assert game.city_rules.data["tourist_points"] == 5
    assert game.state_options["city_data"] == str(path)


@pytest.mark.parametrize("city,change,words", [
    ("paris", lambda c: c["points"].__setitem__(0, 7), "points\\[0\\] is 7"),
    ("paris", lambda c: c.update(out=3), "32"),
    ("london", lambda c: c.update(taxi=8), "taxi"),
    ("stockholm", lambda c: c["markers"].__setitem__(c["markers"].index(None), 0), "marker"),
    ("new_york", lambda c: c["stations"].__setitem__(0, None), "4 of each"),
    ("berlin", lambda c: c["piles"][0].append(9), "VP pieces"),
    ("berlin", lambda c: c.pop("vp"), "fields"),
    ("berlin", lambda c: c["landmarks"].update({"A1": 0}), "diagonal"),
])
def test_malformed_city_state_is_a_state_format_error(city, change, words):
    game = metro_ai.load_game("metro", players=2, city=city)
    obj = game.new_state(1).to_dict()
    change(obj["city"])
    with pytest.raises(StateFormatError, match=words):
        game.state_from_json(json.dumps(obj))


def test_illegal_action_leaves_a_city_state_unchanged():
    game = metro_ai.load_game("metro", players=2, city="paris")
    s = game.new_state(1)
    before = s.to_json()
    with pytest.raises(ValueError):
        s.apply(27 * 4)           # a central square
    assert s.to_json() == before


@pytest.mark.parametrize("city", ["paris", "stockholm", "london", "new_york", "berlin"])
def test_every_bot_plays_every_city_legally_and_reproducibly(city):
    from metro_ai import Limit
    game = metro_ai.load_game("metro", players=3, city=city)
    s = game.new_state(3)
    rng = random.Random(3)
    while s.tiles_placed < 30 and s.pending() is None:
        s.apply(rng.choice(s.legal_actions()))
    for name in ("random", "greedy", "greedy-classic", "flat-mc", "pimc", "ismcts", "mo-ismcts"):
        picks = {metro_ai.make_bot(name, seed=1).choose(s, Limit(iterations=20)) for _ in range(2)}
        assert len(picks) == 1 and picks <= set(s.legal_actions()), name
