"""One owner for each idea (issue #42): a name is defined in one module and imported from there.

No module of ``metro_ai/``, ``bots/`` or ``engine/`` imports a name from another of ours only to
offer it again under its own path (a shim for an old import path), except the faces in ``FACES``,
each there for a reason its users read; and the shims of 0.1.0's development are gone, with no
file of the repository naming their paths.
"""
import ast
import importlib.util
import re
from pathlib import Path

from tests.project.test_imports import MODULES, TARGETS

ROOT = Path(__file__).resolve().parents[2]

#: The modules that gather names of other modules for their users, and why.
FACES = {
    "metro_ai": "the facade users import from (README, docs/reference/api.md)",
    "metro_ai.ladder": "the Elo ladders and their calibration in one place (docs/reference/api.md)",
    "metro_ai.protocol": "the protocol package: its servers, session and limits (docs/guide/server.md)",
    "metro_ai.play.tournament": "the tournament package's public face: what users and the facade import (README, "
                                "docs/tutorials/tournament.md), its modules one idea each",
    "metro_ai.learn": "the learning package's public face: self-play, the fit and the evaluator (docs/guide/train.md)",
    "metro_ai.bench.versus": "the versus command's entry: add_arguments and execute, which metro-ai bench --versus "
                             "and benches/versus.py call",
    "metro_ai.engine": "the engine floor: the library's errors",
    "metro_ai.engine.metro": "a game package: its game and state classes (GAME_CLASSES names them there)",
    "metro_ai.engine.breakthrough": "a game package",
    "metro_ai.engine.leduc": "a game package",
    "metro_ai.engine.metro2033": "a game package",
}


def _source(module):
    """The module an ImportFrom node of `module` reads from, if it is ours."""
    def of(node):
        base = node.module or ""
        if node.level:
            is_package = MODULES[module].name == "__init__.py"
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        return base if base.split(".")[0] == "metro_ai" else None
    return of


def passed_on(module):
    """The names `module` imports from modules of ours and never uses: names it only passes on."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):                 # imports for type checking only: never run, never passed on
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    source = _source(module)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and source(node) is not None:
            for alias in node.names:
                name = alias.asname or alias.name
                if name not in used and f"{source(node)}.{alias.name}" not in TARGETS:   # a module is not a name
                    out.append(f"{name} (from {source(node)})")
    return out


def test_no_module_passes_on_names_of_another():
    found = {m: passed_on(m) for m in sorted(MODULES) if m not in FACES}
    found = {m: names for m, names in found.items() if names}
    assert found == {}, "import these from the module that defines them (or add a face with its reason to FACES)"


def test_the_check_sees_a_shim(tmp_path, monkeypatch):
    shim = tmp_path / "shim.py"
    shim.write_text("from metro_ai.bots.catalogue import make_bot, BOTS\n\nprint(BOTS)\n", encoding="utf-8")
    monkeypatch.setitem(MODULES, "metro_ai.shim", shim)
    assert passed_on("metro_ai.shim") == ["make_bot (from metro_ai.bots.catalogue)"]


def test_the_faces_exist():
    assert set(FACES) <= set(MODULES)


#: The shims that 0.1.0 kept for import paths of its development, never released.
GONE_MODULES = ("metro_ai.play.botspec",)
GONE_NAMES = {"metro_ai.registry": ("BOTS", "PRESETS", "make_bot", "bot_catalogue", "describe_bots", "list_bots"),
              "metro_ai.play.tournament": ("BotSpecError",)}


def test_the_shims_are_gone():
    assert [m for m in GONE_MODULES if importlib.util.find_spec(m) is not None] == []
    for module, names in GONE_NAMES.items():
        mod = importlib.import_module(module)
        assert [n for n in names if hasattr(mod, n)] == [], f"{module} still offers names of another module"
    import metro_ai.bench
    assert [n for n in vars(metro_ai.bench) if not n.startswith("_")
            and not isinstance(getattr(metro_ai.bench, n), type(metro_ai.bench))] == [], \
        "metro_ai.bench is its modules only: import each name from the module of its section"


def test_no_file_names_a_shim_path():
    """Code, tests, benches and docs (their code samples included) import from the owners."""
    shim = re.compile(r"metro_ai\.play\.botspec|metro_ai\.play import botspec|"
                      r"from metro_ai\.registry import[^\n]*\b(BOTS|PRESETS|make_bot|bot_catalogue|describe_bots|list_bots)\b|"
                      r"from metro_ai\.bench import[^\n]*\b(Settings|run|markdown|position|STAGES|NODE_BYTES)\b|"
                      r"from metro_ai\.cli import[^\n]*\b_\w+")
    here = Path(__file__).resolve()
    found = []
    for pattern in ("metro_ai/**/*.py", "bots/**/*.py", "engine/**/*.py", "tests/**/*.py", "benches/**/*.py",
                    "docs/**/*.md", "docs/**/*.py", "examples/**/*.py", "README.md", "CONTRIBUTING.md"):
        for path in sorted(ROOT.glob(pattern)):
            if path.resolve() == here or "__pycache__" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if shim.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []
