"""Card sets for *Metro 2033*, the board game (2nd edition): schema, validator and loader.

Pure Python, standard library only. The printed card texts are not public: the project ships a
**reconstructed** set (``data/metro2033_cards.json``) that keeps the rulebook's component counts
(G1) and every card fact the rulebook fixes (G3, G4, G9, G17, G21); each card kind says which by
its ``source`` (``"rulebook"``: the rulebook names the card and fixes some of its facts, ``notes``
saying which fields are still reconstructed; ``"reconstructed"``: nothing of it is known). Anyone
holding the printed cards writes a file in the schema below and passes it as
``RefMetro2033Game(cards="my_cards.json")``; no code changes are needed.

Schema (``schema_version`` 1)
=============================
A JSON object with exactly the keys ``schema_version`` (1), ``name`` (str), ``provenance`` (str,
where the values come from) and ``cards`` (a list of card kinds). Kinds expand in file order into
physical cards: card id ``c`` is the ``c``-th physical card, so ids are stable for a file.

Every kind has ``type``, ``name`` (non-empty, unique), ``count`` (int >= 1), ``source``
(``rulebook``/``reconstructed``), optional ``notes`` (str), and the fields of its type:

``faction``    ``zone`` (a faction zone of the map), ``home`` (3 distinct producing stations of
               that zone, one per resource, G3), ``start_bonus`` (effects applied once at setup,
               G7), ``effects`` (the property).  Count 1.
``hero``       ``speed`` int >= 0, ``strength`` int >= 0, ``effects`` (the property, G4).
``threat``     ``stage`` 1 or 2, ``threat_type`` (``physical``/``biological``/``radiation``,
               G20), ``strength`` int >= 0, ``reward`` (effects gained on a win, G9).
``equipment``  ``effects`` (bonuses to the hero that carries it, G17).
``quest``      ``condition`` (object below, G16), ``effects`` (the property).
``law``        ``effects`` (rule changes while the law is in force, G9).
``combat``     ``combat_type`` (``attack``/``defence``/``manoeuvre``), ``effects`` (G21).

Effects: a list of objects ``{"effect": NAME, ...}`` over this small vocabulary (each name with
exactly the keys listed; ``?`` marks optional keys):

``strength``       ``amount`` int, ``vs``? (a threat type, or for combat cards a combat type),
                   ``who``? (``army``/``hero``: factions and laws), ``when``? (``attack``/
                   ``defence``).  A card's ``vs`` entry that matches the opponent *replaces* its
                   plain entries ("AKM: +1, or +2 against one threat type"; "Ambush: +1, or +3
                   against an attack card").
``speed``          ``amount`` int (hero speed).
``resource``       ``resource`` (``pigs``/``mushrooms``/``bullets``), ``amount`` int >= 1
                   (gained once: a starting bonus, a threat's reward, a quest property).
``army``           ``amount`` int >= 1 (army strength gained once, up to 8).
``votes``          ``amount`` int >= 1 (extra votes in law votes).
``win_vp``         ``amount`` int >= 1 (the VP that win, G2).
``wins_ties``      ``who`` (``army``/``hero``), ``when`` (``attack``/``defence``) (G3).
``law_peek``       no keys: look at the top two laws when a vote comes (G3).
``threat_choice``  no keys: fight either of the top two threats at a neutral station (G4).
``forage``         ``amount`` int >= 1: a forage brings that many (G11).
``upkeep_free``    ``amount`` int 0..8: army strength kept without upkeep (G10: 5).
``no_hero_fights`` no keys: no hero may attack a hero (law).
``capture_cost``   ``resource``, ``amount`` int >= 1: extra cost of every capture (law).

Which effect names a type may use: see ``ALLOWED_EFFECTS``.

Quest conditions (G16): ``{"condition": NAME, ...}``: ``stations`` (``count``: stations held),
``resources`` (``resource``, ``count``: that many held), ``army`` (``count``: army strength),
``polis`` (``count``: Polis stations held), ``equipment`` (``count``: cards the hero carries),
``zones`` (``count``: zones other than one's own with a station held, Polis counting).  Two
quests with the same condition object cannot both be completed by one player (G16).

By default the counts per type must be the rulebook's (``RULEBOOK_COUNTS``, G1: 36 threats, 18
of each stage); ``strict_counts=False`` lifts that for experimental sets, which still need the
six factions, 2 to 6 heroes, at least 7 combat cards (G21 deals 3 each side and one aside), one
card of every other type, and of each threat stage.

Errors name the card (its index) and the field, and never quote the file: :class:`CardSetError`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_VERSION", "CARD_TYPES", "THREAT_TYPES", "COMBAT_TYPES", "RESOURCES", "RULEBOOK_COUNTS",
           "DEFAULT_PATH", "CardSetError", "CardSet", "load_card_set", "parse_card_set"]

SCHEMA_VERSION = 1
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_PATH = DATA / "metro2033_cards.json"
CARD_TYPES = ("faction", "hero", "threat", "equipment", "quest", "law", "combat")
THREAT_TYPES = ("physical", "biological", "radiation")
COMBAT_TYPES = ("attack", "defence", "manoeuvre")
RESOURCES = ("pigs", "mushrooms", "bullets")
SOURCES = ("rulebook", "reconstructed")
RULEBOOK_COUNTS = {"faction": 6, "hero": 6, "threat": 36, "equipment": 18, "quest": 18, "law": 7,
                   "combat": 7}
INT_MAX = 100

_TYPE_FIELDS = {
    "faction": ("zone", "home", "start_bonus", "effects"),
    "hero": ("speed", "strength", "effects"),
    "threat": ("stage", "threat_type", "strength", "reward"),
    "equipment": ("effects",),
    "quest": ("condition", "effects"),
    "law": ("effects",),
    "combat": ("combat_type", "effects"),
}
# effect name -> (required keys, optional keys)
_EFFECTS = {
    "strength": (("amount",), ("vs", "who", "when")),
    "speed": (("amount",), ()),
    "resource": (("resource", "amount"), ()),
    "army": (("amount",), ()),
    "votes": (("amount",), ()),
    "win_vp": (("amount",), ()),
    "wins_ties": (("who", "when"), ()),
    "law_peek": ((), ()),
    "threat_choice": ((), ()),
    "forage": (("amount",), ()),
    "upkeep_free": (("amount",), ()),
    "no_hero_fights": ((), ()),
    "capture_cost": (("resource", "amount"), ()),
}
ALLOWED_EFFECTS = {
    "faction": ("strength", "votes", "win_vp", "wins_ties", "law_peek", "forage", "speed"),
    "faction_bonus": ("resource", "army"),
    "hero": ("strength", "speed", "threat_choice", "wins_ties"),
    "threat_reward": ("resource", "army"),
    "equipment": ("strength", "speed"),
    "quest": ("resource", "army"),
    "law": ("strength", "speed", "forage", "upkeep_free", "no_hero_fights", "capture_cost"),
    "combat": ("strength",),
}
_CONDITIONS = {"stations": ("count",), "resources": ("resource", "count"), "army": ("count",),
               "polis": ("count",), "equipment": ("count",), "zones": ("count",)}


try:  # inside the package: a DataError like every other malformed data file
    from metro_ai.engine.errors import DataError as _Base
except ImportError:  # loaded on its own: still a ValueError
    _Base = ValueError  # type: ignore[misc, assignment]


class CardSetError(_Base):
    """A card file that does not follow the schema; the message names card and field."""


class CardSet:
    """A validated card set: ``kinds`` (dicts, file order) and ``cards`` (one dict per physical
    card, with ``id`` and ``kind``, the kind's fields copied)."""

    def __init__(self, name: str, provenance: str, kinds: list[dict]):
        self.name = name
        self.provenance = provenance
        self.kinds = kinds
        self.cards: list[dict] = []
        for k, kind in enumerate(kinds):
            for _ in range(kind["count"]):
                self.cards.append({**kind, "id": len(self.cards), "kind": k})

    def __len__(self) -> int:
        return len(self.cards)

    def ids_of_type(self, card_type: str) -> list[int]:
        return [c["id"] for c in self.cards if c["type"] == card_type]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(CARD_TYPES, 0)
        for c in self.cards:
            out[c["type"]] += 1
        return out


def _zones_and_kinds() -> dict[str, tuple[str, str]]:
    from metro_ai.engine.datafile import read_csv
    return {r["station"]: (r["zone"], r["kind"]) for _, r in read_csv(DATA / "metro2033_stations.csv", what="map").rows}


def _err(i, name, field, msg, at=None) -> CardSetError:
    """The error about `field` of card `i`, carrying the JSON path of the value (``at``, default:
    the field's) so that the loader can give its line. It names the card by its index, never by
    `name` (the file's text), and quotes no value."""
    return _at(CardSetError(f"card {i}: field {field!r}: {msg}"), ("cards", i, field) if at is None else at)


def _at(exc, at):
    exc.at = tuple(at)
    return exc


def _kind_of(v) -> str:
    """What a value is, without quoting it."""
    return {bool: "true or false", type(None): "null", int: "an integer", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


def _int(v, where, lo, hi=INT_MAX):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise where(f"expected an integer from {lo} to {hi}")
    return v


def _choice(v, where, allowed):
    if not isinstance(v, str) or v not in allowed:
        raise where(f"not one of the allowed values ({', '.join(allowed)})")
    return v


def _effects(v, where, allowed, card_type):
    if not isinstance(v, list):
        raise where(f"expected a list of effects, got {_kind_of(v)}")
    out = []
    for j, e in enumerate(v):
        at = lambda msg, j=j: where(f"effect {j}: {msg}")   # noqa: E731
        if not isinstance(e, dict) or not isinstance(e.get("effect"), str):
            raise at("expected an object with an 'effect' name")
        name = e["effect"]
        if name not in allowed:
            raise at(f"an effect not allowed here (allowed: {', '.join(allowed)})")
        req, opt = _EFFECTS[name]
        keys = set(e) - {"effect"}
        if not set(req) <= keys or not keys <= set(req) | set(opt):
            raise at(f"{name!r} takes keys {', '.join(req) or 'none'}"
                     + (f" (optional {', '.join(opt)})" if opt else "") + ", got others")
        if "amount" in e:
            lo = {"strength": -INT_MAX, "speed": -INT_MAX, "upkeep_free": 0}.get(name, 1)
            _int(e["amount"], at, lo, 8 if name == "upkeep_free" else INT_MAX)
        if "resource" in e:
            _choice(e["resource"], at, RESOURCES)
        if "vs" in e:
            _choice(e["vs"], at, COMBAT_TYPES if card_type == "combat" else THREAT_TYPES)
        if "who" in e:
            _choice(e["who"], at, ("army", "hero"))
        if "when" in e:
            _choice(e["when"], at, ("attack", "defence"))
        out.append(dict(e))
    return out


def _condition(v, where):
    if not isinstance(v, dict) or not isinstance(v.get("condition"), str) or v["condition"] not in _CONDITIONS:
        raise where(f"expected an object with 'condition' one of {', '.join(_CONDITIONS)}")
    keys = set(v) - {"condition"}
    need = set(_CONDITIONS[v["condition"]])
    if keys != need:
        raise where(f"condition {v['condition']!r} takes keys {sorted(need)}, got others")
    _int(v["count"], where, 1)
    if "resource" in v:
        _choice(v["resource"], where, RESOURCES)
    return dict(v)


def _kind(i: int, d: Any, stations) -> dict:
    if not isinstance(d, dict):
        raise _at(CardSetError(f"card {i}: expected an object, got {_kind_of(d)}"), ("cards", i))
    name = d.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _err(i, name, "name", "expected a non-empty string")
    card_type = d.get("type")
    if card_type not in CARD_TYPES:
        raise _err(i, name, "type", f"not one of the allowed values ({', '.join(CARD_TYPES)})")
    fields = ("type", "name", "count", "source") + _TYPE_FIELDS[card_type]
    for f in fields:
        if f not in d:
            raise _err(i, name, f, "missing")
    extra = sorted(set(d) - set(fields) - {"notes"})
    if extra:
        raise _err(i, name, "(card)", f"an unknown field for a {card_type} card", ("cards", i, extra[0]))

    def at(field):
        return lambda msg: _err(i, name, field, msg)
    out = {"type": card_type, "name": name, "count": _int(d["count"], at("count"), 1),
           "source": _choice(d["source"], at("source"), SOURCES)}
    if "notes" in d:
        if not isinstance(d["notes"], str):
            raise _err(i, name, "notes", f"expected a string, got {_kind_of(d['notes'])}")
        out["notes"] = d["notes"]
    if card_type == "faction":
        zones = sorted({z for z, _ in stations.values()} - {"polis"})
        out["zone"] = zone = _choice(d["zone"], at("zone"), zones)
        home = d["home"]
        if (not isinstance(home, list) or len(home) != 3 or not all(isinstance(h, str) for h in home)
                or len(set(home)) != 3 or any(h not in stations or stations[h][0] != zone for h in home)):
            raise _err(i, name, "home", f"expected 3 distinct stations of zone {zone!r}")
        if sorted(stations[h][1] for h in home) != sorted(RESOURCES):
            raise _err(i, name, "home", "the 3 home stations must produce one of each resource (G3)")
        out["home"] = list(home)
        out["start_bonus"] = _effects(d["start_bonus"], at("start_bonus"), ALLOWED_EFFECTS["faction_bonus"], card_type)
        if out["count"] != 1:
            raise _err(i, name, "count", "a faction has one card")
    elif card_type == "hero":
        out["speed"] = _int(d["speed"], at("speed"), 0, 10)
        out["strength"] = _int(d["strength"], at("strength"), 0)
    elif card_type == "threat":
        out["stage"] = _int(d["stage"], at("stage"), 1, 2)
        out["threat_type"] = _choice(d["threat_type"], at("threat_type"), THREAT_TYPES)
        out["strength"] = _int(d["strength"], at("strength"), 0)
        out["reward"] = _effects(d["reward"], at("reward"), ALLOWED_EFFECTS["threat_reward"], card_type)
    elif card_type == "quest":
        out["condition"] = _condition(d["condition"], at("condition"))
    elif card_type == "combat":
        out["combat_type"] = _choice(d["combat_type"], at("combat_type"), COMBAT_TYPES)
    if "effects" in _TYPE_FIELDS[card_type]:
        out["effects"] = _effects(d["effects"], at("effects"), ALLOWED_EFFECTS[card_type], card_type)
    return out


def parse_card_set(doc: Any, strict_counts: bool = True) -> CardSet:
    """Validate a decoded card file (see the module docstring); CardSetError names what is wrong."""
    if not isinstance(doc, dict):
        raise _at(CardSetError(f"card set: expected a JSON object, got {type(doc).__name__}"), ())
    keys = {"schema_version", "name", "provenance", "cards"}
    if set(doc) != keys:
        missing, extra = sorted(keys - set(doc)), sorted(set(doc) - keys, key=list(doc).index)
        if missing:
            raise _at(CardSetError(f"card set: field {missing[0]!r}: missing"), ())
        raise _at(CardSetError(f"card set: an unknown top-level key (expected exactly {', '.join(sorted(keys))})"),
                  (extra[0],))
    if doc["schema_version"] != SCHEMA_VERSION:
        raise _at(CardSetError(f"card set: field 'schema_version': expected {SCHEMA_VERSION}"), ("schema_version",))
    for f in ("name", "provenance"):
        if not isinstance(doc[f], str):
            raise _at(CardSetError(f"card set: field {f!r}: expected a string"), (f,))
    if not isinstance(doc["cards"], list):
        raise _at(CardSetError("card set: field 'cards': expected a list"), ("cards",))
    stations = _zones_and_kinds()
    kinds = [_kind(i, d, stations) for i, d in enumerate(doc["cards"])]
    seen: dict[str, int] = {}
    for i, k in enumerate(kinds):
        if k["name"] in seen:
            raise _err(i, k["name"], "name", f"repeats card {seen[k['name']]}")
        seen[k["name"]] = i
    cs = CardSet(doc["name"], doc["provenance"], kinds)
    counts = cs.counts()
    zones = [k["zone"] for k in kinds if k["type"] == "faction"]
    if len(set(zones)) != len(zones) or len(zones) != 6:
        raise CardSetError(f"card set: expected 6 factions, one per faction zone, got zones {zones}")
    stages = {s: sum(k["count"] for k in kinds if k["type"] == "threat" and k["stage"] == s) for s in (1, 2)}
    if strict_counts:
        for t, n in RULEBOOK_COUNTS.items():
            if counts[t] != n:
                raise CardSetError(f"card set: {counts[t]} {t} cards, the rulebook has {n} (G1); "
                                   "strict_counts=False allows other counts")
        if stages != {1: 18, 2: 18}:
            raise CardSetError(f"card set: threats per stage {stages}, the rulebook has 18 and 18 (G1)")
    else:
        need = {"hero": 2, "combat": 7, "threat": 2, "equipment": 1, "quest": 1, "law": 1}
        for t, n in need.items():
            if counts[t] < n:
                raise CardSetError(f"card set: {counts[t]} {t} cards, at least {n} needed")
        if counts["hero"] > 6:
            raise CardSetError(f"card set: {counts['hero']} hero cards, at most 6 (one per seat)")
        if min(stages.values()) < 1:
            raise CardSetError(f"card set: threats per stage {stages}: each stage needs one")
    return cs


def load_card_set(path: str | Path | None = None, strict_counts: bool = True) -> CardSet:
    """Read and validate a card file (default: the shipped, reconstructed set)."""
    from metro_ai.engine.datafile import read_json, shared     # here: this module also loads on its own
    f = read_json(Path(path) if path is not None else DEFAULT_PATH, what="card set", error=CardSetError)
    try:
        return shared((__name__, "card set", strict_counts), f.text,      # one copy for every game of this text
                      lambda: parse_card_set(f.data, strict_counts=strict_counts))
    except CardSetError as exc:
        raise f.error(str(exc).removeprefix("card set: "), getattr(exc, "at", None)) from None
