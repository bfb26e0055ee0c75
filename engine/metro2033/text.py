"""Metro 2033 in words, for people: readable station names, a sentence per decision saying what
is being decided, and a label per action saying what it does in that decision.

``action_to_string`` (``station ulitsa_1905_goda``, ``count 2``) is the engines' and the
protocol's text and stays as it is; these functions are a second, readable text used by the
terminal (and by any front end): :func:`station_label`, :func:`prompt` and :func:`describe`.
They read the state through its public API (``phase``, ``current_player``, ``observation``), so
they serve the fast engine and the reference alike. Rules are cited by id (G..).
"""
from __future__ import annotations

import re

from .board import BOARD, RESOURCES

S = BOARD.n
# The action blocks (reference.py's "Action encoding"): STATION, STATION_HERO, FACTION, HERO,
# PLAYER, RESOURCE, COUNT, CARD, COMPLETE, USE, FIXED.
STATION, STATION_HERO, FACTION = 0, S, 2 * S
HERO = FACTION + 6
PLAYER = HERO + 6
RESOURCE = PLAYER + 6
COUNT = RESOURCE + 3
CARD = COUNT + 36
FIXED_NAMES = ("yes", "no", "army", "hero", "buy", "quest", "exchange", "scout", "attack", "pass",
               "refresh", "done")

# The interchange halls' suffixes (metro2033_stations.csv: "a suffix tells apart the halls of
# one interchange"): H is the Ring line, Hansa's; the others are the lines' colours.
_SUFFIXES = ("light_green", "green", "grey", "pink", "red", "purple", "orange", "yellow", "blue", "H")
_SMALL = {"na", "i", "de"}


def station_label(name: str) -> str:
    """A station's readable name: ``ulitsa_1905_goda`` -> ``Ulitsa 1905 Goda``,
    ``kievskaya_H`` -> ``Kievskaya (Hansa)``, ``kitay_gorod_orange`` -> ``Kitay Gorod (orange)``."""
    hall = ""
    for suffix in _SUFFIXES:
        if name.endswith("_" + suffix) and len(name) > len(suffix) + 1:
            name = name[: -len(suffix) - 1]
            hall = " (Hansa)" if suffix == "H" else f" ({suffix.replace('_', ' ')})"
            break
    words = [w if w in _SMALL else w[:1].upper() + w[1:] for w in name.split("_") if w]
    return " ".join(words) + hall


def station_name(index: int) -> str:
    """The readable name of station `index` on the map."""
    return station_label(BOARD.names[index])


_ZONE_NAMES = {"polis": "Polis"}


def zone_label(zone: str) -> str:
    """A zone's readable name: ``confederation_1905`` -> ``Confederation 1905``."""
    return _ZONE_NAMES.get(zone) or " ".join(w[:1].upper() + w[1:] for w in zone.split("_"))


_ID = re.compile("|".join(sorted((re.escape(n) for n in BOARD.names), key=len, reverse=True)))


def readable(text: str) -> str:
    """`text` with every station id written as its readable name (for the engines' texts, such
    as ``render``, shown to a person)."""
    return _ID.sub(lambda m: station_label(m.group(0)), text)


def _n_actions(game) -> int:
    """The number of distinct actions (a property of the fast game, a method of the reference's)."""
    n = game.num_distinct_actions
    return n() if callable(n) else n


def _cards(state):
    return state.game.card_names


def _obs(state):
    p = state.current_player
    return state.observation(p) if p is not None and p >= 0 else {}


def _who(state, q):
    return f"P{q}"


# What each decision is (state.phase), said to the player who decides; {..} from _facts.
PROMPTS = {
    "draft_faction": "choose your faction (G6: after the first pick, one bordering a faction already chosen)",
    "draft_hero": "choose your hero (G6)",
    "place_hero": "choose the station where your hero starts (G6)",
    "law_look": "look at the top two laws and choose the one put to the vote? (G31: yes = look, no = the top law)",
    "law_peek": "choose the law put to the vote; the other goes under the deck (G31)",
    "vote": "vote on the law {law}: yes for it, no against (G3)",
    "declare": "declare the station you defend against this round's threat, and who defends it: "
               "the army, or your hero standing there (G9)",
    "polis_res": "your Polis station produces: choose the resource (G9)",
    "quest_complete": "quest check: complete a quest whose condition holds (+1 VP), or done (G16, G29, G38)",
    "upkeep": "upkeep: the army strength you keep; each point above {free} costs a pig (G10, G33)",
    "hire": "hire soldiers: how many (each costs 1 pig and 1 bullet; up to {max}) (G10)",
    "army": "your army's action: attack a station or a hero, or forage a resource (G11)",
    "hero_move": "move your hero to a station in reach (or complete or use a quest) (G12)",
    "hero_act": "your hero at {hero_at}: what does it do there? (G12)",
    "buy": "buy equipment from the market (1 bullet + 1 mushroom), refresh the market (1 bullet), "
           "or done (G12)",
    "quest_keep": "choose the quest to keep; the others are discarded (G16)",
    "exchange_from": "exchange: the resource you give (G12)",
    "exchange_to": "exchange {from}: the resource you get (G12)",
    "exchange_amount": "exchange {from} for {to}: how many to give (G12)",
    "scout_return": "put the threat you scouted back on top of the threat deck before this fight? (G12, G34)",
    "artyom": "Artyom: choose which of the top two threats to fight at {station} (G4)",
    "capture": "capture {station}? (paying its cost) (G14)",
    "free_station": "choose a free neutral station to take (G15, G28)",
    "defender": "you are attacked: who defends, your army or your hero? (G20)",
    "combat_pick": "fight: choose the combat card you play as the {side} (G21)",
    "take_equipment": "you won: take a piece of the loser's equipment, or no (G20)",
    "strip_equipment": "discard a piece of the other side's equipment (G17, G20)",
    "discard_equipment": "too much equipment: discard a piece (G17)",
    "stage2_equipment": "stage 2: choose the equipment card you keep (G18)",
}


