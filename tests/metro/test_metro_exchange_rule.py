"""The printed exchange rule of the Metro companies expansion (M17) and its turn limit (M20).

The Metro companies expansion rules, "Exchange one share": shares can be exchanged "only as long
as the first scoring marker of any Metro company has not reached or exceeded the 25 points
space", with no other limit. ``exchange_limit=None`` plays that rule; ``turn_limit`` (an addition,
default 60 + 30 per player) ends such a game, ranked by the final scoring (M14, M19). The default
``exchange_limit=8`` stays this project's cap, its games unchanged. Scenarios, option errors, the
loader, and differential runs of the fast engines against the references (plain companies,
central stations with companies, New York with companies).
"""
import json
import random

import pytest

import metro_ai
from differential import favour, lockstep
from metro_ai import IllegalActionError
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.metro import reference_cities, reference_city, reference_companies as ref

from test_metro_cities_differential import _same as _same_city
from test_metro_city_differential import _same as _same_central, _same_board
from test_metro_companies_differential import _same
from test_metro_differential import _same_hidden
from tiers import each_value, tiered

EXCHANGE = 6145
DRAW = 6144


def game(players=2, **options):
    return metro_ai.load_game("metro", players=players, companies=True, exchange_limit=None, **options)


def ex(share, src):
    return EXCHANGE + 2 * share + src


def _ranks(scores):
    n = len(scores)
    return [(sum(x < s for x in scores) + 0.5 * (sum(x == s for x in scores) - 1)) / (n - 1) for s in scores]


# ---- options (M17, M20) ----

def test_the_printed_rule_is_exchange_limit_none_and_the_defaults_are_unchanged():
    g = game(3)
    assert g.exchange_limit is None and g.turn_limit == 60 + 30 * 3
    assert g.max_game_length == g.turn_limit + 60        # a placement turn: at most a draw and a tile
    assert game(2, turn_limit=75).turn_limit == 75
    assert game(2, turn_limit=30).max_game_length == 60
    capped = metro_ai.load_game("metro", players=3, companies=True)
    assert capped.exchange_limit == 8 and capped.turn_limit is None
    assert capped.max_game_length == 2 * 60 + 3 * 8
    assert metro_ai.load_game("metro", players=3).turn_limit is None
    cls = metro_ai.registry.game_class("metro")
    words = cls.option("exchange_limit").description
    assert "None is the printed rule (M17)" in words and "this project's cap" in words
    assert "this project's addition" in cls.option("turn_limit").description
    assert {"players": 2, "companies": True, "exchange_limit": None} in cls.option_sets()


def test_option_errors_name_the_option_and_the_rule():
    with pytest.raises(ValueError, match=r"'exchange_limit' needs companies=True \(M11\)"):
        metro_ai.load_game("metro", players=2, exchange_limit=None)
    with pytest.raises(ValueError, match=r"'turn_limit' needs companies=True \(M11\)"):
        metro_ai.load_game("metro", players=2, turn_limit=100)
    with pytest.raises(ValueError, match=r"'turn_limit' needs exchange_limit=None \(M20\)"):
        metro_ai.load_game("metro", players=2, companies=True, turn_limit=100)
    with pytest.raises(ValueError, match=r"'turn_limit' needs exchange_limit=None \(M20\)"):
        metro_ai.load_game("metro", players=2, companies=True, exchange_limit=30, turn_limit=100)
    for bad in (0, -1, 10001, 2.5, True):
        with pytest.raises(ValueError, match=r"option 'turn_limit' must be None .* or an int in \[1, 10,000\] \(M20\)"):
            game(2, turn_limit=bad)
    for bad in (31, -1, "none"):
        with pytest.raises(ValueError, match=r"option 'exchange_limit' must be None \(the printed rule"):
            metro_ai.load_game("metro", players=2, companies=True, exchange_limit=bad)


def test_default_states_keep_their_envelope_and_the_new_options_are_written_when_set():
    obj = json.loads(metro_ai.load_game("metro", players=2, companies=True).new_state(1).to_json())
    assert obj["options"] == {"players": 2, "orientation": True, "hand_size": 1, "companies": True}
    assert json.loads(game(2).new_state(1).to_json())["options"]["exchange_limit"] is None
    opts = json.loads(game(2, turn_limit=90).new_state(1).to_json())["options"]
    assert opts["exchange_limit"] is None and opts["turn_limit"] == 90


