import os

# pytest's default import mode (prepend) puts tests/ on sys.path when it loads this file, and each
# test file's own folder when it imports that file, so test files import their helpers here
# (stats, metro_positions, breakthrough_positions, golden, ...) and the test modules of their own
# folder by name. The folders have no __init__.py, so test file names are unique across folders.
from hypothesis import settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
