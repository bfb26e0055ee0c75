import os

# pytest's default import mode puts tests/ on sys.path, so test files import their helpers
# (stats, metro_positions, breakthrough_positions, golden) by name.
from hypothesis import settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
