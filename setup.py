"""Build the Cython extensions of metro-ai and list its packages (all other metadata lives in
pyproject.toml). Both lists are found from the tree, so a new game package (``engine/<game>/``
with its ``.pyx``, ``.pxd`` and data) needs no edit here or in pyproject.toml.

`engine/` and `bots/` install as `metro_ai.engine` and `metro_ai.bots`. Cython looks a `.pxd` up by
its package path on disk, and there is no `metro_ai/engine/` folder in the source tree, so the
`.pxd` files are mirrored (sub-packages included: `engine/metro/rules.pxd` becomes
`build/cython_include/metro_ai/engine/metro/rules.pxd`) and that folder is passed to
`cythonize(include_path=...)`. Every `.pyx` under `engine/` and `bots/` is an extension module. This works for `pip install .` and `pip install -e .`.
"""
import os
import shutil
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
MIRROR = HERE / "build" / "cython_include"
PACKAGES = {"engine": "metro_ai.engine", "bots": "metro_ai.bots"}


def _dotted(folder, path):
    """The module name of a file under `folder` (a key of PACKAGES), e.g. metro_ai.engine.metro.rules."""
    rel = path.relative_to(HERE / folder).with_suffix("")
    return ".".join([PACKAGES[folder], *rel.parts])


def mirror_pxd():
    target_root = MIRROR / "metro_ai"
    target_root.mkdir(parents=True, exist_ok=True)
    (target_root / "__init__.pxd").touch()
    for folder, dotted in PACKAGES.items():
        target = MIRROR.joinpath(*dotted.split("."))
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        (target / "__init__.pxd").touch()
        for pxd in sorted((HERE / folder).rglob("*.pxd")):
            dest = target / pxd.relative_to(HERE / folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            (dest.parent / "__init__.pxd").touch()
            shutil.copy2(pxd, dest)


def packages():
    """metro_ai and every sub-package (a folder with __init__.py) under metro_ai/, engine/, bots/,
    by installed name."""
    found = []
    for folder, dotted in {"metro_ai": "metro_ai", **PACKAGES}.items():
        for init in sorted((HERE / folder).rglob("__init__.py")):
            found.append(".".join([dotted, *init.parent.relative_to(HERE / folder).parts]))
    return found


def extensions():
    flags = ["-O3"] if sys.platform != "win32" else ["/O2"]
    return [Extension(_dotted(folder, pyx), [os.path.relpath(pyx, HERE)], extra_compile_args=flags)
            for folder in PACKAGES for pyx in sorted((HERE / folder).rglob("*.pyx"))]


mirror_pxd()
setup(
    packages=packages(),
    ext_modules=cythonize(
        extensions(),
        include_path=[str(MIRROR)],
        # Each .pyx states its directives in its first line (bounds and wraparound checks off:
        # indices are validated where they enter, in the Python-facing methods);
        # tests/test_build.py checks them and that the C was compiled with optimisation on.
        compiler_directives={"language_level": 3},
        quiet=True,
    ),
)
