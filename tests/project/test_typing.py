"""The .pyi stubs of the extension modules cover what the compiled modules give Python.

Type checkers and IDEs cannot read a compiled module, so they see the engine through the stubs
next to each ``.pyx``; a stub that misses a name hides it, and one that names something gone lies.
Each stub is parsed with ``ast`` and compared with the imported module: every public class and
function defined in the module is in the stub; every public method and property a class defines
is in that class's stub (data attributes may come from a stubbed base class); every name in a stub
exists at run time, with the same parameter names where the runtime signature is readable.
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
# Extension modules without a stub, left out of these checks (mypy would treat one as untyped):
# none; every .pyx has its .pyi (bots/search.pyx's came with its rewrite).
NOT_STUBBED: set = set()


def _module_name(pyx: Path) -> str:
    folder, *rest = pyx.relative_to(ROOT).with_suffix("").parts
    return ".".join([PACKAGES[folder], *rest])


def compiled_sources() -> list[Path]:
    return sorted(p for folder in PACKAGES for p in (ROOT / folder).rglob("*.pyx"))


STUBBED = [p for p in compiled_sources() if str(p.relative_to(ROOT)) not in NOT_STUBBED]
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


def _all_stubs():
    """(module name, class name) -> names in the stub class, over every stubbed module."""
    out = {}
    for pyx in STUBBED:
        _, classes, _ = parse_stub(_stub_of(pyx))
        for cls_name, names in classes.items():
            out[_module_name(pyx), cls_name] = names
    return out


def test_every_compiled_module_has_a_stub():
    assert compiled_sources(), "no Cython sources found"
    missing = [str(p.relative_to(ROOT)) for p in STUBBED if not _stub_of(p).is_file()]
    assert not missing, f"no .pyi stub beside {missing}"
    for name in NOT_STUBBED:
        if (ROOT / name).with_suffix(".pyi").is_file():
            pytest.fail(f"{name} has a stub now: take it out of NOT_STUBBED so it is checked")


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
    module = importlib.import_module(_module_name(pyx))
    _, classes, _ = parse_stub(_stub_of(pyx))
    stubs = _all_stubs()
    problems = []
    for cls_name in sorted(classes):
        cls = getattr(module, cls_name)
        own = classes[cls_name]
        inherited = set().union(*(stubs.get((k.__module__, k.__name__), set()) for k in cls.__mro__))
        for name, value in vars(cls).items():
            if not _is_public(name):
                continue
            if _is_method_or_property(value):
                if name not in own:
                    problems.append(f"{cls_name}.{name} (defined in the class, missing from its stub)")
            elif name not in inherited:
                problems.append(f"{cls_name}.{name} (an attribute neither the class's stub nor a base's declares)")
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
