"""No engine file of Metro over 1,000 lines, the references aside (issue #42): a module's code lives
in its own file (module.py's MetroModule, one subclass a module), so the state and the cities stay
short. The pure-Python reference engines (reference*.py) are independent specifications, read top
to bottom, and may be longer. The file-size test of the whole tree is tests/project's."""
from pathlib import Path

import pytest

METRO = Path(__file__).resolve().parents[2] / "engine" / "metro"
LIMIT = 1000
SOURCES = sorted(p for p in METRO.rglob("*") if p.suffix in {".py", ".pyx", ".pxd", ".pyi"}
                 and not p.name.startswith("reference"))


def test_the_engine_sources_are_found():
    names = {p.name for p in SOURCES}
    assert {"state.pyx", "cities.pyx", "companies.pyx", "central.pyx", "module.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_engine_file_under_the_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines < LIMIT, f"engine/metro/{path.name} has {lines} lines; split it below {LIMIT} (issue #42)"
