import os

# pytest's default import mode (prepend) puts tests/ on sys.path when it loads this file, and each
# test file's own folder when it imports that file, so test files import their helpers here
# (stats, metro_positions, breakthrough_positions, golden, ...) and the test modules of their own
# folder by name. The folders have no __init__.py, so test file names are unique across folders.
import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--part", metavar="K/N", default=None,
                     help="run part K (0..N-1) of N of the selected tests, each part a fair share of every "
                          "sweep (CI runs one part of the slow tier a run, in turn; tests/tiers.py)")


def pytest_configure(config):
    """Read ``--part`` before anything is collected, so a bad one is a usage error at once."""
    part = config.getoption("--part")
    config.metro_ai_part = None
    if part is not None:
        try:
            k, n = (int(x) for x in part.split("/"))
            if not 0 <= k < n:
                raise ValueError
        except ValueError:
            raise pytest.UsageError(f"--part takes K/N with 0 <= K < N, got {part!r}") from None
        config.metro_ai_part = k, n


@pytest.hookimpl(trylast=True)      # after -m and -k have selected
def pytest_collection_modifyitems(config, items):
    """``--part K/N``: keep every N-th selected test from the K-th, in collection order (so each
    part takes cases from every sweep); the rest are deselected."""
    if config.metro_ai_part is None:
        return
    k, n = config.metro_ai_part
    keep = items[k::n]
    kept = set(map(id, keep))
    config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept])
    items[:] = keep
