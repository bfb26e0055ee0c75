"""The bot contract: `Bot`, and the declaration of a bot's options (`Option`, `check_options`).

A bot class declares its options once, as a tuple of `Option` in ``options``: name, default,
the values allowed and what it does. That one declaration gives the constructor's signature,
checks every value (`check_options`, used by the constructor and by ``make_bot``), and is what
the command line's bot catalogue lists.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable

from metro_ai.engine.core import as_seed

from .limit import Limit


@dataclass(frozen=True)
class Option:
    """One option of a bot: its ``name``, ``default``, the values ``allowed`` (in words, for
    messages and listings), a ``test`` that is true of exactly those values, what it does
    (``description``), and ``convert`` applied to an allowed value before the bot keeps it."""
    name: str
    default: Any
    allowed: str
    test: Callable[[Any], bool]
    description: str
    convert: Callable[[Any], Any] | None = None

    @classmethod
    def integer(cls, name, default, description, low=None, high=None, none=None, words=None):
        """An int in [low, high] (either end may be open); ``none``: what None means, if allowed;
        ``words``: the allowed values in other words than the range's."""
        words = words or "an int" + _range_words(low, high)
        return cls(name, default, _or_none(words, none),
                   lambda v: (v is None and none is not None) or (_is_int(v) and _within(v, low, high)),
                   description)

    @classmethod
    def number(cls, name, default, description, low=None, high=None, finite=False, none=None):
        """A real number (int or float) in [low, high], finite if asked; ``none`` as in `integer`.
        Kept as a float."""
        words = ("a finite number" if finite else "a number") + _range_words(low, high)
        return cls(name, default, _or_none(words, none),
                   lambda v: (v is None and none is not None) or (
                       _is_number(v) and not math.isnan(v) and (not finite or math.isfinite(v))
                       and _within(v, low, high)),
                   description, lambda v: v if v is None else float(v))

    @classmethod
    def choice(cls, name, default, description, values, none=None):
        """One of ``values``; ``none`` as in `integer`."""
        words = " or ".join(repr(v) for v in values)
        return cls(name, default, _or_none(words, none),
                   lambda v: (v is None and none is not None) or (isinstance(v, str) and v in values),
                   description)


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


def check_options(bot, declared, given):
    """The values of every option in `declared` (a bot's ``options``): those `given`, checked,
    and the defaults of the rest. `bot` names the bot in messages. Raises ValueError for an
    unknown option name or a value outside its allowed range, saying which and what is allowed."""
    names = [o.name for o in declared]
    unknown = [k for k in given if k not in names]
    if unknown:
        listed = f"options are {', '.join(sorted(names))}" if names else "it takes no options"
        raise ValueError(f"unknown option {unknown[0]!r} for bot {bot!r}; {listed}")
    values = {}
    for o in declared:
        value = given.get(o.name, o.default)
        if not o.test(value):
            raise ValueError(f"bot {bot!r}: option {o.name!r} must be {o.allowed}, got {value!r}")
        values[o.name] = value if o.convert is None else o.convert(value)
    return values


class Bot:
    """A bot chooses an action for the player to move. Subclasses implement ``choose`` and
    declare their options in ``options`` (a tuple of `Option`).

    Every bot takes a ``seed``; the same seed and the same calls give the same choices. Each
    option's value is kept in the attribute of the same name. The constructor of every subclass
    shows the declared options in its signature (``help(SomeBot)``, `inspect.signature`).
    """
    name = "bot"
    options: tuple[Option, ...] = ()
    spec: Any = None                    # the BotSpec it was made from (metro_ai.play), if any

    def __init__(self, seed=0, **options):
        self.seed = as_seed(seed)
        for key, value in check_options(self.name, self.options, options).items():
            setattr(self, key, value)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" not in cls.__dict__:      # a constructor of its own, to carry the signature
            parent = super(cls, cls).__init__

            def __init__(self, seed=0, **options):
                parent(self, seed, **options)
            __init__.__qualname__ = f"{cls.__qualname__}.__init__"
            __init__.__doc__ = parent.__doc__
            cls.__init__ = __init__
        params = list(inspect.signature(cls.__init__).parameters.values())
        if [p.kind for p in params] != [params[0].POSITIONAL_OR_KEYWORD] * 2 + [params[0].VAR_KEYWORD]:
            return                              # a constructor with parameters of its own: as written
        P = inspect.Parameter
        cls.__init__.__signature__ = inspect.Signature(
            [P("self", P.POSITIONAL_OR_KEYWORD), P("seed", P.POSITIONAL_OR_KEYWORD, default=0)]
            + [P(o.name, P.KEYWORD_ONLY, default=o.default) for o in cls.options])

    def choose(self, state, limit: Limit | None = None) -> int:
        """The action to play in `state` for the player to move, within `limit` if it searches."""
        raise NotImplementedError

    def __repr__(self):
        changed = [f"{o.name}={getattr(self, o.name)!r}" for o in self.options
                   if getattr(self, o.name) != o.default]
        return f"{type(self).__name__}(" + ", ".join([f"seed={self.seed}"] + changed) + ")"
