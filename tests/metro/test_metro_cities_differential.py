"""Differential test of the City Edition cities (C5-C10, decisions C26-C35): the Cython engine
(``cities.pyx``) against the independent pure-Python reference (``reference_cities.py``).

Same seed and same actions must give the same legal actions, player to move, phase, scores and
the whole city part of the state (tourists, landmarks, taxi, boards, markers, VP pieces and
piles, tickets: ``to_dict()["city"]`` against the reference's ``city_json()``), after every
action, and the same returns at the end. Configurations: every city at every player count,
with and without central tracks (C3), the M9 variant, hand size 2 (M10), the City Edition frames
(C1), Berlin's sides and its ticket variant (its set-up, C33: the landmark row and the groups
of 4 by quarter, also compared deal by deal over 600 deals), New York with the companies (C35): 90
configurations. ``METRO_CITIES_GAMES`` sets the games per configuration (default 3: 270 games;
12 gives the full run of 1,080). The default tier plays every city's every variant at one player
count, the counts taken in turn; the slow tier the other counts (tests/tiers.py).
"""
import os

import pytest

import metro_ai
from differential import lockstep
from tiers import tiered
from metro_ai.engine.metro import reference_cities as ref

GAMES = int(os.environ.get("METRO_CITIES_GAMES", "3"))
EXTRAS = {
    "paris": [{}, {"central_tracks": True}, {"orientation": False, "hand_size": 2}],
    "stockholm": [{}, {"central_tracks": True}, {"edition": "city"}],
    "london": [{}, {"central_tracks": True}, {"orientation": False}],
    "new_york": [{}, {"central_tracks": True}, {"edition": "city", "hand_size": 2}, {"companies": True},
                 {"companies": True, "central_tracks": True, "exchange_limit": 3}],
    "berlin": [{}, {"central_tracks": True, "berlin_sides": "B"}, {"berlin_tickets": True, "berlin_sides": "mixed"},
               {"berlin_tickets": True, "orientation": False}],
}
CONFIGS = [(city, p, i) for city, extras in EXTRAS.items() for i in range(len(extras)) for p in range(2, 7)]


def _same(fast, slow, ctx):
    assert fast.phase == slow.phase, ctx
    assert fast.scores() == slow.scores(), ctx
    assert fast.to_dict()["city"] == slow.city_json(), ctx


def play_pair(game, rgame, seed):
    return lockstep(game, seed, rgame=rgame, same=_same)[0]


def _one_player_count(city, players, extra):
    """The default tier: every city's every variant once, the player counts taken in turn."""
    return players == 2 + (list(EXTRAS).index(city) + extra) % 5


@pytest.mark.parametrize("city,players,extra", tiered(CONFIGS, fast=_one_player_count))
def test_cities_cython_matches_reference(city, players, extra):
    game = metro_ai.load_game("metro", players=players, city=city, **EXTRAS[city][extra])
    rgame = game.reference_game()
    assert isinstance(rgame, ref.RefCitiesGame)
    for g in range(GAMES):
        seed = 47000 + 1000 * players + 100 * extra + g
        last = play_pair(game, rgame, seed)
        # the city's pieces moved in the game (tourists taken, landmarks, points)
        assert last.to_dict()["city"] != game.new_state(seed).to_dict()["city"]


@pytest.mark.parametrize("options", [{"berlin_tickets": True}, {"berlin_tickets": True, "berlin_sides": "mixed"}])
def test_berlin_ticket_setup_matches_reference_over_many_deals(options):
    """C33's set-up (the landmark row, the groups drawn by rejection, the quarters' squares) in
    both engines, deal by deal: 300 seeds, so that many draws need several shuffles."""
    for players in (2, 5):
        game = metro_ai.load_game("metro", players=players, city="berlin", **options)
        rgame = game.reference_game()
        for seed in range(150):
            assert game.new_state(seed).to_dict()["city"] == rgame.new_state(seed).city_json(), (players, seed)