def _facts(state) -> dict:
    """The values the prompts name, from what the decider sees."""
    obs = _obs(state)
    pd = obs.get("pending") or {}
    cards = _cards(state)
    facts: dict = {"law": "on the table", "free": "the free strength", "max": "the most you can pay",
                   "hero_at": "its station", "from": "", "to": "", "station": "the station",
                   "side": {"att": "attacker", "def": "defender", 0: "attacker", 1: "defender"}.get(
                       pd.get("side"), "fighter")}
    vote = obs.get("vote")
    if isinstance(vote, dict) and isinstance(vote.get("law"), int):
        facts["law"] = repr(cards[vote["law"]])
    if isinstance(pd.get("max"), int) and pd["max"] >= 0:
        facts["max"] = pd["max"]
    p = state.current_player
    at = (obs.get("hero_at") or [None] * (p + 1))[p] if p is not None and p >= 0 else None
    if isinstance(at, int):
        facts["hero_at"] = station_name(at)
    for key in ("from", "to"):
        if isinstance(pd.get(key), int) and 0 <= pd[key] < 3:
            facts[key] = RESOURCES[pd[key]]
    if isinstance(pd.get("station"), int) and 0 <= pd["station"] < S:
        facts["station"] = station_name(pd["station"])
    if state.phase == "upkeep":
        legal = state.legal_actions()
        if legal:
            facts["free"] = min(legal) - COUNT
    return facts


def prompt(state) -> str:
    """What the player to move decides now, in a sentence (the phase's name if unknown)."""
    phase = state.phase
    text = PROMPTS.get(phase)
    if text is None:
        return f"decide: {phase.replace('_', ' ')}"
    return text.format(**_facts(state))


def describe(state, action: int) -> str:
    """What `action` does if the player to move plays it now, in words: ``hero defends Kievskaya
    (blue)``, ``hire 2 soldiers``, ``attack Ulitsa 1905 Goda with the army``. Falls back on the
    action's text with station ids made readable."""
    g = state.game
    phase = state.phase
    cards = _cards(state)
    a = action
    if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < _n_actions(g):
        return f"<not an action: {a!r}>"
    if a < STATION_HERO:
        name = station_name(a)
        return {
            "place_hero": f"hero starts at {name}",
            "declare": f"army defends {name}",
            "army": f"army attacks {name}",
            "army_move": f"army moves to {name}",
            "hero_move": f"hero moves to {name}",
            "free_station": f"take {name}",
        }.get(phase, name)
    if a < FACTION:
        return f"hero defends {station_name(a - STATION_HERO)}"
    if a < PLAYER:
        return state.action_to_string(a)                      # faction X / hero X: already words
    if a < RESOURCE:
        q = a - PLAYER
        return {"army": f"army attacks {_who(state, q)}'s hero",
                "hero_act": f"hero attacks {_who(state, q)}'s hero"}.get(phase, f"player {q}")
    if a < COUNT:
        r = RESOURCES[a - RESOURCE]
        return {"army": f"forage {r}", "polis_res": f"produce {r}", "exchange_from": f"give {r}",
                "exchange_to": f"get {r}"}.get(phase, r)
    if a < CARD:
        k = a - COUNT
        if phase == "hire":
            return "hire no soldiers" if k == 0 else f"hire {k} soldier{'s' if k != 1 else ''}"
        if phase == "upkeep":
            return f"keep army strength {k}"
        if phase == "exchange_amount":
            facts = _facts(state)
            return f"give {k} {facts['from']} for {k} {facts['to']}".replace("  ", " ")
        return f"{k}"
    if a < _n_actions(g) - len(FIXED_NAMES):
        block, c = divmod(a - CARD, g.C)
        name = cards[c]
        if block == 1:
            return f"complete the quest {name}"
        if block == 2:
            return f"use the quest {name}"
        return {
            "law_peek": f"put the law {name} to the vote",
            "artyom": f"fight the threat {name}",
            "quest_keep": f"keep the quest {name}",
            "stage2_equipment": f"keep {name}",
            "combat_pick": f"play {name}",
            "take_equipment": f"take {name}",
            "strip_equipment": f"discard their {name}",
            "discard_equipment": f"discard {name}",
            "buy": f"buy {name}",
        }.get(phase, name)
    word = FIXED_NAMES[a - (_n_actions(g) - len(FIXED_NAMES))]
    special = {
        ("law_look", "yes"): "look at the top two laws", ("law_look", "no"): "put the top law to the vote unseen",
        ("vote", "yes"): "vote for the law", ("vote", "no"): "vote against the law",
        ("capture", "yes"): "capture it", ("capture", "no"): "leave it",
        ("scout_return", "yes"): "put the scouted threat back on top", ("scout_return", "no"): "keep it",
        ("defender", "army"): "the army defends", ("defender", "hero"): "the hero defends",
        ("take_equipment", "no"): "take nothing", ("strip_equipment", "no"): "discard nothing",
        ("quest_complete", "done"): "done: complete no more quests", ("buy", "done"): "done buying",
        ("buy", "refresh"): "refresh the market (1 bullet)",
        ("hero_act", "buy"): "buy equipment", ("hero_act", "quest"): "take a quest (1 bullet + 1 mushroom)",
        ("hero_act", "exchange"): "exchange resources", ("hero_act", "scout"): "scout the next threat",
        ("hero_act", "attack"): "attack this station", ("hero_act", "pass"): "do nothing",
    }
    return special.get((phase, word), word)
