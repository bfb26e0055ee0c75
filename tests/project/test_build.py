"""How the package is built and installed: compiled with optimisation, hot code without bounds
checks, contract .pxd and data files shipped."""
import os
from importlib import resources
from pathlib import Path

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
        import pytest
        pytest.skip("shared/data is not beside this checkout")
    for name in ("metro_tiles.csv", "metro_stations.csv", "metro_lines.csv"):
        assert (ROOT / "engine" / "metro" / "data" / name).read_bytes() == (shared / name).read_bytes(), name


def test_public_api_names():
    for name in ("load_game", "list_games", "make_bot", "list_bots", "Limit", "play_match",
                 "IllegalActionError", "StateFormatError"):
        assert hasattr(metro_ai, name), name
