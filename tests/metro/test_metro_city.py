"""Scenario, loader and data tests of the City Edition modules C1-C3 (docs/rules/metro.md C1-C3,
decisions C12-C19): central stations (doubling or not at the centre, M6 for pieces, shown shares
with companies), central tracks (deal, no doubling, layout files), setup frames, the combination
the seed does not allow, and bad state JSON refused with a clear error."""
import json
import random

import pytest

import metro_ai
from metro_ai.engine.errors import DataError, StateFormatError
from metro_ai.engine.metro import data as metro_data

T01, T02 = 0, 1            # T01: four U-turns; T02: straight from port 0 down to port 5 (M2 data)
D1, D2, D3 = 3, 11, 19     # column D, rows 1-3; D3 faces central space 0 (C12)
CENTRAL = 6209


def _column_state(game, placed, hand1=None, pieces=None, seed=3):
    """A state of `game` (2 players) with T02 on the squares `placed` (taken from the supply),
    optionally player 1 holding `hand1`, pieces on spaces (C2), and the right player to move."""
    obj = game.new_state(seed).to_dict()
    supply = obj["supply"]
    for sq in placed:
        supply.remove("T02")
        obj["board"][sq // 8][sq % 8] = {"tile": "T02", "rotation": 0}
    if hand1 is not None:
        supply.remove(hand1)
        supply.append(obj["hands"][1][0])
        obj["hands"][1] = [hand1]
    turns = len(placed)
    if pieces:
        obj["central"]["spaces"] = [pieces.get(j) for j in range(8)]
        turns += len(pieces)
    obj["current_player"] = turns % 2
    for key in ("scores", "lines"):
        del obj[key]
    return game.state_from_json(json.dumps(obj))


@pytest.fixture(scope="module")
def central():
    return metro_ai.load_game("metro", players=2, central_stations=True)


def _seed_without_t02_in_hands(game):
    for seed in range(100):
        s = game.new_state(seed)
        if T02 not in s.hand(0) + s.hand(1):
            return seed
    raise AssertionError("no such seed")


def test_line_to_a_free_central_space_is_doubled(central):
    """M7, C2, C15: station 4 (D1, player 1's) runs down column D into the centre at space 0, which
    holds no piece: 3 tiles, doubled; the space is used and offered to nobody afterwards."""
    seed = _seed_without_t02_in_hands(central)
    s = _column_state(central, [D1, D2], hand1="T02", seed=seed)
    assert s.current_player == 0
    s.apply(next(a for a in s.legal_actions() if a < 6144))          # player 0 places elsewhere
    s.apply(T02 * 256 + D3 * 4)
    line = next(l for l in s.lines() if l["station"] == 4)
    assert (line["arrival"], line["central"], line["points"]) == (0, True, 6)
    assert not any((a - CENTRAL) & 7 == 0 for a in s.legal_actions() if a >= CENTRAL)   # space 0 used


def test_line_to_a_central_station_piece_scores_single(central):
    """C2, C15, C17: with player 0's piece on space 0 the same line ends at that central station
    (station 33) and scores 3; the piece's own line runs up column D to station 4's arrival."""
    seed = _seed_without_t02_in_hands(central)
    s = _column_state(central, [D1, D2], hand1="T02", seed=seed)
    assert CENTRAL + 0 in s.legal_actions()
    assert s.action_to_string(CENTRAL) == "central station at D3"
    assert s.string_to_action("central station at d3") == CENTRAL
    s.apply(CENTRAL + 0)
    assert s.central_pieces()[0] == 0
    assert CENTRAL + 0 not in s.legal_actions() and CENTRAL + 1 in s.legal_actions()   # player 1: other spaces
    s.apply(T02 * 256 + D3 * 4)
    lines = {l["station"]: l for l in s.lines()}
    assert (lines[4]["arrival"], lines[4]["central"], lines[4]["points"]) == (33, False, 3)
    assert (lines[33]["arrival"], lines[33]["owner"], lines[33]["points"]) == (4, 0, 3)
    assert s.scores() == [3, 3]
    assert s.current_player == 0 and not any(a >= CENTRAL for a in s.legal_actions())   # piece used


def test_one_tile_rule_guards_a_central_piece(central):
    """C14: T01 on D3 would lead the piece of space 0 straight back into the centre through one
    tile: not offered there (other squares are)."""
    seed = next(sd for sd in range(200) if T01 not in central.new_state(sd).hand(0) + central.new_state(sd).hand(1)
                and T02 not in central.new_state(sd).hand(0) + central.new_state(sd).hand(1))
    s = _column_state(central, [D1, D2], hand1="T01", pieces={0: 0}, seed=seed)
    assert s.current_player == 1
    legal = s.legal_actions()
    assert T01 * 256 + D3 * 4 not in legal
    assert any(a >> 8 == T01 for a in legal)
    with pytest.raises(metro_ai.IllegalActionError, match="one tile"):
        s.apply(T01 * 256 + D3 * 4)


def test_piece_only_instead_of_a_tile_turn(central):
    """C17: not after drawing (M4)."""
    s = central.new_state(5)
    s.apply(6144)
    assert not any(a >= CENTRAL for a in s.legal_actions())
    with pytest.raises(metro_ai.IllegalActionError, match="whole turn"):
        s.apply(CENTRAL + 2)


def test_companies_piece_shows_a_share():
    """C18: the piece is that of a company whose share the player shows; the share becomes public
    and can no longer be exchanged; it still counts in the final scoring."""
    g = metro_ai.load_game("metro", players=3, companies=True, central_stations=True)
    s = g.new_state(8)
    share = s.shares(0)[1]                       # the 20% share
    a = CENTRAL + 8 * share + 5
    assert a in s.legal_actions()
    assert s.action_to_string(a) == f"central station at D6 showing 20% (company {share >> 2})"
    assert s.string_to_action(s.action_to_string(a)) == a
    s.apply(a)
    assert s.shown(0) == [1] and s.central_pieces()[5] == share >> 2
    assert s.observation(2)["holdings"][0][1] == share          # public now (M18)
    for _ in range(2):
        s.apply(s.legal_actions()[0])
    ex = 6145 + 2 * share
    assert ex not in s.legal_actions()
    with pytest.raises(metro_ai.IllegalActionError, match="can no longer be exchanged"):
        s.apply(ex)
    assert all(not (b >= CENTRAL and (b - CENTRAL) >> 3 == share) for b in s.legal_actions())


def test_central_stations_and_tracks_do_not_combine():
    """C12: the centre holds spaces or tracks, not both: a clear error at load_game."""
    with pytest.raises(ValueError, match="cannot be combined"):
        metro_ai.load_game("metro", central_stations=True, central_tracks=True)
    with pytest.raises(ValueError, match="needs central_tracks"):
        metro_ai.load_game("metro", central_track_layouts="x.csv")


def test_bad_central_json_is_refused(central):
    """Loader: a piece on two spaces, a piece of no player, a missing field; the original state
    and its JSON are unchanged."""
    s = central.new_state(2)
    s.apply(CENTRAL + 3)
    text = s.to_json()
    for change, match in ((lambda o: o["central"]["spaces"].__setitem__(4, 0), "also on space"),
                          (lambda o: o["central"]["spaces"].__setitem__(4, 5), "a piece is a player"),
                          (lambda o: o.__delitem__("central"), "missing field 'central'"),
                          (lambda o: o["central"].__setitem__("spaces", [None] * 7), "8 central spaces")):
        obj = json.loads(text)
        change(obj)
        with pytest.raises(StateFormatError, match=match):
            central.state_from_json(json.dumps(obj))
    assert s.to_json() == text
    assert central.state_from_json(text).to_json() == text


def test_bad_companies_central_json_is_refused():
    """C18: a piece placed without its company's share shown, or a shown share kept secret."""
    g = metro_ai.load_game("metro", players=2, companies=True, central_stations=True)
    s = g.new_state(4)
    share = s.shares(0)[0]
    s.apply(CENTRAL + 8 * share + 2)
    text = s.to_json()
    obj = json.loads(text)
    obj["central"]["shown"][0] = []
    with pytest.raises(StateFormatError, match="shown shares"):
        g.state_from_json(json.dumps(obj))
    obj = json.loads(text)
    obj["central"]["spaces"][2] = (share >> 2 + 1) % 8 if (share >> 2) != 1 else 2
    with pytest.raises(StateFormatError):
        g.state_from_json(json.dumps(obj))
    assert g.state_from_json(text).to_json() == text


def test_central_tracks_deal_and_no_doubling():
    """C3, C13: 4 distinct pieces on the centre, the same for the same seed, in every rotation
    over seeds; the tile deal is the base game's; no line ever ends at the centre."""
    g = metro_ai.load_game("metro", players=3, central_tracks=True)
    base = metro_ai.load_game("metro", players=3)
    rots = set()
    for seed in range(30):
        s = g.new_state(seed)
        cells = [s.board()[sq] for sq in (27, 28, 35, 36)]
        assert len({k for k, _ in cells}) == 4 and all(24 <= k < 32 for k, _ in cells)
        rots |= {r for _, r in cells}
        assert s.supply() == base.new_state(seed).supply()
        assert g.new_state(seed).board() == s.board()
        r = random.Random(seed)
        while not s.is_terminal():
            s.apply(r.choice(s.legal_actions()))
        assert all(not l["central"] and l["arrival"] != 0 for l in s.lines())
    assert rots == {0, 1, 2, 3}
    assert "CT" in g.new_state(1).render()


def test_central_track_through_counts_as_tiles(tmp_path):
    """C3: with every piece straight through (a user's layout file), a line down column D passes
    D4 and D5 (2 central pieces) and leaves at the bottom: 8 tiles, single points."""
    f = tmp_path / "straight.csv"
    f.write_text("piece,exits\n" + "".join(f"CT{i},54761032\n" for i in range(1, 9)))
    g = metro_ai.load_game("metro", players=2, central_tracks=True, central_track_layouts=str(f))
    obj = g.new_state(1).to_dict()        # T02 and T08 both run straight from port 0 to port 5
    placed = 0
    for r, kind in zip((0, 1, 2, 5, 6, 7), ("T02", "T02", "T02", "T02", "T08", "T08")):
        (obj["hands"][0] if kind not in obj["supply"] else obj["supply"]).remove(kind)
        obj["board"][r][3] = {"tile": kind, "rotation": 0}
        placed += 1
    while len(obj["hands"][0]) < 1:
        obj["hands"][0].append(obj["supply"].pop(0))
    obj["current_player"] = placed % 2
    del obj["scores"], obj["lines"]
    s = g.state_from_json(json.dumps(obj))
    line = next(l for l in s.lines() if l["station"] == 4)
    assert (line["tiles"], line["central"], line["points"]) == (8, False, 8)


def test_malformed_layout_file_is_a_data_error(tmp_path):
    """C13: a layout file with a bad pairing, an odd-odd track, a missing piece or no file is a
    DataError naming the file and the fault."""
    cases = {"pair.csv": ("piece,exits\n" + "".join(f"CT{i},54761032\n" for i in range(1, 8)) + "CT8,55761032\n",
                          "pair.csv': line 9, column 'exits': not a pairing"),
             "parity.csv": ("piece,exits\nCT1,10325476\nCT2,21034567\n", "every track must join an even and an odd"),
             "short.csv": ("piece,exits\nCT1,54761032\n", "short.csv': pieces"),
             "name.csv": ("piece,exits\nCT9,54761032\n", "not one of CT1..CT8")}
    for name, (text, match) in cases.items():
        f = tmp_path / name
        f.write_text(text)
        with pytest.raises(DataError, match=match):
            metro_ai.load_game("metro", central_tracks=True, central_track_layouts=str(f))
    with pytest.raises(DataError, match="no such file"):
        metro_ai.load_game("metro", central_tracks=True, central_track_layouts=str(tmp_path / "none.csv"))


def test_shipped_layouts_are_the_reconstruction():
    """C13: the shipped file is the eight tile layouts without a turn back, in kind order."""
    data = metro_data.load()
    expected = [t.exits for t in data.tiles if all(
        (t.exits[2 * s] // 2) != s for s in range(4))][:8]
    assert list(metro_data.load_central_tracks()) == expected
    assert "RECONSTRUCTED" in metro_data.CENTRAL_TRACKS.read_text()


def test_city_frames():
    """C1, C19: 2, 4, 6 players as the base game's charts; 3 and 5 the first colours of the 4-
    and 6-player frames; the options appear in the state's envelope only when set."""
    for players, frame in ((2, 2), (3, 4), (4, 4), (5, 6), (6, 6)):
        g = metro_ai.load_game("metro", players=players, edition="city")
        base = metro_ai.load_game("metro", players=frame).owners
        assert g.owners == {p: base[p] for p in range(players)}
        assert g.new_state(0).to_dict()["options"]["edition"] == "city"
    assert "edition" not in metro_ai.load_game("metro", players=3).new_state(0).to_dict()["options"]
    assert "RECONSTRUCTED" in metro_data.CITY_FRAMES.read_text()
