"""How the package is built and installed: compiled with optimisation, hot code without bounds
checks, contract .pxd and data files shipped."""
import importlib.metadata
import os
import re
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest

import metro_ai
from metro_ai.engine import core

ROOT = Path(__file__).resolve().parents[2]


def test_extensions_compiled_as_the_environment_asked():
    """Optimised; Cython's bounds and wraparound checks off in the hot code unless the build was
    asked for them (METRO_AI_CHECKS=1); sanitizers only when asked (METRO_AI_SANITIZE). The same
    variables must be set when the tests run as when the package was built."""
    info = core.build_info()
    assert info["optimized"] is True
    assert info["cython_checks"] is (os.environ.get("METRO_AI_CHECKS") == "1")
    assert info["sanitizers"] == [s for s in os.environ.get("METRO_AI_SANITIZE", "").split(",") if s]


def test_directives_are_set_in_one_place():
    """Every .pyx states only its language level: the other directives come from setup.py, so one
    switch can turn the checks on for every module."""
    pyx = sorted(ROOT.glob("engine/**/*.pyx")) + sorted(ROOT.glob("bots/**/*.pyx"))
    assert len(pyx) >= 6, "no Cython sources found"
    for path in pyx:
        assert path.read_text().splitlines()[0] == "# cython: language_level=3", path


def test_contract_and_data_ship_with_the_package():
    engine = resources.files("metro_ai.engine")
    for name in ("core.pxd", "rng.pxd", "metro/rules.pxd", "metro/data/metro_tiles.csv",
                 "metro/data/metro_stations.csv", "metro/data/metro_lines.csv", "breakthrough/rules.pxd",
                 "breakthrough/state.pxd", "breakthrough/data/breakthrough_cards.json"):
        assert engine.joinpath(name).is_file(), name


def test_shipped_data_matches_shared_originals():
    shared = ROOT.parent / "shared" / "data"
    if not shared.is_dir():
        pytest.skip("shared/data is not beside this checkout")
    for name in ("metro_tiles.csv", "metro_stations.csv", "metro_lines.csv"):
        assert (ROOT / "engine" / "metro" / "data" / name).read_bytes() == (shared / name).read_bytes(), name


def test_public_api_names():
    for name in ("load_game", "list_games", "make_bot", "list_bots", "Limit", "play_match",
                 "IllegalActionError", "StateFormatError"):
        assert hasattr(metro_ai, name), name


def _pyproject():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_version_is_defined_once():
    """metro_ai/version.py holds the version: pyproject.toml writes none of its own but reads that
    one, and the installed metadata says the same as metro_ai.__version__."""
    data = _pyproject()
    assert "version" not in data["project"]
    assert "version" in data["project"]["dynamic"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "metro_ai.version.__version__"}
    assert importlib.metadata.version("metro-ai") == metro_ai.__version__


def test_wheels_are_built_for_every_supported_python():
    """[tool.cibuildwheel] builds a manylinux wheel, x86_64 and aarch64, for each CPython from
    requires-python's floor to the newest version classifier, and for no other (no musllinux, no
    free-threaded or newer builds); the classifiers name every version in that range. Selected as
    cibuildwheel selects: an identifier matched by a pattern of build and by none of skip."""
    data = _pyproject()
    floor = re.fullmatch(r">=\s*3\.(\d+)", data["project"]["requires-python"])
    assert floor, data["project"]["requires-python"]
    listed = sorted(int(c.rsplit(".", 1)[1]) for c in data["project"]["classifiers"]
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    supported = range(int(floor[1]), listed[-1] + 1)
    assert listed == list(supported)

    wheels = data["tool"]["cibuildwheel"]
    build, skip = wheels["build"].split(), wheels.get("skip", "").split()
    assert wheels["linux"]["archs"] == ["x86_64", "aarch64"]

    def selected(identifier):
        return any(fnmatch(identifier, p) for p in build) and not any(fnmatch(identifier, p) for p in skip)

    for minor in range(supported[0] - 2, supported[-1] + 3):
        for arch in ("x86_64", "aarch64"):
            for abi in (f"cp3{minor}", f"cp3{minor}t"):
                assert selected(f"{abi}-manylinux_{arch}") is (minor in supported and abi == f"cp3{minor}"), abi
                assert not selected(f"{abi}-musllinux_{arch}"), abi
        assert not selected(f"pp3{minor}-manylinux_x86_64")
