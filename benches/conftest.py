import sys
from pathlib import Path

# The reference engines live in tests/reference.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
