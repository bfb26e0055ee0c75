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
from setuptools.command.build_ext import build_ext

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


# Compiler directives of every module, in one place. Indices are validated where they enter, in
# the Python-facing methods, so the C runs without Cython's bounds and wraparound checks (and a
# negative index is a bug: write len(x) - 1). METRO_AI_CHECKS=1 builds with those checks on, so a
# slip is an IndexError (reported as unraisable inside nogil code) instead of memory corruption.
CHECKS = os.environ.get("METRO_AI_CHECKS", "") == "1"
DIRECTIVES = {"language_level": 3, "cdivision": True, "boundscheck": CHECKS, "wraparound": CHECKS,
              "initializedcheck": CHECKS}
# The build uses every core: the .pyx files are translated to C, and the C compiled, in one
# process per core; METRO_AI_BUILD_JOBS=N sets how many (1: one at a time). setuptools' own
# ``build_ext --parallel`` / ``-j``, where given, sets the C's. Only POSIX forks the translators.
try:
    BUILD_JOBS = int(os.environ.get("METRO_AI_BUILD_JOBS", "") or ((os.cpu_count() or 1) if os.name == "posix" else 1))
except ValueError:
    raise SystemExit(f"METRO_AI_BUILD_JOBS must be a whole number, got {os.environ['METRO_AI_BUILD_JOBS']!r}")
if BUILD_JOBS < 1:
    raise SystemExit(f"METRO_AI_BUILD_JOBS must be at least 1, got {BUILD_JOBS}")
# METRO_AI_SANITIZE=address,undefined builds with those sanitizers (-Og -g1 instead of -O3: a
# third of -O1 -g's compile time, the reports' line numbers kept); run it
# with the sanitizer runtimes preloaded (docs/dev/testing.md, "Memory safety").
SANITIZE = [s.strip() for s in os.environ.get("METRO_AI_SANITIZE", "").split(",") if s.strip()]


def _flags():
    """(compile flags, link flags, macros) of this build."""
    if sys.platform == "win32":
        return ["/O2"], [], []
    macros = [("METRO_AI_CHECKS", "1")] if CHECKS else []
    if not SANITIZE:
        return ["-O3"], [], macros
    unknown = sorted(set(SANITIZE) - {"address", "undefined"})
    if unknown:
        raise SystemExit(f"METRO_AI_SANITIZE: unknown sanitizer(s) {', '.join(unknown)}; use address,undefined")
    sanitize = "-fsanitize=" + ",".join(SANITIZE)
    macros.append(("METRO_AI_SANITIZE", '"' + ",".join(SANITIZE) + '"'))
    return ["-Og", "-g1", "-fno-omit-frame-pointer", sanitize], [sanitize], macros


def extensions():
    compile_flags, link_flags, macros = _flags()
    return [Extension(_dotted(folder, pyx), [os.path.relpath(pyx, HERE)], extra_compile_args=compile_flags,
                      extra_link_args=link_flags, define_macros=macros)
            for folder in PACKAGES for pyx in sorted((HERE / folder).rglob("*.pyx"))]


class ParallelBuildExt(build_ext):
    """build_ext compiling the C in BUILD_JOBS processes unless told otherwise, saying so."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = BUILD_JOBS
        print(f"metro-ai: compiling {len(self.extensions)} extension modules, {self.parallel} at a time "
              "(METRO_AI_BUILD_JOBS sets how many; pip shows this with -v)", file=sys.stderr)


mirror_pxd()
print(f"metro-ai: translating the .pyx files to C, {BUILD_JOBS} at a time", file=sys.stderr)
setup(
    packages=packages(),
    cmdclass={"build_ext": ParallelBuildExt},
    ext_modules=cythonize(
        extensions(),
        include_path=[str(MIRROR)],
        # tests/project/test_build.py checks (through core.build_info()) how the C was compiled.
        compiler_directives=DIRECTIVES,
        # A changed build switch must rebuild every module, not reuse C generated without it.
        force=CHECKS or bool(SANITIZE),
        quiet=True,
        nthreads=BUILD_JOBS if BUILD_JOBS > 1 else 0,
    ),
)
