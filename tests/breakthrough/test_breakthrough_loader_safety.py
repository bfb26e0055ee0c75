"""The Breakthrough loader checks every value from outside before anything reaches the C struct
(docs DESIGN, "Trust at the edges"): each input is refused with a StateFormatError naming the
field, or accepted and playable.

- ``tests/data/security/bt_typeerror_state.json`` (issue 23): ``pending.left`` as the float 2.0
  used to pass the loader's ``left in (1, 2)`` and fail later with a bare TypeError.
- A sweep over real states in every phase: each field, at every depth, is deleted, swapped for
  another type (None, bool, float, string, object, list, the value wrapped in a list), made a
  huge or negative int, or (lists) lengthened to 9, 64 and 1,000 entries. The sweep runs in a
  child process, so a crash fails the test instead of killing pytest.

Rules are cited by id: B1-B9 and R1-R24 (docs/rules/breakthrough.md).
"""
import json
import os
import random
import traceback
from pathlib import Path

import pytest

import metro_ai
from json_paths import DELETE, get, mutated_text, paths
from metro_ai.engine.errors import StateFormatError
from test_breakthrough_payment import _komsomolskaya
from tiers import tiered

HERE = Path(__file__).resolve().parents[1]
SECURITY = HERE / "data" / "security"
PHASES = ("main", "quest_hero", "keep_station", "discard3", "draw", "protect", "free_play",
          "lose_station", "over", "quest_pay")


def _load(text):
    obj = json.loads(text)
    return metro_ai.load_game("breakthrough", **obj["options"]).state_from_json(text)


def test_pending_left_as_a_float_is_a_state_format_error():
    text = (SECURITY / "bt_typeerror_state.json").read_text()
    with pytest.raises(StateFormatError, match="pending.left"):
        _load(text)
    # the same state with the int 2 loads: only the type was wrong
    obj = json.loads(text)
    obj["pending"]["left"] = 2
    assert _load(json.dumps(obj)).to_json()


@pytest.mark.parametrize("field,value", [
    (("pending", "left"), 2.0), (("pending", "left"), True), (("pending", "last"), 39.0),
    (("turn",), 68.0), (("deck_generation",), 1.0), (("above", 0), 2.0), (("hands", 0, 0), 3.0),
    (("hand_gen", 0, "8"), 1.0), (("rng_state",), "\u0667"), (("rng_state",), "\u00b2"),
    (("rng_state",), "9" * 5000), (("hand_gen", 0), {"\u00b2": 0}), (("known", 0), [3, 3]),
    (("deck",), list(range(1000))), (("discard",), [18] * 64), (("market",), [117, 109, 5, None]),
    (("agenda",), [{"task": "draw", "player": 2, "left": 2.0}]), (("pending",), [[1]]),
])
def test_a_wrong_type_or_size_is_a_state_format_error(field, value):
    obj = json.loads((SECURITY / "bt_typeerror_state.json").read_text())
    obj["pending"]["left"] = 2
    target = obj
    for k in field[:-1]:
        target = target[k]
    target[field[-1]] = value
    with pytest.raises(StateFormatError):
        _load(json.dumps(obj))


# ---- the sweep ----

def _real_states():
    """A real state (JSON object) in each phase, from random games at 5, 3 and 2 players with
    the survival options on or off."""
    found = {}
    for options in ({"players": 5, "failed_defence_tokens_down": True, "quest_tokens_stay_down": True},
                    {"players": 3, "full_protection_required": True}, {"players": 2}):
        game = metro_ai.load_game("breakthrough", **options)
        for seed in range(40):
            s, rng = game.new_state(seed), random.Random(seed)
            while len(found) < len(PHASES):
                phase = s.phase if hasattr(s, "phase") else json.loads(s.to_json())["phase"]
                if phase not in found:
                    found[phase] = (options["players"], json.loads(s.to_json()))
                if s.is_terminal():
                    break
                s.apply(rng.choice(s.legal_actions()))
    s = _komsomolskaya()            # random play seldom waits on a payment's pick (B5, R2)
    found.setdefault(s.phase, (2, json.loads(s.to_json())))
    assert set(found) == set(PHASES), sorted(found)
    return {(players, phase): obj for phase, (players, obj) in found.items()}


def _mutations(value):
    yield "deleted", DELETE
    yield from (("None", None), ("true", True), ("a float", 1.5), ("a string", "x"), ("{}", {}),
                ("[]", []), ("[[v]]", [[value]]), ("2**64", 2 ** 64), ("-1", -1), ("10**40", 10 ** 40))
    if isinstance(value, int) and not isinstance(value, bool):
        yield "float(v)", float(value)
        yield "v + 1", value + 1
    if isinstance(value, list):
        fill = value if value else [0]
        for k in (9, 64, 1000):
            yield f"lengthened to {k}", [fill[i % len(fill)] for i in range(k)]
        yield "1000 distinct ints", list(range(1000))
    if isinstance(value, dict):
        yield "an extra key", {**value, "extra": 1}


def _play_on(game, s, rng, steps=60):
    n, nda = game.num_players, game.num_distinct_actions
    for _ in range(steps):
        text = s.to_json()
        assert game.state_from_json(text).to_json() == text
        if s.is_terminal():
            return
        legal = s.legal_actions()
        assert legal and all(0 <= a < nda for a in legal) and 0 <= s.current_player < n
        s.apply(rng.choice(legal))


def _sweep(half):
    """Every field of the real states of one half of the phases (every other one, in order),
    every mutation: a StateFormatError or a playable state. Returns what went wrong (empty if
    nothing)."""
    problems, counts = [], {"refused": 0, "accepted": 0}
    for (players, phase), obj in sorted(_real_states().items())[half::2]:
        game = metro_ai.load_game("breakthrough", **obj["options"])
        for path in [p for p in paths(obj) if len(p) >= 1 and p[0] not in ("format", "version", "game", "options")]:
            for what, value in _mutations(get(obj, path)):
                text = mutated_text(obj, path, value)
                try:
                    s = game.state_from_json(text)
                except StateFormatError:
                    counts["refused"] += 1
                    continue
                except Exception as exc:            # noqa: BLE001 -- the finding
                    problems.append(f"{players} players, {phase}: {path} {what}: {type(exc).__name__}: {exc}")
                    continue
                counts["accepted"] += 1
                try:
                    _play_on(game, s, random.Random(len(problems)))
                except Exception as exc:            # noqa: BLE001
                    problems.append(f"{players} players, {phase}: {path} {what}: accepted, then "
                                    f"{type(exc).__name__}: {exc}")
    assert counts["refused"] > 500, counts
    return problems


@pytest.mark.parametrize("half", tiered([0, 1], fast=lambda half: half == 0))
def test_every_field_mutated_is_refused_or_plays_safely(half):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # the child: run the sweep, report, exit
        code = 0
        try:
            os.close(read)
            report = "\n".join(_sweep(half)[:30])
            code = 1 if report else 0
        except BaseException:                        # noqa: BLE001
            report, code = traceback.format_exc(), 2
        with os.fdopen(write, "w") as f:
            f.write(report)
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        report = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status), f"the sweep's child died of signal {os.WTERMSIG(status)}\n{report}"
    assert os.WEXITSTATUS(status) == 0, report
