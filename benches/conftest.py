import sys
from pathlib import Path

# The benches import helpers of the tests (the card-aware random policies of
# tests/breakthrough/ and tests/metro2033/, and the helpers in tests/) by name.
TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS / "breakthrough"), str(TESTS / "metro2033"), str(TESTS)]
