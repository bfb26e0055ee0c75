"""The scripts of benches/ as modules, for the tests that call their functions."""
import importlib.util
from pathlib import Path

BENCHES = Path(__file__).resolve().parents[1] / "benches"


def bench_script(name: str):
    """benches/NAME.py loaded as a module of its own (benches/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
