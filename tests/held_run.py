"""The ``metro-ai`` command line with a tournament held at a known point, for tests that need a
run to be in progress when they act on it (interrupt it, kill it, start a second run beside it).

``python tests/held_run.py tournament ...`` runs ``metro-ai tournament ...``; after the run has
stored ``HOLD_AFTER`` games it waits (in the parent, in a Python sleep a signal interrupts) until
the file ``HOLD_GATE`` exists, or forever without one. Whatever the machine's load, the run cannot
finish before the test has done what it came to do.
"""
import os
import sys
import time

from metro_ai.cli import main
from metro_ai.play.tournament.store import TournamentDB


def hold_after(n, gate=None):
    real = TournamentDB.store
    stored = [0]

    def store(self, game_id, outcome):
        done = real(self, game_id, outcome)
        stored[0] += done
        if done and stored[0] == n:
            while gate is None or not os.path.exists(gate):
                time.sleep(0.01)
        return done

    TournamentDB.store = store


if __name__ == "__main__":
    hold_after(int(os.environ["HOLD_AFTER"]), os.environ.get("HOLD_GATE"))
    sys.exit(main(sys.argv[1:]))
