"""One owner for each idea (issue #42): the protocol, the tournament and the versus tool are
packages of one idea a module, and stay so.

- Every module of ``metro_ai/protocol/``, ``metro_ai/play/tournament/`` and
  ``metro_ai/bench/versus/`` is at most ``MAX_LINES`` lines: a module that grows past it holds
  two ideas and is split, not raised.
- docs/dev/layout.md names every module of the three packages, and the contributor page on
  protocol methods (docs/dev/adding-a-protocol-method.md) every module of the protocol.

That every method of the method table has its schema entry and its section of docs/protocol.md
is tests/face/test_protocol.py's (``test_the_schema_and_the_spec_cover_every_method_and_error``).
"""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 500
PACKAGES = ("metro_ai/protocol", "metro_ai/play/tournament", "metro_ai/bench/versus")


def _modules(package):
    return sorted((ROOT / package).glob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_each_module_of_the_split_packages_stays_small(package):
    modules = _modules(package)
    assert len(modules) > 2, f"{package} is a package of one idea a module"
    long = {p.name: n for p in modules if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"over {MAX_LINES} lines in {package}/: {long}; split the module by idea"


def test_the_docs_name_every_module_of_the_split_packages():
    layout = (ROOT / "docs" / "dev" / "layout.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "dev" / "adding-a-protocol-method.md").read_text(encoding="utf-8")
    for package in PACKAGES:
        for path in _modules(package):
            if path.name != "__init__.py":
                assert path.name in layout, f"docs/dev/layout.md does not name {package}/{path.name}"
    for path in _modules("metro_ai/protocol"):
        if path.name != "__init__.py":
            assert f"`{path.name}`" in page, f"docs/dev/adding-a-protocol-method.md does not name {path.name}"
