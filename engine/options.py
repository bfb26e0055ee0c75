"""Declared options, one way for games and bots: `Option` and `check_options`.

A game class (``Game.OPTIONS``) and a bot class (``Bot.options``) each declare their options once,
as a tuple of `Option`: the name, the default, the values allowed (a test, and the same in words
for messages and listings), what it does and, for a game, the rules id it implements. That one
declaration checks every value given (`check_options`), fills in the defaults, and is what the
command line, the docs, the interop layers and the contract tests read.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Optional

KINDS = ("int", "number", "bool", "choice", "path", "any")


@dataclass(frozen=True)
class Option:
    """One option: ``name``, ``default``, ``kind`` (one of `KINDS`), the values ``allowed`` in
    words, a ``test`` that is true of exactly those values, what it does (``description``), the
    rules id it implements (``rule``, or None), and ``convert`` applied to an allowed value before
    it is kept (None: kept as given). ``low``/``high`` (int, number) and ``choices`` (choice)
    describe the allowed values for listings, tests and interop; ``none`` says what None means
    where None is allowed besides them (int, number, choice). Make one with the constructors
    (`integer`, `number`, `boolean`, `choice`, `path`, `custom`)."""
    name: str
    default: Any
    kind: str
    allowed: str
    test: Callable[[Any], bool]
    description: str
    rule: Optional[str] = None
    convert: Optional[Callable[[Any], Any]] = None
    low: Any = None
    high: Any = None
    choices: tuple = ()
    none: Optional[str] = None

    @classmethod
    def integer(cls, name, default, description, low=None, high=None, none=None, words=None, rule=None):
        """An int in [low, high] (either end may be open); ``none``: what None means, if allowed;
        ``words``: the allowed values in other words than the range's."""
        words = words or "an int" + _range_words(low, high)
        return cls(name, default, "int", _or_none(words, none),
                   lambda v: (v is None and none is not None) or (_is_int(v) and _within(v, low, high)),
                   description, rule, low=low, high=high, none=none)

    @classmethod
    def number(cls, name, default, description, low=None, high=None, finite=False, none=None, rule=None):
        """A real number (int or float) in [low, high], finite if asked; ``none`` as in `integer`.
        Kept as a float."""
        words = ("a finite number" if finite else "a number") + _range_words(low, high)
        return cls(name, default, "number", _or_none(words, none),
                   lambda v: (v is None and none is not None) or (
                       _is_number(v) and not math.isnan(v) and (not finite or math.isfinite(v))
                       and _within(v, low, high)),
                   description, rule, lambda v: v if v is None else float(v), low=low, high=high, none=none)

    @classmethod
    def boolean(cls, name, default, description, rule=None):
        """True or False."""
        return cls(name, default, "bool", "True or False", lambda v: isinstance(v, bool), description, rule)

    @classmethod
    def choice(cls, name, default, description, values, none=None, rule=None):
        """One of ``values`` (of the same type: 1 is not True); ``none`` as in `integer`."""
        values = tuple(values)
        words = "one of " + ", ".join(repr(v) for v in values) if all(_is_int(v) for v in values) \
            else " or ".join(repr(v) for v in values)
        return cls(name, default, "choice", _or_none(words, none),
                   lambda v: (v is None and none is not None) or (
                       not isinstance(v, bool) and any(type(v) is type(c) and v == c for c in values)),
                   description, rule, choices=values, none=none)

    @classmethod
    def path(cls, name, default, description, rule=None):
        """None (the shipped file) or a file path (str, bytes or os.PathLike), kept as a str."""
        return cls(name, default, "path", "None (the shipped file) or a file path",
                   lambda v: v is None or isinstance(v, (str, bytes)) or hasattr(v, "__fspath__"),
                   description, rule, lambda v: v if v is None else os.fsdecode(v))

    @classmethod
    def custom(cls, name, default, description, allowed, test, convert=None, rule=None):
        """Values that ``test`` accepts, described by ``allowed`` in words."""
        return cls(name, default, "any", allowed, test, description, rule, convert)

    @property
    def bridged(self):
        """Whether interop layers (OpenSpiel) expose it as a parameter: ints, bools and choices
        among ints, with a default of that type (an OpenSpiel parameter's default sets its type,
        and None has none)."""
        return self.default is not None and (
            self.kind in ("int", "bool") or (self.kind == "choice" and all(_is_int(c) for c in self.choices)))

    def check(self, owner, value):
        """The value to keep (converted), or ValueError naming `owner` (e.g. "game 'metro'",
        "bot 'ismcts'"), the option, the allowed values, the rule id and the value given."""
        if not self.test(value):
            rule = f" ({self.rule})" if self.rule else ""
            raise ValueError(f"{owner}: option {self.name!r} must be {self.allowed}{rule}, got {value!r}")
        return value if self.convert is None else self.convert(value)

    def to_dict(self):
        """A JSON-ready description (``metro-ai games --json``, the docs, the bot catalogue)."""
        out = {"default": list(self.default) if isinstance(self.default, tuple) else self.default,
               "kind": self.kind, "allowed": self.allowed, "help": self.description, "rule": self.rule}
        if self.kind in ("int", "number"):
            out.update(low=self.low, high=self.high)
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        if self.none is not None:
            out["none"] = self.none
        return out


def check_options(owner, declared, given):
    """The value of every option in `declared` (a tuple of `Option`): those `given`, checked and
    converted, and the defaults of the rest, in declaration order. `owner` names the game or bot
    in messages. Raises ValueError for an unknown name or a value outside its allowed range,
    saying which and what is allowed."""
    names = [o.name for o in declared]
    unknown = [k for k in given if k not in names]
    if unknown:
        listed = f"options are {', '.join(sorted(names))}" if names else "it takes no options"
        raise ValueError(f"unknown option {unknown[0]!r} for {owner}; {listed}")
    return {o.name: o.check(owner, given.get(o.name, o.default)) for o in declared}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _within(v, low, high):
    return (low is None or v >= low) and (high is None or v <= high)


def _range_words(low, high):
    if low is not None and high is not None:
        return f" in [{low:,}, {high:,}]" if isinstance(low, int) and isinstance(high, int) else f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def _or_none(words, none):
    return words if none is None else f"None ({none}) or {words}"
