"""Leduc poker against OpenSpiel's own ``leduc_poker`` (extra ``openspiel``; skipped without it).

Random hands are played in both engines with the same chance outcomes (OpenSpiel's deal, card
by card, becomes our ``LeducGame.deal``) and the same actions; after every step the legal
actions, the player to move, the end of the hand and the returns must agree (OpenSpiel's
returns are chips: our ``scores()`` at the end, and our ``returns()`` mapped back). Along the
way every (player, our observation) is paired with OpenSpiel's ``information_state_string``:
two of our states a player cannot tell apart are two OpenSpiel states with the same
information state, and, before the end of the hand, the other way round (at a showdown we show
the cards of the players still in, as at a card table, where OpenSpiel's information state
shows only the chips paid out).
"""
from __future__ import annotations

import json
import random

import pytest

import metro_ai

pyspiel = pytest.importorskip("pyspiel")

#: Random hands per player count (2 players: the game the benchmarks use).
HANDS = {2: 1500, 3: 400, 4: 200, 8: 100}


def _our_returns_in_chips(state):
    scale = 2 * state.game.max_win
    return [(r - 0.5) * scale for r in state.returns()]


def play_both(players, seed, obs_to_info, info_to_obs):
    """One random hand (``random.Random(seed)``) in both engines, compared after every step."""
    rng = random.Random(seed)
    game = metro_ai.load_game("leduc", players=players)
    theirs = pyspiel.load_game(game.openspiel_game, game.openspiel_parameters()).new_initial_state()
    cards = []
    while theirs.is_chance_node() and len(cards) < players:
        outcomes = [c for c, _ in theirs.chance_outcomes()]
        cards.append(rng.choice(outcomes))
        theirs.apply_action(cards[-1])
    # OpenSpiel deals the public card only when round 1 ends: draw it now from what is left, so
    # both engines hold the same card; it is checked against OpenSpiel's outcomes when dealt.
    public = rng.choice([c for c in range(game.num_cards) if c not in cards])
    ours = game.deal(cards, public)
    steps = 0

    def compare():
        assert theirs.is_terminal() == ours.is_terminal()
        assert theirs.history() == game.openspiel_history(ours)
        if ours.is_terminal():
            assert theirs.returns() == ours.scores()
            assert theirs.returns() == pytest.approx(_our_returns_in_chips(ours))
            assert sum(ours.returns()) == pytest.approx(players / 2)
        else:
            assert theirs.current_player() == ours.current_player
            assert theirs.legal_actions() == ours.legal_actions()
        for p in range(players):
            obs = json.dumps(ours.observation(p), sort_keys=True)
            info = theirs.information_state_string(p)
            assert obs_to_info.setdefault((p, obs), info) == info, "one observation, two information states"
            if not ours.is_terminal():
                assert info_to_obs.setdefault((p, info), obs) == obs, "one information state, two observations"

    compare()
    while not ours.is_terminal():
        action = rng.choice(ours.legal_actions())
        ours.apply(action)
        theirs.apply_action(action)
        steps += 1
        if theirs.is_chance_node():
            assert public in [c for c, _ in theirs.chance_outcomes()]
            assert ours.round == 2
            theirs.apply_action(public)
        compare()
    return steps


@pytest.mark.parametrize("players", sorted(HANDS))
def test_random_hands_agree_with_openspiel(players):
    obs_to_info, info_to_obs = {}, {}
    steps = [play_both(players, seed, obs_to_info, info_to_obs) for seed in range(HANDS[players])]
    game = metro_ai.load_game("leduc", players=players)
    assert max(steps) <= game.max_game_length
    assert len(info_to_obs) > 100 * players
    # the hands reached both rounds, showdowns and folds
    assert len(set(steps)) > 3


def test_the_game_and_its_parameters_are_openspiels():
    game = metro_ai.load_game("leduc")
    theirs = pyspiel.load_game(game.openspiel_game, game.openspiel_parameters())
    assert theirs.get_parameters() == {"action_mapping": False, "players": 2, "starting_player": 0,
                                       "suit_isomorphism": False}
    assert theirs.num_distinct_actions() == game.num_distinct_actions
    assert theirs.max_game_length() == game.max_game_length
    for players in (2, 3, 8):
        g = metro_ai.load_game("leduc", players=players)
        t = pyspiel.load_game("leduc_poker", {"players": players})
        assert (t.max_utility(), t.max_game_length(), t.max_chance_outcomes()) == \
            (g.max_win, g.max_game_length, g.num_cards)


def test_determinize_deals_what_openspiel_resamples():
    """A determinisation keeps the player's information state: the OpenSpiel state built from it
    has the same information_state_string, and every unseen card turns up."""
    game = metro_ai.load_game("leduc")
    their_game = pyspiel.load_game("leduc_poker")
    s = game.deal([0, 4], 2)
    s.apply(2)
    seen = set()
    for seed in range(60):
        d = s.determinize(0, seed)
        t = their_game.new_initial_state()
        for c in (d.card(0), d.card(1)):
            t.apply_action(c)
        t.apply_action(2)
        assert t.information_state_string(0) == "[Observer: 0][Private: 0][Round 1][Player: 1][Pot: 4]" \
                                                "[Money: 97 99][Round1: 2][Round2: ]"
        seen.add(d.card(1))
    assert seen == {1, 2, 3, 4, 5}
