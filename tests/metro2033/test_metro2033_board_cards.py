"""Metro 2033 board game: the map (board.py, G6, G11, G12) and the card set (cards.py, G1, G3, G4,
G17, G21): the shipped data, the G11 attack paths of the rulebook, and the validator's errors."""
import copy
import json

import pytest

from metro_ai.engine.metro2033 import cards as cardmod
from metro_ai.engine.metro2033.board import BOARD, FACTION_ZONES
from metro_ai.engine.metro2033.cards import CardSetError, load_card_set, parse_card_set


def _owner(**held):
    owner = [None] * BOARD.n
    for name, p in held.items():
        owner[BOARD.station(name)] = p
    return owner


def _names(idx):
    return {BOARD.names[i] for i in idx}


def test_map_counts_match_the_rulebook():
    # G1: 78 stations, 69 tunnels, 42 transfers; 4 Polis stations; six faction zones
    kinds = [k for _, _, k in BOARD.link_list]
    assert BOARD.n == 78 and kinds.count("tunnel") == 69 and kinds.count("transfer") == 42
    assert _names(BOARD.polis) == {"borovitskaya", "biblioteka", "aleks_sad", "arbatskaya_purple"}
    assert set(BOARD.zones) == set(FACTION_ZONES) | {"polis"}


def test_package_carries_its_own_map_copy():
    from metro_ai.engine.metro2033 import board
    assert (board.DATA / "metro2033_stations.csv").is_file()
    assert "shared" not in str(board.DATA)


def test_g11_chekhovskaya_reaches_ploshchad_revolyutsii_through_polis():
    owner = _owner(chehovskaya=0)
    assert "ploshad_revolutsii" in _names(BOARD.army_targets(owner, 0))
    # with the Polis stations held by another player, the passage closes (G11: neutral Polis only)
    for polis in ("borovitskaya", "arbatskaya_purple"):
        blocked = _owner(chehovskaya=0, **{polis: 1})
        assert "ploshad_revolutsii" not in _names(BOARD.army_targets(blocked, 0))


def test_g11_marksistskaya_reaches_paveletskaya_through_hansa_not_serpukhovskaya():
    targets = _names(BOARD.army_targets(_owner(marksistskaya=0), 0))
    assert "paveletskaya_green" in targets
    assert "serpuhovskaya_grey" not in targets      # a second Hansa tunnel would be needed
    assert not any(BOARD.kind[BOARD.station(t)] in ("hansa", "abandoned") for t in targets)


def test_g11_held_stations_are_not_passed_and_closed_zones_not_entered():
    owner = _owner(marksistskaya=0, taganskaya_H=None, taganskaya_pink=1)
    targets = _names(BOARD.army_targets(owner, 0))
    assert "taganskaya_pink" in targets        # an enemy station is attacked ...
    assert "proletarskaya" not in targets      # ... and abandoned stations never
    closed = _names(BOARD.army_targets(_owner(marksistskaya=0), 0, closed_zones={"bandits"}))
    assert "paveletskaya_green" not in closed and "tretyakovskaya_yellow" not in closed


def test_g12_hero_reach_counts_links_and_crosses_abandoned_stations():
    start = BOARD.station("marksistskaya")
    assert BOARD.hero_reach(start, 0) == [start]
    one = _names(BOARD.hero_reach(start, 1))
    assert one == {"marksistskaya"} | {BOARD.names[j] for j, _ in BOARD.links[start]}
    two = _names(BOARD.hero_reach(start, 2))
    assert "ploshyad_illicha" in one and BOARD.kind[BOARD.station("ploshyad_illicha")] == "abandoned"
    beyond = {BOARD.names[j] for j, _ in BOARD.links[BOARD.station("ploshyad_illicha")]}
    assert beyond <= two


def test_g6_zone_borders_connect_all_factions():
    seen, todo = {FACTION_ZONES[0]}, [FACTION_ZONES[0]]
    while todo:
        z = todo.pop()
        for b in BOARD.borders[z] - {"polis"} - seen:
            seen.add(b)
            todo.append(b)
    assert seen == set(FACTION_ZONES)


def test_shipped_card_set_has_rulebook_counts_and_facts():
    cs = load_card_set()
    assert cs.counts() == cardmod.RULEBOOK_COUNTS
    by = {c["name"]: c for c in cs.kinds}
    conf = by["Confederation of 1905"]
    assert conf["home"] == ["barricadnaya_pink", "ulitsa_1905_goda", "beregovaya"]          # G3
    assert {"effect": "votes", "amount": 3} in conf["effects"] and {"effect": "law_peek"} in conf["effects"]
    assert {"effect": "win_vp", "amount": 9} in by["Red Line"]["effects"]
    assert {"effect": "wins_ties", "who": "hero", "when": "attack"} in by["Bauman Alliance"]["effects"]
    assert {"effect": "wins_ties", "who": "army", "when": "defence"} in by["Bandits"]["effects"]
    assert {"effect": "threat_choice"} in by["Artyom"]["effects"]                            # G4
    assert by["AKM"]["effects"][0] == {"effect": "strength", "amount": 1}                     # G17
    assert by["Ambush in the tunnels"]["effects"] == [
        {"effect": "strength", "amount": 1}, {"effect": "strength", "amount": 3, "vs": "attack"}]  # G21
    assert by["Counter-attack"]["combat_type"] == "defence"
    assert {"effect": "strength", "amount": 0, "vs": "defence"} in by["Stubborn defence"]["effects"]
    for k in cs.kinds:
        assert k["source"] in ("rulebook", "reconstructed")
        if k["source"] == "rulebook":
            assert "reconstructed" in k.get("notes", "") or k["name"] == "Counter-attack"
    assert sum(1 for c in cs.cards if c["type"] == "threat" and c["stage"] == 1) == 18


