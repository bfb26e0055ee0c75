"""``python -m metro_ai.bench [options]``: ``metro-ai bench`` without the rest of the command line."""
import argparse
import shlex
import sys

from .runner import add_arguments, execute


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(prog="python -m metro_ai.bench", description="speed, memory and strength, "
                                "every comparison measured in one run (metro-ai bench)")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return execute(args, "metro-ai bench " + shlex.join(argv))
    except ValueError as exc:
        p.error(str(exc))
        return 2


if __name__ == "__main__":
    sys.exit(main())
