"""No import circles in ``metro_ai/`` and ``bots/``, and every module imports on its own.

The import graph is read with ``ast`` from every ``import`` statement of the Python modules of
``metro_ai/`` and ``bots/`` (``metro_ai.bots``), at module level and inside functions alike (an
import deferred into a function to dodge a circle is still a circle); only ``if TYPE_CHECKING:``
blocks, which never run, are left out. An edge to a package is an edge to its ``__init__``:
``import metro_ai`` from inside the package is an edge to the facade, which imports everything.

The modules sit on floors, each importing only from its own floor or those below
(docs/dev/layout.md): the engine; the bots (the catalogue, specs, presets and Elo ladder reading included);
the game registry and the option parser; playing (matches, tournaments, ratings, calibration) and
the interop bridges; the benchmarks and the protocol; the web page and the command line; last the
facade ``metro_ai`` that users import.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"metro_ai": "metro_ai", "bots": "metro_ai.bots", "engine": "metro_ai.engine"}


def _modules() -> dict[str, Path]:
    """Module name -> file, for every .py module of metro_ai/, bots/ and engine/."""
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()
#: Extension modules (.pyx) are import targets too.
TARGETS = set(MODULES) | {".".join([FOLDERS[f], *p.relative_to(ROOT / f).with_suffix("").parts])
                          for f in FOLDERS for p in (ROOT / f).rglob("*.pyx")}
CHECKED = sorted(m for m in MODULES if not m.startswith("metro_ai.engine"))


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and isinstance(test, (ast.Name, ast.Attribute)) and \
        (getattr(test, "id", None) or getattr(test, "attr", None)) == "TYPE_CHECKING"


def _imports(tree: ast.AST):
    """Every Import/ImportFrom node of `tree` outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if _is_type_checking(node):
            stack.extend(getattr(node, "orelse", []))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _known(name: str) -> str | None:
    """`name` or its nearest enclosing module that is ours; None for another package's."""
    while name:
        if name in TARGETS:
            return name
        name = name.rpartition(".")[0]
    return None


def edges(module: str) -> set[str]:
    """The modules of ours that `module` imports (anywhere in its file)."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    out = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in TARGETS else base for a in node.names]
        for name in names:
            target = _known(name)
            if target is not None and target != module:
                out.add(target)
    return out


GRAPH = {m: edges(m) for m in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, out = set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:                        # the interpreter's limit as it was: other tests rely on it
        sys.setrecursionlimit(limit)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_metro_ai_or_bots():
    found = cycles({m: GRAPH[m] for m in CHECKED})
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


#: The floors, lowest first: a module imports only from its own floor and those below.
FLOORS = [
    ("engine", ("metro_ai.engine", "metro_ai.version")),
    ("bots", ("metro_ai.bots",)),
    ("games and options", ("metro_ai.registry", "metro_ai.optionspec", "metro_ai.usergames")),
    ("play, interop and learning", ("metro_ai.play", "metro_ai.interop", "metro_ai.learn")),
    ("bench, protocol, ladder", ("metro_ai.bench", "metro_ai.protocol", "metro_ai.ladder")),
    ("faces", ("metro_ai.web", "metro_ai.cli")),
    ("facade", ("metro_ai.__main__", "metro_ai")),
]


def floor(module: str) -> int:
    for i, (_, prefixes) in enumerate(FLOORS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{module} is on no floor: add it to FLOORS")


def test_every_module_imports_only_from_its_floor_or_below():
    up = [f"{m} ({FLOORS[floor(m)][0]}) imports {t} ({FLOORS[floor(t)][0]})"
          for m in CHECKED for t in sorted(GRAPH[m]) if floor(t) > floor(m)]
    assert up == []


def test_the_bots_name_no_game():
    """The bots floor plays any game: no module of it names a registered game."""
    games = ("breakthrough", "leduc", "metro2033")
    named = [f"{m}: {g}" for m in CHECKED if m.startswith("metro_ai.bots") or m == "metro_ai.ladder"
             for g in games if f'"{g}"' in MODULES[m].read_text(encoding="utf-8")]
    assert named == []


#: Modules that need an optional package: a missing one is not an import-order fault.
OPTIONAL = {"pyspiel", "open_spiel", "pettingzoo", "gymnasium"}
MAIN = {"metro_ai.__main__", "metro_ai.bench.__main__"}


def _import_alone(module: str) -> tuple[str, int, str]:
    code = (f"try:\n    import {module}\n"
            f"except ImportError as exc:\n"                # the bridges re-raise a missing package's
            f"    cause = exc if exc.name else exc.__cause__\n"
            f"    if (getattr(cause, 'name', None) or '').split('.')[0] in {sorted(OPTIONAL)!r}: raise SystemExit(0)\n"
            f"    raise\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT / "tests",
                       timeout=300, check=False)
    return module, p.returncode, p.stderr.strip()[-600:]


@pytest.mark.slow          # a hundred interpreters; the circles themselves are the test above's
def test_every_module_imports_in_a_fresh_interpreter():
    """No import-order dependence: each module imports first thing in a new interpreter."""
    names = [m for m in CHECKED if m not in MAIN]
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        failed = [f"{m}: {err}" for m, rc, err in pool.map(_import_alone, names) if rc != 0]
    assert failed == []


@pytest.mark.parametrize("module", ["metro_ai.registry", "metro_ai.bots.mcts", "metro_ai.play.match"])
def test_the_graph_reads_deferred_imports(module):
    """The graph sees imports inside functions (the ones that used to dodge circles)."""
    assert GRAPH[module], f"{module} imports nothing of ours?"


def test_importing_the_package_loads_neither_numpy_nor_asyncio():
    """`import metro_ai` is paid by every command and child process (0.45 s with numpy and
    asyncio, 0.18 s without): the ratings import numpy, a search handle asyncio, where used."""
    code = "import sys, metro_ai; print(sorted({'numpy', 'asyncio'} & set(sys.modules)))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT / "tests",
                       timeout=120, check=True)
    assert p.stdout.strip() == "[]", p.stdout
