"""Games of the user's own, registered beside the built-in ones (docs/dev/adding-a-game.md).

A game is named by a spec: ``"package.module:Class"`` (an importable module) or
``"path/to/file.py:Class"`` (a file, loaded as a module of its own). ``metro_ai.register_game``
takes one (or the class itself); the command line takes ``--game-module SPEC`` (repeatable, before
the command); the environment variable ``METRO_AI_GAMES`` holds specs separated by commas, read on
the registry's first use. Registering a spec also adds it to ``METRO_AI_GAMES``, so worker
processes (``metro-ai tournament --jobs``) find the game too.

Only the operator registers games: the protocol server (``serve``, ``web``) plays the games
registered when it starts, and no client message names a module (docs/security.md).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from metro_ai.engine.core import Game

#: The environment variable naming extra games ("spec,spec,...").
ENV = "METRO_AI_GAMES"
#: Modules loaded from a file path are named under this prefix (they cannot be imported by name
#: in another process, so ``backend="processes"`` refuses their games).
FILE_PREFIX = "metro_ai_user_games_"


def load_class(spec: Any) -> type[Game]:
    """The ``Game`` subclass a spec names (or `spec` itself if it is one); ValueError saying
    what is wrong."""
    from metro_ai.engine.core import Game
    if isinstance(spec, type):
        cls = spec
        where = f"{spec.__module__}:{spec.__qualname__}"
    else:
        if not isinstance(spec, str) or spec.count(":") < 1:
            raise ValueError(f"a game is named 'module:Class' or 'path/to/file.py:Class', got {spec!r}")
        module_part, cls_name = spec.rsplit(":", 1)
        where = spec
        if module_part.endswith(".py") or os.sep in module_part or "/" in module_part:
            module = _load_file(module_part)
        else:
            try:
                module = importlib.import_module(module_part)
            except ImportError as exc:
                raise ValueError(f"cannot import game module {module_part!r}: {exc}") from None
        try:
            cls = getattr(module, cls_name)
        except AttributeError:
            raise ValueError(f"{module_part!r} has no class {cls_name!r}") from None
    if not isinstance(cls, type) or not issubclass(cls, Game) or cls is Game:
        raise ValueError(f"{where} is not a game: a subclass of metro_ai.engine.core.Game "
                         "(or of metro_ai.engine.python_game.PythonGame)")
    if not isinstance(cls.name, str) or not cls.name:
        raise ValueError(f"{where}: the game class has no name (its class attribute 'name')")
    return cls


def _load_file(path_text: str):
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"game module file {path_text!r} not found")
    name = FILE_PREFIX + path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load game module file {path_text!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def env_specs() -> list[str]:
    """The specs in ``METRO_AI_GAMES`` (empty if unset)."""
    return [s.strip() for s in os.environ.get(ENV, "").split(",") if s.strip()]


def remember(spec: Any) -> None:
    """Add a registered spec to ``METRO_AI_GAMES`` for worker processes (a class object is
    added as "module:Class" where its module is importable by name)."""
    if isinstance(spec, type):
        module = spec.__module__
        if module == "__main__" or module.startswith(FILE_PREFIX):
            return
        spec = f"{module}:{spec.__qualname__}"
    elif not isinstance(spec, str):
        return
    else:
        module_part, cls_name = spec.rsplit(":", 1)
        if module_part.endswith(".py") or "/" in module_part or os.sep in module_part:
            spec = f"{Path(module_part).expanduser().resolve()}:{cls_name}"
    specs = env_specs()
    if spec not in specs:
        os.environ[ENV] = ",".join(specs + [spec])


def importable_by_name(cls: type) -> bool:
    """False for a game whose class another process cannot import by name (loaded from a file,
    or defined in ``__main__``)."""
    return not (cls.__module__ == "__main__" or cls.__module__.startswith(FILE_PREFIX))
