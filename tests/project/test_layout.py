"""The layout of tests/ (tests/README.md): every test file in a folder by game or by floor, each
folder's purpose in the one line of its README.md, and every path to a test that the docs, the
configuration and CI name exists."""
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: Where test paths are named: the docs, the configuration, CI, the benches, the sources' comments.
NAMING = ["README.md", "pyproject.toml", "setup.py", ".ci/run", "docs/**/*", "benches/**/*", "tests/**/*",
          "engine/**/*", "bots/**/*", "metro_ai/**/*", "examples/**/*"]
TEXT = {".md", ".py", ".pyx", ".pxd", ".pyi", ".sh", ".toml", ".js", ".html", ".css", ""}
TEST_PATH = re.compile(r"\btests/[\w./-]*\w")


def _test_folders():
    return sorted({p.parent for p in TESTS.rglob("test_*.py")})


def test_no_test_file_at_the_top_of_tests():
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"move these into a folder of tests/ (tests/README.md says which): {loose}"


def test_each_test_folder_says_its_purpose_in_one_line_and_is_listed():
    index = (TESTS / "README.md").read_text(encoding="utf-8")
    for folder in _test_folders():
        name = folder.relative_to(TESTS).as_posix()
        readme = folder / "README.md"
        assert readme.is_file(), f"tests/{name}/ has no README.md (one line: what the folder holds)"
        lines = readme.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 1 and lines[0].strip(), f"tests/{name}/README.md is not one line"
        assert f"`{name}/`" in index, f"tests/README.md does not list tests/{name}/"


def test_test_file_names_are_unique_across_folders():
    """The folders are not packages (no __init__.py): pytest imports each test file by its name."""
    seen = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        assert path.name not in seen, f"{path.relative_to(ROOT)} and {seen[path.name]} share a name"
        seen[path.name] = path.relative_to(ROOT)
    assert not [p for p in TESTS.rglob("__init__.py") if p.parent in _test_folders()]


def test_every_named_test_path_exists():
    missing = []
    for pattern in NAMING:
        for path in sorted(ROOT.glob(pattern)):
            if not path.is_file() or path.suffix not in TEXT or "__pycache__" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for found in TEST_PATH.findall(line):
                    if not (ROOT / found).exists():
                        missing.append(f"{path.relative_to(ROOT)}:{n}: {found}")
    assert not missing, "paths under tests/ that do not exist:\n" + "\n".join(missing)


def test_the_sanitizer_runs_name_existing_tests():
    """.ci/run runs SAFETY_TESTS under ASan/UBSan and with bounds checks: a moved or renamed file
    must be renamed there too, or those runs fail on a missing path."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    found = re.search(r"^SAFETY_TESTS=\((.*?)\)$", text, re.M | re.S)
    assert found, "SAFETY_TESTS not found in .ci/run"
    paths = shlex.split(found.group(1).replace("\n", " "))
    assert paths and all(p.startswith("tests/") for p in paths), paths
    assert [p for p in paths if not (ROOT / p).exists()] == []
