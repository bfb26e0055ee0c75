"""Metro's modules are composed, not dispatched by name (state.pyx MODULES): each module adds a
part to the state and is switched on by its options; MetroGame finds its deal, loader, actions'
text and reference engine through the active modules, in MODULES order (C2, C3, C5, M11). The
state classes are three: MetroState (every part: the central pieces, the companies' shares),
CityState (a city's pieces on top) and the solo game's."""
import importlib

import pytest

import metro_ai
from metro_ai.engine.metro import central, companies
import metro_ai.engine.metro.cities as cities
import metro_ai.engine.metro.solo as solo
from metro_ai.engine.metro.state import MODULES, MetroState

HOOKS = ("new_state", "load_state", "owns_action", "action_to_string", "owns_text", "string_to_action",
         "reference_game", "game_length", "action_bounds")


@pytest.mark.parametrize("name", [name for _, name in MODULES])
def test_every_module_defines_the_hooks(name):
    module = importlib.import_module(f"metro_ai.engine.metro.{name}")
    assert [h for h in HOOKS if not callable(getattr(module, h, None))] == []


@pytest.mark.parametrize("options,active", [
    ({}, ()),
    ({"companies": True}, ("companies",)),
    ({"central_stations": True}, ("central",)),
    ({"central_tracks": True, "companies": True}, ("central", "companies")),
    ({"city": "new_york", "companies": True}, ("cities", "companies")),
    ({"city": "paris", "central_tracks": True}, ("cities", "central")),
])
def test_active_modules_in_dispatch_order(options, active):
    game = metro_ai.load_game("metro", players=2, **options)
    assert tuple(m.__name__.rsplit(".", 1)[1] for m in game.modules) == active


# The action bounds of every state are the base game's (M4: 3 tiles x 64 squares x 4 rotations and
# the draw; ids end after the draw) plus what each active module's part adds: the exchanges (M13),
# the central-station pieces (C2, one a share with companies: C18), a city's choices (C26-C35, Paris
# C28's ids last). No state class names a module for them.
@pytest.mark.parametrize("options,max_actions,num_actions", [
    ({}, 769, 6145),
    ({"companies": True}, 777, 6209),
    ({"central_stations": True}, 777, 6217),
    ({"central_tracks": True}, 769, 6145),
    ({"central_stations": True, "companies": True}, 809, 6465),
    ({"city": "london"}, 833, 6145),
    ({"city": "paris"}, 833, 6545),
    ({"city": "new_york", "companies": True}, 841, 6209),
])
def test_action_bounds_are_the_parts_sum(options, max_actions, num_actions):
    game = metro_ai.load_game("metro", players=4, **options)
    more = [m.action_bounds(game) for m in game.modules]
    assert game.max_actions == 769 + sum(k for k, _ in more) == max_actions
    assert game.num_distinct_actions == max([6145] + [end for _, end in more]) == num_actions
    s = game.new_state(3)
    for _ in range(40):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        assert len(legal) <= max_actions and max(legal) < num_actions
        s.apply(legal[len(legal) // 2])


def test_solo_game_has_no_module():
    assert metro_ai.load_game("metro-solo").modules == ()


@pytest.mark.parametrize("options,cls", [({"central_stations": True}, MetroState),
                                         ({"central_stations": True, "companies": True}, MetroState)])
def test_central_stations_are_a_part_of_the_state(options, cls):
    """C2: the pieces live in the base state (or the companies'): no class of their own."""
    game = metro_ai.load_game("metro", players=3, **options)
    s = game.new_state(5)
    assert type(s) is cls and type(s.clone()) is cls and type(s.determinize(0, 1)) is cls
    assert s.central_pieces() == [None] * 8
    assert not hasattr(central, "CentralState") and not hasattr(central, "CentralCompaniesState")
    piece = next(a for a in s.legal_actions() if a >= 6209)       # 6209 + 8 * share + space (C16)
    s.apply(piece)
    assert game.state_from_json(s.to_json()) == s
    assert sum(v is not None for v in s.central_pieces()) == 1


def test_central_pieces_refused_without_central_stations():
    s = metro_ai.load_game("metro", players=2).new_state(1)
    with pytest.raises(ValueError, match="central_stations"):
        s.central_pieces()
    c = metro_ai.load_game("metro", players=2, companies=True).new_state(1)
    with pytest.raises(ValueError, match="central_stations"):
        c.shown(0)
    assert type(c) is MetroState and companies.owns_action(c.game, 6145)


@pytest.mark.parametrize("options,cls", [
    ({"companies": True}, MetroState),
    ({"companies": True, "central_tracks": True}, MetroState),
    ({"city": "new_york", "companies": True}, cities.CityState),
    ({"city": "new_york"}, cities.CityState),
])
def test_the_companies_are_a_part_of_the_state(options, cls):
    """M11-M18, C35: the shares live in the base state (or the city's): no class of their own;
    clones, determinisations and loaded states keep the class and the part."""
    game = metro_ai.load_game("metro", players=3, **options)
    s = game.new_state(7)
    exchange = next((a for a in s.legal_actions() if 6145 <= a < 6209), None)
    assert (exchange is not None) == game.companies
    if exchange is not None:
        s.apply(exchange)
        assert s.exchanges_made() == [1, 0, 0] and len(s.shares(0)) == 4
    for other in (s.clone(), s.determinize(1, 3), game.state_from_json(s.to_json())):
        assert type(other) is cls
    assert game.state_from_json(s.to_json()) == s
    if not game.companies:
        with pytest.raises(ValueError, match="option companies"):
            s.profits()


def test_three_state_classes():
    """One MetroState, one CityState, one SoloState: no class per combination of modules."""
    from metro_ai.engine.core import GameState
    metro = importlib.import_module("metro_ai.engine.metro")
    names = {"rules", "central", "companies", "cities", "solo", "loader", "state"}
    found = {f"{m}.{k}" for m in names for k, v in vars(importlib.import_module(f"{metro.__name__}.{m}")).items()
             if isinstance(v, type) and issubclass(v, GameState) and v.__module__.endswith(m)}
    assert found == {"state.MetroState", "cities.CityState", "solo.SoloState"}
    assert not hasattr(companies, "CompaniesState") and not hasattr(cities, "CityCompaniesState")
    assert type(solo.MetroSoloGame().new_state(1)) is solo.SoloState
