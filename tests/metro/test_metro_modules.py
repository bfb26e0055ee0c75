"""Metro's modules are composed, not dispatched by name (module.py, issue #42): each module is one
``MetroModule`` subclass in its own file, registered in ``MODULES``, switched on by its options, and
adds a part to the state; MetroGame finds its deal, loader, actions' text and reference engine
through the active modules, the first in MODULES order that answers winning (C2, C3, C5, M11). The
state classes are three: MetroState (every part: the central pieces, the companies' shares),
CityState (a city's pieces on top) and the solo game's."""
import importlib
import re
from pathlib import Path

import pytest

import metro_ai
from metro_ai.engine.metro import central, companies, module as metro_modules
import metro_ai.engine.metro.cities as cities
import metro_ai.engine.metro.solo as solo
from metro_ai.engine.metro.module import MODULES, MetroModule
from metro_ai.engine.metro.state import MetroState

# The claims (the first active module that answers wins), the sums and the state's face.
HOOKS = ("active", "new_state", "load_state", "blank_state", "reference_game", "owns_action", "action_to_string",
         "owns_text", "string_to_action", "action_bounds", "game_length", "public", "state_fields", "observe",
         "render", "summary")


@pytest.mark.parametrize("name", MODULES)
def test_every_module_is_a_metro_module_in_its_own_file(name):
    """Each entry of the table names a file whose MODULE is an instance of a MetroModule subclass
    of that name, defined in that file, with every hook callable."""
    file = importlib.import_module(f"metro_ai.engine.metro.{name}")
    module = file.MODULE
    assert isinstance(module, MetroModule) and type(module) is not MetroModule
    assert type(module).__module__ == file.__name__ and module.name == name
    assert [h for h in HOOKS if not callable(getattr(module, h, None))] == []
    assert type(module).active is not MetroModule.active          # each says when it is on
    assert metro_modules.registered()[MODULES.index(name)] is module


def test_the_module_files_define_no_hook_outside_their_class():
    """The hook protocol lives in MetroModule: no module file keeps hooks as loose functions."""
    for name in MODULES:
        file = importlib.import_module(f"metro_ai.engine.metro.{name}")
        loose = [h for h in ("owns_action", "owns_text", "action_to_string", "string_to_action", "action_bounds",
                             "game_length", "reference_game") if hasattr(file, h)]
        assert loose == [], name


def test_the_base_hooks_default_to_not_mine():
    """A module overrides only the hooks its part needs: the defaults claim nothing, add nothing
    and write nothing."""
    class Bare(MetroModule):
        name = "bare"

        def active(self, game):
            return True
    game = metro_ai.load_game("metro", players=2)
    m, st = Bare(), game.new_state(1)
    assert [m.new_state(game, 1), m.load_state(game, {}), m.blank_state(game), m.reference_game(game)] == [None] * 4
    assert not m.owns_action(game, 6145) and not m.owns_text(game, "exchange")
    assert m.action_bounds(game) == (0, 0) and m.game_length(game) == 0 and m.summary(st) == ""
    obj, rows = {"a": 1}, ["x"]
    m.public(st, obj), m.state_fields(st, obj), m.observe(st, obj, 0), m.render(st, rows, 0)
    assert obj == {"a": 1} and rows == ["x"]
    with pytest.raises(NotImplementedError):
        MetroModule().active(game)
    assert metro_modules.state_maker((Bare(),)) is None


class _Answers(MetroModule):
    def __init__(self, name, answer):
        self.name, self.answer, self.asked = name, answer, 0

    def active(self, game):
        return True

    def new_state(self, game, seed):
        self.asked += 1
        return self.answer

    def owns_text(self, game, text):
        return self.answer is not None

    def action_bounds(self, game):
        return 1, 6000 + len(self.name)


def test_the_first_module_that_answers_wins():
    """claim: the modules are asked in order; the first answer (not None) is taken and the
    modules after it are not asked; a module that does not answer leaves the call to the next;
    none answering leaves it to the base game (None)."""
    a, b, c = _Answers("a", None), _Answers("b", "from b"), _Answers("c", "from c")
    assert metro_modules.claim((a, b, c), "new_state", None, 1) == "from b"
    assert (a.asked, b.asked, c.asked) == (1, 1, 0)
    assert metro_modules.claim((c, b), "new_state", None, 1) == "from c"
    assert metro_modules.claim((a,), "new_state", None, 1) is None
    assert metro_modules.claim((), "new_state", None, 1) is None
    assert metro_modules.owner((a, b, c), "owns_text", None, "x") is b
    assert metro_modules.owner((a,), "owns_text", None, "x") is None
    assert metro_modules.total((a, b, c), "action_bounds", None) == [(1, 6001)] * 3
    assert metro_modules.layers((a, b, c)) == (c, b, a)


