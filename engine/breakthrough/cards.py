"""Card sets for *Metro 2033: Breakthrough*: schema, loader and validator (pure Python).

The printed card list of the game is not public.  The project ships a **reconstructed** set
(``data/breakthrough_cards.json``) that keeps the rulebook's component counts and every card
fact the rulebook fixes (see ``docs/rules/breakthrough.md``); everything else is chosen so that
the game plays as described.  Anyone holding the printed cards can write a new file in the schema
below and load it with :func:`load_card_set`; no code changes are needed.

Schema reference (``schema_version`` 1)
=======================================

A card-set file is a JSON object with exactly these top-level keys:

``schema_version``  int, must be 1.
``name``            str, a human name for the set.
``provenance``      str, one sentence: where the values come from.
``cards``           list of *card kinds* (objects, below).  Kinds are expanded in file order into
                    physical cards: the kind at index 0 with ``count`` 3 gives card ids 0, 1, 2, the
                    next kind continues at 3, and so on.  Card ids are therefore stable for a given
                    file; the shipped set has ids 0..132.

Every card kind has these fields:

``type``     one of ``"resource"``, ``"station"``, ``"threat"``, ``"caravan"``, ``"hero"``,
             ``"faction"``.
``name``     str, non-empty, unique across kinds (two identical printed cards are one kind with
             ``count`` 2, e.g. the two Kitay-Gorod stations of the shipped set).
``count``    int >= 1, the number of physical copies.
``source``   ``"rulebook"`` (the rulebook names this card and fixes some of its facts) or
             ``"reconstructed"`` (nothing about it is known from the rulebook).
``notes``    optional str; for ``"rulebook"`` cards it says which fields are reconstructed.

Enumerations used below:

* resource type: ``"welfare"``, ``"food"``, ``"items"`` (class ``"peaceful"``, blue) and
  ``"weapon"``, ``"bullets"``, ``"equipment"`` (class ``"military"``, red).
* threat type: ``"biological"``, ``"mental"``, ``"radiative"``, ``"physical"``,
  ``"epidemiological"``, ``"unknown"``.
* quest class: ``"peaceful"`` (blue quest), ``"military"`` (red quest), ``"trade"`` (green quest:
  both classes count).
* line (station faction icon): ``"red_line"``, ``"hansa"``, ``"polis"``, ``"neutral"``.
* loss: ``"station"`` (lose one played station), ``"peaceful_resources"``,
  ``"military_resources"`` (lose all played resources of that class), ``"all_resources"``.

Type-specific fields (all required; no other field is allowed):

``resource``
    ``cost`` int >= 0 (played as a resource; also the tokens moved up when it is discarded),
    ``resource_type`` resource type, ``resource_class`` ``"peaceful"``/``"military"`` (must match
    the type), ``quantity`` int >= 1 (the resource quantity counted for quests),
    ``protection`` list of distinct threat types (the yellow shields, used when played rotated;
    may be empty), ``protection_cost`` int >= 0 when ``protection`` is non-empty, else ``null``.
``station``
    ``cost`` int >= 0, ``line`` line, ``resource_icon`` resource type (resources of this type cost
    1 less while the station is in play), ``quest`` object ``{"class": quest class, "amount":
    int >= 1}``, ``reward_types`` non-empty list of distinct resource types (free to play while the
    station carries tokens; write all three types of a class for a whole-class reward),
    ``reward_class`` ``"peaceful"``/``"military"`` (the quest-reward colour that caravans match;
    every reward type must belong to it), ``extra_token`` bool (completing the quest gives one more
    token from the supply).
``threat``
    ``value`` int >= 0 (tokens moved up when discarded as a monster), ``threats`` non-empty list of
    distinct threat types (orange shields), ``loss`` loss, ``protection`` and ``protection_cost``
    as for resources (the card played rotated).
``caravan``
    ``value`` int >= 0 (tokens moved up when discarded), ``caravan_class``
    ``"peaceful"``/``"military"``.
``hero``
    ``cost`` int >= 0, ``protection`` non-empty list of distinct threat types, ``doubles`` resource
    type (doubled for one quest, then the hero is discarded).
``faction``
    ``quest``, ``reward_types``, ``reward_class`` as for stations (the reward applies once the
    faction card is face down).

By default the totals per type must be the rulebook's: 72 resource, 30 station, 14 threat,
6 caravan, 6 hero, 5 faction (133 cards).  ``strict_counts=False`` lifts only that check, for
experimental sets (there must still be at least one card of each type and five factions).

Transcribing the printed cards into a new set
---------------------------------------------

1. Copy the shipped file, set ``name`` and ``provenance`` (e.g. "transcribed from the printed
   cards of the Hobby World edition").
2. Sort the cards into piles of identical cards; each pile is one kind, ``count`` = pile size.
3. For each kind write ``type`` and ``name`` as printed, then the fields of its type: the numbers
   in the corners (``cost``, ``quantity``, ``protection_cost``; ``value`` for the "active"
   threat and caravan cards), the icons (resource type and class, orange threat shields in
   ``threats``, yellow protection shields in ``protection``, the station's faction icon in
   ``line`` and resource icon in ``resource_icon``), the quest (colour -> ``class``: blue
   ``peaceful``, red ``military``, green ``trade``; number -> ``amount``) and the quest reward.
   Tick ``extra_token`` where the card shows the additional token.
4. Set ``source`` to ``"rulebook"`` for everything transcribed from a real card (``notes`` can say
   "transcribed") and load the file: ``load_card_set("my_cards.json")``.  Any mistake is reported
   as :class:`CardSetError` naming the card index, its name and the field at fault.

How the shipped set was reconstructed
-------------------------------------
* Resources: 12 per type, in three kinds each: 5 x (cost 1, quantity 1), 4 x (cost 2,
  quantity 2), 3 x (cost 3, quantity 3); 12 of the 18 kinds protect when rotated (protection cost
  1 or 2), so that every threat type can be repelled.  Pork is the food cost-3 kind; Rat Meat,
  Caldron and Backpack are cost-1 kinds with the rulebook's protections; Uniform is the
  equipment cost-2 kind (so Uniform + Backpack = 3, doubled by Hunter = 6 >= Paveletskaya's 5).
* Stations: Red Line 8, Hansa 8, Polis 5 (the four heavily populated Polis stations among them),
  neutral 9 (including both Kitay-Gorod, one kind with count 2); costs 1-3; quests 3-5, and 6
  for the six extra-token stations; the reward type is the station's resource icon, 4-6 stations
  per type.
* Threats: 14 single cards covering all six threat types and all four losses, values 2-5;
  6 of them protect when rotated.  Caravans: 3 peaceful (value 4), 3 military (value 5).
  Heroes: one per resource type doubled, one protection icon each (costs 2-3).
  Factions: Fourth Reich (equipment), Red Line (weapon), Hansa (items), Polis (welfare),
  Spartan Order (bullets); quests of 6, 7 for the trade quest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SCHEMA_VERSION", "CARD_TYPES", "RESOURCE_TYPES", "RESOURCE_CLASSES", "THREAT_TYPES",
    "QUEST_CLASSES", "LINES", "LOSSES", "RULEBOOK_COUNTS", "DEFAULT_PATH",
    "CardSetError", "Quest", "CardKind", "Card", "CardSet", "load_card_set", "parse_card_set",
]

SCHEMA_VERSION = 1
CARD_TYPES = ("resource", "station", "threat", "caravan", "hero", "faction")
RESOURCE_TYPES = ("welfare", "food", "items", "weapon", "bullets", "equipment")
RESOURCE_CLASSES = ("peaceful", "military")
CLASS_OF_TYPE = {"welfare": "peaceful", "food": "peaceful", "items": "peaceful",
                 "weapon": "military", "bullets": "military", "equipment": "military"}
THREAT_TYPES = ("biological", "mental", "radiative", "physical", "epidemiological", "unknown")
QUEST_CLASSES = ("peaceful", "military", "trade")
LINES = ("red_line", "hansa", "polis", "neutral")
LOSSES = ("station", "peaceful_resources", "military_resources", "all_resources")
SOURCES = ("rulebook", "reconstructed")
RULEBOOK_COUNTS = {"resource": 72, "station": 30, "threat": 14, "caravan": 6, "hero": 6,
                   "faction": 5}
DEFAULT_PATH = Path(__file__).parent / "data" / "breakthrough_cards.json"

_COMMON = ("type", "name", "count", "source")
_FIELDS = {
    "resource": ("cost", "resource_type", "resource_class", "quantity", "protection",
                 "protection_cost"),
    "station": ("cost", "line", "resource_icon", "quest", "reward_types", "reward_class",
                "extra_token"),
    "threat": ("value", "threats", "loss", "protection", "protection_cost"),
    "caravan": ("value", "caravan_class"),
    "hero": ("cost", "protection", "doubles"),
    "faction": ("quest", "reward_types", "reward_class"),
}


try:  # inside the package: a DataError like every other malformed data file
    from metro_ai.engine.errors import DataError as _Base
except ImportError:  # loaded on its own (e.g. by path): still a ValueError
    _Base = ValueError  # type: ignore[misc, assignment]


class CardSetError(_Base):
    """A card-set file that does not follow the schema (the message names card and field).

    A ``ValueError``; inside the package also a ``metro_ai.engine.DataError``."""


@dataclass(frozen=True)
class Quest:
    """A quest: ``cls`` is ``peaceful``/``military``/``trade``; ``amount`` the quantity needed."""
    cls: str
    amount: int


@dataclass(frozen=True)
class CardKind:
    """One kind of card (a line of the file).  Fields that do not apply to the type are None
    (or an empty tuple / False)."""
    index: int
    type: str
    name: str
    count: int
    source: str
    notes: str | None = None
    cost: int | None = None
    value: int | None = None
    resource_type: str | None = None
    resource_class: str | None = None
    quantity: int | None = None
    protection: tuple[str, ...] = ()
    protection_cost: int | None = None
    threats: tuple[str, ...] = ()
    loss: str | None = None
    line: str | None = None
    resource_icon: str | None = None
    quest: Quest | None = None
    reward_types: tuple[str, ...] = ()
    reward_class: str | None = None
    extra_token: bool = False
    doubles: str | None = None
    caravan_class: str | None = None

    def summary(self) -> str:
        """What the card does in a few words: cost or value, type, quantity, quest and reward,
        doubling, monster icons and loss, and protection (cost and icons), e.g.
        ``"cost 3, 3 food; shield 1: epidemiological"``."""
        parts = []
        if self.type == "resource":
            parts.append(f"cost {self.cost}, {self.quantity} {self.resource_type}")
        elif self.type == "station":
            parts.append(f"station {self.line}, cost {self.cost}, icon {self.resource_icon}")
        elif self.type == "hero":
            parts.append(f"hero, cost {self.cost}, doubles {self.doubles}")
        elif self.type == "threat":
            parts.append(f"monster {self.value}: {', '.join(self.threats)}; loss {str(self.loss).replace('_', ' ')}")
        elif self.type == "caravan":
            parts.append(f"caravan {self.value}, {self.caravan_class}")
        else:
            parts.append("faction")
        if self.quest is not None:
            reward = f" -> free {', '.join(self.reward_types)}" if self.reward_types else ""
            parts.append(f"quest {self.quest.amount} {self.quest.cls}{reward}"
                         + (" +1 token" if self.extra_token else ""))
        if self.protection:
            cost = f" {self.protection_cost}" if self.protection_cost is not None else ""
            parts.append(f"shield{cost}: {', '.join(self.protection)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Card:
    """One physical card: a stable ``id`` and its ``kind``."""
    id: int
    kind: CardKind

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def type(self) -> str:
        return self.kind.type


@dataclass(frozen=True)
class CardSet:
    """A validated card set: ``kinds`` in file order and ``cards`` expanded (``cards[i].id == i``)."""
    name: str
    schema_version: int
    provenance: str
    kinds: tuple[CardKind, ...]
    cards: tuple[Card, ...]

    def __len__(self) -> int:
        return len(self.cards)

    def kind(self, name: str) -> CardKind:
        """The kind with this name (KeyError if none)."""
        for k in self.kinds:
            if k.name == name:
                return k
        raise KeyError(name)

    def ids_of(self, name: str) -> tuple[int, ...]:
        """Card ids of every copy of the named kind."""
        return tuple(c.id for c in self.cards if c.kind.name == name)

    def ids_of_type(self, card_type: str) -> tuple[int, ...]:
        """Card ids of every card of a type (``resource``, ``station``, ...)."""
        return tuple(c.id for c in self.cards if c.kind.type == card_type)

    def counts(self) -> dict[str, int]:
        """Number of physical cards per type."""
        out = {t: 0 for t in CARD_TYPES}
        for k in self.kinds:
            out[k.type] += k.count
        return out


def _err(i: int | None, name: Any, field: str, msg: str, at: tuple | None = None) -> CardSetError:
    """The error about `field` of card `i` (None: of the document), carrying the JSON path of the
    value (``at``, default: the field's) so that the loader can give its line. It names the card
    by its index, never by `name` (the file's text), and quotes no value."""
    where = "card set" if i is None else f"card {i}"
    exc = CardSetError(f"{where}: field {field!r}: {msg}")
    exc.at = at if at is not None else ((field,) if i is None else ("cards", i, field))  # type: ignore[attr-defined]
    return exc


def _kind_of(v: Any) -> str:
    """What a value is, without quoting it."""
    return {bool: "true or false", type(None): "null", int: "an integer", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


#: The largest number a card may print (costs, quantities, values, counts): the engine keeps them
#: in one byte, and no game of ten tokens a colour needs more.
CARD_INT_MAX = 100


def _int(d: dict, i: int, name: Any, field: str, minimum: int) -> int:
    v = d[field]
    if isinstance(v, bool) or not isinstance(v, int):
        raise _err(i, name, field, f"expected an integer, got {_kind_of(v)}")
    if v < minimum:
        what = "negative" if minimum == 0 else f"below {minimum}"
        raise _err(i, name, field, f"{what} value")
    if v > CARD_INT_MAX:
        raise _err(i, name, field, f"above {CARD_INT_MAX}, the most a card may print")
    return v


_FIELD = object()    # _enum: read the value from the field (a given value may itself be None)


def _enum(d: dict, i: int, name: Any, field: str, allowed: tuple[str, ...], v: Any = _FIELD) -> str:
    v = d[field] if v is _FIELD else v
    if not isinstance(v, str):
        raise _err(i, name, field, f"expected a string, got {_kind_of(v)}")
    if v not in allowed:
        raise _err(i, name, field, f"not one of the allowed values ({', '.join(allowed)})")
    return v


def _enum_list(d: dict, i: int, name: Any, field: str, allowed: tuple[str, ...],
               nonempty: bool) -> tuple[str, ...]:
    v = d[field]
    if not isinstance(v, list):
        raise _err(i, name, field, f"expected a list, got {_kind_of(v)}")
    if nonempty and not v:
        raise _err(i, name, field, "must not be empty")
    out = tuple(_enum(d, i, name, field, allowed, x) for x in v)
    if len(set(out)) != len(out):
        raise _err(i, name, field, "a value is repeated")
    return out


def _quest(d: dict, i: int, name: Any) -> Quest:
    q = d["quest"]
    if not isinstance(q, dict) or set(q) != {"class", "amount"}:
        raise _err(i, name, "quest", "expected an object with keys 'class' and 'amount'")
    cls = _enum(q, i, name, "quest", QUEST_CLASSES, q["class"])
    amount = q["amount"]
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= CARD_INT_MAX:
        raise _err(i, name, "quest", f"amount must be an integer from 1 to {CARD_INT_MAX}")
    return Quest(cls, amount)


def _reward(d: dict, i: int, name: Any) -> tuple[tuple[str, ...], str]:
    types = _enum_list(d, i, name, "reward_types", RESOURCE_TYPES, nonempty=True)
    cls = _enum(d, i, name, "reward_class", RESOURCE_CLASSES)
    for t in types:
        if CLASS_OF_TYPE[t] != cls:
            raise _err(i, name, "reward_class", f"{cls!r} does not match reward type {t!r}")
    return types, cls


def _protection(d: dict, i: int, name: Any) -> tuple[tuple[str, ...], int | None]:
    prot = _enum_list(d, i, name, "protection", THREAT_TYPES, nonempty=False)
    pc = d["protection_cost"]
    if prot:
        if pc is None:
            raise _err(i, name, "protection_cost", "required when 'protection' is not empty")
        pc = _int(d, i, name, "protection_cost", 0)
    elif pc is not None:
        raise _err(i, name, "protection_cost", "must be null when 'protection' is empty")
    return prot, pc


def _kind(d: Any, i: int) -> CardKind:
    if not isinstance(d, dict):
        raise _err(i, None, "(card)", f"expected an object, got {type(d).__name__}", ("cards", i))
    name = d.get("name")
    for f in _COMMON:
        if f not in d:
            raise _err(i, name, f, "missing field")
    if not isinstance(name, str) or not name.strip():
        raise _err(i, name, "name", "expected a non-empty string")
    ctype = _enum(d, i, name, "type", CARD_TYPES)
    for f in _FIELDS[ctype]:
        if f not in d:
            raise _err(i, name, f, f"missing field (required for type {ctype!r})")
    allowed = set(_COMMON) | set(_FIELDS[ctype]) | {"notes"}
    for f in d:
        if f not in allowed:
            raise _err(i, name, "(card)", f"an unknown field for type {ctype!r}", ("cards", i, f))
    count = _int(d, i, name, "count", 1)
    source = _enum(d, i, name, "source", SOURCES)
    notes = d.get("notes")
    if notes is not None and not isinstance(notes, str):
        raise _err(i, name, "notes", f"expected a string, got {_kind_of(notes)}")
    kw: dict[str, Any] = dict(index=i, type=ctype, name=name, count=count, source=source,
                              notes=notes)
    if ctype == "resource":
        kw["cost"] = _int(d, i, name, "cost", 0)
        kw["resource_type"] = _enum(d, i, name, "resource_type", RESOURCE_TYPES)
        kw["resource_class"] = _enum(d, i, name, "resource_class", RESOURCE_CLASSES)
        if CLASS_OF_TYPE[kw["resource_type"]] != kw["resource_class"]:
            raise _err(i, name, "resource_class",
                       f"{kw['resource_class']!r} does not match type {kw['resource_type']!r}")
        kw["quantity"] = _int(d, i, name, "quantity", 1)
        kw["protection"], kw["protection_cost"] = _protection(d, i, name)
    elif ctype == "station":
        kw["cost"] = _int(d, i, name, "cost", 0)
        kw["line"] = _enum(d, i, name, "line", LINES)
        kw["resource_icon"] = _enum(d, i, name, "resource_icon", RESOURCE_TYPES)
        kw["quest"] = _quest(d, i, name)
        kw["reward_types"], kw["reward_class"] = _reward(d, i, name)
        if not isinstance(d["extra_token"], bool):
            raise _err(i, name, "extra_token", f"expected true or false, got {_kind_of(d['extra_token'])}")
        kw["extra_token"] = d["extra_token"]
    elif ctype == "threat":
        kw["value"] = _int(d, i, name, "value", 0)
        kw["threats"] = _enum_list(d, i, name, "threats", THREAT_TYPES, nonempty=True)
        kw["loss"] = _enum(d, i, name, "loss", LOSSES)
        kw["protection"], kw["protection_cost"] = _protection(d, i, name)
    elif ctype == "caravan":
        kw["value"] = _int(d, i, name, "value", 0)
        kw["caravan_class"] = _enum(d, i, name, "caravan_class", RESOURCE_CLASSES)
    elif ctype == "hero":
        kw["cost"] = _int(d, i, name, "cost", 0)
        kw["protection"] = _enum_list(d, i, name, "protection", THREAT_TYPES, nonempty=True)
        kw["doubles"] = _enum(d, i, name, "doubles", RESOURCE_TYPES)
    else:  # faction
        kw["quest"] = _quest(d, i, name)
        kw["reward_types"], kw["reward_class"] = _reward(d, i, name)
    return CardKind(**kw)


def parse_card_set(data: Any, *, strict_counts: bool = True) -> CardSet:
    """Validate a decoded card-set document and return the immutable :class:`CardSet`.

    Raises :class:`CardSetError` naming the card (index and name) and the field at fault.
    """
    if not isinstance(data, dict):
        raise _err(None, None, "(document)", "expected a JSON object at the top level")
    required = ("schema_version", "name", "provenance", "cards")
    for f in required:
        if f not in data:
            raise _err(None, None, f, "missing top-level field")
    for f in data:
        if f not in required:
            raise _err(None, None, "(document)", "an unknown top-level field", (f,))
    if data["schema_version"] != SCHEMA_VERSION or isinstance(data["schema_version"], bool):
        raise _err(None, None, "schema_version",
                   f"unsupported version (expected {SCHEMA_VERSION})")
    for f in ("name", "provenance"):
        if not isinstance(data[f], str) or not data[f].strip():
            raise _err(None, None, f, "expected a non-empty string")
    if not isinstance(data["cards"], list) or not data["cards"]:
        raise _err(None, None, "cards", "expected a non-empty list")
    kinds = []
    seen: dict[str, int] = {}
    for i, d in enumerate(data["cards"]):
        k = _kind(d, i)
        if k.name in seen:
            raise _err(i, k.name, "name", f"duplicate name (also card {seen[k.name]}); "
                       "identical cards are one kind with a larger 'count'")
        seen[k.name] = i
        kinds.append(k)
    totals = {t: 0 for t in CARD_TYPES}
    for k in kinds:
        totals[k.type] += k.count
    for t in CARD_TYPES:
        want = RULEBOOK_COUNTS[t]
        if strict_counts and totals[t] != want:
            raise _err(None, None, "count", f"{totals[t]} {t} cards in total, the rulebook has "
                       f"{want} (use strict_counts=False for an experimental set)")
        if totals[t] == 0:
            raise _err(None, None, "count", f"no {t} cards")
    if totals["faction"] < 5:
        raise _err(None, None, "count", f"{totals['faction']} faction cards; 5 players need 5")
    cards: list[Card] = []
    for k in kinds:
        for _ in range(k.count):
            cards.append(Card(len(cards), k))
    return CardSet(name=data["name"], schema_version=data["schema_version"],
                   provenance=data["provenance"], kinds=tuple(kinds), cards=tuple(cards))


def load_card_set(path: str | Path | None = None, *, strict_counts: bool = True) -> CardSet:
    """Load and validate a card-set file (default: the shipped reconstructed set)."""
    from metro_ai.engine.datafile import read_json, shared     # here: this module also loads on its own
    f = read_json(DEFAULT_PATH if path is None else Path(path), what="card set", error=CardSetError)
    try:
        return shared((__name__, "card set", strict_counts), f.text,      # one copy for every game of this text
                      lambda: parse_card_set(f.data, strict_counts=strict_counts))
    except CardSetError as exc:
        raise f.error(str(exc).removeprefix("card set: "), getattr(exc, "at", None)) from None
