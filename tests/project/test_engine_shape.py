"""One shape for every game package (docs/dev/adding-a-game.md; issue #25): the C data and mechanics
in ``rules.pxd``/``rules.pyx``, the registered ``Game`` and its ``GameState`` in
``state.pxd``/``state.pyx`` over them, ``state.pyi`` its stub (the stubs of the other public
compiled modules: tests/project/test_typing.py). A game that is a module of another game's
package (``metro-solo``, the solo module of Metro) keeps its classes in that module."""
import importlib
from pathlib import Path

import pytest

from metro_ai.registry import GAME_CLASSES
from metro_ai.engine.core import Game

ENGINE = Path(__file__).resolve().parents[2] / "engine"
#: Registered games whose classes live in a module of another game's package, and that module.
MODULE_GAMES = {"metro_ai.engine.metro.solo:MetroSoloGame": "solo"}


@pytest.mark.parametrize("spec", GAME_CLASSES)
def test_every_game_package_has_the_one_shape(spec):
    module_name, cls_name = spec.split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    assert issubclass(cls, Game)
    package = cls.__module__.split(".")[2]                 # metro_ai.engine.<package>.<module>
    folder = ENGINE / package
    missing = [f for f in ("rules.pxd", "rules.pyx", "state.pxd", "state.pyx") if not (folder / f).is_file()]
    assert not missing, f"engine/{package}/ lacks {missing}"
    assert cls.__module__.rsplit(".", 1)[1] == MODULE_GAMES.get(spec, "state"), \
        f"{spec}: the game class is in {cls.__module__}, not in its package's state module"
    state_cls = type(cls().new_state(0))
    assert state_cls.__module__ == cls.__module__ or state_cls.__module__.startswith(f"metro_ai.engine.{package}.")
    assert (folder / "state.pyi").is_file(), f"engine/{package}/state.pyx has no stub"


def test_the_mechanics_modules_hold_no_game_or_state_class():
    """rules.pyx is the C layer: no Game or GameState subclass is defined there."""
    from metro_ai.engine.core import GameState
    for rules in sorted(ENGINE.glob("*/rules.pyx")):
        module = importlib.import_module(f"metro_ai.engine.{rules.parent.name}.rules")
        own = [k for k, v in vars(module).items() if isinstance(v, type) and issubclass(v, (Game, GameState))
               and v.__module__ == module.__name__]
        assert own == [], f"engine/{rules.parent.name}/rules.pyx defines {own}"


#: The longest an engine source file may be (issue #42); the pure-Python reference engines
#: (reference.py, reference_*.py), written rule by rule from the rules files, are exempt.
MAX_LINES = 1000
#: Files still over the limit, by path under engine/, each until the split that issue #42 names
#: (whoever splits one removes its line).
OVER_LIMIT = {
    "metro/state.pyx",     # issue #42: Metro's module base splits these
    "metro/cities.pyx",    # issue #42: Metro's module base splits these
}


def _engine_sources():
    for path in sorted(ENGINE.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxi", ".pxd", ".pyi") and not path.name.startswith("reference"):
            yield path


def test_no_engine_source_file_is_over_1000_lines():
    """Compiled engines (.pyx, the .pxi files they include, .pxd) and the Python beside them stay
    under 1,000 lines: a longer one is split by what it holds (Metro 2033's state machine: one
    .pxi per part of the round, docs/dev/layout.md). The list names every file over the limit."""
    lines = {str(p.relative_to(ENGINE)): len(p.read_text(encoding="utf-8").splitlines()) for p in _engine_sources()}
    over = sorted(f"{name} ({n} lines)" for name, n in lines.items() if n > MAX_LINES and name not in OVER_LIMIT)
    assert not over, f"engine files over {MAX_LINES:,} lines: {', '.join(over)}"