def _doc():
    return json.loads(cardmod.DEFAULT_PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["cards"][0].__setitem__("zone", "atlantis"), "card 0: field 'zone'"),
    (lambda d: d["cards"][0].__setitem__("home", ["aeroport", "dynamo", "savelovskaya"]), "field 'home'"),
    (lambda d: d["cards"][6].__setitem__("speed", -1), "card 6: field 'speed'"),
    (lambda d: d["cards"][12].__setitem__("threat_type", "mental"), "field 'threat_type': not one of the allowed values"),
    (lambda d: d["cards"][12]["reward"].append({"effect": "votes", "amount": 1}), "an effect not allowed here"),
    (lambda d: d["cards"][48]["effects"].append({"effect": "strength"}), "field 'effects': effect 2"),
    (lambda d: d["cards"][48]["effects"].append({"effect": "strength", "amount": 1, "vs": "attack"}),
     "field 'effects': effect 2: not one of the allowed values"),
    (lambda d: d["cards"][66].__setitem__("condition", {"condition": "stations"}), "field 'condition'"),
    (lambda d: d["cards"][91].pop("combat_type"), "field 'combat_type': missing"),
    (lambda d: d["cards"][91].__setitem__("colour", "red"), "field '(card)': an unknown field"),
    (lambda d: d["cards"][1].__setitem__("name", "Confederation of 1905"), "field 'name': repeats card 0"),
    (lambda d: d["cards"].pop(), "6 combat cards, the rulebook has 7"),
    (lambda d: d.__setitem__("schema_version", 2), "schema_version"),
])
def test_validator_names_card_and_field(edit, message):
    doc = _doc()
    edit(doc)
    with pytest.raises(CardSetError) as info:
        parse_card_set(doc)
    assert message in str(info.value)


def test_experimental_sets_and_user_files(tmp_path):
    doc = _doc()
    doc["cards"] = [c for c in doc["cards"] if c["name"] not in ("Shrimp", "Revolver")]
    with pytest.raises(CardSetError, match="35 threat cards"):
        parse_card_set(copy.deepcopy(doc))
    assert parse_card_set(doc, strict_counts=False).counts()["equipment"] == 17
    heroes = copy.deepcopy(doc)
    heroes["cards"].append({**[c for c in doc["cards"] if c["type"] == "hero"][0], "name": "Seventh"})
    with pytest.raises(CardSetError, match="at most 6"):
        parse_card_set(heroes, strict_counts=False)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc))
    assert load_card_set(path, strict_counts=False).counts()["threat"] == 35
    path.write_text("{not json")
    with pytest.raises(CardSetError, match="not valid JSON at line 1, column 2"):
        load_card_set(path)
    with pytest.raises(CardSetError, match="no such file"):
        load_card_set(tmp_path / "missing.json")


@pytest.mark.parametrize("content, message", [
    (b'{\n"schema_version": "\xff\xfe"}', "not UTF-8 text (byte 21, line 2)"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"cards": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
])
def test_a_card_file_not_utf8_or_nested_too_deeply_is_a_data_error_naming_it(tmp_path, content, message):
    # the one reader (metro_ai.engine.datafile) for the game, its reference engine and load_card_set
    import metro_ai
    from metro_ai.engine.errors import DataError
    from metro_ai.engine.metro2033.reference import RefMetro2033Game
    path = tmp_path / "deep.json"
    path.write_bytes(content)
    for load in (lambda: metro_ai.load_game("metro2033", players=3, cards=str(path)),
                 lambda: RefMetro2033Game(players=3, cards=str(path)), lambda: load_card_set(path)):
        with pytest.raises(DataError) as info:
            load()
        assert f"card set {str(path)!r}: " in str(info.value) and message in str(info.value)


@pytest.mark.parametrize("card, field, value", [
    (0, "home", [["aeroport"], ["dynamo"], ["savelovskaya"]]),    # lists where station names go
    (66, "condition", {"condition": ["stations"], "count": 1}),
    (66, "condition", {"condition": {"stations": 1}, "count": 1}),
])
def test_a_card_field_of_the_wrong_kind_is_a_data_error_naming_file_and_line(tmp_path, card, field, value):
    doc = _doc()
    doc["cards"][card][field] = value
    with pytest.raises(CardSetError, match=f"card {card}: field {field!r}"):
        parse_card_set(copy.deepcopy(doc))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc, indent=1))
    with pytest.raises(CardSetError, match=rf"card set '.*mine.json': line \d+, column \d+: card {card}: field"):
        load_card_set(path)