# ---- play (M17, M13, M20) ----

def test_a_player_exchanges_more_than_30_times_while_no_company_has_25():
    """No cap per player (the printed rule): 31 exchanges each, then more, while nothing scored."""
    g = game(2)
    s = g.new_state(4)
    for k in range(62):
        p = s.current_player
        s.apply(ex(s.shares(p)[k % 4], k % 2))
    assert s.exchanges_made() == [31, 31] and s.tiles_placed == 0
    assert s.exchanges_open and not s.is_terminal()
    assert any(a >= EXCHANGE for a in s.legal_actions())
    s.apply(ex(s.shares(0)[2], 1))
    assert s.exchanges_made() == [32, 31]


def test_exchanges_stop_when_a_company_reaches_25():
    """"... has not reached or exceeded the 25 points space yet" (M13), with no cap (M17)."""
    g = game(2)
    s = g.new_state(3)
    rng = random.Random(3)
    seen_open = False
    while max(s.profits()) < 25 or s.phase != "turn":
        assert not s.is_terminal()
        if s.phase == "turn":
            seen_open |= any(a >= EXCHANGE for a in s.legal_actions())
        s.apply(rng.choice([a for a in s.legal_actions() if a < EXCHANGE]))
    assert seen_open and not s.exchanges_open
    assert all(a < EXCHANGE for a in s.legal_actions())
    text = s.to_json()
    with pytest.raises(IllegalActionError, match="25 profit"):
        s.apply(ex(s.shares(s.current_player)[0], 0))
    assert s.to_json() == text


