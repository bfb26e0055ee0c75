"""Fuzzing the boundary between a user's plain-Python game and the compiled layer
(engine/python_game.pyx): games with faulty methods (tests/user_games.py), run through every
entry point that plays a game.

    python tests/fuzz_user_games.py [--examples N | --seconds S] [--seed S] [--timeout T]

Hypothesis draws one to three faults (``user_games.FAULTS``: an exception, a value of the wrong
kind, a method that is not pure, a copy that shares, ``sys.exit``, a game that never ends, bad
limits...), the call after which each starts (so that a search starts well, then meets it), the
players and an entry point: ``random_playouts``, a match (``play_match``), each search bot and
baseline (``choose``, with MAST and heuristic play-outs, implicit minimax, two worker threads),
a search with a time budget, a background search stopped early, and the protocol server (a
session playing ``go`` with ``apply``, then ``hello``). Each example runs in a forked child
(tests/forked.py), so a crash (a signal, a sanitizer's abort under the ASan/UBSan build of
``.ci/run``) or a hang is an outcome, not the end of the run. Outcomes:

- played (the entry point finished; any returns are in [0, 1]), refused (a ``PythonGameError``,
  or, from a plain Python call, the game's own exception, a ``KeyboardInterrupt`` raised by the
  game's code in the main thread, or an ``IllegalActionError`` where the game's ``_check``
  refuses what its ``_legal_actions`` listed): fine;
- wrong exception (any other exception, ``SystemExit`` escaping included), crashed (a signal, or
  the child ended otherwise), hung (no answer in ``--timeout`` seconds): findings.

A finding fails the run; Hypothesis shrinks it and prints the minimal example. The last line of
output counts the examples by outcome (``fuzz: ...``); the exit code is 0 if every one passed.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import math
import sys
import time

import hypothesis
from hypothesis import HealthCheck, given, settings, strategies as st

import metro_ai
from metro_ai import Limit
from metro_ai.engine.core import random_playouts
from metro_ai.engine.errors import IllegalActionError, PythonGameError
from metro_ai.play.match import play_match

from forked import describe, run_forked
from user_games import FAULTS, GameBug, make_game

SEARCH = Limit(iterations=40)
BOTS = ("random", "greedy", "ismcts", "mo-ismcts", "flat-mc", "pimc:worlds=2", "ismcts:rollout=mast",
        "ismcts:rollout=heuristic", "ismcts:minimax=0.3", "ismcts:workers=2")
ENTRIES = ("random_playouts", "match", "timed", "stop", "protocol") + tuple(f"bot {b}" for b in BOTS)
#: Exceptions that are a clear refusal: the adapter's, the game's own from a plain Python call, and
#: an illegal action where a faulty ``_check`` refuses what ``_legal_actions`` listed.
REFUSALS = (PythonGameError, GameBug, IllegalActionError)
CODES = {10: "played", 11: "refused", 12: "wrong exception"}
FINDINGS = ("wrong exception", "crashed", "hung")
COUNTS: collections.Counter = collections.Counter()


def _sane(values, what):
    assert all(isinstance(v, float) and math.isfinite(v) and 0 <= v <= 1 for v in values), f"{what}: {values}"


def _protocol(game):
    """A session plays ``go`` with ``apply`` to the end or a refusal; the server still answers."""
    from protocol_client import Client                  # (imported here: it loads the schema)

    async def main():
        metro_ai.register_game(type(game))
        c = Client()
        answer = await c.call("new_game", game=game.name, options={"players": game.players}, seed=1)
        if "error" in answer:
            return "refused"
        gid = answer["result"]["game_id"]
        outcome = "played"
        for turn in range(2 * game.max_game_length if isinstance(game.max_game_length, int) else 4):
            answer = await c.call("go", game_id=gid, bot="ismcts:iterations=30" if turn % 2 else "random",
                                  seed=turn, apply=True, progress=False)
            if "error" in answer:
                outcome = "refused"
                break
            state = await c.call("state", game_id=gid)
            if "error" in state or state["result"].get("terminal"):
                break
        assert "result" in await c.call("hello"), "the server no longer answers"
        await c.session.close()
        return outcome
    return asyncio.run(main())


def run_entry(game, entry, seed):
    """Run `entry` on `game`: "played" or "refused"; any other exception propagates."""
    try:
        if entry == "random_playouts":
            _sane([x / 5 for x in random_playouts(game.new_state(seed), 5, seed)], "returns")
        elif entry == "match":
            record = play_match(game, [metro_ai.make_bot("random", seed=1), metro_ai.make_bot("greedy")]
                                + [metro_ai.make_bot("ismcts", seed=2)] * (game.players - 2), seed=seed,
                                limit=SEARCH)
            _sane(record["returns"], "returns")
        elif entry == "timed":
            metro_ai.make_bot("ismcts", seed=seed).choose(game.new_state(seed), Limit(time=0.1))
        elif entry == "stop":
            handle = metro_ai.make_bot("ismcts", seed=seed).start(game.new_state(seed), Limit(time=30))
            time.sleep(0.02)
            handle.stop(timeout=20)
        elif entry == "protocol":
            return _protocol(game)
        else:
            state = game.new_state(seed)
            action = metro_ai.make_bot(entry.split(" ", 1)[1], seed=seed).choose(state, SEARCH)
            assert action in state.legal_actions(), f"chose {action!r}, not a legal action"
    except REFUSALS:
        return "refused"
    except KeyboardInterrupt:
        # raised by the game's code in this (the main) thread: the user's Ctrl-C as far as
        # anyone can tell, so it stays one (searches run in their own threads, where it is an error)
        if not any(name == "interrupts" for _, name in game_faults(game)):
            raise
        return "refused"
    return "played"


def game_faults(game):
    return getattr(type(game), "faults", ())


def one_example(faults, after, players, entry, seed, timeout):
    """(outcome, detail) of one example, run in a forked child."""
    def work():
        # an exception inside C code that cannot propagate is reported as unraisable: a finding
        unraisable = []
        sys.unraisablehook = lambda u: unraisable.append(f"{u.exc_type.__name__}: {u.exc_value}")
        try:
            game = make_game(faults, players, after)
            outcome = run_entry(game, entry, seed)
        except BaseException as exc:                    # noqa: BLE001 - a finding
            return 12, describe(exc)
        if unraisable:
            return 12, "unraisable exception: " + "; ".join(unraisable)[:1000]
        return (10 if outcome == "played" else 11), ""
    return run_forked(work, CODES, timeout)


def fuzz(examples, seed, timeout):
    """Hypothesis over faults, entry points and seeds; raises on the first finding (shrunk)."""
    @given(faults=st.lists(st.sampled_from(FAULTS), min_size=1, max_size=3, unique=True),
           after=st.sampled_from([0, 0, 5, 40]), players=st.sampled_from([2, 3]),
           entry=st.sampled_from(ENTRIES), seed=st.integers(0, 2 ** 32 - 1))
    def example(faults, after, players, entry, seed):
        outcome, detail = one_example(faults, after, players, entry, seed, timeout)
        COUNTS[outcome] += 1
        if outcome in FINDINGS:
            raise AssertionError(f"{outcome}: {entry} on {faults} (after {after}, {players} players, seed {seed})"
                                 f"\n{detail}")
    run = settings(max_examples=examples, deadline=None, derandomize=seed is None, database=None,
                   suppress_health_check=list(HealthCheck), print_blob=True)(example)
    if seed is not None:
        run = hypothesis.seed(seed)(run)
    run()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fuzz user games' faulty methods (see the module docstring).")
    ap.add_argument("--examples", type=int, default=200, help="examples in all (default 200)")
    ap.add_argument("--seconds", type=float, default=None, help="run rounds of --examples until this time is spent")
    ap.add_argument("--seed", type=int, default=None, help="the run's seed (default: derandomized)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds an example may take before it counts as hung (default 60)")
    args = ap.parse_args(argv)
    ok, t0, round_ = True, time.monotonic(), 0
    try:
        while True:
            fuzz(args.examples, None if args.seed is None else args.seed + round_, args.timeout)
            round_ += 1
            if args.seconds is None or time.monotonic() - t0 >= args.seconds:
                break
    except AssertionError as exc:
        print(f"finding: {exc}", flush=True)
        ok = False
    print("fuzz: " + ", ".join(f"{k} {v}" for k, v in sorted(COUNTS.items())), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
