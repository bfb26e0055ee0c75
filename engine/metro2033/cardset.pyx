# cython: language_level=3
"""Metro 2033 (board game): the card compiler. ``CardTables`` compiles a card set (``cards.py``'s
``CardSet``, effects in its vocabulary) once into the flat C tables (``Tables`` in ``rules.pxd``)
that the state machine (``machine.pyx``) reads: card types, strengths, speeds, the strength
bonuses by who/when/versus (G17, G21, G35), gains, faction data, quest conditions.
"""
from libc.string cimport memset

from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.board import BOARD, RESOURCES

_WHEN = (None, "attack", "defence")


def _bonus(effects, vs=None, who=None, when=None):
    """cards.py's strength rule: entries for `who`/`when`; a matching ``vs`` entry replaces the
    plain ones (G17, G21, G35)."""
    plain = matched = 0
    found = False
    for e in effects:
        if e["effect"] != "strength" or e.get("who", who) != who or e.get("when", when) != when:
            continue
        if "vs" in e:
            if e["vs"] == vs:
                matched += e["amount"]
                found = True
        else:
            plain += e["amount"]
    return matched if found else plain


cdef class CardTables:
    """The card set `card_set`, compiled into ``t``."""

    def __init__(self, card_set):
        cdef int c, w, v, k
        cards = card_set.cards
        if len(cards) > MAXC:
            raise ValueError(f"the fast engine takes at most {MAXC} cards, the set has {len(cards)}")
        cdef Tables* t = &self.t
        memset(t, 0, sizeof(Tables))
        t.C = len(cards)
        types = ("faction", "hero", "threat", "equipment", "quest", "law", "combat")
        threat_types = ("physical", "biological", "radiation")
        combat_types = ("attack", "defence", "manoeuvre")
        zones = list(BOARD.zones)
        conds = []
        for c, card in enumerate(cards):
            ty = types.index(card["type"])
            t.ctype[c] = ty
            t.by_type[ty][t.n_type[ty]] = c
            t.n_type[ty] += 1
            eff = list(card.get("effects", []))
            t.stage[c] = card.get("stage", 0)
            t.ttype[c] = threat_types.index(card["threat_type"]) if "threat_type" in card else 0
            t.strength[c] = card.get("strength", 0)
            t.speed[c] = card.get("speed", 0)
            t.spd[c] = sum(e["amount"] for e in eff if e["effect"] == "speed")
            for w in range(3):
                for v in range(4):
                    t.hb[c][w][v] = _bonus(eff, None if v == 0 else threat_types[v - 1], "hero", _WHEN[w])
                t.fb[c][0][w] = sum(_bonus([e], None, "army", _WHEN[w]) for e in eff)
                t.fb[c][1][w] = sum(_bonus([e], None, "hero", _WHEN[w]) for e in eff)
            for v in range(4):
                t.cb[c][v] = _bonus(eff, None if v == 0 else combat_types[v - 1])
            t.ctyp[c] = combat_types.index(card["combat_type"]) if "combat_type" in card else 0
            for e in card.get("reward", []) + card.get("start_bonus", []) + (eff if ty == T_QUEST else []):
                if e["effect"] == "resource":
                    t.gain[c][RESOURCES.index(e["resource"])] += e["amount"]
                elif e["effect"] == "army":
                    t.gain[c][3] += e["amount"]
            t.win_vp[c] = t.forage[c] = t.upkeep_free[c] = -1
            if ty == T_FACTION:
                t.zone[c] = zones.index(card["zone"])
                for k in range(3):
                    t.home[c][k] = BOARD.station(card["home"][k])
            for e in eff:
                name = e["effect"]
                if name == "votes":
                    t.votes[c] = max(t.votes[c], e["amount"])
                elif name == "win_vp":
                    t.win_vp[c] = max(t.win_vp[c], e["amount"])
                elif name == "wins_ties":
                    t.ties[c] |= (1 if e["when"] == "attack" else 2) << (0 if e["who"] == "army" else 2)
                elif name == "law_peek":
                    t.peek[c] = 1
                elif name == "threat_choice":
                    t.threat_choice[c] = 1
                elif name == "forage":
                    t.forage[c] = max(t.forage[c], e["amount"])
                elif name == "upkeep_free":
                    t.upkeep_free[c] = max(t.upkeep_free[c], e["amount"])
                elif name == "no_hero_fights":
                    t.no_hero_fights[c] = 1
                elif name == "capture_cost":
                    t.capture_cost[c][RESOURCES.index(e["resource"])] += e["amount"]
            if ty == T_QUEST:
                cond = card["condition"]
                if cond not in conds:
                    conds.append(cond)
                t.cond[c] = conds.index(cond)
                t.cond_kind[c] = ("stations", "resources", "army", "polis", "equipment", "zones").index(cond["condition"])
                t.cond_count[c] = cond["count"]
                t.cond_res[c] = RESOURCES.index(cond["resource"]) if "resource" in cond else 0
        for k in range(6):
            t.factions[k] = t.by_type[T_FACTION][k]
        t.nheroes = t.n_type[T_HERO]
        for k in range(t.nheroes):
            t.heroes[k] = t.by_type[T_HERO][k]
        for z, name in enumerate(zones):
            t.border[z] = sum(1 << zones.index(b) for b in BOARD.borders[name])
        for k, s in enumerate(BOARD.polis):
            t.polis[k] = s