@pytest.mark.parametrize("options,winner", [
    ({"central_tracks": True, "companies": True}, "central"),
    ({"city": "new_york", "companies": True}, "cities"),
    ({"city": "paris", "central_tracks": True}, "cities"),
])
def test_the_first_active_module_deals_and_loads(options, winner, monkeypatch):
    """With two modules on, the game's deal, loader and reference engine are the first one's
    (which composes the other's part itself): the second module's hooks are not called."""
    game = metro_ai.load_game("metro", players=2, **options)
    assert game.modules[0].name == winner
    second = type(game.modules[1])
    for hook in ("new_state", "load_state", "reference_game"):
        monkeypatch.setattr(second, hook, lambda *a: pytest.fail(f"{second.__name__}.{hook} was asked"))
    s = game.new_state(4)
    assert game.state_from_json(s.to_json()) == s
    assert game.reference_game() is not None


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
    assert tuple(m.name for m in game.modules) == active
    assert game.modules == metro_modules.active(game)


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
    assert type(c) is MetroState and companies.MODULE.owns_action(c.game, 6145)


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


@pytest.mark.parametrize("name", MODULES)
def test_the_state_methods_of_a_module_live_in_its_file(name):
    """A module's Python methods on the state are defined in its own file and lent to MetroState
    by name (state.pyx): the state's method is the module file's function."""
    file = importlib.import_module(f"metro_ai.engine.metro.{name}")
    for method in file.MODULE.state_methods:
        fn = getattr(file, method)
        assert fn.__module__ == file.__name__
        lent = vars(MetroState)[method]
        assert (lent.module, lent.name) == (name, method) and lent.function() is fn
    lent_here = {k for k, v in vars(MetroState).items() if type(v).__name__ == "_Lent" and v.module == name}
    assert lent_here == set(file.MODULE.state_methods)


def test_lent_methods_read_the_state():
    s = metro_ai.load_game("metro", players=3, companies=True, central_stations=True).new_state(2)
    assert s.profits() == [0] * 8 and s.exchanges_open is True and len(s.shares(1)) == 4
    assert s.central_pieces() == [None] * 8 and s.shown(0) == []
    assert s.profits.__doc__.startswith("The 8 companies' profit points")
    with pytest.raises(ValueError, match="option companies"):
        metro_ai.load_game("metro", players=2).new_state(1).exchanges_open


def test_every_reason_code_has_one_text():
    """The refusals' texts: the base game's in state.pyx, each module's in its class; no code twice."""
    from metro_ai.engine.metro import state
    codes = [c for m in metro_modules.registered() for c in m.reasons]
    assert len(codes) == len(set(codes)) and not set(codes) & set(state._REASONS)
    s = metro_ai.load_game("metro", players=2, companies=True).new_state(1)
    s.apply(6144)                                 # a draw: the drawn tile must be placed (M4)
    with pytest.raises(ValueError, match=r"an exchange is a whole turn instead \(M13\)"):
        s.apply(6145 + 2 * s.shares(0)[0])


def test_the_c_parts_are_tested_through_their_helpers():
    """The state's and the rules' C code asks each module's part through its inline helper
    (rules.pxd: has_companies, has_central, has_centre_tracks), not the tables' raw fields; the
    fields are set in MetroGame's tables and bound the lines' loops."""
    engine = Path(__file__).resolve().parents[2] / "engine" / "metro"
    raw = [f"{name}: {line.strip()}" for name in ("state.pyx", "cities.pyx", "rules.pyx", "loader.pyx")
           for line in (engine / name).read_text(encoding="utf-8").splitlines()
           if re.search(r"\bt\.(companies|ncentral|centre_tracks)\b", line)
           and "range(" not in line and not re.search(r"\bt\.\w+ = ", line)]
    assert raw == []
