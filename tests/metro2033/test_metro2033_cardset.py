"""The card compiler of Metro 2033's fast engine (engine/metro2033/cardset.pyx): its strength rule
(``m33_strength_bonus``, written from G35 with G17, G21 and G26, not from the reference engine)
on the rulebook's examples, on a card file that names fighters and sides, and against the
reference engine's ``strength_bonus`` on every card of the shipped set and every fight it may ask
about (two readings of one rule: a difference is a misreading of one of them)."""
import itertools
import json

import pytest

from metro_ai.engine.metro2033.cardset import CardTables
from metro_ai.engine.metro2033.cards import DEFAULT_PATH, load_card_set
from metro_ai.engine.metro2033.reference import strength_bonus

CARD_SET = load_card_set(None)
TABLES = CardTables(CARD_SET)
ID = {c["name"]: i for i, c in enumerate(CARD_SET.cards)}


def bonus(name, **ask):
    return TABLES.strength(ID[name], **ask)


def test_equipment_against_a_threat_type_replaces_the_plain_bonus():
    # G17: "AKM: strength +1, or +2 against one threat type" (+2, not 1 + 2)
    assert bonus("AKM", who="hero", when="attack") == 1
    assert bonus("AKM", who="hero", when="attack", vs="physical") == 2
    assert bonus("AKM", who="hero", when="defence", vs="biological") == 1
    # a card with only entries against threat types adds nothing against the others
    assert bonus("Medkit", who="hero", when="attack", vs="physical") == 0
    assert bonus("Medkit", who="hero", when="attack", vs="radiation") == 1
    assert bonus("Flamethrower", who="hero", when="defence", vs="biological") == 3


def test_combat_cards_as_in_the_g21_example():
    # G21, G36: Ambush +1, or +3 against an attack card; Counter-attack +2; Stubborn defence +0
    # against a defence card
    assert bonus("Ambush in the tunnels", vs="defence") == 1
    assert bonus("Ambush in the tunnels", vs="attack") == 3
    assert bonus("Counter-attack", vs="attack") == 2
    assert bonus("Stubborn defence", vs="attack") == 2
    assert bonus("Stubborn defence", vs="defence") == 0


def test_faction_and_law_bonuses_count_for_their_fighter_and_side_only():
    # G26: the Fourth Reich's armies attack at +1; Militia: armies defend at +1; Martial law: armies
    assert bonus("Fourth Reich", who="army", when="attack") == 1
    assert bonus("Fourth Reich", who="army", when="defence") == 0
    assert bonus("Fourth Reich", who="hero", when="attack") == 0
    assert bonus("Militia", who="army", when="defence") == 1
    assert bonus("Militia", who="army", when="attack") == 0
    assert bonus("Martial law", who="army", when="attack") == bonus("Martial law", who="army", when="defence") == 1
    assert bonus("Martial law", who="hero", when="attack") == 0


def test_bonuses_add_up_and_a_matching_entry_set_replaces_the_plain_set(tmp_path):
    # G35 on a card file of its own: several plain entries add up; every entry against the
    # opponent's type adds up in their place
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    for card in data["cards"]:
        if card["name"] == "AKM":
            card["effects"] = [{"effect": "strength", "amount": 1}, {"effect": "strength", "amount": 2},
                               {"effect": "strength", "amount": 4, "vs": "physical"},
                               {"effect": "strength", "amount": 1, "vs": "physical", "when": "defence"}]
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data))
    tables = CardTables(load_card_set(path))
    akm = [c["name"] for c in tables_cards(path)].index("AKM")
    assert tables.strength(akm, who="hero", when="attack") == 3
    assert tables.strength(akm, who="hero", when="attack", vs="physical") == 4
    assert tables.strength(akm, who="hero", when="defence", vs="physical") == 5


def tables_cards(path):
    return load_card_set(path).cards


def test_the_two_readings_agree_on_every_shipped_card():
    threat, combat = ("physical", "biological", "radiation"), ("attack", "defence", "manoeuvre")
    checked = 0
    for i, card in enumerate(CARD_SET.cards):
        kinds = combat if card["type"] == "combat" else threat
        for who, when, vs in itertools.product((None, "army", "hero"), (None, "attack", "defence"),
                                               (None,) + kinds):
            mine = TABLES.strength(i, who=who, when=when, vs=vs)
            assert mine == strength_bonus(card.get("effects", []), vs=vs, who=who, when=when), \
                (card["name"], who, when, vs)
            checked += 1
    assert checked > 1000


def test_a_card_out_of_range_is_refused():
    with pytest.raises(ValueError, match="card must be"):
        TABLES.strength(len(CARD_SET.cards))
    with pytest.raises(ValueError):
        TABLES.strength(ID["AKM"], who="dog")


def test_the_measurement_card_file_changes_only_the_reichs_reconstructed_advantages(tmp_path, capsys):
    """#44: benches/metro2033_measurement_cards.py writes the shipped cards with the Fourth Reich's
    reconstructed starting bonus made one bullets resource and its property taken away, nothing
    else; the loader takes it (rulebook counts kept) and a game is dealt from it."""
    import json

    import metro_ai
    from metro_ai.engine.metro2033.cards import DEFAULT_PATH
    from tests.bench_scripts import bench_script
    script = bench_script("metro2033_measurement_cards")
    out = tmp_path / "cards.json"
    assert script.main([str(out)]) == 0 and "written" in capsys.readouterr().out
    shipped = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))["cards"]
    written = json.loads(out.read_text(encoding="utf-8"))["cards"]
    differ = [(a, b) for a, b in zip(shipped, written) if a != b]
    assert len(shipped) == len(written) and len(differ) == 1
    before, after = differ[0]
    assert before["name"] == after["name"] == "Fourth Reich"
    assert before["start_bonus"] == [{"effect": "army", "amount": 1}] and before["effects"]
    assert after["start_bonus"] == [{"effect": "resource", "resource": "bullets", "amount": 1}] and after["effects"] == []
    assert {k: v for k, v in before.items() if k not in ("start_bonus", "effects", "notes")} == \
        {k: v for k, v in after.items() if k not in ("start_bonus", "effects", "notes")}
    state = metro_ai.load_game("metro2033", players=2, cards=str(out)).new_state(1)
    assert not state.is_terminal()
