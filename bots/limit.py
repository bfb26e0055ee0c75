"""Search budgets, in the style of python-chess's ``Limit``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Limit:
    """How long a bot may think: ``iterations``, ``time`` (seconds), or both (whichever ends first).

    ``Limit()`` with neither means the bot's own default budget.
    """
    iterations: Optional[int] = None
    time: Optional[float] = None

    def __post_init__(self):
        if self.iterations is not None:
            if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) or self.iterations < 1:
                raise ValueError(f"Limit.iterations must be a positive int, got {self.iterations!r}")
        if self.time is not None:
            if isinstance(self.time, bool) or not isinstance(self.time, (int, float)) or not self.time > 0:
                raise ValueError(f"Limit.time must be a positive number of seconds, got {self.time!r}")
