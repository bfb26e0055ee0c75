"""The bot catalogue: the bots by name (`BOTS`), the difficulty presets (`PRESETS`), bot
specifications (`BotSpec`: a bot, its options and its budget in one line of text) and
`make_bot`, which makes any of them. It sits on the bots floor: it knows every bot class and no
game (the game registry, matches and tournaments above it use it; users import its public names
from `metro_ai`).

A bot specification is a bot, its options and its budget in one line of text.

Syntax (the same on the command line and in the API)::

    NAME[:KEY=VALUE[,KEY=VALUE...]]

``NAME`` is a bot (``random``, ``greedy``, ``flat-mc``, ``pimc``, ``ismcts``) or a preset
(``easy``, ``medium``, ``hard``, ``max``). ``KEY=VALUE`` pairs are the bot's options
(``c=1.0``, ``rollout=heuristic``, ``workers=2``, ...: ``metro-ai bots`` lists them) and three
reserved keys:

- ``iterations=N``: budget, search iterations per move (reproducible on any machine);
- ``time=S``: budget, seconds per move (wall clock, so *not* reproducible);
- ``label=TEXT``: the name shown in tables (default: the spec's canonical text).

``ismcts:elo=R`` is ISMCTS at Elo rating R on the game's calibrated ladder (:mod:`metro_ai.bots.elo`),
which sets its budget, temperature and margin (a budget given with it, ``iterations``/``time``,
replaces the rating: no ladder is read); ``ladder=FILE`` names a ladder file of one's own.

Values are read as int, float, ``true``/``false``, ``none``, or else text. A spec without a
budget uses the match's or tournament's budget, else the bot's own default (a preset's budget, or
1,000 iterations for the search bots). Random and greedy do not search and take no budget.

In a list of specs (``--bots``) a comma separates bots, and an item with ``=`` continues the
options of the bot before it: ``ismcts:c=1.0,time=0.1,greedy,random`` is three bots.
Seeds are not part of a spec: matches and tournaments derive each bot's seed from theirs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metro_ai.engine.options import check_options

from .base import Bot
from .baselines import GreedyBot, GreedyClassicBot, RandomBot
from .elo import EloBot, ladder_catalogue
from .limit import Limit
from .mcts import FlatMCBot, ISMCTSBot, MOISMCTSBot, PIMCBot

__all__ = ["BOTS", "PRESETS", "RESERVED", "BotSpec", "BotSpecError", "bot_catalogue", "bot_class", "describe_bots", "format_value",
           "list_bots", "make_bot", "parse_specs", "parse_value", "require_search"]


# ---- the bots and presets ----

BOTS = {
    "random": (RandomBot, "uniformly random legal actions"),
    "greedy": (GreedyBot, "one-ply look-ahead on the game's one-ply evaluation (greedy_values), hidden outcomes averaged over determinisations"),
    "greedy-classic": (GreedyClassicBot, "the former greedy: one-ply on the game's heuristic, lead over the best opponent"),
    "flat-mc": (FlatMCBot, "flat Monte Carlo: root actions in turn, a fresh determinisation and random play-out each"),
    "pimc": (PIMCBot, "determinised UCT: a UCT tree per sampled world (worlds=8), votes combined"),
    "ismcts": (ISMCTSBot, "single-observer ISMCTS: one tree over information sets, a new world every iteration"),
    "mo-ismcts": (MOISMCTSBot, "multi-observer ISMCTS: one tree per player, each following the moves as that player sees them"),
}

# Difficulty presets for people embedding opponents: an ISMCTS budget in iterations (so strength
# does not depend on the machine), a choice temperature (visits^(1/T); 0 = always the best) and,
# for the weak ones, a margin: they sample only among the moves the search found within 0.03 of
# its best (by mean value), so they play worse moves, not blunders (issue #17; docs/guide/difficulty.md).
PRESETS: dict[str, tuple[dict[str, Any], Limit, str]] = {
    "easy": (dict(temperature=1.0, margin=0.03), Limit(iterations=150),
             "ismcts, 150 iterations, temperature 1 among the moves within 0.03 of the best"),
    "medium": (dict(temperature=0.3, margin=0.03), Limit(iterations=500),
               "ismcts, 500 iterations, temperature 0.3 among the moves within 0.03 of the best"),
    "hard": (dict(), Limit(iterations=5_000), "ismcts, 5,000 iterations, best action"),
    "max": (dict(workers=2), Limit(iterations=50_000), "ismcts, 50,000 iterations on 2 threads, best action"),
}


def list_bots() -> list[str]:
    """Names of the available bots and presets."""
    return sorted(BOTS) + sorted(PRESETS)


def describe_bots() -> dict[str, str]:
    """Bot or preset name -> one-line description."""
    out = {name: desc for name, (_, desc) in sorted(BOTS.items())}
    out.update({name: f"preset: {desc}" for name, (_, _, desc) in sorted(PRESETS.items())})
    return out


def make_bot(name, seed=0, **options) -> Bot:
    """Create a bot by name with its options, e.g. ``make_bot("ismcts", seed=3, c=1.0)``, a
    preset ``make_bot("hard")``, or a bot spec ``make_bot("ismcts:c=1.0,iterations=500")`` (its
    options join `options`, its budget becomes the bot's default). Unknown names or options, and
    values out of range, raise ValueError (checked against the bot class's ``options``; see
    `metro_ai.engine.options.Option`).

    ``make_bot("ismcts", elo=1400)`` is ISMCTS at that Elo rating: the budget, temperature and margin
    come from the game's calibrated ladder (`metro_ai.bots.elo`: the package's, or
    ``ladder="file.json"``), read at its first search, or at once with ``game=`` (a loaded game);
    a game without a ladder, or a rating outside it, raises ValueError when the bot meets the game.

    ``iterations=N`` and ``time=S`` are the bot's budget per move, as in a spec
    (``make_bot("ismcts", iterations=100)`` is ``make_bot("ismcts:iterations=100")``): its
    ``default_limit``. With ``elo`` a budget replaces the rating (no ladder is read)."""
    budget = {k: options.pop(k) for k in ("iterations", "time") if k in options}
    if isinstance(name, str) and ":" in name:
        spec = BotSpec.parse(name)             # BotSpecError (a ValueError) says what is wrong
        if spec.limit is not None and any(v is not None for v in budget.values()):
            raise ValueError(f"the spec {name!r} has a budget: give iterations/time in it or as keywords, not both")
        if spec.limit is not None:
            budget = {"iterations": spec.iterations, "time": spec.time}
        return make_bot(spec.name, seed=seed, **{**spec.options, **options}, **budget)
    limit = None
    if any(v is not None for v in budget.values()):
        try:
            limit = Limit(**budget)
        except ValueError as exc:
            raise ValueError(str(exc).replace("Limit.", "")) from None
    bot = _make(name, seed, options, limit)
    if limit is not None:
        if not bot.searches:
            raise ValueError(f"bot {name!r} does not search, so it takes no budget (iterations/time)")
        bot.default_limit = limit
    return bot


def bot_class(name) -> type[Bot]:
    """The class of the bot or preset `name` (a preset's is ISMCTS): what it declares it can do
    (``searches``, ``rated``), read without making one."""
    if name in PRESETS:
        return ISMCTSBot
    try:
        return BOTS[name][0]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; bots are {', '.join(list_bots())}") from None


def _make(name, seed, options, limit):
    """The bot `name` with `options` (no spec, no budget keywords); `limit`: an explicit budget,
    which an Elo bot takes in place of its rating."""
    if "elo" in options or "ladder" in options:
        if name != "ismcts":
            raise ValueError(f"elo= sets the budget, temperature and margin of ismcts from a calibrated ladder; bot {name!r} "
                             "has no ladder (use ismcts:elo=...)")
        if "elo" not in options:
            raise ValueError("ladder= names the ladder file for elo=; give elo too")
        if "budget" in options:
            raise ValueError("unknown option 'budget': give iterations=N or time=S")
        return EloBot(seed=seed, budget=limit, **options)
    if name in PRESETS:
        preset, preset_limit, _ = PRESETS[name]
        options = {**preset, **options}
        check_options(f"bot {name!r}", ISMCTSBot.options, options)     # the errors name the preset
        bot = ISMCTSBot(seed=seed, **options)
        bot.default_limit = preset_limit
        bot.preset = name
        return bot
    return bot_class(name)(seed=seed, **options)


def require_search(spec, bot, why: str) -> None:
    """BotSpecError unless `bot` (made from `spec`) searches, naming the bots and presets that do:
    "bot 'greedy' does not search, so `why`; use ..." (`why`: "it has no analysis")."""
    if bot.searches:
        return
    catalogue = bot_catalogue()
    searching = [name for name, about in catalogue["bots"].items() if about["searches"]]
    raise BotSpecError(f"bot {spec.name!r} does not search, so {why}; use "
                       f"{', '.join(searching)} or a preset ({', '.join(catalogue['presets'])})")


def bot_catalogue() -> dict[str, Any]:
    """Every bot and preset, JSON-ready (``metro-ai bots --json`` and the protocol's ``hello``):
    ``{"bots": {name: {description, options, option_help, searches, default_budget}},
    "presets": {name: {description, bot, options, budget}}, "ladders": ...}``, read from the bot
    classes; ``ladders``: the shipped Elo ladders (`metro_ai.bots.elo.ladder_catalogue`)."""
    bots = {}
    for name, (cls, desc) in sorted(BOTS.items()):
        searches = cls.searches
        default = cls.default_limit
        bots[name] = {"description": desc, "options": {o.name: o.default for o in cls.options},
                      "option_help": {o.name: {"allowed": o.allowed, "description": o.description} for o in cls.options},
                      "searches": searches,
                      "default_budget": None if default is None else {"iterations": default.iterations, "time": default.time}}
    presets = {name: {"description": desc, "bot": "ismcts", "options": opts,
                      "budget": {"iterations": lim.iterations, "time": lim.time}}
               for name, (opts, lim, desc) in sorted(PRESETS.items())}
    return {"bots": bots, "presets": presets, "ladders": ladder_catalogue()}


# ---- bot specifications ----

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
        bot = make_bot(self.name, seed=seed, **self.options)
        bot.spec = self
        return bot

    def searches(self):
        """Whether its bot searches (takes a budget, has an analysis), read from the bot's class."""
        return bot_class(self.name).searches

    def validate(self, text=None):
        text = text or self.text
        try:
            bot = self.make(0)
        except ValueError as exc:
            raise BotSpecError(f"bad bot spec {text!r}: {exc}") from None
        if self.limit is not None and not bot.searches:
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
