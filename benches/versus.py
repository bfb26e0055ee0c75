"""This build against another installed build of metro-ai, the way chess engines are tested.

    python benches/versus.py OTHER [--bot hard] [--other-bot SPEC] [--game metro] [--players 2]
        [--time 0.05 | --iterations N] [--games N | --elo0 0 --elo1 30 --alpha 0.05 --beta 0.05
        --max-games 1000] [--option NAME=VALUE] [--seed 2026] [--out FILE.json] [--markdown FILE.md]

OTHER is the other build's ``metro-ai`` executable (or its python, or its virtual environment's
folder), e.g. a checkout of the last release installed in its own ``.venv``. The other build is
driven through its ``metro-ai serve`` (stdio); this build's engine owns the game. Without
``--games`` an SPRT over game pairs runs until it accepts H0 or H1 (or ``--max-games``). The
same as ``metro-ai bench --versus OTHER ...``; the logic is ``metro_ai.bench.versus``.
"""
import argparse
import shlex
import sys

from metro_ai.bench import versus


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    versus.add_arguments(p)
    args = p.parse_args(argv)
    try:
        return versus.execute(args, shlex.join(["python", "benches/versus.py", *argv]))
    except ValueError as exc:
        p.error(str(exc))
        return 2


if __name__ == "__main__":
    sys.exit(main())
