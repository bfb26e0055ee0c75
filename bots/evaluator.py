"""Learned evaluators' files (issue #44), read by the search and by ``metro_ai.learn``: the format
(``metro-ai-evaluator``, version 1: the game and its options, the features' size and sections, the
model, how it was trained), its checks, the shipped ones (``metro_ai/bots/data/evaluator-GAME-Np.json``,
beside the ladders) and `load_learned`, which gives the search's `LearnedValue` of a file, read
once while the file is unchanged. ``metro-ai train`` (``metro_ai.learn``) writes them.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from metro_ai.engine.datafile import envelope_problem, kind_of, read_json, with_path
from metro_ai.engine.errors import MetroAIError

from .search import LearnedValue

__all__ = ["EVALUATOR_FORMAT", "EVALUATOR_VERSION", "MAX_HIDDEN", "EvaluatorError", "check_evaluator",
           "load_learned", "read_evaluator", "shipped_evaluator"]

EVALUATOR_FORMAT = "metro-ai-evaluator"
EVALUATOR_VERSION = 1
#: The most hidden units a model may have (its file stays within the data-file reader's bound).
MAX_HIDDEN = 32
#: Where the shipped evaluators live (``evaluator-GAME-Np.json``), beside the ladders.
DATA = Path(__file__).parent / "data"


class EvaluatorError(MetroAIError, ValueError):
    """An evaluator file that is malformed, or read for a game it was not trained on."""


def _bad(message, at=()):
    raise with_path(EvaluatorError(message), at)


def _numbers(values, name, at, n, shape):
    """`values` (the field `name`, at the JSON path `at`): a list of `n` finite numbers, else
    EvaluatorError naming it (`shape`: `n` in words)."""
    if not isinstance(values, list) or len(values) != n:
        _bad(f"{name} must be a list of {shape} numbers", at)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            _bad(f"{name}[{i}] must be a finite number", (*at, i))


def _number(obj, key, name=None, at=None):
    """obj[key] a finite number, else EvaluatorError naming it (default: the field model.KEY)."""
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        _bad(f"{name or 'model.' + key} must be a finite number", at or ("model", key))


def check_evaluator(obj: Any) -> dict:
    """`obj` if it is a well-formed evaluator; EvaluatorError naming the field otherwise (never
    quoting a value)."""
    if not isinstance(obj, dict):
        _bad(f"expected a JSON object, got {kind_of(obj)}")
    problem = envelope_problem(obj, EVALUATOR_FORMAT, (EVALUATOR_VERSION,))
    if problem is not None:
        _bad(*problem)
    for key, kind in (("game", str), ("options", dict), ("features", dict), ("model", dict), ("training", dict)):
        if not isinstance(obj.get(key), kind):
            _bad(f"field {key!r} must be a {'JSON object' if kind is dict else 'text'}, got {kind_of(obj.get(key))}",
                 (key,))
    size = obj["features"].get("size")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 1_000_000:
        _bad("features.size must be a positive int", ("features", "size"))
    model = obj["model"]
    if model.get("kind") == "logistic":
        _numbers(model.get("weights"), "model.weights", ("model", "weights"), size, f"features.size ({size})")
        _number(model, "bias")
        hand = model.get("hand_written")
        if hand is not None:
            if not isinstance(hand, dict):
                _bad("model.hand_written must be null or an object", ("model", "hand_written"))
            _number(hand, "weight", "model.hand_written.weight", ("model", "hand_written", "weight"))
            _number(hand, "scale", "model.hand_written.scale", ("model", "hand_written", "scale"))
            if hand["scale"] <= 0:
                _bad("model.hand_written.scale must be > 0", ("model", "hand_written", "scale"))
    elif model.get("kind") == "mlp":
        hidden = model.get("hidden")
        if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= MAX_HIDDEN:
            _bad(f"model.hidden must be an int in [1, {MAX_HIDDEN}]", ("model", "hidden"))
        rows = model.get("w1")
        if not isinstance(rows, list) or len(rows) != hidden:
            _bad(f"model.w1 must be a list of model.hidden ({hidden}) rows", ("model", "w1"))
        for i in range(hidden):
            _numbers(rows[i], f"model.w1[{i}]", ("model", "w1", i), size, f"features.size ({size})")
        for key in ("b1", "w2"):
            _numbers(model.get(key), f"model.{key}", ("model", key), hidden, f"model.hidden ({hidden})")
        _number(model, "b2")
    else:
        _bad('model.kind must be "logistic" or "mlp"', ("model", "kind"))
    return obj


def read_evaluator(path) -> dict:
    """The data of an evaluator file, checked (`check_evaluator`): `EvaluatorError` naming the
    file, the line and the field."""
    f = read_json(path, what="evaluator", error=EvaluatorError)
    try:
        check_evaluator(f.data)
    except EvaluatorError as exc:
        raise f.error(exc) from None
    return f.data


def shipped_evaluator(game) -> Path:
    """The evaluator that ships for `game` (its training command inside); `EvaluatorError` if
    none ships for its game and players."""
    path = DATA / f"evaluator-{game.name}-{game.num_players}p.json"
    if not path.is_file():
        have = sorted(p.name[len("evaluator-"):-len(".json")] for p in DATA.glob("evaluator-*.json"))
        raise EvaluatorError(f"eval=learned: no evaluator ships for {game.name} with {game.num_players} players "
                             f"(shipped: {', '.join(have) or 'none'}); train one with metro-ai train and give "
                             "evaluator=FILE")
    return path


_LOADED: dict[tuple, LearnedValue] = {}


def load_learned(path) -> LearnedValue:
    """The `LearnedValue` of an evaluator file, read and checked once while the file is unchanged
    (the same file, by device and inode, its size and time of change); `EvaluatorError` naming the
    file (and the field) if it cannot be read or is malformed."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise EvaluatorError(f"evaluator file {os.fsdecode(path)}: {exc.strerror}") from None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)     # (a search asks at every move: no realpath)
    got = _LOADED.get(key)
    if got is None:
        got = LearnedValue(read_evaluator(path))
        if len(_LOADED) >= 16:
            _LOADED.clear()
        _LOADED[key] = got
    return got
