import sys
from pathlib import Path

# The benches import helpers of the tests (the card-aware random policy) by name.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
