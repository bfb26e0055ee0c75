"""``metro-ai bench``: speed, memory and strength benchmarks (the package :mod:`metro_ai.bench`,
whose docstring is this command's description and whose runner owns its options)."""
from __future__ import annotations

import shlex

from metro_ai import bench as package
from metro_ai.bench import runner

NAME = "bench"
HELP = "speed, memory and strength benchmarks: a Markdown table and JSON"
DESCRIPTION = (package.__doc__ or "").split("\n\n", 1)[1].replace("``", "")
EPILOG = ("exit codes: 0 done, 1 a section you named could not run (with --versus: the builds could not be "
          "compared), 2 bad usage")


def add_arguments(p):
    runner.add_arguments(p)


def run(args) -> int:
    return runner.execute(args, shlex.join(["metro-ai", *args.argv]))