def test_the_turn_limit_ends_the_game_there_ranked_by_the_final_scoring():
    g = game(3, turn_limit=20)
    s = g.new_state(9)
    rng = random.Random(9)
    turns = 0
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        s.apply(a)
        turns += a != DRAW                 # a draw and its placement are one turn
    assert turns == 20 and s.tiles_placed + sum(s.exchanges_made()) == 20
    assert s.tiles_placed < 60 and s.supply_size > 0       # the game ended there, tiles left
    assert s.phase == "over" and s.current_player == -1 and s.legal_actions() == []
    assert s.returns() == pytest.approx(_ranks(s.scores()))
    # the final scoring as at the end of the tiles (M14, M19): shares by value, majority bonuses
    values = s.company_values()
    bonus = [0] * 3
    for k in range(8):
        pct = [sum(10 * (i + 1) for i, sh in enumerate(s.shares(p)) if sh // 4 == k) for p in range(3)]
        if max(pct) > 0:
            for p in range(3):
                bonus[p] += s.profits()[k] // 10 if pct[p] == max(pct) else 0
    assert s.scores() == [sum((sh % 4 + 1) * values[sh // 4] for sh in s.shares(p)) + bonus[p] for p in range(3)]
    back = g.state_from_json(s.to_json())                 # an over state with tiles left loads
    assert back == s and back.is_terminal() and back.returns() == s.returns()


def test_a_draw_does_not_end_the_turn_at_the_limit():
    g = game(2, turn_limit=3)
    s = g.new_state(1)
    s.apply(ex(s.shares(0)[0], 0))
    s.apply(ex(s.shares(1)[0], 0))
    s.apply(DRAW)                             # turn 3 under way: the drawn tile must still go down
    assert not s.is_terminal() and s.phase == "place_drawn"
    s.apply(s.legal_actions()[0])
    assert s.is_terminal() and s.tiles_placed == 1


@pytest.mark.parametrize("players", range(2, 7))
def test_games_end_within_max_game_length_under_random_and_exchange_heavy_play(players):
    g = game(players)
    for seed in range(6):
        s = g.new_state(seed)
        rng = random.Random(seed)
        steps = 0
        greedy = seed % 2 == 0            # even seeds exchange whenever they may: no company scores
        while not s.is_terminal():
            legal = s.legal_actions()
            exch = [a for a in legal if a >= EXCHANGE]
            s.apply(rng.choice(exch if exch and (greedy or rng.random() < 0.5) else legal))
            steps += 1
            assert steps <= g.max_game_length
        if greedy:                        # only exchanges: the turn limit ends it
            assert s.tiles_placed == 0 and sum(s.exchanges_made()) == g.turn_limit


# ---- the loader (M20) ----

def _play(g, seed, turns):
    s = g.new_state(seed)
    rng = random.Random(seed)
    while s.tiles_placed + sum(s.exchanges_made()) < turns or s.phase != "turn":
        legal = s.legal_actions()
        exch = [a for a in legal if a >= EXCHANGE]
        s.apply(rng.choice(exch if exch and rng.random() < 0.5 else legal))
    return s


def test_loader_checks_the_turns_against_the_limit():
    g = game(2, turn_limit=40)
    s = _play(g, 5, 39)
    good = json.loads(s.to_json())
    assert g.state_from_json(json.dumps(good)) == s
    over = s.clone()
    over.apply([a for a in over.legal_actions() if a != DRAW][-1])      # turn 40: a tile or an exchange
    assert over.is_terminal()
    end = json.loads(over.to_json())
    assert g.state_from_json(json.dumps(end)) == over

    def load(obj, match):
        with pytest.raises(StateFormatError, match=match):
            g.state_from_json(json.dumps(obj))

    more = json.loads(json.dumps(end))
    more["exchanges"][0] += 2                   # 42 turns: past the limit
    load(more, r"make 42 turns; the game ends at the turn limit 40 \(M20\)")
    running = json.loads(json.dumps(end))
    running["phase"], running["current_player"] = "turn", 1
    load(running, r"over at the turn limit 40 \(M20\)")
    early = json.loads(json.dumps(good))
    early["phase"], early["current_player"] = "over", -1
    load(early, r"needs all 60 tiles placed .*turn limit 40")
    huge = json.loads(json.dumps(good))
    huge["exchanges"][1] = 10 ** 6              # never written into the C struct's short
    load(huge, r"exchanges must be 2 ints 0\.\.40 \(exchange_limit=None")
    capped = metro_ai.load_game("metro", players=2, companies=True)
    with pytest.raises(StateFormatError, match="options"):
        capped.state_from_json(json.dumps(good))   # a printed-rule state is not a capped one


# ---- the fast engines against the references ----

def _pair(g, seed, same, hidden):
    fast, slow, steps = lockstep(g, seed, pick=favour(lambda a: a >= EXCHANGE, 0.6), same=same, hidden=hidden)
    assert slow.is_terminal()
    assert steps <= g.max_game_length
    return fast


PRINTED_RULE_CASES = [(p, o, h, t) for p in range(2, 7) for o, h in ((True, 1), (False, 2), (True, 3))
                      for t in (None, 45)]


@pytest.mark.parametrize("players,orientation,hand_size,turn_limit",
                         tiered(PRINTED_RULE_CASES, fast=each_value(PRINTED_RULE_CASES)))
def test_companies_cython_matches_reference_with_the_printed_rule(players, orientation, hand_size, turn_limit):
    g = game(players, orientation=orientation, hand_size=hand_size, turn_limit=turn_limit)
    assert isinstance(g.reference_game(), ref.RefCompaniesGame)
    ends = []
    for i in range(10):
        last = _pair(g, 91000 + 100 * players + 10 * hand_size + i, _same, _same_hidden)
        ends.append(last.tiles_placed < 60)
    if turn_limit == 45:
        assert all(ends)                 # 45 turns: never all 60 tiles


@pytest.mark.parametrize("players", [2, 4, 6])
def test_central_stations_with_companies_match_the_reference_with_the_printed_rule(players):
    g = game(players, central_stations=True, turn_limit=50)
    assert isinstance(g.reference_game(), reference_city.RefCityCompaniesGame)
    for i in range(4):
        _pair(g, 92000 + 100 * players + i, lambda f, s, c: _same_central(f, s, c, True), _same_board)


@pytest.mark.parametrize("players", [2, 5])
def test_new_york_with_companies_matches_the_reference_with_the_printed_rule(players):
    g = game(players, city="new_york")
    assert isinstance(g.reference_game(), reference_cities.RefCitiesGame)
    for i in range(3):
        _pair(g, 93000 + 100 * players + i, _same_city, lambda f, s, c: None)
    g = game(players, city="new_york", turn_limit=30)
    _pair(g, 93500 + players, _same_city, lambda f, s, c: None)


def test_options_that_allow_none_say_what_none_means_in_their_description():
    # the web page and the protocol's clients read this: an empty box is None (M17, M20)
    options = metro_ai.registry.game_class("metro").describe()["options"]
    assert options["turn_limit"]["none"].startswith("60 turns + 30 per player")
    assert options["exchange_limit"]["none"].startswith("the printed rule")
    assert "none" not in options["players"]
