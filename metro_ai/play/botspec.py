"""Bot specifications: a bot, its options and its budget in one line of text.

Syntax (the same on the command line and in the API)::

    NAME[:KEY=VALUE[,KEY=VALUE...]]

``NAME`` is a bot (``random``, ``greedy``, ``flat-mc``, ``pimc``, ``ismcts``) or a preset
(``easy``, ``medium``, ``hard``, ``max``). ``KEY=VALUE`` pairs are the bot's options
(``c=1.0``, ``rollout=heuristic``, ``workers=2``, ...: ``metro-ai bots`` lists them) and three
reserved keys:

- ``iterations=N``: budget, search iterations per move (reproducible on any machine);
- ``time=S``: budget, seconds per move (wall clock, so *not* reproducible);
- ``label=TEXT``: the name shown in tables (default: the spec's canonical text).

``ismcts:elo=R`` is ISMCTS at Elo rating R on the game's calibrated ladder (:mod:`metro_ai.ladder`),
which sets its budget, temperature and margin (so it takes no ``iterations``/``time``);
``ladder=FILE`` names a ladder file of one's own.

Values are read as int, float, ``true``/``false``, ``none``, or else text. A spec without a
budget uses the match's or tournament's budget, else the bot's own default (a preset's budget, or
1,000 iterations for the search bots). Random and greedy do not search and take no budget.

In a list of specs (``--bots``) a comma separates bots, and an item with ``=`` continues the
options of the bot before it: ``ismcts:c=1.0,time=0.1,greedy,random`` is three bots.
Seeds are not part of a spec: matches and tournaments derive each bot's seed from theirs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from metro_ai.bots.limit import Limit

RESERVED = ("iterations", "time", "label")


class BotSpecError(ValueError):
    """A bot specification that cannot be used; the message says what is wrong."""


def parse_value(text):
    """'3' -> 3, '0.5' -> 0.5, 'true' -> True, 'none' -> None, anything else stays text."""
    text = text.strip()
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def format_value(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    return str(value)


@dataclass(frozen=True)
class BotSpec:
    """A bot by name with its options and budget; ``BotSpec.parse("ismcts:c=1.0,iterations=200")``."""
    name: str
    options: dict = field(default_factory=dict)
    iterations: int | None = None
    time: float | None = None
    label: str | None = None

    # -- text --
    @classmethod
    def parse(cls, text):
        """Parse one spec; raises BotSpecError saying what is wrong."""
        if isinstance(text, BotSpec):
            return text
        if not isinstance(text, str) or not text.strip():
            raise BotSpecError(f"a bot spec must be non-empty text like 'ismcts:c=1.0,iterations=200', got {text!r}")
        name, _, rest = text.strip().partition(":")
        name = name.strip()
        if not name or "=" in name or "," in name:
            raise BotSpecError(f"bad bot spec {text!r}: expected NAME[:KEY=VALUE,...], e.g. 'ismcts:c=1.0,time=0.1'")
        pairs = {}
        if rest.strip():
            for item in rest.split(","):
                if not item.strip():
                    continue
                if "=" not in item:
                    raise BotSpecError(f"bad bot spec {text!r}: option {item.strip()!r} is not KEY=VALUE")
                key, value = (s.strip() for s in item.split("=", 1))
                if not key:
                    raise BotSpecError(f"bad bot spec {text!r}: empty option name in {item.strip()!r}")
                if key in pairs:
                    raise BotSpecError(f"bad bot spec {text!r}: option {key!r} given twice")
                pairs[key] = value
        return cls.from_parts(name, pairs, text)

    @classmethod
    def from_parts(cls, name, pairs, text=None):
        text = text if text is not None else name
        pairs = dict(pairs)
        label = pairs.pop("label", None)
        iterations = pairs.pop("iterations", None)
        seconds = pairs.pop("time", None)
        if "seed" in pairs:
            raise BotSpecError(f"bad bot spec {text!r}: seeds are set by the match or tournament (--seed), not in a spec")
        options = {k: parse_value(v) if isinstance(v, str) else v for k, v in pairs.items()}
        if iterations is not None:
            iterations = parse_value(iterations) if isinstance(iterations, str) else iterations
            if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
                raise BotSpecError(f"bad bot spec {text!r}: iterations must be a positive int, got {iterations!r}")
        if seconds is not None:
            seconds = parse_value(seconds) if isinstance(seconds, str) else seconds
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
                raise BotSpecError(f"bad bot spec {text!r}: time must be a positive number of seconds, got {seconds!r}")
            seconds = float(seconds)
        if label is not None:
            label = str(label).strip()
            if not label:
                raise BotSpecError(f"bad bot spec {text!r}: empty label")
        spec = cls(name, options, iterations, seconds, label)
        spec.validate(text)
        return spec

    @property
    def text(self):
        """Canonical text: name, options sorted by name, then the budget (no label)."""
        items = [f"{k}={format_value(v)}" for k, v in sorted(self.options.items())]
        if self.iterations is not None:
            items.append(f"iterations={self.iterations}")
        if self.time is not None:
            items.append(f"time={format_value(self.time)}")
        return self.name + (":" + ",".join(items) if items else "")

    @property
    def display(self):
        """The name shown in tables: the label, else the canonical text."""
        return self.label or self.text

    def __str__(self):
        if not self.label:
            return self.text
        return self.text + ("," if ":" in self.text else ":") + f"label={self.label}"

    # -- use --
    @property
    def limit(self):
        """The spec's own budget as a Limit, or None when it has none."""
        if self.iterations is None and self.time is None:
            return None
        return Limit(iterations=self.iterations, time=self.time)

    def make(self, seed=0):
        """A fresh bot for this spec, seeded with ``seed``."""
        from metro_ai.registry import make_bot
        bot = make_bot(self.name, seed=seed, **self.options)
        bot.spec = self
        return bot

    def searches(self):
        from metro_ai.bots.mcts import SearchBot
        return isinstance(self.make(0), SearchBot)

    def validate(self, text=None):
        text = text or self.text
        from metro_ai.bots.mcts import SearchBot
        try:
            bot = self.make(0)
        except ValueError as exc:
            raise BotSpecError(f"bad bot spec {text!r}: {exc}") from None
        if self.limit is not None and "elo" in self.options:
            raise BotSpecError(f"bad bot spec {text!r}: elo sets the budget from the game's ladder, so it takes no "
                               "iterations/time")
        if self.limit is not None and not isinstance(bot, SearchBot):
            raise BotSpecError(f"bad bot spec {text!r}: bot {self.name!r} does not search, so it takes no "
                               "budget (iterations/time)")

    def to_dict(self):
        return {"name": self.name, "options": dict(self.options), "iterations": self.iterations,
                "time": self.time, "label": self.label, "text": self.text}

    @classmethod
    def from_dict(cls, d):
        spec = cls(d["name"], dict(d.get("options") or {}), d.get("iterations"), d.get("time"), d.get("label"))
        spec.validate()
        return spec


def parse_specs(items):
    """Parse a list of specs from texts such as ``["ismcts:c=1.0,time=0.1,greedy", "random"]``.

    Each text is split on commas; an item holding ``=`` continues the options of the spec before it.
    BotSpec objects pass through.
    """
    if isinstance(items, (str, BotSpec)):
        items = [items]
    specs = []
    for item in items:
        if isinstance(item, BotSpec):
            specs.append(item)
            continue
        if not isinstance(item, str):
            raise BotSpecError(f"a bot spec must be text or a BotSpec, got {item!r}")
        groups: list = []
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            if "=" in part and ":" not in part.split("=", 1)[0]:
                if not groups:
                    raise BotSpecError(f"bad bot list {item!r}: option {part!r} comes before any bot name")
                groups[-1] += "," + part
            else:
                groups.append(part)
        specs.extend(BotSpec.parse(g) for g in groups)
    if not specs:
        raise BotSpecError("no bots given")
    return specs
