# cython: language_level=3
"""Metro 2033 (board game): the card compiler. ``CardTables`` compiles a card set (``cards.py``'s
``CardSet``, effects in its vocabulary) once into the flat C tables (``Tables`` in ``rules.pxd``)
that the state machine (``machine.pyx``) reads: card types, strengths, speeds, the strength
bonuses by who/when/versus (G17, G21, G35), gains, faction data, quest conditions. The strength
rule is ``m33_strength_bonus`` here, written from the rules file, not from the reference engine,
so that the differential test can catch a misreading of either.
"""
from libc.string cimport memset

from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.board import BOARD, RESOURCES

_WHO = ("army", "hero")
_WHEN = ("attack", "defence")
_THREAT_TYPES = ("physical", "biological", "radiation")
_COMBAT_TYPES = ("attack", "defence", "manoeuvre")


cdef int m33_strength_bonus(const M33Strength* e, int n, int who, int when, int vs) noexcept nogil:
    """The strength one card adds to a fighter, read from the rules: G35 (``strength`` bonuses
    add up; a ``vs`` entry of a card that matches the opponent replaces that card's plain
    entries), with G17's example (AKM: +1, or +2 against one threat type: +2 in all, not +3) and
    G21's (Ambush in the tunnels: +1, or +3 against an attack card), and G26 (an army adds the
    faction's and the law's effects for armies, with `when` attack or defence; a hero the hero
    card's and the equipment's, against the threat's type where given, and the faction's and the
    law's for heroes). `e[0..n)` are the card's ``strength`` entries; `who` (0 army, 1 hero),
    `when` (0 attack, 1 defence) and `vs` (the opponent's type, a threat or combat-card type
    index) are -1 where the fight does not ask. An entry that names a fighter or a side counts
    only for that fighter or side; one that names an opponent type counts only against it."""
    cdef int i, plain = 0, versus = 0
    cdef bint against = False
    for i in range(n):
        if (e[i].who >= 0 and e[i].who != who) or (e[i].when >= 0 and e[i].when != when):
            continue                       # for another fighter, or the other side of the fight
        if e[i].vs < 0:
            plain += e[i].amount
        elif vs >= 0 and e[i].vs == vs:    # this opponent: these entries stand instead
            against = True
            versus += e[i].amount
    if against:
        return versus
    return plain


cdef class CardTables:
    """The card set `card_set`, compiled into ``t``; ``strength(card, who, when, vs)`` reads one
    card's strength bonus (G35)."""

    def __init__(self, card_set):
        cdef int c, w, v, k
        cards = card_set.cards
        if len(cards) > MAXC:
            raise ValueError(f"the fast engine takes at most {MAXC} cards, the set has {len(cards)}")
        cdef Tables* t = &self.t
        memset(t, 0, sizeof(Tables))
        t.C = len(cards)
        types = ("faction", "hero", "threat", "equipment", "quest", "law", "combat")
        zones = list(BOARD.zones)
        conds = []
        for c, card in enumerate(cards):
            ty = types.index(card["type"])
            t.ctype[c] = ty
            t.by_type[ty][t.n_type[ty]] = c
            t.n_type[ty] += 1
            eff = list(card.get("effects", []))
            t.stage[c] = card.get("stage", 0)
            t.ttype[c] = _THREAT_TYPES.index(card["threat_type"]) if "threat_type" in card else 0
            t.strength[c] = card.get("strength", 0)
            t.speed[c] = card.get("speed", 0)
            t.spd[c] = sum(e["amount"] for e in eff if e["effect"] == "speed")
            self._strength_entries(c, eff, _COMBAT_TYPES if ty == T_COMBAT else _THREAT_TYPES)
            # the tables index `when` and `vs` from 1, 0 being "not asked"; G26: the faction's and
            # the law's effects count for armies and heroes with no opponent type
            for w in range(3):
                for v in range(4):
                    t.hb[c][w][v] = m33_strength_bonus(self.strength_entry[c], self.n_strength[c], 1, w - 1, v - 1)
                t.fb[c][0][w] = m33_strength_bonus(self.strength_entry[c], self.n_strength[c], 0, w - 1, -1)
                t.fb[c][1][w] = m33_strength_bonus(self.strength_entry[c], self.n_strength[c], 1, w - 1, -1)
            for v in range(4):
                t.cb[c][v] = m33_strength_bonus(self.strength_entry[c], self.n_strength[c], -1, -1, v - 1)
            t.ctyp[c] = _COMBAT_TYPES.index(card["combat_type"]) if "combat_type" in card else 0
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

    def _strength_entries(self, int c, effects, vs_types):
        """Card `c`'s ``strength`` entries into ``strength_entry[c]`` (names as indices, -1 where
        an entry names none)."""
        entries = [e for e in effects if e["effect"] == "strength"]
        if len(entries) > M33_MAX_STRENGTH:
            raise ValueError(f"card {c}: at most {M33_MAX_STRENGTH} strength effects, got {len(entries)}")
        self.n_strength[c] = len(entries)
        for i, e in enumerate(entries):
            self.strength_entry[c][i].amount = e["amount"]
            self.strength_entry[c][i].who = _WHO.index(e["who"]) if "who" in e else -1
            self.strength_entry[c][i].when = _WHEN.index(e["when"]) if "when" in e else -1
            self.strength_entry[c][i].vs = vs_types.index(e["vs"]) if "vs" in e else -1

    def strength(self, int card, who=None, when=None, vs=None):
        """The strength card `card` adds to a fighter (``m33_strength_bonus``, G35): `who` "army"
        or "hero", `when` "attack" or "defence", `vs` the opponent's threat type (or, for a combat
        card, the other card's combat type); None where the fight does not ask."""
        if not 0 <= card < self.t.C:
            raise ValueError(f"card must be 0..{self.t.C - 1}, got {card}")
        types = _COMBAT_TYPES if self.t.ctype[card] == T_COMBAT else _THREAT_TYPES
        return m33_strength_bonus(self.strength_entry[card], self.n_strength[card],
                                  -1 if who is None else _WHO.index(who),
                                  -1 if when is None else _WHEN.index(when),
                                  -1 if vs is None else types.index(vs))
