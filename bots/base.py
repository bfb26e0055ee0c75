"""The bot contract: `Bot`, whose subclasses declare their options and what they can do.

A bot class declares its options once, as a tuple of `Option` in ``options`` (the same `Option`
and `check_options` as a game's, ``metro_ai.engine.options``): name, default, the values allowed
and what it does. That one declaration gives the constructor's signature, checks every value
(`check_options`, used by the constructor and by ``make_bot``), and is what
the command line's bot catalogue lists.

A bot class also declares what it can do, so that matches, the command line and the server ask
rather than probe: ``searches`` (it takes a budget and ``analyse`` reports what it found),
``rated`` (it plays at a rating read from the game's ladder: ``calibrate_for(game)`` before
play), and what one of its searches may use, ``resources()``, which a server lowers with ``cap``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

from metro_ai.engine.core import as_seed
from metro_ai.engine.options import Option, check_options

from .background import SearchHandle
from .limit import Limit


@dataclass(frozen=True)
class Resources:
    """What one search of a bot may use at most: ``workers`` searching at once, threads or
    processes (``backend``), and ``max_nodes`` tree nodes (0: it keeps no tree)."""
    workers: int = 1
    backend: str = "threads"
    max_nodes: int = 0

    @property
    def processes(self) -> bool:
        """Whether its searches start worker processes (more than one worker, on processes)."""
        return self.workers > 1 and self.backend == "processes"


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
    #: It searches: it takes a budget (a `Limit`; ``default_limit`` when none is given) and
    #: ``analyse`` reports what it found.
    searches: ClassVar[bool] = False
    #: It plays at a rating read from the game's ladder (``calibrate_for``), which sets its budget.
    rated: ClassVar[bool] = False
    default_limit: Limit | None = None

    def __init__(self, seed=0, **options):
        self.seed = as_seed(seed)
        for key, value in check_options(f"bot {self.name!r}", self.options, options).items():
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

    def analyse(self, state, limit: Limit | None = None):
        """What a search of `state` found, an `Analysis`: bots that search only (``searches``)."""
        raise TypeError(f"bot {self.name!r} does not search, so it has no analysis")

    def calibrate_for(self, game) -> Any:
        """Read `game`'s ladder and set the budget for the bot's rating: bots that are ``rated``
        only; for the others there is nothing to read."""

    def resources(self) -> Resources:
        """What one of its searches may use at most (a server checks it against its limits)."""
        return Resources()

    def cap(self, max_nodes: int) -> None:
        """Lower the tree the bot may grow to `max_nodes` nodes (a server's limit); a bot that
        keeps no tree has nothing to lower."""

    def option_values(self) -> dict[str, Any]:
        """Its declared options with plain values (None, bool, int, float, text), read back from
        the bot: what a match record says of a bot made without a spec."""
        values = {o.name: getattr(self, o.name) for o in self.options}
        return {k: v for k, v in values.items() if v is None or isinstance(v, (bool, int, float, str))}

    def start(self, state, limit: Limit | None = None, *, analyse: bool = False, chunk: int | None = None):
        """Choose in a background thread: returns a `metro_ai.bots.background.SearchHandle` at
        once (``stop()``, ``result()``, ``progress()``, ``await handle``). This default runs
        ``choose`` on a copy of `state` (``stop`` waits for it); search bots search in chunks
        and stop early (``SearchBot.start``). `analyse` and `chunk` matter to search bots only."""
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to choose")
        return SearchHandle.calling(self.choose, state.clone(), limit)

    async def choose_async(self, state, limit: Limit | None = None) -> int:
        """``choose`` without blocking an event loop: the search runs in a background thread."""
        return await self.start(state, limit)

    def __repr__(self):
        changed = [f"{o.name}={getattr(self, o.name)!r}" for o in self.options
                   if getattr(self, o.name) != o.default]
        return f"{type(self).__name__}(" + ", ".join([f"seed={self.seed}"] + changed) + ")"
