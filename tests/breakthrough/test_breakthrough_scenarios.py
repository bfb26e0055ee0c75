"""The rulebook's examples, played on the Cython engine and on the reference side by side.

tests/breakthrough/test_breakthrough_reference.py checks each example's outcome on the reference engine in
detail (costs, tokens, discards, who decides). Here the same positions are built in both engines
and the same actions, given as rulebook text, are applied: after every action the full states
(hidden parts included) and the legal actions must be identical, so the Cython engine reproduces
every outcome checked there. Each scenario then goes on for 40 seeded random actions.
"""
import random

import pytest

import metro_ai
from breakthrough_positions import setup
from metro_ai.engine.breakthrough import reference as ref
from test_breakthrough_differential import _same_full

H1 = ["Homemade Cartridges"] * 5

SCENARIOS = {
    "komsomolskaya discounts and free food (B4, B5)": (
        dict(players=2),
        dict(hands=[["Pork", "Chistye Prudy", "Rat Meat", "Knife", "Tea"], H1],
             tableaux=[["Komsomolskaya", "Mushrooms", "Pork", "Rat Meat", "Tea"], []], above=[5, 5]),
        ["complete quest: Komsomolskaya", "pay with Rat Meat", "keep the station", "play Pork as resource (free)"]),
    "fourth reich free equipment": (
        dict(players=2, factions=["Fourth Reich", "Hansa"]),
        dict(hands=[["Backpack", "Uniform", "Knife", "Tea", "Pork"], H1], factions=["Fourth Reich", "Hansa"],
             tableaux=[["Kalashnikov", "Kalashnikov", "Uniform", "Water Filter"], []], above=[2, 5], below=[3, 0]),
        ["complete quest: Fourth Reich", "play Backpack as resource (free)"]),
    "hunter doubles equipment for paveletskaya": (
        dict(players=2),
        dict(hands=[["Hunter", "Knife", "Tea", "Pork", "Rat Meat"], H1],
             tableaux=[["Uniform", "Backpack", "Paveletskaya"], []], above=[4, 5], below=[1, 0]),
        ["play Hunter as hero (cost 3)", "take the top card of the deck", "complete quest: Paveletskaya",
         "complete the quest with hero Hunter", "keep the station"]),
    "second and third station tokens (B5)": (
        dict(players=2),
        dict(hands=[["Knife"] * 5, H1],
             tableaux=[[{"card": "Sokolniki", "tokens": 1}, "Komsomolskaya", "Mayakovskaya", "Pork", "Rat Meat",
                        "Mushrooms", "Water Filter", "Medicine"], []], above=[5, 5], below=[1, 0]),
        ["complete quest: Komsomolskaya", "pay with Water Filter", "pay with Pork", "keep the station",
         "complete quest: Mayakovskaya", "keep the station", "clean up Mayakovskaya with 3 tokens"]),
    "extra-token station and the win at 10 (B5, B8)": (
        dict(players=3),
        dict(hands=[["Water Filter"] * 5, H1, ["Tea"] * 4 + ["Caldron"]],
             tableaux=[["Arbatskaya", "Flamethrower", "Ammunition Crate"], ["Kitay-Gorod", "Pork", "Ammunition Crate"], []],
             above=[3, 8, 5], below=[5, 0, 0]),
        ["complete quest: Arbatskaya"]),
    "military caravan with two bonus players (B6)": (
        dict(players=2),
        dict(hands=[["Military Caravan", "Knife", "Tea", "Pork", "Rat Meat"], H1],
             tableaux=[["Sokolniki", "Komsomolskaya"], ["Kiyevskaya"]], above=[0, 3], below=[8, 2],
             market=["Pork", "Tea", "Caldron"], deck_top=["Shrimp", "Rats", "Spider", "Medicine"]),
        ["discard Military Caravan (move up 5)"]),
    "giant amoeba against three players (B7)": (
        dict(players=3),
        dict(hands=[["Giant Amoeba", "Pork", "Knife", "Tea", "Kalashnikov"],
                    ["Mushrooms", "Knife", "Tea", "Pork", "Rat Meat"],
                    ["Uniform", "Knife", "Tea", "Pork", "Rat Meat"]],
             tableaux=[[{"card": "Caldron", "rotated": True}],
                       [{"card": "Backpack", "rotated": True}, {"card": "Rat Meat", "rotated": True},
                        {"card": "Komsomolskaya", "tokens": 1}, "VDNKh", "Mushrooms"],
                       [{"card": "Nosalis", "rotated": True}, "Water Filter"]],
             above=[0, 2, 1], below=[6, 2, 4]),
        ["discard Giant Amoeba as monster (move up 5)", "protect with Caldron", "play Pork as resource (free)",
         "lose station Komsomolskaya with 1 token", "protect with Nosalis", "play Uniform as resource (free)",
         "take the top card of the deck", "take the top card of the deck", "take the top card of the deck"]),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_rulebook_example_on_both_engines(name):
    options, position, texts = SCENARIOS[name]
    fast = setup(metro_ai.load_game("breakthrough", **options), **position)
    slow = ref.RefBreakthroughGame(**options).setup(**position)
    _same_full(fast, slow, (name, "set-up"))
    for i, text in enumerate(texts):
        assert fast.legal_actions() == slow.legal_actions(), (name, i)
        a = fast.string_to_action(text)
        assert a == slow.string_to_action(text), (name, text)
        fast.apply(a)
        slow.apply(a)
        _same_full(fast, slow, (name, text))
    rng = random.Random(name)
    for step in range(40):
        if fast.is_terminal():
            break
        acts = fast.legal_actions()
        assert acts == slow.legal_actions(), (name, "random", step)
        a = rng.choice(acts)
        fast.apply(a)
        slow.apply(a)
        _same_full(fast, slow, (name, "random", step))
    assert fast.scores() == slow.scores() and fast.returns() == slow.returns()
