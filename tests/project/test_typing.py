"""The .pyi stubs: one for each public compiled module, covering what it gives Python (issue #42).

Type checkers and IDEs cannot read a compiled module, so they see the engine through the stubs
next to its ``.pyx``. A compiled module is public when Python code imports it: the package's own
``.py`` files (``metro_ai/``, ``engine/``, ``bots/``), found here by reading their imports; each
game's state module (its registered ``Game`` and ``GameState``) is one of them. Those have a stub
and no other has one: the loaders, the C mechanics and the Metro modules are reached through
Cython (``cimport``) or by name (``MODULES``, the registry), and a stub nobody reads would only be
one more copy to keep. Each stub is parsed with ``ast`` and compared with the imported module:
every public class and function defined in the module is in the stub; every public method and
property a class defines is in its stub or in a stubbed base class's (an override is restated
only where it narrows a type, and a stub that restates a base's member word for word is refused);
every name in a stub exists at run time, with the same parameter names where the runtime signature
is readable.
"""
import ast
import importlib
import inspect
from importlib import resources
from pathlib import Path

import pytest

import metro_ai

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"engine": "metro_ai.engine", "bots": "metro_ai.bots"}


def _module_name(source: Path) -> str:
    """The installed name of a source file (a package's ``__init__.py`` names the package)."""
    folder, *rest = source.relative_to(ROOT).with_suffix("").parts
    if rest and rest[-1] == "__init__":
        rest = rest[:-1]
    return ".".join([{"metro_ai": "metro_ai", **PACKAGES}[folder], *rest])


def compiled_sources() -> list[Path]:
    return sorted(p for folder in PACKAGES for p in (ROOT / folder).rglob("*.pyx"))


def python_imports() -> set[str]:
    """Every module name (and ``package.name`` of ``from package import name``) that the package's
    Python files import, relative imports resolved."""
    found = set()
    for folder in ("metro_ai", *PACKAGES):
        for py in (ROOT / folder).rglob("*.py"):
            here = _module_name(py).split(".")
            package = here if py.name == "__init__.py" else here[:-1]
            for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"), filename=str(py))):
                if isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom):
                    base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                        if node.level else node.module
                    found.add(base)
                    found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def public_compiled() -> list[Path]:
    """The compiled modules that Python code imports, and each game's state module."""
    imported = python_imports()
    return [p for p in compiled_sources() if _module_name(p) in imported or p.name == "state.pyx"]


STUBBED = public_compiled()
IDS = [str(p.relative_to(ROOT)) for p in STUBBED]


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def _body_names(body: list[ast.stmt]) -> set[str]:
    return {name for node in body for name in _targets(node)}


def parse_stub(path: Path):
    """(module-level names, class name -> names in its body, (class or None, name) -> the
    parameter names of each function in the stub)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    classes = {node.name: _body_names(node.body) for node in tree.body if isinstance(node, ast.ClassDef)}
    params = {}
    for node in tree.body:
        owners = [(None, [node])] if not isinstance(node, ast.ClassDef) else [(node.name, node.body)]
        for owner, body in owners:
            for f in body:
                if isinstance(f, ast.FunctionDef):
                    a = f.args
                    params[owner, f.name] = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return _body_names(tree.body), classes, params


def _stub_of(pyx: Path) -> Path:
    return pyx.with_suffix(".pyi")


def _is_public(name: str) -> bool:
    return not name.startswith("_")


def _defined_here(obj, module) -> bool:
    return (inspect.isclass(obj) or callable(obj)) and getattr(obj, "__module__", None) == module.__name__


# Kinds of class members that must be in the stub of the class that defines them (overrides
# included, since an override may narrow a type); other class attributes may be inherited.
def _is_method_or_property(value) -> bool:
    return (callable(value) or isinstance(value, (property, classmethod, staticmethod))
            or inspect.isgetsetdescriptor(value) or inspect.ismemberdescriptor(value))


def _member_texts(path: Path) -> dict[str, dict[str, str]]:
    """Class name -> each member's declaration in the stub as text (decorators, parameters and
    their types, the return type; an annotated attribute's type), to tell a restatement."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        if isinstance(node, ast.ClassDef):
            members = out[node.name] = {}
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    members[f.name] = ast.unparse(ast.FunctionDef(
                        name=f.name, args=f.args, body=[ast.Expr(ast.Constant(...))],
                        decorator_list=f.decorator_list, returns=f.returns, type_params=[], lineno=0))
                elif isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name):
                    members.setdefault(f.target.id, ast.unparse(f.annotation))
    return out


