"""The command line is one module per command (issue #42; docs/dev/adding-a-command.md):
``metro_ai/cli/<command>.py`` with ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; ``metro_ai.cli.COMMANDS`` lists them, and the parser's sub-commands are
exactly theirs, each run by its own module. The other modules of ``metro_ai/cli/`` hold what
several commands share and define no command. ``metro-ai`` (the console script) and
``python -m metro_ai`` both reach ``metro_ai.cli.main``."""
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import metro_ai.cli as cli
from metro_ai.version import __version__

ROOT = Path(__file__).resolve().parents[2]
#: The modules of metro_ai/cli/ that hold what several commands share.
SHARED = {"common", "serving"}


def _modules():
    return {info.name: importlib.import_module(f"metro_ai.cli.{info.name}")
            for info in pkgutil.iter_modules(cli.__path__)}


def _subcommands(parser):
    return next(a for a in parser._actions if a.dest == "command")


def test_every_command_module_has_name_help_add_arguments_and_run():
    modules = _modules()
    commands = {name: m for name, m in modules.items() if hasattr(m, "NAME")}
    assert set(modules) - set(commands) == SHARED, "a module of metro_ai/cli/ is neither a command (NAME) " \
                                                   "nor one of the shared ones"
    for name, m in commands.items():
        assert m.NAME.replace("-", "_") == name, f"metro_ai/cli/{name}.py defines command {m.NAME!r}"
        assert isinstance(m.HELP, str) and m.HELP, f"{name}: HELP is the one line of metro-ai --help"
        assert callable(m.add_arguments) and callable(m.run), f"{name}: add_arguments and run"
        assert len(inspect.signature(m.add_arguments).parameters) == 1, f"{name}: add_arguments(parser)"
        assert list(inspect.signature(m.run).parameters)[0] == "args", f"{name}: run(args)"
    for name in SHARED:
        assert not any(hasattr(modules[name], a) for a in ("NAME", "add_arguments", "run")), \
            f"metro_ai/cli/{name}.py is shared: it defines no command"


def test_the_parser_has_exactly_the_commands_of_the_modules():
    """One owner: COMMANDS is every command module once, and the sub-commands are their names and
    aliases, in that order, with each module's help line."""
    modules = [m for m in _modules().values() if hasattr(m, "NAME")]
    assert sorted(m.__name__ for m in cli.COMMANDS) == sorted(m.__name__ for m in modules)
    sub = _subcommands(cli.build_parser())
    names = [n for m in cli.COMMANDS for n in (m.NAME, *getattr(m, "ALIASES", ()))]
    assert list(sub.choices) == names
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert helps == {m.NAME: m.HELP for m in cli.COMMANDS}


@pytest.mark.parametrize("name", [n for m in cli.COMMANDS for n in (m.NAME, *getattr(m, "ALIASES", ()))])
def test_each_command_is_run_by_its_module(name, monkeypatch):
    """main parses, registers --game-module games, and hands the arguments to the command's own
    run, whose return is the exit code."""
    owner = next(m for m in cli.COMMANDS if name in (m.NAME, *getattr(m, "ALIASES", ())))
    seen = []
    for m in cli.COMMANDS:
        monkeypatch.setattr(m, "run", lambda args, m=m: seen.append((m, args)) or 7)
    positional = {"analyse": ["state.json"], "review": ["game.json"]}.get(owner.NAME, [])
    assert cli.main([name, *positional]) == 7
    assert [m for m, _ in seen] == [owner]
    assert seen[0][1].argv == [name, *positional]


def test_a_command_error_is_reported_with_the_exit_codes_of_main(monkeypatch, capsys):
    def run(args):
        raise ValueError("no such thing")
    monkeypatch.setattr(cli.games, "run", run)
    assert cli.main(["games"]) == 2
    assert capsys.readouterr().err == "metro-ai: error: no such thing\n"


def test_the_shared_options_are_written_once():
    """--jobs, --dask, --plot's check, the budget and the game options are added and checked in
    metro_ai/cli/common.py only; the server's options in serving.py only."""
    once = {"common.py": ['"--jobs"', '"--dask"', "require_matplotlib", '"--iterations"', '"--time"', '"--game"',
                          '"--players"', '"--option"', "randbelow"],
            "serving.py": ['"--data-dir"', '"--token"', '"--allow-origin"', "EADDRINUSE"]}
    folder = ROOT / "metro_ai" / "cli"
    texts = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.py")}
    for home, needles in once.items():
        for needle in needles:
            where = sorted(name for name, text in texts.items() if needle in text)
            assert where == [home], f"{needle} is written in {where}, not only in {home}"


def test_the_entry_points_reach_main():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    scripts = re.search(r"^\[project\.scripts\]\n(.*?)(?:\n\n|\n\[)", text, re.S | re.M).group(1)
    assert re.findall(r'^metro-ai = "([\w.]+):(\w+)"$', scripts, re.M) == [("metro_ai.cli", "main")]
    p = subprocess.run([sys.executable, "-m", "metro_ai", "--version"], capture_output=True, text=True,
                       cwd=ROOT / "tests", timeout=120, check=False)
    assert (p.returncode, p.stdout.strip()) == (0, f"metro-ai {__version__}")
