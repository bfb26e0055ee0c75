"""Leduc poker (docs/rules/leduc.md, L1-L8): rules scenarios, the JSON loader, and the Cython
engine against the pure-Python reference engine (runs without OpenSpiel; the comparison with
OpenSpiel itself is tests/leduc/test_leduc_openspiel.py)."""
from __future__ import annotations

import random

import pytest

import metro_ai
from metro_ai.engine.leduc.reference import RefLeducGame

FOLD, CALL, RAISE = 0, 1, 2


def game(players=2):
    return metro_ai.load_game("leduc", players=players)


def play(state, actions):
    for a in actions:
        state.apply(a)
    return state


def test_listed_apart_from_the_metro_family():
    cls = type(game())
    assert cls.family == "benchmark" and cls.describe()["family"] == "benchmark"
    assert metro_ai.list_games(family="benchmark") == ["leduc"]
    assert "leduc" not in metro_ai.list_games(family="metro")


def test_deck_and_card_names():
    """L2: two suits of players + 1 ranks, numbered as in OpenSpiel (rank card // 2)."""
    assert game().card_names == ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
    assert game(3).card_names[:2] == ("Ts", "Th") and game(8).num_cards == 18
    assert game().card_index("kh") == 5
    with pytest.raises(ValueError, match="unknown card"):
        game().card_index("As")


def test_antes_raises_and_the_raise_cap():
    """L3, L5: ante 1; raises of 2 then 4; at most two raises a round; fold only facing a bet."""
    s = game().deal([0, 4], 2)
    assert s.pot == 2 and s.legal_actions() == [CALL, RAISE]
    play(s, [RAISE, RAISE])
    assert s.legal_actions() == [FOLD, CALL] and s.pot == 8
    play(s, [CALL])
    assert s.round == 2 and s.public_card == 2 and s.current_player == 0 and s.pot == 10
    play(s, [RAISE, RAISE])
    assert s.pot == 10 + 4 + 8 and s.legal_actions() == [FOLD, CALL]
    play(s, [CALL])
    assert s.is_terminal() and s.scores() == [-13, 13]          # K beats J (L7)
    assert s.returns() == [0.0, 1.0]


def test_pair_beats_a_higher_card_and_ties_share():
    """L7: a pair with the public card wins; equal ranks split the pot."""
    s = play(game().deal([0, 4], 1), [CALL, CALL, CALL, CALL])
    assert s.scores() == [1, -1]
    s = play(game().deal([0, 1], 4), [RAISE, CALL, CALL, CALL])
    assert s.scores() == [0, 0] and s.returns() == [0.5, 0.5]


def test_fold_ends_the_hand_and_hides_the_public_card():
    """L6, L7: the last player in takes the pot; the public card is never shown."""
    s = play(game().deal([0, 4], 2), [RAISE, FOLD])
    assert s.is_terminal() and s.scores() == [1, -1] and s.public_card is None
    assert s.observation(0)["public_card"] is None and s.observation(0)["cards"] == ["Js", None]


def test_three_players_round_ends_and_second_round_order():
    """L5, L6: after a raise every player still in answers; round 2 starts with the first
    player still in from player 0."""
    s = play(game(3).deal([0, 2, 4], 6), [CALL, RAISE, CALL, FOLD])
    assert s.round == 2 and s.current_player == 1
    s = play(game(3).deal([0, 2, 4], 6), [RAISE, RAISE, CALL])
    assert s.round == 1 and s.current_player == 0 and s.legal_actions() == [FOLD, CALL]


def test_showdown_shows_the_cards_still_in():
    """L8: at a showdown the cards of the players still in are seen, and determinize keeps them."""
    s = play(game(3).deal([0, 2, 4], 6), [RAISE, FOLD, CALL, CALL, CALL])
    assert s.is_terminal()
    assert s.observation(2)["cards"] == ["Ts", None, "Qs"]
    for seed in range(10):
        d = s.determinize(2, seed)
        assert d.card(0) == 0 and d.card(2) == 4 and d.scores() == s.scores()


def test_illegal_actions_say_why():
    s = game().new_state(1)
    with pytest.raises(metro_ai.IllegalActionError, match="no bet to fold"):
        s.apply(FOLD)
    play(s, [RAISE, RAISE])
    with pytest.raises(metro_ai.IllegalActionError, match="two raises"):
        s.apply(RAISE)


def test_loader_replays_and_checks_the_history():
    s = play(game().new_state(4), [RAISE, CALL, CALL])
    obj = s.to_dict()
    assert game().state_from_json(obj) == s
    for change, message in ((("history", [["raise", "call", "call"], []]), "round 1 is over"),
                            (("history", [["fold"], []]), "not legal"),
                            (("cards", ["Js", "Js"]), "dealt twice"),
                            (("cards", ["As", "Js"]), "unknown card"),
                            (("current_player", 0), "does not match")):
        bad = dict(obj)
        bad[change[0]] = change[1]
        with pytest.raises(metro_ai.StateFormatError, match=message):
            game().state_from_json(bad)
    with pytest.raises(ValueError, match="dealt twice"):
        game().deal([1, 1], 2)


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_same_seeds_same_hands_as_the_reference_engine(players):
    ours, ref = game(players), RefLeducGame(players)
    for seed in range(300):
        a, b = ours.new_state(seed), ref.new_state(seed)
        assert [a.card(p) for p in range(players)] == b.cards
        assert a.to_dict()["public_card"] == ours.card_names[b.public_card]
        rng = random.Random(seed)
        while True:
            assert a.legal_actions() == b.legal_actions() and a.current_player == b.current_player
            assert a.scores() == b.scores() and a.returns() == b.returns()
            if a.is_terminal():
                assert b.is_terminal()
                break
            act = rng.choice(a.legal_actions())
            a.apply(act)
            b.apply(act)
            assert a.history() == b.history