def _all_stubs():
    """(module name, class name) -> {member name: its declaration's text}, over every stub."""
    return {(_module_name(pyx), cls_name): members for pyx in STUBBED
            for cls_name, members in _member_texts(_stub_of(pyx)).items()}


def test_stubs_are_for_the_public_compiled_modules_only():
    assert compiled_sources(), "no Cython sources found"
    assert {"metro_ai.engine.core", "metro_ai.bots.search"} <= {_module_name(p) for p in STUBBED}
    missing = [str(p.relative_to(ROOT)) for p in STUBBED if not _stub_of(p).is_file()]
    assert not missing, f"public compiled modules (imported by Python code) without a .pyi stub: {missing}"
    private = sorted(str(p.relative_to(ROOT)) for p in compiled_sources()
                     if p not in STUBBED and _stub_of(p).is_file())
    assert not private, f"stubs of modules no Python code imports (Cython's alone): {private}; drop them"


def test_py_typed_marker_ships():
    assert resources.files(metro_ai).joinpath("py.typed").is_file()


@pytest.mark.parametrize("pyx", STUBBED, ids=IDS)
def test_stub_names_every_public_class_and_function(pyx):
    module = importlib.import_module(_module_name(pyx))
    names, _, _ = parse_stub(_stub_of(pyx))
    runtime = {n for n in dir(module) if _is_public(n) and _defined_here(getattr(module, n), module)}
    missing = sorted(runtime - names)
    assert not missing, f"{_stub_of(pyx).name} lacks {missing}"


@pytest.mark.parametrize("pyx", STUBBED, ids=IDS)
def test_stub_classes_name_every_public_member(pyx):
    """Each public method or property is in the class's stub or a stubbed base's; a member the
    stub restates exactly as the nearest stubbed base declares it is refused (it says nothing new)."""
    module = importlib.import_module(_module_name(pyx))
    _, classes, _ = parse_stub(_stub_of(pyx))
    stubs = _all_stubs()
    problems = []
    for cls_name in sorted(classes):
        cls = getattr(module, cls_name)
        own = stubs[module.__name__, cls_name]
        bases = [stubs[k.__module__, k.__name__] for k in cls.__mro__[1:] if (k.__module__, k.__name__) in stubs]
        inherited = set().union(*bases)
        for name, value in vars(cls).items():
            if not _is_public(name) or name in own or name in inherited:
                continue
            if _is_method_or_property(value):
                problems.append(f"{cls_name}.{name} (defined in the class, in neither its stub nor a base's)")
            else:
                problems.append(f"{cls_name}.{name} (an attribute neither the class's stub nor a base's declares)")
        for name, text in own.items():
            nearest = next((b[name] for b in bases if name in b), None)
            if text == nearest:
                problems.append(f"{cls_name}.{name} (restates its base's stub word for word)")
    assert not problems, f"{_stub_of(pyx).name}: " + "; ".join(problems)


@pytest.mark.parametrize("pyx", STUBBED, ids=IDS)
def test_stub_names_exist_at_run_time_with_the_same_parameters(pyx):
    module = importlib.import_module(_module_name(pyx))
    names, classes, params = parse_stub(_stub_of(pyx))
    problems = [n for n in sorted(names) if not hasattr(module, n)]
    for cls_name, members in classes.items():
        cls = getattr(module, cls_name, None)
        problems += [f"{cls_name}.{m}" for m in sorted(members) if cls is not None and not hasattr(cls, m)]
    assert not problems, f"{_stub_of(pyx).name} names what the module lacks: {problems}"
    for (owner, name), stub_params in sorted(params.items(), key=str):
        if name.startswith("__"):          # slots: the runtime names their parameters generically
            continue
        target = getattr(module, name) if owner is None else inspect.getattr_static(getattr(module, owner), name)
        if isinstance(target, (classmethod, staticmethod)):
            target = target.__func__
        if isinstance(target, property) or not callable(target):
            continue
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):    # slot wrappers of cdef classes: no readable signature
            continue
        runtime_params = [p.name for p in sig.parameters.values()
                          if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        varargs = {p.name for p in sig.parameters.values() if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        stub_named = [p for p in stub_params if p not in varargs]
        assert stub_named == runtime_params, (
            f"{_stub_of(pyx).name}: {owner + '.' if owner else ''}{name} takes {runtime_params}, "
            f"the stub says {stub_named}")
