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


def pytest_collection_modifyitems(config, items):
    """``METRO_AI_TEST_SHARD=I/N`` keeps every N-th collected test from the I-th (0 <= I < N), so N
    processes side by side run a suite between them, each test once (``.ci/run`` runs the slow
    sanitizer and bounds-checked builds' tests so). Unset, every test runs."""
    shard = os.environ.get("METRO_AI_TEST_SHARD", "").strip()
    if not shard:
        return
    try:
        index, count = (int(part) for part in shard.split("/"))
    except ValueError:
        index, count = -1, 0
    if not 0 <= index < count:
        raise pytest.UsageError(f"METRO_AI_TEST_SHARD must be I/N with 0 <= I < N, got {shard!r}")
    config.hook.pytest_deselected(items=[item for k, item in enumerate(items) if k % count != index])
    items[:] = items[index::count]
