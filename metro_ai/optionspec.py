"""Game options given as text, ``--option NAME=VALUE``: the one parser, for the command line
(:mod:`metro_ai.cli`) and the benchmarks (:mod:`metro_ai.bench`), with one set of checks and
errors. It reads text only; the game's declared options (:mod:`metro_ai.engine.options`) check
the values when the game is loaded.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from metro_ai.bots.catalogue import parse_value

__all__ = ["OPTION_VALUES_HELP", "option_value", "parse_options"]

OPTION_VALUES_HELP = """\
option values (--option NAME=VALUE): read as int, float, true/false, none or text, as in bot specs;
a value with commas is a list of such values (a,b,c; a trailing comma makes a one-item list: a,);
a value that starts with [, { or " is JSON (["a","b"], "text, with commas"). metro-ai games lists
every game's options and the values each takes."""


def option_value(text: str) -> Any:
    """The value of ``--option NAME=VALUE``: JSON if it starts with ``[``, ``{`` or ``"``; else a
    list if it holds a comma (each item read by `parse_value`; a trailing comma makes a one-item
    list); else `parse_value` (int, float, true/false, none, or text). Raises ValueError saying
    what is wrong."""
    stripped = text.strip()
    if stripped[:1] in ('[', '{', '"'):
        try:
            return json.loads(stripped)
        except (ValueError, RecursionError) as exc:    # RecursionError: nested too deeply
            reason = exc if isinstance(exc, ValueError) else "nested too deeply"
            raise ValueError(f"option value {text!r} starts like JSON but is not: {reason}") from None
    if "," in stripped:
        items = [item.strip() for item in stripped.split(",")]
        if items[-1] == "":
            items.pop()
        if not items or any(item == "" for item in items):
            raise ValueError(f"option value {text!r}: an empty item in a comma-separated list")
        return [parse_value(item) for item in items]
    return parse_value(stripped)


def parse_options(pairs: Iterable[str]) -> dict[str, Any]:
    """The options of ``--option`` texts ``NAME=VALUE``, as ``{name: value}`` in the order given
    (the name stripped, the value read by `option_value`). Raises ValueError for a text without
    ``=`` or without a name, and for a name given twice."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--option expects NAME=VALUE, got {pair!r}")
        if name in out:
            raise ValueError(f"option {name!r} given twice")
        out[name] = option_value(value)
    return out
