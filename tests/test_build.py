"""How the package is built and installed: compiled with optimisation, hot code without bounds
checks, contract .pxd and data files shipped."""
import re
from importlib import resources
from pathlib import Path

import metro_ai
from metro_ai.engine import core

ROOT = Path(__file__).resolve().parents[1]


def test_extensions_compiled_with_optimisation():
    assert core.build_info()["optimized"] is True


def test_every_pyx_turns_off_bounds_and_wraparound_checks():
    pyx = sorted(ROOT.glob("engine/*.pyx")) + sorted(ROOT.glob("bots/*.pyx"))
    assert pyx, "no Cython sources found"
    for path in pyx:
        first = path.read_text().splitlines()[0]
        assert first.startswith("# cython:"), path
        directives = dict(kv.split("=") for kv in re.sub(r"\s", "", first[len("# cython:"):]).split(","))
        assert directives.get("boundscheck") == "False" and directives.get("wraparound") == "False", path


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
