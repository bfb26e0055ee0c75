# cython: language_level=3
# Why one module of about 2,800 lines: the card compiler, the state machine, the checked loader and
# the contract adapter share one C struct (Data) and its cdef helpers, which Cython cannot share
# across modules without a .pxd; issue 25 splits it into rules/state/loader on a .pxd.
"""Metro 2033 (board game): the fast engine, and the game on the contract.

``FastMetro2033``: the whole game of the reference engine (``reference.py``, rules G1–G36) over
flat C state: the same decisions, the same action ids, the same draws from the same splitmix64
stream, so that ``tests/metro2033/test_metro2033_fast.py`` can compare the two after every action. Card
effects are compiled once into tables (``_Tables``) over the vocabulary of ``cards.py``.
``determinize`` redeals exactly as the reference does.

``Metro2033Game`` / ``Metro2033State`` (registered as ``metro2033``, G37): the contract's C-level
methods call ``FastMetro2033``'s ``nogil`` methods on the state's own ``FastMetro2033`` (a copy
is a struct copy; the card tables are shared); the Python face adds the JSON layout (``_dump``,
and ``_load``, which checks it), the observation, observed actions and the text view.
"""
import re
import reprlib

from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.rng cimport rng_t, rng_bounded
from metro_ai.engine.core cimport Game, GameState, rank_return, MAX_PLAYERS
from metro_ai.engine.core import Option, as_seed
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.metro2033.rules cimport (M33Map, Metro2033Map, m33_word, m33_army_reach_bits, m33_bits_list,
                                              m33_hero_reach,
                                              M33_HANSA, M33_POLIS, M33_ABANDONED)
from metro_ai.engine.metro2033.board import BOARD, RESOURCES
from metro_ai.engine.metro2033.cards import load_card_set
from metro_ai.engine.metro2033 import readings as readings_module

cdef enum:
    MAXC = 128          # cards in a set
    MAXQ = 128          # quests a player holds (every quest of a set, at most)
    MAXE = 8            # equipment a hero carries (at most 3, plus one over before a discard)
    MAXT = 512          # agenda tasks
    MAX_LEGAL = 640     # >= num_distinct_actions (A_CARD + 3 * MAXC + 12): legal-action buffers

cdef enum:
    S = 78
    A_STATION = 0
    A_STATION_HERO = 78
    A_FACTION = 156
    A_HERO = 162
    A_PLAYER = 168
    A_RESOURCE = 174
    A_COUNT = 177
    A_CARD = 213
    YES = 0
    NO = 1
    ARMYF = 2
    HEROF = 3
    BUY = 4
    QUEST = 5
    EXCHANGE = 6
    SCOUT = 7
    ATTACK = 8
    PASS = 9
    REFRESH = 10
    DONE = 11
    K_EQUIPMENT = 0       # deck keys
    K_QUEST = 1
    K_LAW = 2
    K_THREAT1 = 3
    K_THREAT2 = 4
    T_FACTION = 0         # card types
    T_HERO = 1
    T_THREAT = 2
    T_EQUIPMENT = 3
    T_QUEST = 4
    T_LAW = 5
    T_COMBAT = 6

PHASES = ("none", "draft_faction", "draft_hero", "place_hero", "polis_res", "law_peek", "vote", "declare",
          "scout_return", "artyom", "capture", "free_station", "defender", "combat_pick", "take_equipment",
          "strip_equipment", "discard_equipment", "hire", "army", "hero_move", "hero_act", "buy",
          "quest_keep", "exchange_from", "exchange_to", "exchange_amount", "stage2_equipment", "law_look",
          "upkeep", "quest_complete", "over")
cdef enum:
    P_NONE, P_DRAFT_FACTION, P_DRAFT_HERO, P_PLACE_HERO, P_POLIS_RES, P_LAW_PEEK, P_VOTE, P_DECLARE
    P_SCOUT_RETURN, P_ARTYOM, P_CAPTURE, P_FREE_STATION, P_DEFENDER, P_COMBAT_PICK, P_TAKE_EQ
    P_STRIP_EQ, P_DISCARD_EQ, P_HIRE, P_ARMY, P_HERO_MOVE, P_HERO_ACT, P_BUY
    P_QUEST_KEEP, P_EX_FROM, P_EX_TO, P_EX_AMOUNT, P_STAGE2_EQ, P_LAW_LOOK, P_UPKEEP, P_QUEST_COMPLETE
    P_OVER
cdef enum:
    J_DRAFT_FACTION, J_DRAFT_HERO, J_SETUP, J_PLACE_HERO, J_ROUND_START, J_PRODUCE, J_POLIS_RES
    J_LAW_EVENT, J_VOTE, J_LAW_RESULT, J_DECLARE, J_THREAT_REVEAL, J_THREAT_FIGHT, J_THREAT_DONE
    J_MOBILISE, J_ARMY, J_HERO, J_HERO_ACT, J_NEUTRAL_ATTACK, J_NEUTRAL_FIGHT, J_CAPTURE
    J_FREE_STATION, J_DEFENDER, J_COMBAT_DEAL, J_COMBAT_PICK, J_COMBAT_RESOLVE, J_TAKE_EQ
    J_STRIP_EQ, J_DISCARD_EQ, J_BUY, J_EX_FROM, J_EX_TO, J_EX_AMOUNT, J_STAGE2_EQ, J_END_ROUND
    J_QUEST_CHECK, J_QUEST_OFFER

# G8: the round track (resource bits 1, 2, 4; law 8; threat 16), START first
cdef int TRACK[10]
for _i, _v in enumerate((1 | 2 | 4, 2 | 1, 8 | 4, 16, 2 | 4, 8 | 1, 16, 1 | 4, 8 | 2, 16)):
    TRACK[_i] = _v
_WHEN = (None, "attack", "defence")


cdef struct Task:
    signed char name
    short a
    short b
    short c


cdef struct Tables:                      # the card set, compiled (see _Tables)
    int C
    signed char ctype[MAXC]
    signed char stage[MAXC]
    signed char ttype[MAXC]              # threat type 0..2
    signed char strength[MAXC]           # threat or hero printed strength
    signed char speed[MAXC]              # hero printed speed
    int spd[MAXC]                        # speed bonus of the card's effects
    int hb[MAXC][3][4]                   # hero/equipment: when (none, attack, defence) x vs (none, 3 types)
    int fb[MAXC][2][3]                   # faction/law: who (army, hero) x when, plain entries
    int cb[MAXC][4]                      # combat card: vs (none, attack, defence, manoeuvre)
    signed char ctyp[MAXC]               # combat type 0..2
    int gain[MAXC][4]                    # pigs, mushrooms, bullets, army gained (reward, bonus, property)
    signed char zone[MAXC]               # faction: zone index of the map
    signed char home[MAXC][3]
    signed char votes[MAXC]
    signed char win_vp[MAXC]             # -1: none
    signed char ties[MAXC]               # bits: army attack 1, army defence 2, hero attack 4, hero defence 8
    signed char peek[MAXC]
    signed char threat_choice[MAXC]
    signed char forage[MAXC]             # -1: none
    signed char upkeep_free[MAXC]        # -1: none
    signed char no_hero_fights[MAXC]
    signed char capture_cost[MAXC][3]
    signed char cond[MAXC]               # quest condition id (equal conditions, equal ids)
    signed char cond_kind[MAXC]          # stations, resources, army, polis, equipment, zones
    signed char cond_count[MAXC]
    signed char cond_res[MAXC]
    signed char factions[6]
    signed char heroes[6]
    int nheroes
    signed char by_type[7][MAXC]
    int n_type[7]
    int border[8]                        # zone -> mask of bordering zones (G6)
    int polis[4]


cdef struct Data:                        # the whole state, hidden parts included
    int n
    uint64_t rng
    signed char deck[5][MAXC]
    int deck_n[5]
    signed char disc[5][MAXC]
    int disc_n[5]
    signed char out[MAXC]
    int out_n
    signed char market[4]
    signed char law
    signed char known[MAXC]              # players who know the card at its deck place (bit mask)
    signed char owner[78]
    signed char faction[6]
    signed char hero[6]
    signed char hero_at[6]
    signed char wounded[6]
    int vp[6]
    int army[6]
    int res[6][3]
    signed char equip[6][MAXE]
    int equip_n[6]
    signed char quests[6][MAXQ]
    int quest_n[6]
    signed char done[6][MAXQ]
    int done_n[6]
    signed char used[6][MAXQ]
    int used_n[6]
    signed char scouted[6]
    int scouted_round[6]
    signed char decl_station[6]          # -1: not declared
    signed char decl_hero[6]
    signed char threat_now
    bint combat_on
    signed char hand[2][8]
    int hand_n[2]
    signed char aside[MAXC]
    int aside_n
    signed char pick[2]
    int cx_kind                          # 0 station, 1 hero
    int cx_side[2]                       # attacker, defender
    int cx_who[2]                        # 0 army, 1 hero
    int cx_station
    bint vote_on
    int vote_law
    int vote_for
    int vote_against
    bint last_vote_on
    int last_vote[3]
    int last_threat
    int round
    int first
    int stage
    bint over
    int winner
    int phase
    int decider
    signed char pd_cards[2]
    int pd_ncards
    int pd_votes, pd_max, pd_side, pd_who, pd_station, pd_taken, pd_from, pd_to
    int pd_bought, pd_refreshed, pd_forced, pd_amount, pd_resmask
    Task ag[MAXT]
    int ag_n


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


cdef class _Tables:
    cdef Tables t

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


cdef Metro2033Map MAP = Metro2033Map()


cdef class FastMetro2033:
    """One game, as ``RefMetro2033Game(players, cards, strict_counts, round_limit).new_state(seed)``:
    ``legal_actions()``, ``apply(a)``, ``is_terminal()``, ``scores()``, ``returns()``,
    ``current_player``, ``phase``, ``ref_data()`` (the state in the reference's layout, for the
    differential test), ``determinize(player, seed)`` (the reference's, in C), ``reset(seed)`` (a
    new game, the tables kept) and ``random_playout(seed)`` (a whole random game in C)."""
    cdef Data d
    cdef _Tables tab
    cdef readonly object card_set            # cards.py's CardSet the tables were built from
    cdef int round_limit
    cdef int FIXED
    cdef int COMPLETE
    cdef int USE

    def __init__(self, int players=2, cards=None, bint strict_counts=True, int round_limit=40, seed=0):
        if not 2 <= players <= 6:
            raise ValueError(f"players must be 2..6, got {players}")
        if round_limit < 1:
            raise ValueError(f"round_limit must be >= 1, got {round_limit}")
        _check_seed(seed)
        self.card_set = load_card_set(cards, strict_counts=strict_counts)
        self.tab = _Tables(self.card_set)
        if self.tab.t.nheroes < players:
            raise ValueError(f"the card set has {self.tab.t.nheroes} heroes for {players} players")
        self.round_limit = round_limit
        cdef int C = self.tab.t.C
        self.COMPLETE = A_CARD + C
        self.USE = A_CARD + 2 * C
        self.FIXED = A_CARD + 3 * C
        self._new(players, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))

    # ---------------------------------------------------------------- setup
    cdef void _shuffle(self, signed char* a, int n) noexcept nogil:
        cdef int i, j
        cdef signed char x
        for i in range(n - 1, 0, -1):
            j = <int>rng_bounded(&self.d.rng, <uint64_t>(i + 1))
            x = a[i]
            a[i] = a[j]
            a[j] = x

    cdef void _new(self, int n, uint64_t seed) noexcept nogil:
        cdef Tables* t = &self.tab.t
        cdef Data* d = &self.d
        cdef int k, i, c, p, ty
        cdef int kinds[5]
        kinds[0], kinds[1], kinds[2], kinds[3], kinds[4] = T_EQUIPMENT, T_QUEST, T_LAW, T_THREAT, T_THREAT
        memset(d, 0, sizeof(Data))
        d.n = n
        d.rng = seed
        # G5: equipment, quest, law, stage-1 threats, stage-2 threats, each from sorted ids
        for k in range(5):
            ty = kinds[k]
            d.deck_n[k] = 0
            for i in range(t.n_type[ty]):
                c = t.by_type[ty][i]
                if ty != T_THREAT or t.stage[c] == k - 2:
                    d.deck[k][d.deck_n[k]] = c
                    d.deck_n[k] += 1
            self._shuffle(d.deck[k], d.deck_n[k])
        for i in range(4):
            d.market[i] = self._pop(K_EQUIPMENT)
        d.law = -1
        for i in range(S):
            d.owner[i] = -1
        for i in range(MAXC):
            d.known[i] = 0
        for p in range(n):
            d.faction[p] = d.hero[p] = d.hero_at[p] = -1
            d.scouted[p] = -1
            d.decl_station[p] = -1
        d.threat_now = -1
        d.last_threat = -1
        d.winner = -1
        d.stage = 1
        d.phase = P_NONE
        # agenda (a stack: its end is the front)
        self._task(J_ROUND_START, 0, 0, 0)
        for p in range(n - 1, -1, -1):
            self._task(J_PLACE_HERO, p, 0, 0)
        self._task(J_SETUP, 0, 0, 0)
        for p in range(n):
            self._task(J_DRAFT_HERO, p, 0, 0)
        for p in range(n - 1, -1, -1):
            self._task(J_DRAFT_FACTION, p, 0, 0)
        self._advance()

    cdef inline void _task(self, int name, int a, int b, int c) noexcept nogil:
        """Put a task at the front of the agenda (push several in reverse order)."""
        cdef Task* x
        if self.d.ag_n >= MAXT:           # never in a game the loader accepts: end it, write nothing
            self.d.over = True
            return
        x = &self.d.ag[self.d.ag_n]
        x.name = name
        x.a = a
        x.b = b
        x.c = c
        self.d.ag_n += 1

    # ---------------------------------------------------------------- decks
    cdef int _pop(self, int key) noexcept nogil:
        cdef Data* d = &self.d
        cdef int i, c
        if d.deck_n[key] == 0:
            return -1
        c = d.deck[key][0]
        for i in range(d.deck_n[key] - 1):
            d.deck[key][i] = d.deck[key][i + 1]
        d.deck_n[key] -= 1
        d.known[c] = 0
        return c

    cdef int _draw(self, int key) noexcept nogil:
        """G19: the top card; an empty deck takes its discard pile, sorted and shuffled."""
        cdef Data* d = &self.d
        cdef int i
        if d.deck_n[key] == 0 and key != K_LAW and d.disc_n[key] > 0:
            _sort(d.disc[key], d.disc_n[key])
            for i in range(d.disc_n[key]):
                d.deck[key][i] = d.disc[key][i]
            d.deck_n[key] = d.disc_n[key]
            d.disc_n[key] = 0
            self._shuffle(d.deck[key], d.deck_n[key])
        return self._pop(key)

    cdef void _under(self, int key, int c, int mask) noexcept nogil:
        self.d.deck[key][self.d.deck_n[key]] = c
        self.d.deck_n[key] += 1
        if mask:
            self.d.known[c] = mask

    cdef void _on_top(self, int key, int c, int mask) noexcept nogil:
        cdef int i
        for i in range(self.d.deck_n[key], 0, -1):
            self.d.deck[key][i] = self.d.deck[key][i - 1]
        self.d.deck[key][0] = c
        self.d.deck_n[key] += 1
        self.d.known[c] = mask

    cdef void _discard(self, int c) noexcept nogil:
        cdef Tables* t = &self.tab.t
        cdef Data* d = &self.d
        cdef int key
        if t.ctype[c] == T_THREAT:
            if t.stage[c] != d.stage:
                d.out[d.out_n] = c
                d.out_n += 1
                return
            key = K_THREAT1 if t.stage[c] == 1 else K_THREAT2
        else:
            key = K_EQUIPMENT if t.ctype[c] == T_EQUIPMENT else K_QUEST
        d.disc[key][d.disc_n[key]] = c
        d.disc_n[key] += 1

    cdef inline int _tkey(self) noexcept nogil:
        return K_THREAT1 if self.d.stage == 1 else K_THREAT2

    cdef void _refill_market(self) noexcept nogil:
        cdef int i
        for i in range(4):
            if self.d.market[i] < 0:
                self.d.market[i] = self._draw(K_EQUIPMENT)

    # ---------------------------------------------------------------- helpers
    cdef inline int _order(self, int i) noexcept nogil:
        return (self.d.first + i) % self.d.n

    cdef int _stations(self, int p, signed char* out) noexcept nogil:
        cdef int s, k = 0
        for s in range(S):
            if self.d.owner[s] == p:
                if out != NULL:
                    out[k] = s
                k += 1
        return k

    cdef unsigned int _closed(self) noexcept nogil:
        cdef int p
        cdef unsigned int chosen = 0, all_ = 0
        cdef int z
        for p in range(self.d.n):
            if self.d.faction[p] < 0:
                return 0
            chosen |= 1u << self.tab.t.zone[self.d.faction[p]]
        for z in range(6):
            all_ |= 1u << self.tab.t.zone[self.tab.t.factions[z]]
        return all_ & ~chosen

    cdef int _amount_fl(self, int p, int which, int default) noexcept nogil:
        """G35: the largest amount of the faction's and the law's effect (forage 0, upkeep 1)."""
        cdef int best = -1, v, c, i
        for i in range(2):
            c = self.d.faction[p] if i == 0 else self.d.law
            if c >= 0:
                v = self.tab.t.forage[c] if which == 0 else self.tab.t.upkeep_free[c]
                if v > best:
                    best = v
        return best if best >= 0 else default

    cdef int _win_vp(self, int p) noexcept nogil:
        cdef int v = self.tab.t.win_vp[self.d.faction[p]]
        return v if v >= 0 else 10

    cdef inline int _limit(self) noexcept nogil:
        return 2 if self.d.stage == 1 else 3

    cdef int _speed(self, int p) noexcept nogil:
        cdef Tables* t = &self.tab.t
        cdef int h = self.d.hero[p], v, i
        v = t.speed[h] + t.spd[h] + t.spd[self.d.faction[p]]
        if self.d.law >= 0:
            v += t.spd[self.d.law]
        for i in range(self.d.equip_n[p]):
            v += t.spd[self.d.equip[p][i]]
        return v if v > 0 else 0

    cdef int _fl_bonus(self, int p, int who, int when) noexcept nogil:
        cdef int v = self.tab.t.fb[self.d.faction[p]][who][when]
        if self.d.law >= 0:
            v += self.tab.t.fb[self.d.law][who][when]
        return v

    cdef int _army_strength(self, int p, int when) noexcept nogil:
        return self.d.army[p] + self._fl_bonus(p, 0, when)

    cdef int _hero_strength(self, int p, int when, int vs) noexcept nogil:
        cdef Tables* t = &self.tab.t
        cdef int h = self.d.hero[p], v, i
        v = t.strength[h] + t.hb[h][when][vs]
        for i in range(self.d.equip_n[p]):
            v += t.hb[self.d.equip[p][i]][when][vs]
        return v + self._fl_bonus(p, 1, when)

    cdef bint _wins_ties(self, int p, int who, int when) noexcept nogil:
        cdef int bit = (1 if when == 1 else 2) << (2 * who)
        cdef int m = self.tab.t.ties[self.d.faction[p]]
        if self.d.law >= 0:
            m |= self.tab.t.ties[self.d.law]
        if who == 1:
            m |= self.tab.t.ties[self.d.hero[p]]
        return (m & bit) != 0

    cdef inline int _outcome(self, int a, int b, bint at, bint bt) noexcept nogil:
        if a != b:
            return 1 if a > b else -1
        if at != bt:
            return 1 if at else -1
        return 0

    cdef void _gain(self, int p, int c) noexcept nogil:
        cdef int r
        for r in range(3):
            self.d.res[p][r] = min(35, self.d.res[p][r] + self.tab.t.gain[c][r])
        self.d.army[p] = min(8, self.d.army[p] + self.tab.t.gain[c][3])

    cdef void _capture(self, int p, int s) noexcept nogil:
        self.d.owner[s] = p
        self.d.vp[p] += 1

    cdef int _free_options(self, int p, signed char* out) noexcept nogil:
        """G15, G28: the neutral producing stations of p's zone in play, else anywhere in play."""
        cdef unsigned int closed = self._closed()
        cdef int s, k = 0, kz = 0, zone = self.tab.t.zone[self.d.faction[p]]
        cdef signed char allst[78]
        cdef signed char own[78]
        for s in range(S):
            if self.d.owner[s] < 0 and MAP.m.kind[s] < 3 and not (closed & (1u << MAP.m.zone[s])):
                allst[k] = s
                k += 1
                if MAP.m.zone[s] == zone:
                    own[kz] = s
                    kz += 1
        if kz:
            for s in range(kz):
                out[s] = own[s]
            return kz
        for s in range(k):
            out[s] = allst[s]
        return k

    cdef void _lose(self, int p, int s) noexcept nogil:
        """G15: never fewer than 3 stations: left with 2 or fewer (fewer when an earlier loss
        found no free station, G28), p takes a neutral one free."""
        cdef signed char tmp[78]
        self.d.owner[s] = -1
        self.d.vp[p] -= 1
        if self._stations(p, NULL) <= 2 and self._free_options(p, tmp) > 0:
            self._task(J_FREE_STATION, p, 0, 0)

    cdef void _capture_cost(self, int taken, int* cost) noexcept nogil:
        cdef int r
        cost[0] = 0 if taken else 1
        cost[1] = 1
        cost[2] = 0
        if self.d.law >= 0:
            for r in range(3):
                cost[r] += self.tab.t.capture_cost[self.d.law][r]

    cdef void _offer_capture(self, int p, int s, int taken) noexcept nogil:
        cdef int cost[3]
        self._capture_cost(taken, cost)
        if self.d.res[p][0] >= cost[0] and self.d.res[p][1] >= cost[1] and self.d.res[p][2] >= cost[2]:
            self._task(J_CAPTURE, p, s, taken)

    cdef void _wound(self, int p) noexcept nogil:
        """G25: to the first home station still held, else the first station held."""
        cdef int k, h, f = self.d.faction[p]
        cdef signed char held[78]
        cdef int nh = self._stations(p, held)
        for k in range(3):
            h = self.tab.t.home[f][k]
            if self.d.owner[h] == p:
                self.d.hero_at[p] = h
                self.d.wounded[p] = 1
                return
        self.d.hero_at[p] = held[0] if nh else self.tab.t.home[f][0]
        self.d.wounded[p] = 1

    cdef void _gain_equipment(self, int p, int c) noexcept nogil:
        self.d.equip[p][self.d.equip_n[p]] = c
        self.d.equip_n[p] += 1
        _sort(self.d.equip[p], self.d.equip_n[p])
        if self.d.equip_n[p] > self._limit():
            self._task(J_DISCARD_EQ, p, 0, 0)

    cdef bint _quest_ok(self, int p, int c) noexcept nogil:
        cdef Tables* t = &self.tab.t
        cdef int i, k, count = t.cond_count[c], s
        cdef unsigned int zones = 0
        for i in range(self.d.done_n[p]):
            if t.cond[self.d.done[p][i]] == t.cond[c]:
                return False
        k = t.cond_kind[c]
        if k == 0:
            return self._stations(p, NULL) >= count
        if k == 1:
            return self.d.res[p][t.cond_res[c]] >= count
        if k == 2:
            return self.d.army[p] >= count
        if k == 3:
            s = 0
            for i in range(4):
                s += self.d.owner[t.polis[i]] == p
            return s >= count
        if k == 4:
            return self.d.equip_n[p] >= count
        for s in range(S):
            if self.d.owner[s] == p and MAP.m.zone[s] != t.zone[self.d.faction[p]]:
                zones |= 1u << MAP.m.zone[s]
        return _popcount(zones) >= count

    cdef void _set_phase(self, int phase, int p) noexcept nogil:
        self.d.phase = phase
        self.d.decider = p

    # ---------------------------------------------------------------- legal actions
    cdef int _legal(self, int* out) noexcept nogil:
        cdef Data* d = &self.d
        cdef Tables* t = &self.tab.t
        cdef int p = d.decider, ph = d.phase, k = 0, i, j, f, s, z
        cdef unsigned int chosen
        cdef signed char buf[78]
        cdef m33_word reach[2]
        if d.over:
            return 0
        if ph == P_DRAFT_FACTION:
            chosen = 0
            for i in range(d.n):
                if d.faction[i] >= 0:
                    chosen |= 1u << t.zone[d.faction[i]]
            for i in range(6):
                f = t.factions[i]
                if _has(d.faction, d.n, f):
                    continue
                if chosen == 0 or (t.border[t.zone[f]] & chosen):
                    out[k] = A_FACTION + i
                    k += 1
            return k
        if ph == P_DRAFT_HERO:
            for i in range(t.nheroes):
                if not _has(d.hero, d.n, t.heroes[i]):
                    out[k] = A_HERO + i
                    k += 1
            return k
        if ph == P_PLACE_HERO:
            for i in range(3):
                buf[i] = t.home[d.faction[p]][i]
            _sort(buf, 3)
            for i in range(3):
                out[i] = A_STATION + buf[i]
            return 3
        if ph == P_FREE_STATION:
            k = self._free_options(p, buf)
            for i in range(k):
                out[i] = A_STATION + buf[i]
            return k
        if ph == P_POLIS_RES:
            for i in range(3):
                if d.pd_resmask & (1 << i):
                    out[k] = A_RESOURCE + i
                    k += 1
            return k
        if ph == P_LAW_PEEK or ph == P_ARTYOM or ph == P_QUEST_KEEP or ph == P_STAGE2_EQ:
            for i in range(d.pd_ncards):
                out[k] = A_CARD + d.pd_cards[i]
                k += 1
            _isort(out, k)
            return k
        if ph == P_DISCARD_EQ:
            for i in range(d.equip_n[p]):
                out[i] = A_CARD + d.equip[p][i]
            return d.equip_n[p]
        if ph == P_COMBAT_PICK:
            for i in range(d.hand_n[d.pd_side]):
                out[i] = A_CARD + d.hand[d.pd_side][i]
            return d.hand_n[d.pd_side]
        if ph == P_VOTE or ph == P_CAPTURE or ph == P_SCOUT_RETURN or ph == P_LAW_LOOK:
            out[0] = self.FIXED + YES
            out[1] = self.FIXED + NO
            return 2
        if ph == P_UPKEEP:
            f = self._amount_fl(p, 1, 5)
            for i in range(f, min(d.army[p], f + d.res[p][0]) + 1):
                out[k] = A_COUNT + i
                k += 1
            return k
        if ph == P_QUEST_COMPLETE:
            for i in range(d.quest_n[p]):
                if self._quest_ok(p, d.quests[p][i]):
                    out[k] = self.COMPLETE + d.quests[p][i]
                    k += 1
            out[k] = self.FIXED + DONE
            k += 1
            _isort(out, k)
            return k
        if ph == P_DECLARE:
            return self._declare_options(p, out)
        if ph == P_DEFENDER:
            out[0] = self.FIXED + ARMYF
            out[1] = self.FIXED + HEROF
            return 2
        if ph == P_TAKE_EQ or ph == P_STRIP_EQ:
            for i in range(d.equip_n[d.pd_from]):
                out[k] = A_CARD + d.equip[d.pd_from][i]
                k += 1
            if not d.pd_forced:
                out[k] = self.FIXED + NO
                k += 1
            return k
        if ph == P_HIRE:
            for i in range(d.pd_max + 1):
                out[i] = A_COUNT + i
            return d.pd_max + 1
        if ph == P_ARMY:
            # G11, G23: the stations reached, once for the station attacks and the hero attacks
            m33_army_reach_bits(&MAP.m, d.owner, p, self._closed(), reach)
            j = m33_bits_list(reach, buf)
            for i in range(j):
                s = buf[i]
                if d.owner[s] != p and MAP.m.kind[s] != M33_HANSA and MAP.m.kind[s] != M33_ABANDONED:
                    out[k] = A_STATION + s
                    k += 1
            k += self._attackable_heroes(p, reach, out + k)
            for i in range(3):
                out[k] = A_RESOURCE + i
                k += 1
            k += self._quest_actions(p, out + k)
            _isort(out, k)
            return k
        if ph == P_HERO_MOVE:
            k = m33_hero_reach(&MAP.m, d.hero_at[p], min(self._speed(p), 127), self._closed(), buf)
            for i in range(k):
                out[i] = A_STATION + buf[i]
            k += self._quest_actions(p, out + k)
            _isort(out, k)
            return k
        if ph == P_HERO_ACT:
            k = self._hero_actions(p, out)
            _isort(out, k)
            return k
        if ph == P_BUY:
            if d.res[p][2] >= 1 and d.res[p][1] >= 1:
                for i in range(4):
                    if d.market[i] >= 0:
                        out[k] = A_CARD + d.market[i]
                        k += 1
            out[k] = self.FIXED + DONE
            k += 1
            if not d.pd_bought and not d.pd_refreshed and d.res[p][2] >= 1:
                out[k] = self.FIXED + REFRESH
                k += 1
            _isort(out, k)
            return k
        if ph == P_EX_FROM:
            for i in range(3):
                if d.res[p][i] > 0:
                    out[k] = A_RESOURCE + i
                    k += 1
            return k
        if ph == P_EX_TO:
            for i in range(3):
                if i != d.pd_from:
                    out[k] = A_RESOURCE + i
                    k += 1
            return k
        if ph == P_EX_AMOUNT:
            for i in range(1, d.res[p][d.pd_from] + 1):
                out[k] = A_COUNT + i
                k += 1
            return k
        return 0

    cdef int _declare_options(self, int p, int* out) noexcept nogil:
        cdef int k = 0, s
        for s in range(S):
            if self.d.owner[s] == p:
                out[k] = A_STATION + s
                k += 1
        s = self.d.hero_at[p]
        if s >= 0 and self.d.owner[s] == p and not self.d.wounded[p]:
            out[k] = A_STATION_HERO + s
            k += 1
        return k

    cdef int _attackable_heroes(self, int p, const m33_word* reach, int* out) noexcept nogil:
        """G11 (by army, `reach` the stations its army reaches, m33_army_reach_bits: on one of p's
        stations or one the army reaches, through neutral Polis and Hansa stations as for a
        station attack, G23) and G12 (by hero, `reach` NULL: on the same station): enemy heroes
        not on a Hansa station nor on a station of their own."""
        cdef int q, at, k = 0
        cdef bint near
        for q in range(self.d.n):
            at = self.d.hero_at[q]
            if q == p or at < 0 or MAP.m.kind[at] == M33_HANSA or self.d.owner[at] == q:
                continue
            if reach != NULL:
                near = self.d.owner[at] == p or ((reach[at >> 6] >> (at & 63)) & 1) != 0
            else:
                near = self.d.hero_at[p] == at and not (self.d.law >= 0 and self.tab.t.no_hero_fights[self.d.law])
            if near:
                out[k] = A_PLAYER + q
                k += 1
        return k

    cdef int _quest_actions(self, int p, int* out) noexcept nogil:
        cdef int k = 0, i, c
        for i in range(self.d.quest_n[p]):
            c = self.d.quests[p][i]
            if self._quest_ok(p, c):
                out[k] = self.COMPLETE + c
                k += 1
            out[k] = self.USE + c
            k += 1
        if self.d.res[p][2] >= 1:
            for i in range(self.d.done_n[p]):
                c = self.d.done[p][i]
                if not _has(self.d.used[p], self.d.used_n[p], c):
                    out[k] = self.USE + c
                    k += 1
        return k

    cdef int _hero_actions(self, int p, int* out) noexcept nogil:
        cdef Data* d = &self.d
        cdef int k = 0, at = d.hero_at[p], key = self._tkey()
        out[k] = self.FIXED + PASS
        k += 1
        if MAP.m.kind[at] == M33_HANSA:
            if d.res[p][2] >= 1:
                out[k] = self.FIXED + BUY
                k += 1
            if d.res[p][2] >= 1 and d.res[p][1] >= 1 and (d.deck_n[K_QUEST] or d.disc_n[K_QUEST]):
                out[k] = self.FIXED + QUEST
                k += 1
            if d.res[p][0] + d.res[p][1] + d.res[p][2] > 0:
                out[k] = self.FIXED + EXCHANGE
                k += 1
        elif d.owner[at] < 0:
            if d.scouted[p] < 0 and (d.deck_n[key] or d.disc_n[key]):
                out[k] = self.FIXED + SCOUT
                k += 1
        if MAP.m.kind[at] != M33_HANSA and MAP.m.kind[at] != M33_ABANDONED and d.owner[at] != p:
            out[k] = self.FIXED + ATTACK
            k += 1
        k += self._attackable_heroes(p, NULL, out + k)
        return k

    # ---------------------------------------------------------------- applying
    cdef void _do(self, int a) noexcept nogil:
        cdef Data* d = &self.d
        cdef Tables* t = &self.tab.t
        cdef int p = d.decider, ph = d.phase, c, other, i, r, q, k
        cdef int cost[3]
        d.phase = P_NONE
        if ph == P_DRAFT_FACTION:
            d.faction[p] = t.factions[a - A_FACTION]
        elif ph == P_DRAFT_HERO:
            d.hero[p] = t.heroes[a - A_HERO]
        elif ph == P_PLACE_HERO:
            d.hero_at[p] = a - A_STATION
        elif ph == P_POLIS_RES:
            r = a - A_RESOURCE
            d.res[p][r] = min(35, d.res[p][r] + d.pd_amount)
        elif ph == P_LAW_LOOK:
            if a == self.FIXED + YES:
                c = self._draw(K_LAW)
                other = self._draw(K_LAW)
                self._pending_cards(c, other)
                self._set_phase(P_LAW_PEEK, p)
            else:
                self._start_vote(self._draw(K_LAW))
        elif ph == P_UPKEEP:
            self._keep(p, a - A_COUNT)
            self._hire(p)
        elif ph == P_QUEST_COMPLETE:
            if a != self.FIXED + DONE:
                self._quest_do(p, a)
                self._task(J_QUEST_OFFER, p, 0, 0)
        elif ph == P_LAW_PEEK:
            c = a - A_CARD
            other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
            self._under(K_LAW, other, 1 << p)
            self._start_vote(c)
        elif ph == P_VOTE:
            if a == self.FIXED + YES:
                d.vote_for += d.pd_votes
            else:
                d.vote_against += d.pd_votes
        elif ph == P_DECLARE:
            d.decl_station[p] = a % S
            d.decl_hero[p] = a >= A_STATION_HERO
        elif ph == P_SCOUT_RETURN:
            if a == self.FIXED + YES:
                c = d.scouted[p]
                d.scouted[p] = -1
                self._on_top(self._tkey(), c, 1 << p)
        elif ph == P_ARTYOM:
            c = a - A_CARD
            other = d.pd_cards[1] if d.pd_cards[0] == c else d.pd_cards[0]
            self._under(self._tkey(), other, 1 << p)
            self._fight_threat(p, d.pd_who, d.pd_station, c)
        elif ph == P_CAPTURE:
            if a == self.FIXED + YES:
                self._capture_cost(d.pd_taken, cost)
                for r in range(3):
                    d.res[p][r] -= cost[r]
                self._capture(p, d.pd_station)
        elif ph == P_FREE_STATION:
            self._capture(p, a - A_STATION)
        elif ph == P_DEFENDER:
            d.cx_who[1] = 1 if a == self.FIXED + HEROF else 0
            self._task(J_COMBAT_DEAL, 0, 0, 0)
        elif ph == P_COMBAT_PICK:
            c = a - A_CARD
            _remove(d.hand[d.pd_side], &d.hand_n[d.pd_side], c)
            d.pick[d.pd_side] = c
        elif ph == P_TAKE_EQ or ph == P_STRIP_EQ or ph == P_DISCARD_EQ:
            if a != self.FIXED + NO:
                c = a - A_CARD
                q = d.pd_from
                _remove(d.equip[q], &d.equip_n[q], c)
                if ph == P_TAKE_EQ:
                    self._gain_equipment(p, c)
                else:
                    self._discard(c)
                if ph == P_DISCARD_EQ:
                    self._task(J_DISCARD_EQ, q, 0, 0)
        elif ph == P_HIRE:
            k = a - A_COUNT
            d.res[p][0] -= k
            d.res[p][2] -= k
            d.army[p] += k
        elif ph == P_ARMY:
            self._army_do(p, a)
        elif ph == P_HERO_MOVE:
            if a >= self.COMPLETE:
                self._quest_do(p, a)
                self._task(J_HERO, p, 0, 0)
            else:
                d.hero_at[p] = a - A_STATION
                self._task(J_HERO_ACT, p, 0, 0)
        elif ph == P_HERO_ACT:
            self._hero_do(p, a)
        elif ph == P_BUY:
            if a == self.FIXED + REFRESH:
                d.res[p][2] -= 1
                for i in range(4):
                    if d.market[i] >= 0:
                        self._discard(d.market[i])
                        d.market[i] = -1
                self._refill_market()
                self._task(J_BUY, p, 0, 1)
            elif a != self.FIXED + DONE:
                c = a - A_CARD
                d.res[p][2] -= 1
                d.res[p][1] -= 1
                for i in range(4):
                    if d.market[i] == c:
                        d.market[i] = -1
                self._refill_market()
                self._task(J_BUY, p, 1, d.pd_refreshed)
                self._gain_equipment(p, c)
        elif ph == P_QUEST_KEEP:
            c = a - A_CARD
            d.quests[p][d.quest_n[p]] = c
            d.quest_n[p] += 1
            _sort(d.quests[p], d.quest_n[p])
            for i in range(d.pd_ncards):
                if d.pd_cards[i] != c:
                    self._discard(d.pd_cards[i])
        elif ph == P_EX_FROM:
            self._task(J_EX_TO, p, a - A_RESOURCE, 0)
        elif ph == P_EX_TO:
            self._task(J_EX_AMOUNT, p, d.pd_from, a - A_RESOURCE)
        elif ph == P_EX_AMOUNT:
            k = a - A_COUNT
            d.res[p][d.pd_from] -= k
            d.res[p][d.pd_to] = min(35, d.res[p][d.pd_to] + k)
        elif ph == P_STAGE2_EQ:
            c = a - A_CARD
            for i in range(d.pd_ncards):
                if d.pd_cards[i] != c:
                    self._discard(d.pd_cards[i])
            self._gain_equipment(p, c)

    cdef void _quest_do(self, int p, int a) noexcept nogil:
        cdef Data* d = &self.d
        cdef int c
        if a < self.USE:
            c = a - self.COMPLETE
            _remove(d.quests[p], &d.quest_n[p], c)
            d.done[p][d.done_n[p]] = c
            d.done_n[p] += 1
            d.vp[p] += 1
        else:
            c = a - self.USE
            if _has(d.quests[p], d.quest_n[p], c):
                _remove(d.quests[p], &d.quest_n[p], c)
                self._discard(c)
            else:
                d.res[p][2] -= 1
                d.used[p][d.used_n[p]] = c
                d.used_n[p] += 1
            self._gain(p, c)

    cdef void _army_do(self, int p, int a) noexcept nogil:
        cdef Data* d = &self.d
        cdef int r, q
        if a >= self.COMPLETE:
            self._quest_do(p, a)
            self._task(J_ARMY, p, 0, 0)
        elif a >= A_RESOURCE:
            r = a - A_RESOURCE
            d.res[p][r] = min(35, d.res[p][r] + self._amount_fl(p, 0, 1))
        elif a >= A_PLAYER:
            q = a - A_PLAYER
            self._start_combat(1, p, 0, q, 1, d.hero_at[q])
            self._task(J_COMBAT_DEAL, 0, 0, 0)
        else:
            self._attack_station(p, 0, a - A_STATION)

    cdef void _start_combat(self, int kind, int att, int att_who, int q, int def_who, int s) noexcept nogil:
        self.d.cx_kind = kind
        self.d.cx_side[0] = att
        self.d.cx_side[1] = q
        self.d.cx_who[0] = att_who
        self.d.cx_who[1] = def_who
        self.d.cx_station = s

    cdef void _hero_do(self, int p, int a) noexcept nogil:
        cdef Data* d = &self.d
        cdef int x, y, q
        if a == self.FIXED + PASS:
            return
        if a == self.FIXED + BUY:
            self._task(J_BUY, p, 0, 0)
        elif a == self.FIXED + QUEST:
            d.res[p][2] -= 1
            d.res[p][1] -= 1
            x = self._draw(K_QUEST)
            y = self._draw(K_QUEST)
            self._pending_cards(x, y)
            self._set_phase(P_QUEST_KEEP, p)
        elif a == self.FIXED + EXCHANGE:
            self._task(J_EX_FROM, p, 0, 0)
        elif a == self.FIXED + SCOUT:
            d.scouted[p] = self._draw(self._tkey())
            d.scouted_round[p] = d.round
        elif a == self.FIXED + ATTACK:
            self._attack_station(p, 1, d.hero_at[p])
        else:
            q = a - A_PLAYER
            self._start_combat(1, p, 1, q, 1, d.hero_at[q])
            self._task(J_COMBAT_DEAL, 0, 0, 0)

    cdef void _pending_cards(self, int x, int y) noexcept nogil:
        """The non-missing of two drawn cards, ascending, as the pending choice."""
        cdef Data* d = &self.d
        d.pd_ncards = 0
        if x >= 0:
            d.pd_cards[d.pd_ncards] = x
            d.pd_ncards += 1
        if y >= 0:
            d.pd_cards[d.pd_ncards] = y
            d.pd_ncards += 1
        if d.pd_ncards == 2 and d.pd_cards[0] > d.pd_cards[1]:
            d.pd_cards[0] = y
            d.pd_cards[1] = x

    cdef void _attack_station(self, int p, int who, int s) noexcept nogil:
        cdef Data* d = &self.d
        cdef int q = d.owner[s], mine, res
        if q >= 0:
            self._start_combat(0, p, who, q, 0, s)
            if d.hero_at[q] == s and not d.wounded[q]:
                self._task(J_DEFENDER, q, 0, 0)
            else:
                self._task(J_COMBAT_DEAL, 0, 0, 0)
        elif MAP.m.kind[s] == M33_POLIS:
            mine = self._army_strength(p, 1) if who == 0 else self._hero_strength(p, 1, 0)
            res = self._outcome(mine, 7, self._wins_ties(p, who, 1), False)
            self._after_neutral(p, who, s, res, -1)
        else:
            self._task(J_NEUTRAL_ATTACK, p, who, s)

    cdef void _fight_threat(self, int p, int who, int s, int c) noexcept nogil:
        cdef int mine, res
        if c < 0:
            self._after_neutral(p, who, s, 1, -1)
            return
        mine = self._army_strength(p, 1) if who == 0 else self._hero_strength(p, 1, 1 + self.tab.t.ttype[c])
        res = self._outcome(mine, self.tab.t.strength[c], self._wins_ties(p, who, 1), False)
        self._discard(c)
        self._after_neutral(p, who, s, res, c)

    cdef void _after_neutral(self, int p, int who, int s, int res, int c) noexcept nogil:
        if res > 0:
            if c >= 0:
                self._gain(p, c)
            self._offer_capture(p, s, 0)
        elif res < 0:
            if who == 0:
                self.d.army[p] = max(1, self.d.army[p] - 1)
            else:
                self._wound(p)

    cdef void _resolve_combat(self) noexcept nogil:
        cdef Data* d = &self.d
        cdef Tables* t = &self.tab.t
        cdef int att = d.cx_side[0], q = d.cx_side[1], ca = d.pick[0], cd = d.pick[1]
        cdef int a, b, res, s = d.cx_station, winner, loser, wwho, lwho
        a = (self._army_strength(att, 1) if d.cx_who[0] == 0 else self._hero_strength(att, 1, 0)) \
            + t.cb[ca][1 + t.ctyp[cd]]
        b = (self._army_strength(q, 2) if d.cx_who[1] == 0 else self._hero_strength(q, 2, 0)) \
            + t.cb[cd][1 + t.ctyp[ca]]
        res = self._outcome(a, b, self._wins_ties(att, d.cx_who[0], 1), self._wins_ties(q, d.cx_who[1], 2))
        d.combat_on = False
        d.hand_n[0] = d.hand_n[1] = d.aside_n = 0
        d.pick[0] = d.pick[1] = -1
        if res == 0:
            return
        winner = att if res > 0 else q
        loser = q if res > 0 else att
        wwho = d.cx_who[0] if res > 0 else d.cx_who[1]
        lwho = d.cx_who[1] if res > 0 else d.cx_who[0]
        if d.cx_kind == 0:
            if res > 0:
                self._lose(q, s)
                if d.cx_who[1] == 1:
                    self._wound(q)
                self._offer_capture(att, s, 1)
            elif d.cx_who[0] == 0:
                d.army[att] = max(1, d.army[att] - 1)
            else:
                self._wound(att)
                if d.equip_n[att]:
                    self._task(J_STRIP_EQ, q, att, 1)
            return
        if wwho == 1 and lwho == 1:
            self._wound(loser)
            if d.equip_n[loser]:
                self._task(J_TAKE_EQ, winner, loser, 0)
        elif res > 0:
            self._wound(q)
            if d.equip_n[q]:
                self._task(J_STRIP_EQ, att, q, 0)
        elif d.cx_who[0] == 0:
            d.army[att] = max(1, d.army[att] - 1)

    # ---------------------------------------------------------------- the agenda
    cdef void _advance(self) noexcept nogil:
        cdef Task x
        while self.d.phase == P_NONE:
            if self.d.ag_n <= 0 or self.d.over:   # never in a game the loader accepts: end it
                self.d.over = True
                self.d.phase = P_OVER
                self.d.decider = -1
                return
            self.d.ag_n -= 1
            x = self.d.ag[self.d.ag_n]
            self._run(x.name, x.a, x.b, x.c)
            if self.d.over:
                self.d.phase = P_OVER
                self.d.decider = -1
                return

    cdef void _start_vote(self, int c) noexcept nogil:
        cdef int i
        self.d.vote_on = True
        self.d.vote_law = c
        self.d.vote_for = self.d.vote_against = 0
        self._task(J_LAW_RESULT, 0, 0, 0)
        for i in range(self.d.n - 1, -1, -1):
            self._task(J_VOTE, self._order(i), 0, 0)

    cdef void _run(self, int name, int a, int b, int c) noexcept nogil:
        cdef Data* d = &self.d
        cdef Tables* t = &self.tab.t
        cdef int p, i, k, s, x, y, ev, key, r, keep, free, nst
        cdef signed char ids[MAXC]
        cdef signed char st[78]
        cdef int tmp[8]
        if name == J_DRAFT_FACTION:
            self._set_phase(P_DRAFT_FACTION, a)
        elif name == J_DRAFT_HERO:
            self._set_phase(P_DRAFT_HERO, a)
        elif name == J_SETUP:
            for p in range(d.n):
                for i in range(3):
                    d.owner[t.home[d.faction[p]][i]] = p
                d.vp[p] = 3
                d.army[p] = 2
                self._gain(p, d.faction[p])
        elif name == J_PLACE_HERO:
            self._set_phase(P_PLACE_HERO, a)
        elif name == J_ROUND_START:
            d.round += 1
            ev = TRACK[0] if d.round == 1 else TRACK[1 + (d.round - 2) % 9]
            # pushed in reverse: end_round, heroes, armies, mobilisation, produce, the events
            # (G29: a quest check after each army and hero action, and after the events)
            self._task(J_END_ROUND, 0, 0, 0)
            for i in range(d.n - 1, -1, -1):
                self._task(J_QUEST_CHECK, 0, 0, 0)
                self._task(J_HERO, self._order(i), 0, 0)
            for i in range(d.n - 1, -1, -1):
                self._task(J_QUEST_CHECK, 0, 0, 0)
                self._task(J_ARMY, self._order(i), 0, 0)
            for i in range(d.n - 1, -1, -1):
                self._task(J_MOBILISE, self._order(i), 0, 0)
            self._task(J_QUEST_CHECK, 0, 0, 0)
            if ev & 7:
                self._task(J_PRODUCE, ev & 7, 2 if d.round == 1 else 1, 0)
            if ev & 16:
                self._task(J_THREAT_REVEAL, 0, 0, 0)
                for i in range(d.n - 1, -1, -1):
                    self._task(J_DECLARE, self._order(i), 0, 0)
            if ev & 8:
                self._task(J_LAW_EVENT, 0, 0, 0)
        elif name == J_PRODUCE:
            k = 0
            for i in range(d.n):
                p = self._order(i)
                for s in range(S):
                    if d.owner[s] != p:
                        continue
                    if MAP.m.kind[s] < 3 and (a & (1 << MAP.m.kind[s])):
                        d.res[p][MAP.m.kind[s]] = min(35, d.res[p][MAP.m.kind[s]] + b)
                    elif MAP.m.kind[s] == M33_POLIS:
                        tmp[k] = p
                        k += 1
            for i in range(k - 1, -1, -1):
                self._task(J_POLIS_RES, tmp[i], a, b)
        elif name == J_POLIS_RES:
            self._set_phase(P_POLIS_RES, a)
            d.pd_resmask = b
            d.pd_amount = c
        elif name == J_LAW_EVENT:
            if d.deck_n[K_LAW] == 0:
                return
            p = -1
            for i in range(d.n):
                if t.peek[d.faction[self._order(i)]]:
                    p = self._order(i)
                    break
            if p >= 0 and d.deck_n[K_LAW] >= 2:
                self._set_phase(P_LAW_LOOK, p)      # G31: the Confederation "may" look
                return
            self._start_vote(self._draw(K_LAW))
        elif name == J_VOTE:
            self._set_phase(P_VOTE, a)
            d.pd_votes = self._stations(a, NULL) + t.votes[d.faction[a]]
        elif name == J_LAW_RESULT:
            d.vote_on = False
            d.last_vote_on = True
            d.last_vote[0] = d.vote_law
            d.last_vote[1] = d.vote_for
            d.last_vote[2] = d.vote_against
            if d.vote_for > d.vote_against:
                if d.law >= 0:
                    self._under(K_LAW, d.law, (1 << d.n) - 1)
                d.law = d.vote_law
            else:
                self._under(K_LAW, d.vote_law, (1 << d.n) - 1)
        elif name == J_DECLARE:
            self._set_phase(P_DECLARE, a)
        elif name == J_THREAT_REVEAL:
            x = self._draw(self._tkey())
            d.threat_now = x
            if x < 0:
                for p in range(d.n):
                    d.decl_station[p] = -1
                return
            self._task(J_THREAT_DONE, 0, 0, 0)
            for i in range(d.n - 1, -1, -1):
                self._task(J_THREAT_FIGHT, self._order(i), 0, 0)
        elif name == J_THREAT_FIGHT:
            self._threat_fight(a)
        elif name == J_THREAT_DONE:
            self._discard(d.threat_now)
            d.last_threat = d.threat_now
            d.threat_now = -1
            for p in range(d.n):
                d.decl_station[p] = -1
        elif name == J_MOBILISE:
            p = a
            free = self._amount_fl(p, 1, 5)
            if d.army[p] > free:
                keep = min(d.army[p], free + d.res[p][0])
                if keep > free:                     # G33: the strength kept is p's decision
                    self._set_phase(P_UPKEEP, p)
                    return
                self._keep(p, keep)
            self._hire(p)
        elif name == J_QUEST_CHECK:
            for i in range(d.n - 1, -1, -1):
                self._task(J_QUEST_OFFER, self._order(i), 0, 0)
        elif name == J_QUEST_OFFER:
            for i in range(d.quest_n[a]):
                if self._quest_ok(a, d.quests[a][i]):
                    self._set_phase(P_QUEST_COMPLETE, a)
                    break
        elif name == J_ARMY:
            self._set_phase(P_ARMY, a)
        elif name == J_HERO:
            if d.wounded[a]:
                d.wounded[a] = 0
            else:
                self._set_phase(P_HERO_MOVE, a)
        elif name == J_HERO_ACT:
            self._set_phase(P_HERO_ACT, a)
        elif name == J_NEUTRAL_ATTACK:
            if d.scouted[a] >= 0 and d.scouted_round[a] < d.round:
                self._set_phase(P_SCOUT_RETURN, a)
                self._task(J_NEUTRAL_FIGHT, a, b, c)
            else:
                self._run(J_NEUTRAL_FIGHT, a, b, c)
        elif name == J_NEUTRAL_FIGHT:
            key = self._tkey()
            if b == 1 and t.threat_choice[d.hero[a]]:
                x = self._draw(key)
                y = self._draw(key)
                self._pending_cards(x, y)
                if d.pd_ncards == 2:
                    self._set_phase(P_ARTYOM, a)
                    d.pd_who = b
                    d.pd_station = c
                    return
                self._fight_threat(a, b, c, d.pd_cards[0] if d.pd_ncards else -1)
            else:
                self._fight_threat(a, b, c, self._draw(key))
        elif name == J_CAPTURE:
            self._set_phase(P_CAPTURE, a)
            d.pd_station = b
            d.pd_taken = c
        elif name == J_FREE_STATION:
            if self._stations(a, NULL) <= 2 and self._free_options(a, st) > 0:
                self._set_phase(P_FREE_STATION, a)
        elif name == J_DEFENDER:
            self._set_phase(P_DEFENDER, a)
        elif name == J_COMBAT_DEAL:
            k = t.n_type[T_COMBAT]
            for i in range(k):
                ids[i] = t.by_type[T_COMBAT][i]
            self._shuffle(ids, k)
            d.combat_on = True
            for i in range(3):
                d.hand[0][i] = ids[i]
                d.hand[1][i] = ids[3 + i]
            d.hand_n[0] = d.hand_n[1] = 3
            _sort(d.hand[0], 3)
            _sort(d.hand[1], 3)
            d.aside_n = k - 6
            for i in range(k - 6):
                d.aside[i] = ids[6 + i]
            d.pick[0] = d.pick[1] = -1
            self._task(J_COMBAT_RESOLVE, 0, 0, 0)
            self._task(J_COMBAT_PICK, 1, 0, 0)
            self._task(J_COMBAT_PICK, 0, 0, 0)
        elif name == J_COMBAT_PICK:
            self._set_phase(P_COMBAT_PICK, d.cx_side[a])
            d.pd_side = a
        elif name == J_COMBAT_RESOLVE:
            self._resolve_combat()
        elif name == J_TAKE_EQ or name == J_STRIP_EQ:
            if d.equip_n[b]:
                self._set_phase(P_TAKE_EQ if name == J_TAKE_EQ else P_STRIP_EQ, a)
                d.pd_from = b
                d.pd_forced = name == J_STRIP_EQ and c != 0
        elif name == J_DISCARD_EQ:
            if d.equip_n[a] > self._limit():
                self._set_phase(P_DISCARD_EQ, a)
                d.pd_from = a
        elif name == J_BUY:
            self._set_phase(P_BUY, a)
            d.pd_bought = b
            d.pd_refreshed = c
        elif name == J_EX_FROM:
            self._set_phase(P_EX_FROM, a)
        elif name == J_EX_TO:
            self._set_phase(P_EX_TO, a)
            d.pd_from = b
        elif name == J_EX_AMOUNT:
            self._set_phase(P_EX_AMOUNT, a)
            d.pd_from = b
            d.pd_to = c
        elif name == J_STAGE2_EQ:
            x = self._draw(K_EQUIPMENT)
            y = self._draw(K_EQUIPMENT)
            self._pending_cards(x, y)
            if d.pd_ncards:
                self._set_phase(P_STAGE2_EQ, a)
        elif name == J_END_ROUND:
            self._end_round()

    cdef void _keep(self, int p, int keep) noexcept nogil:
        """G10, G33: keep `keep` points of strength, a pig for each above the free strength."""
        self.d.res[p][0] -= max(0, keep - self._amount_fl(p, 1, 5))
        self.d.army[p] = keep

    cdef void _hire(self, int p) noexcept nogil:
        cdef Data* d = &self.d
        cdef int k = min(d.res[p][0], min(d.res[p][2], 8 - d.army[p]))
        if k > 0:
            self._set_phase(P_HIRE, p)
            d.pd_max = k

    cdef void _threat_fight(self, int p) noexcept nogil:
        cdef Data* d = &self.d
        cdef int s = d.decl_station[p], who = d.decl_hero[p], mine, res, c = d.threat_now
        if d.owner[s] != p:
            return
        if who == 1 and (d.hero_at[p] != s or d.wounded[p]):
            who = 0
        mine = self._army_strength(p, 2) if who == 0 else self._hero_strength(p, 2, 1 + self.tab.t.ttype[c])
        res = self._outcome(mine, self.tab.t.strength[c], self._wins_ties(p, who, 2), False)
        if res > 0:
            self._gain(p, c)
        elif res < 0:
            self._lose(p, s)

    cdef void _end_round(self) noexcept nogil:
        cdef Data* d = &self.d
        cdef Tables* t = &self.tab.t
        cdef int i, p, k, c, best
        for i in range(d.n):
            p = self._order(i)
            k = 0
            for c in range(4):
                k += d.owner[t.polis[c]] == p
            if d.vp[p] >= self._win_vp(p) or k == 4:
                d.winner = p
                d.over = True
                return
        if d.round >= self.round_limit:
            d.over = True
            return
        for p in range(d.n):
            if d.scouted[p] >= 0 and d.scouted_round[p] < d.round:
                c = d.scouted[p]
                d.scouted[p] = -1
                self._under(self._tkey(), c, 1 << p)
            d.used_n[p] = 0
        d.first = (d.first + 1) % d.n
        self._task(J_ROUND_START, 0, 0, 0)
        best = d.vp[0]
        for p in range(d.n):
            best = max(best, d.vp[p])
        if d.stage == 1 and best >= 6:
            d.stage = 2
            for i in range(d.deck_n[K_THREAT1]):
                c = d.deck[K_THREAT1][i]
                d.known[c] = 0
                d.out[d.out_n] = c
                d.out_n += 1
            for i in range(d.disc_n[K_THREAT1]):
                c = d.disc[K_THREAT1][i]
                d.known[c] = 0
                d.out[d.out_n] = c
                d.out_n += 1
            d.deck_n[K_THREAT1] = d.disc_n[K_THREAT1] = 0
            for p in range(d.n):
                if d.scouted[p] >= 0 and t.stage[d.scouted[p]] == 1:
                    d.out[d.out_n] = d.scouted[p]
                    d.out_n += 1
                    d.scouted[p] = -1
            for i in range(d.n - 1, -1, -1):
                self._task(J_STAGE2_EQ, self._order(i), 0, 0)

    # ---------------------------------------------------------------- Python face
    @property
    def current_player(self):
        return -1 if self.d.over else self.d.decider

    @property
    def phase(self):
        return PHASES[self.d.phase]

    def is_terminal(self):
        return bool(self.d.over)

    def legal_actions(self):
        cdef int buf[MAX_LEGAL]
        cdef int k = self._legal(buf)
        return [buf[i] for i in range(k)]

    def apply(self, action):
        cdef int buf[MAX_LEGAL]
        cdef int k = self._legal(buf), i
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an int, got {action!r}")
        for i in range(k):
            if buf[i] == action:
                self._do(action)
                self._advance()
                return
        raise ValueError(f"illegal action {action} in phase {PHASES[self.d.phase]!r} for player {self.d.decider}")

    def scores(self):
        return [self.d.vp[p] for p in range(self.d.n)]

    def returns(self):
        n = self.d.n
        if not self.d.over:
            return [0.0] * n
        key = [(p == self.d.winner, self.d.vp[p]) for p in range(n)]
        return [(sum(key[q] < key[p] for q in range(n))
                 + 0.5 * sum(key[q] == key[p] for q in range(n) if q != p)) / (n - 1) for p in range(n)]

    # ---------------------------------------------------------------- determinisation
    cdef FastMetro2033 _copy(self):
        cdef FastMetro2033 o = FastMetro2033.__new__(FastMetro2033)
        o.d = self.d
        o.tab = self.tab
        o.round_limit = self.round_limit
        o.FIXED, o.COMPLETE, o.USE = self.FIXED, self.COMPLETE, self.USE
        return o

    cdef int _gather(self, int pool, int player, signed char** pos) noexcept nogil:
        """The places of `pool` (a deck key, or 5: the combat cards) whose card `player` cannot
        see, in the reference's order: deck places not known to them, the others' quests and
        scouted threats, cards another player is choosing among, then the combat cards aside and
        the other sides' hands and picks."""
        cdef Data* d = &self.d
        cdef int k = 0, i, q, key, side
        if pool < 5:
            for i in range(d.deck_n[pool]):
                if not (d.known[d.deck[pool][i]] >> player) & 1:
                    pos[k] = &d.deck[pool][i]
                    k += 1
            for q in range(d.n):
                if q == player:
                    continue
                if pool == K_QUEST:
                    for i in range(d.quest_n[q]):
                        pos[k] = &d.quests[q][i]
                        k += 1
                if d.scouted[q] >= 0 and pool == K_THREAT1 + self.tab.t.stage[d.scouted[q]] - 1:
                    pos[k] = &d.scouted[q]
                    k += 1
            if d.decider != player and (d.phase == P_LAW_PEEK or d.phase == P_ARTYOM
                                        or d.phase == P_QUEST_KEEP or d.phase == P_STAGE2_EQ):
                key = (K_LAW if d.phase == P_LAW_PEEK else self._tkey() if d.phase == P_ARTYOM
                       else K_QUEST if d.phase == P_QUEST_KEEP else K_EQUIPMENT)
                if key == pool:
                    for i in range(d.pd_ncards):
                        pos[k] = &d.pd_cards[i]
                        k += 1
            return k
        if not d.combat_on:
            return 0
        for i in range(d.aside_n):
            pos[k] = &d.aside[i]
            k += 1
        for side in range(2):
            if d.cx_side[side] != player:
                for i in range(d.hand_n[side]):
                    pos[k] = &d.hand[side][i]
                    k += 1
                if d.pick[side] >= 0:
                    pos[k] = &d.pick[side]
                    k += 1
        return k

    cdef void _determinize(self, int player, uint64_t seed) noexcept nogil:
        """The reference's ``determinize``: each pool's hidden cards sorted, shuffled and dealt
        back in place order (deck knowledge staying with the place), then the undisclosed threat
        declarations of the others redrawn (G32); the generator is the one drawn from `seed`."""
        cdef Data* d = &self.d
        cdef rng_t r = seed
        cdef signed char* pos[MAXC]
        cdef signed char cards[MAXC]
        cdef signed char km[MAXC]
        cdef int opts[80]
        cdef int pool, k, i, j, q, m
        cdef signed char x
        for pool in range(6):
            k = self._gather(pool, player, pos)
            for i in range(k):
                cards[i] = pos[i][0]
                km[i] = d.known[cards[i]]
                d.known[cards[i]] = 0
            _sort(cards, k)
            for i in range(k - 1, 0, -1):
                j = <int>rng_bounded(&r, <uint64_t>(i + 1))
                x = cards[i]
                cards[i] = cards[j]
                cards[j] = x
            for i in range(k):
                pos[i][0] = cards[i]
                if km[i]:
                    d.known[cards[i]] = km[i]
        for q in range(d.n):
            _sort(d.quests[q], d.quest_n[q])
        if d.phase == P_LAW_PEEK or d.phase == P_ARTYOM or d.phase == P_QUEST_KEEP or d.phase == P_STAGE2_EQ:
            _sort(d.pd_cards, d.pd_ncards)          # the cards chosen among, ascending as dealt
        if d.combat_on:
            _sort(d.hand[0], d.hand_n[0])
            _sort(d.hand[1], d.hand_n[1])
        if d.threat_now < 0:
            for i in range(d.n):
                q = self._order(i)
                if q != player and d.decl_station[q] >= 0:
                    m = self._declare_options(q, opts)
                    j = opts[rng_bounded(&r, <uint64_t>m)]
                    d.decl_station[q] = j % S
                    d.decl_hero[q] = j >= A_STATION_HERO
        d.rng = r

    def determinize(self, int player, seed):
        """A new engine holding the reference's ``determinize(player, seed)`` of this state."""
        if not 0 <= player < self.d.n:
            raise ValueError(f"player must be 0..{self.d.n - 1}, got {player}")
        _check_seed(seed)
        cdef FastMetro2033 o = self._copy()
        o._determinize(player, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        return o

    def reset(self, seed):
        """Start a new game from `seed` with the same players, cards and round limit (the card
        tables are kept)."""
        _check_seed(seed)
        self._new(self.d.n, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))

    def random_playout(self, seed):
        """Play uniformly random legal actions to the end, in C (splitmix64 from `seed`);
        returns the number of actions."""
        cdef rng_t r = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
        cdef int buf[MAX_LEGAL]
        cdef int k, steps = 0
        while not self.d.over:
            k = self._legal(buf)
            self._do(buf[rng_bounded(&r, <uint64_t>k)])
            self._advance()
            steps += 1
        return steps

    def ref_data(self):
        """The state in the reference engine's layout (``RefMetro2033State._data()``), for the
        fields both engines keep alike."""
        cdef Data* d = &self.d
        n = d.n
        keys = ("equipment", "quest", "law", "threat1", "threat2")

        def opt(v):
            return None if v < 0 else v
        return {
            "rng_state": d.rng,
            "decks": {keys[k]: [d.deck[k][i] for i in range(d.deck_n[k])] for k in range(5)},
            "known": {str(c): [p for p in range(n) if d.known[c] >> p & 1] for c in range(self.tab.t.C) if d.known[c]},
            "discards": {keys[k]: [d.disc[k][i] for i in range(d.disc_n[k])] for k in (0, 1, 3, 4)},
            "out": [d.out[i] for i in range(d.out_n)],
            "market": [opt(d.market[i]) for i in range(4)],
            "law": opt(d.law),
            "owner": [opt(d.owner[s]) for s in range(S)],
            "faction": [opt(d.faction[p]) for p in range(n)],
            "hero": [opt(d.hero[p]) for p in range(n)],
            "hero_at": [opt(d.hero_at[p]) for p in range(n)],
            "wounded": [bool(d.wounded[p]) for p in range(n)],
            "vp": [d.vp[p] for p in range(n)],
            "army": [d.army[p] for p in range(n)],
            "res": [[d.res[p][r] for r in range(3)] for p in range(n)],
            "equipment": [[d.equip[p][i] for i in range(d.equip_n[p])] for p in range(n)],
            "quests": [[d.quests[p][i] for i in range(d.quest_n[p])] for p in range(n)],
            "done_quests": [[d.done[p][i] for i in range(d.done_n[p])] for p in range(n)],
            "quest_used": [[d.used[p][i] for i in range(d.used_n[p])] for p in range(n)],
            "scouted": [[d.scouted[p]] if d.scouted[p] >= 0 else [] for p in range(n)],
            "scouted_round": [d.scouted_round[p] for p in range(n)],
            "declared": [None if d.decl_station[p] < 0 else [d.decl_station[p], "hero" if d.decl_hero[p] else "army"]
                         for p in range(n)],
            "threat_now": opt(d.threat_now),
            "vote": {"law": d.vote_law, "for": d.vote_for, "against": d.vote_against} if d.vote_on else None,
            "last_vote": ({"law": d.last_vote[0], "for": d.last_vote[1], "against": d.last_vote[2]}
                          if d.last_vote_on else None),
            "last_threat": opt(d.last_threat),
            "round": d.round, "first": d.first, "stage": d.stage, "over": bool(d.over),
            "winner": opt(d.winner), "phase": PHASES[d.phase] if d.phase != P_OVER else "over",
            "decider": -1 if d.over else d.decider,
        }


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {seed!r}")


# ---------------------------------------------------------------- small C helpers
cdef inline int _popcount(unsigned int x) noexcept nogil:
    cdef int k = 0
    while x:
        x &= x - 1
        k += 1
    return k


cdef void _sort(signed char* a, int n) noexcept nogil:
    cdef int i, j
    cdef signed char x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef void _isort(int* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef void _remove(signed char* a, int* n, int c) noexcept nogil:
    cdef int i, j
    for i in range(n[0]):
        if a[i] == c:
            for j in range(i, n[0] - 1):
                a[j] = a[j + 1]
            n[0] -= 1
            return


cdef inline bint _has(const signed char* a, int n, int c) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] == c:
            return True
    return False




# ================================================================ the contract: Game and GameState

TASK_NAMES = ("draft_faction", "draft_hero", "setup", "place_hero", "round_start", "produce", "polis_res",
              "law_event", "vote", "law_result", "declare", "threat_reveal", "threat_fight", "threat_done",
              "mobilise", "army", "hero", "hero_act", "neutral_attack", "neutral_fight", "capture",
              "free_station", "defender", "combat_deal", "combat_pick", "combat_resolve", "take_equipment",
              "strip_equipment", "discard_equipment", "buy", "exchange_from", "exchange_to", "exchange_amount",
              "stage2_equipment", "end_round", "quest_check", "quest_offer")
# The arguments of each task (J_* order): p a player, s a station, w army/hero (0/1), b 0/1, m a
# resource mask 0..7, k an amount 1..2, r a resource 0..2; unused arguments are 0.
_TASK_ARGS = ("p", "p", "", "p", "", "mk", "pmk", "", "p", "", "p", "", "p", "", "p", "p", "p", "p",
              "pws", "pws", "psb", "p", "p", "", "b", "", "ppb", "ppb", "p", "pbb", "p", "pr", "prr", "p", "", "",
              "p")
_HIDDEN_PENDING = (P_LAW_PEEK, P_ARTYOM, P_QUEST_KEEP, P_STAGE2_EQ)
DECK_KEYS = ("equipment", "quest", "law", "threat1", "threat2")

cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_NOT_NOW = 3

_REASONS = {R_OVER: "the game is over", R_RANGE: "not an action of this game",
            R_NOT_NOW: "not one of the legal actions of this decision"}


cdef class Metro2033Game(Game):
    """*Metro 2033*, the board game (2nd edition), 2-6 players (rules G1-G36 of
    ``docs/rules/metro2033.md``), on the fast engine ``FastMetro2033``. Options: ``players``
    (G1), ``round_limit`` (G30, an addition: a game without winner ends after that many rounds,
    ranked by VP), ``strict_counts`` and ``cards`` (the card file; default: the shipped set, whose
    cards are reconstructed where the rulebook does not fix them, see ``cards.py``)."""
    name = "metro2033"
    readings = readings_module.METRO2033
    title = "Metro 2033, the board game (2nd edition)"
    min_players = 2
    max_players = 6
    OPTIONS = (
        Option.integer("players", 2, "number of players", low=2, high=6, rule="G1"),
        Option.integer("round_limit", 40, "rounds after which a game without winner ends, ranked by VP "
                       "(an addition to the rules)", low=1, high=1000, rule="G30"),
        Option.boolean("strict_counts", True, "require the rulebook's card counts of a card file", rule="G3"),
        Option.path("cards", None, "a card JSON file (schema in engine/metro2033/cards.py); default: the "
                    "shipped set (reconstructed where the rulebook is silent)"),
    )
    search_defaults = {"rollout": "random", "rollout_depth": 60, "cutoff_scale": 1.0}
    state_fields = ("rng_state", "decks", "known", "discards", "out", "market", "law", "owner", "faction",
                    "hero", "hero_at", "wounded", "vp", "army", "res", "equipment", "quests", "done_quests",
                    "quest_used", "scouted", "scouted_round", "declared", "threat_now", "vote", "last_vote",
                    "last_threat", "round", "first", "stage", "over", "winner", "phase", "decider",
                    "pending", "fight", "combat", "agenda")
    benchmark_moves = {"opening": 0, "middle": 150, "end": 300}
    reference = "metro_ai.engine.metro2033.reference:RefMetro2033Game"
    features = "metro_ai.engine.metro2033.features:Metro2033Features"
    svg = "metro_ai.engine.metro2033.svg:map_svg"
    cdef readonly FastMetro2033 proto        # the deal of seed 0: the card tables, copied into states
    cdef readonly object card_set            # cards.py's CardSet
    cdef readonly tuple card_names           # by card id
    cdef readonly tuple card_types
    cdef readonly int C                      # cards in the set

    def _configure(self):
        o = self._options
        self.proto = FastMetro2033(o["players"], o["cards"], o["strict_counts"], o["round_limit"], 0)
        self.card_set = self.proto.card_set
        self.card_names = tuple(c["name"] for c in self.card_set.cards)
        self.card_types = tuple(c["type"] for c in self.card_set.cards)
        self.C = len(self.card_names)

    def _reference_options(self):
        return dict(self.options)

    @property
    def num_distinct_actions(self):
        return self.proto.FIXED + 12

    @property
    def max_actions(self):
        return self.proto.FIXED + 12

    @property
    def max_game_length(self):
        """An upper bound: the drafts and placements, then per round and player the most
        decisions the rules allow (every quest completed and used in the army and the hero phase,
        a purchase per bullet held, fights with their follow-ups), plus the round's events."""
        n, q = self.players, self.proto.tab.t.n_type[T_QUEST]
        # G29, G31, G33: per round and player an upkeep decision, and a quest decision at each
        # of the 2n + 1 quest checks (each completion asks again: at most q more); the law look
        return 3 * n + self.options["round_limit"] * (n * (4 * q + 140) + 20 + n * (2 * n + 2 + q) + 1)

    cdef Metro2033State _blank(self):
        cdef Metro2033State st = Metro2033State.__new__(Metro2033State)
        st.game = self
        st.f = self.proto._copy()
        return st

    def new_state(self, seed=0):
        """A new game dealt from `seed` (any int), as the reference engine deals it."""
        cdef uint64_t s = as_seed(seed)
        cdef Metro2033State st = self._blank()
        st.f._new(self.players, s)
        return st

    # ---- actions in text
    def action_to_string(self, action):
        """Human text of an action id (as the reference engine writes it); ValueError if it is
        not one."""
        cdef FastMetro2033 f = self.proto
        cdef Tables* t = &f.tab.t
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < f.FIXED + 12:
            raise ValueError(f"not a metro2033 action: {action!r} (actions are 0..{f.FIXED + 11})")
        names = BOARD.names
        if action < A_STATION_HERO:
            return f"station {names[action]}"
        if action < A_FACTION:
            return f"hero defends {names[action - A_STATION_HERO]}"
        if action < A_HERO:
            return f"faction {self.card_names[t.factions[action - A_FACTION]]}"
        if action < A_PLAYER:
            i = action - A_HERO
            return f"hero {self.card_names[t.heroes[i]]}" if i < t.nheroes else f"hero #{i}"
        if action < A_RESOURCE:
            return f"player {action - A_PLAYER}"
        if action < A_COUNT:
            return f"resource {RESOURCES[action - A_RESOURCE]}"
        if action < A_CARD:
            return f"count {action - A_COUNT}"
        if action < f.FIXED:
            block, c = divmod(action - A_CARD, self.C)
            return f"{('card', 'complete', 'use')[block]} {self.card_names[c]}"
        return _FIXED_NAMES[action - f.FIXED]

    # ---- loading
    def _load_state(self, obj):
        cdef Metro2033State st = self._blank()
        _load(st.f, self, obj)
        return st


_FIXED_NAMES = ("yes", "no", "army", "hero", "buy", "quest", "exchange", "scout", "attack", "pass",
                "refresh", "done")


cdef class Metro2033State(GameState):
    """A game of Metro 2033, hidden parts included (deck orders, quests in hand, scouted threats,
    combat cards, undisclosed threat declarations). Make one with ``Metro2033Game.new_state``."""
    cdef FastMetro2033 f

    # ---- the C-level contract
    cdef int c_num_players(self) noexcept nogil:
        return self.f.d.n

    cdef int c_max_actions(self) noexcept nogil:
        return self.f.FIXED + 12

    cdef int c_num_actions(self) noexcept nogil:
        return self.f.FIXED + 12

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.f.d.over else self.f.d.decider

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.f.d.over

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return self.f._legal(out)

    cdef int c_check(self, int action) noexcept nogil:
        cdef int buf[MAX_LEGAL]
        cdef int k, i
        if self.f.d.over:
            return R_OVER
        if action < 0 or action >= self.f.FIXED + 12:
            return R_RANGE
        k = self.f._legal(buf)
        for i in range(k):
            if buf[i] == action:
                return 0
        return R_NOT_NOW

    cdef void c_apply(self, int action) noexcept nogil:
        self.f._do(action)
        self.f._advance()

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int p
        for p in range(self.f.d.n):
            out[p] = self.f.d.vp[p]

    cdef void c_returns(self, double* out) noexcept nogil:
        """G2 winner first, the others by VP (G30 at the round limit); zeros before the end."""
        cdef int p, n = self.f.d.n
        cdef double key[MAX_PLAYERS]
        for p in range(n):
            key[p] = self.f.d.vp[p] + (1000.0 if p == self.f.d.winner else 0.0)
        for p in range(n):
            out[p] = rank_return(p, n, key) if self.f.d.over else 0.0

    cdef void c_heuristic(self, double* out) noexcept nogil:
        """Public information only: VP, the G2 win, and a little for army, resources, equipment
        and completed-quest properties (the means to take stations)."""
        cdef Data* d = &self.f.d
        cdef int p
        for p in range(d.n):
            out[p] = (d.vp[p] + (100.0 if p == d.winner else 0.0) + 0.15 * d.army[p]
                      + 0.03 * (d.res[p][0] + d.res[p][1] + d.res[p][2]) + 0.1 * d.equip_n[p])

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        """G32, as the reference's ``observed_action``: another player sees a threat declaration
        as one at station 0, a combat-card pick as the first combat card, a kept quest as the
        first quest card; every other move as it is."""
        cdef Data* d = &self.f.d
        cdef Tables* t = &self.f.tab.t
        if d.over or player == d.decider:
            return action
        if d.phase == P_DECLARE:
            return A_STATION
        if d.phase == P_COMBAT_PICK:
            return A_CARD + t.by_type[T_COMBAT][0]
        if d.phase == P_QUEST_KEEP:
            return A_CARD + t.by_type[T_QUEST][0]
        return action

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.f.d = (<Metro2033State>other).f.d

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        self.f.d = (<Metro2033State>source).f.d
        self.f._determinize(player, seed)

    cdef GameState c_new_blank(self):
        return (<Metro2033Game>self.game)._blank()

    # ---- Python face
    def _reason(self, int code):
        return _REASONS.get(code, f"reason code {code}")

    def _summary(self):
        cdef Data* d = &self.f.d
        return (f"metro2033 {d.n} players, round {d.round}, stage {d.stage}, phase {self.phase}, "
                + (f"player {d.decider} to move" if not d.over else "over") + f", VP {self.scores()}")

    @property
    def phase(self):
        """The decision being taken (the reference's phase names), ``over`` at the end."""
        return "over" if self.f.d.over else PHASES[self.f.d.phase]

    @property
    def round(self):
        return self.f.d.round

    @property
    def stage(self):
        return self.f.d.stage

    @property
    def winner(self):
        """The G2 winner, or None (none yet, or the round limit ended the game: G30)."""
        return None if self.f.d.winner < 0 else self.f.d.winner

    def observed_action(self, action, player):
        """How `player` sees `action` taken now by the player to move (G32)."""
        self._check_player(player)
        if not self.is_legal(action):
            raise ValueError(f"action {action!r} is not legal now")
        return self.c_observed_action(action, player)

    def _state_fields(self):
        return _dump(self.f)

    def observation(self, player):
        """What `player` sees, as a JSON-ready dict: the whole public state (board, tokens,
        resources, heroes, equipment, law, completed quests, market, discards, the records, the
        agenda); their own quests, scouted threat, combat cards and the deck places they know;
        of the others only counts; the threat declarations only once the threat is revealed
        (G32); of the decks their sizes and which places someone knows."""
        cdef Data* d = &self.f.d
        self._check_player(player)
        full = _dump(self.f)
        obs = {"game": self.game.name, "options": self.game.state_options, "player": player}
        for k, v in full.items():
            if k in ("rng_state", "decks", "known", "quests", "scouted", "declared", "pending", "combat"):
                continue
            obs[k] = v
        known = full["known"]
        obs["deck_sizes"] = {k: len(v) for k, v in full["decks"].items()}
        obs["deck_known"] = {k: [[i, c] for i, c in enumerate(v) if player in known.get(str(c), ())]
                             for k, v in full["decks"].items()}
        obs["deck_known_by"] = {k: [[i, known[str(c)]] for i, c in enumerate(v) if str(c) in known]
                                for k, v in full["decks"].items()}
        obs["quests"] = full["quests"][player]
        obs["quest_counts"] = [len(q) for q in full["quests"]]
        obs["scouted"] = full["scouted"][player]
        obs["scouting"] = [len(x) for x in full["scouted"]]
        open_ = d.threat_now >= 0
        obs["declared"] = [x if (open_ or q == player) else (x is not None) for q, x in enumerate(full["declared"])]
        pending = dict(full["pending"])
        if d.phase in _HIDDEN_PENDING and d.decider != player:
            pending["cards"] = len(pending["cards"])
        obs["pending"] = pending
        cb = full["combat"]
        if cb is not None:
            cb = dict(cb)
            cb["aside"] = len(cb["aside"])
            for key in ("hands", "picks"):
                cb[key] = [v if cb["side"][i] == player else len(v) for i, v in enumerate(cb[key])]
        obs["combat"] = cb
        obs["current_player"] = self.current_player
        obs["scores"] = self.scores()
        return obs

    def render(self, player=None):
        """A text view: the round, stage and decision; per player faction, hero (where, wounded),
        VP, army, resources, stations, equipment and completed quests (quests in hand and a
        scouted threat only for `player`, or for everyone when `player` is None); the market,
        the law in force, the threat being fought and the deck sizes."""
        if player is not None:
            self._check_player(player)
        g = self.game
        cn = g.card_names
        full = _dump(self.f)
        names = BOARD.names

        def card(c):
            return "-" if c is None else cn[c]
        lines = [f"Metro 2033, round {full['round']} (stage {full['stage']}), phase {self.phase}"
                 + (f", P{self.current_player} to decide" if not self.is_terminal() else ", game over")]
        for p in range(self.f.d.n):
            st = [names[s] for s, o in enumerate(full["owner"]) if o == p]
            hero = full["hero"][p]
            at = full["hero_at"][p]
            r = full["res"][p]
            lines.append(f"P{p} {card(full['faction'][p])}: VP {full['vp'][p]}, army {full['army'][p]}, "
                         f"pigs {r[0]} mushrooms {r[1]} bullets {r[2]}; hero {card(hero)}"
                         + (f" at {names[at]}" if at is not None else "")
                         + (" (wounded)" if full["wounded"][p] else ""))
            lines.append("    stations: " + (", ".join(st) or "-"))
            if full["equipment"][p]:
                lines.append("    equipment: " + ", ".join(cn[c] for c in full["equipment"][p]))
            if full["done_quests"][p]:
                lines.append("    quests done: " + ", ".join(cn[c] for c in full["done_quests"][p]))
            if player is None or player == p:
                lines.append("    quests in hand: " + (", ".join(cn[c] for c in full["quests"][p]) or "-")
                             + ("; scouted: " + cn[full["scouted"][p][0]] if full["scouted"][p] else ""))
            else:
                lines.append(f"    quests in hand: {len(full['quests'][p])}")
        lines.append("market: " + ", ".join(card(c) for c in full["market"]))
        lines.append(f"law: {card(full['law'])}; threat: {card(full['threat_now'])}; decks: "
                     + ", ".join(f"{k} {len(v)}" for k, v in full["decks"].items()))
        if self.is_terminal():
            lines.append("winner: " + (f"P{full['winner']}" if full["winner"] is not None else
                                       "none (round limit: ranked by VP)"))
        return "\n".join(lines)


# ---------------------------------------------------------------- JSON: dump and load

def _opt(v):
    return None if v < 0 else v


def _dump(FastMetro2033 f):
    """The full state (hidden parts included) as a JSON-ready dict: ``ref_data()``'s fields plus
    the pending decision's parameters, the fight between players and the agenda."""
    cdef Data* d = &f.d
    obj = f.ref_data()
    del obj["phase"], obj["decider"]
    obj["rng_state"] = str(d.rng)
    obj["phase"] = "over" if d.over else PHASES[d.phase]
    obj["decider"] = -1 if d.over else d.decider
    obj["pending"] = {
        "cards": [d.pd_cards[i] for i in range(d.pd_ncards)] if d.phase in _HIDDEN_PENDING else [],
        "votes": d.pd_votes, "max": d.pd_max, "side": d.pd_side, "who": d.pd_who, "station": d.pd_station,
        "taken": d.pd_taken, "from": d.pd_from, "to": d.pd_to, "bought": d.pd_bought,
        "refreshed": d.pd_refreshed, "forced": d.pd_forced, "amount": d.pd_amount, "resmask": d.pd_resmask}
    # the fight being fought or the last one (who, by what, where); its combat cards once dealt
    obj["fight"] = {"kind": d.cx_kind, "side": [d.cx_side[0], d.cx_side[1]], "who": [d.cx_who[0], d.cx_who[1]],
                    "station": d.cx_station}
    obj["combat"] = None if not d.combat_on else {
        "side": [d.cx_side[0], d.cx_side[1]], "hands": [[d.hand[s][i] for i in range(d.hand_n[s])] for s in range(2)],
        "aside": [d.aside[i] for i in range(d.aside_n)],
        "picks": [[d.pick[s]] if d.pick[s] >= 0 else [] for s in range(2)]}
    obj["agenda"] = [[TASK_NAMES[d.ag[i].name], d.ag[i].a, d.ag[i].b, d.ag[i].c] for i in range(d.ag_n)]
    return obj


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


_DIGITS = re.compile(r"0|[1-9][0-9]{0,19}")     # a decimal int as the dump writes it (ASCII only)
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def _short(v):
    """`v` quoted for an error message, cut short: never the whole of a huge value."""
    try:
        text = _REPR.repr(v)
    except (ValueError, RecursionError):       # an int too long to print, or a nest too deep
        text = f"<{type(v).__name__}>"
    return text if len(text) <= 120 else text[:117] + "..."


# ---- the agenda grammar (G7, G8 and the sub-steps of G9-G29): the shapes the engine produces.
# The agenda is a stack (its end is the front). The task whose decision is open has been taken off
# it; below it lies one of three bases, and above the base only what the running step pushed:
#   setup:  round_start, place_hero n-1..0, setup, draft_hero 0..n-1, draft_faction n-1..0, cut
#           where the open draft or placement was taken off (G7);
#   round:  end_round, then (quest_check, hero) and (quest_check, army) per seat, mobilise per seat
#           (the seats in turn order, the first on top), quest_check (G29), then as the round's
#           track space says (G8) produce, threat_reveal + declare per seat, law_event, cut where
#           the running step was taken off;
#   stage2: round_start, stage2_equipment for the seats still to choose (G34's new equipment).
# Above a round base, by the running step: law_event: nothing under the look or the peek (G31),
# law_result + the votes still to cast (G13); quest_check: the seats' quest offers still to come
# (G29); mobilise: nothing under the upkeep or the hire (G33);
# threat_reveal: threat_done + the threat fights still to come (G14); produce: the polis choices
# still to make (G10); army / hero: a neutral fight waiting for a scouted threat's return (G24),
# the combat still to resolve with the picks to come (G21), a lost station's free replacement
# under a capture (G15, G28), a purchase to go on with under a discard (G18). A game over has an
# empty agenda. Nothing else is accepted: every accepted agenda keeps end_round or round_start at
# the bottom, so the engine never runs it dry, and stays a few dozen tasks deep.
_BASE_TASKS = frozenset(("end_round", "hero", "army", "mobilise", "produce", "threat_reveal", "declare",
                         "law_event", "quest_check"))
_OWN_PHASES = {"army": ("army",),
               "hero": ("hero_move", "hero_act", "buy", "exchange_from", "exchange_to", "exchange_amount",
                        "quest_keep")}
_FIGHT_PHASES = ("scout_return", "artyom", "capture", "defender", "combat_pick", "free_station",
                 "take_equipment", "strip_equipment", "discard_equipment")
MAX_AGENDA = 64                                  # the grammar's deepest agenda is 6n + 13 <= 49


def _check_agenda(v, bad):
    """Check the agenda `v["agenda"]` (tuples (name, a, b, c)) against the grammar above and the
    open decision (`phase`, `decider`), with the fields each frame relies on. Returns the frame:
    "over", "setup", "round" or "stage2", and the running step's name."""
    ag, ph, dd, n = v["agenda"], v["phase"], v["decider"], v["n"]
    order = [(v["first"] + i) % n for i in range(n)]
    rnd = v["round"]

    def want(cond, msg):
        if not cond:
            bad(f"agenda: {msg} (phase {ph!r}, decider {dd}, agenda {_short([list(x) for x in ag])})")

    if v["over"]:
        want(not ag, "a finished game has no tasks left")
        return "over", None
    want(ag, "empty while the game goes on: end_round or round_start must be at the bottom")
    bottom = ag[0][0]
    if bottom == "round_start" and ph in ("draft_faction", "draft_hero", "place_hero"):
        seq = ([("round_start", 0, 0, 0)] + [("place_hero", p, 0, 0) for p in range(n - 1, -1, -1)]
               + [("setup", 0, 0, 0)] + [("draft_hero", p, 0, 0) for p in range(n)]
               + [("draft_faction", p, 0, 0) for p in range(n - 1, -1, -1)])
        k = len(ag)
        want(k < len(seq) and ag == seq[:k], "not the setup's order (G7)")
        want(seq[k][0] == ph and seq[k][1] == dd, "the open decision is not the setup's next one (G7)")
        want(rnd == 0 and v["stage"] == 1, "the setup comes before round 1")
        return "setup", seq[k]
    if bottom == "round_start":
        j = n - len(ag)
        want(j >= 0 and ag == [("round_start", 0, 0, 0)] + [("stage2_equipment", order[i], 0, 0)
                                                            for i in range(n - 1, j, -1)],
             "not round_start under the stage-2 equipment still to choose (G34)")
        want(ph in ("stage2_equipment", "discard_equipment") and dd == order[j],
             "the open decision is not the stage-2 equipment choice of the next seat (G34)")
        want(v["stage"] == 2 and 1 <= rnd < v["round_limit"], "the stage-2 equipment comes at the end of a round")
        return "stage2", ("stage2_equipment", order[j], 0, 0)
    want(bottom == "end_round", "the bottom task must be end_round (or round_start before a round)")
    want(1 <= rnd, "a round is played from round 1")
    ev = TRACK[0] if rnd == 1 else TRACK[1 + (rnd - 2) % 9]
    seq = [("end_round", 0, 0, 0)]
    for name in ("hero", "army"):                  # G29: a quest check after each action
        for i in range(n - 1, -1, -1):
            seq += [("quest_check", 0, 0, 0), (name, order[i], 0, 0)]
    seq += [("mobilise", order[i], 0, 0) for i in range(n - 1, -1, -1)]
    seq.append(("quest_check", 0, 0, 0))
    if ev & 7:
        seq.append(("produce", ev & 7, 2 if rnd == 1 else 1, 0))
    if ev & 16:
        seq.append(("threat_reveal", 0, 0, 0))
        seq += [("declare", order[i], 0, 0) for i in range(n - 1, -1, -1)]
    if ev & 8:
        seq.append(("law_event", 0, 0, 0))
    k = 0
    while k < len(ag) and ag[k][0] in _BASE_TASKS:
        k += 1
    want(k < len(seq) and ag[:k] == seq[:k], f"not round {rnd}'s order of steps (G8, G9)")
    run, extra = seq[k], ag[k:]
    name, p = run[0], run[1]
    if name == "law_event":
        j = n - len(extra)
        want((not extra and ph in ("law_look", "law_peek")) or (
            ph == "vote" and 0 <= j < n and dd == order[j]
            and extra == [("law_result", 0, 0, 0)] + [("vote", order[i], 0, 0) for i in range(n - 1, j, -1)]),
            "not the law event's peek or vote (G13)")
    elif name == "declare":
        want(not extra and ph == "declare" and dd == p, "not the threat declaration in turn order (G14)")
    elif name == "threat_reveal":
        j = n - len(extra)
        want(ph == "free_station" and 0 <= j < n and dd == order[j]
             and extra == [("threat_done", 0, 0, 0)] + [("threat_fight", order[i], 0, 0)
                                                       for i in range(n - 1, j, -1)],
             "not the threat fights in turn order (G14)")
    elif name == "produce":
        # one choice per polis station held, the seats in turn order (the holdings do not change
        # while they choose)
        polis = [q for q in order for s in range(S) if MAP.m.kind[s] == M33_POLIS and v["owner"][s] == q]
        j = len(polis) - 1 - len(extra)
        want(ph == "polis_res" and 0 <= j and dd == polis[j]
             and extra == [("polis_res", polis[i], run[1], run[2]) for i in range(len(polis) - 1, j, -1)],
             "not the polis resource choices of the production (G10)")
    elif name == "mobilise":
        want(not extra and ph in ("upkeep", "hire") and dd == p, "not the mobilisation of the seat in turn (G16)")
    elif name == "quest_check":
        # one offer per seat in turn order; a completion asks the same seat again (G29)
        j = n - 1 - len(extra)
        want(ph == "quest_complete" and 0 <= j < n and dd == order[j]
             and extra == [("quest_offer", order[i], 0, 0) for i in range(n - 1, j, -1)],
             "not the quest checks in turn order (G29)")
    else:                                          # army or hero (G17-G29)
        w = 0 if name == "army" else 1
        if ph in _OWN_PHASES[name] or (ph == "discard_equipment" and name == "hero" and extra):
            want(dd == p and (not extra or (ph == "discard_equipment" and len(extra) == 1
                                            and extra[0][:3] == ("buy", p, 1))),
                 f"not the {name} phase of the seat in turn")
        elif ph in _FIGHT_PHASES and not (ph == "artyom" and w == 0):
            if ph == "scout_return":
                want(dd == p and len(extra) == 1 and extra[0][:3] == ("neutral_fight", p, w),
                     "a scouted threat's return waits over the neutral fight (G24)")
            elif ph == "capture":
                want(dd == p and (not extra or (len(extra) == 1 and extra[0][0] == "free_station"
                                                and extra[0][1] != p)),
                     "a capture is the attacker's, over the loser's free station at most (G15, G28)")
            elif ph == "combat_pick":
                side = v["pending"]["side"]
                want(extra == [("combat_resolve", 0, 0, 0)] + ([("combat_pick", 1, 0, 0)] if side == 0 else []),
                     "the combat picks come before the resolution, attacker first (G21)")
            else:
                want(not extra, f"nothing waits under {ph!r}")
            if ph in ("defender", "combat_pick"):
                fight = v["fight"]
                want(fight["side"][0] == p and fight["side"][1] != p and fight["who"][0] == w,
                     "fight: not the attack of the seat in turn")
        else:
            want(False, f"not a decision of the {name} phase")
    return "round", run


def _load(FastMetro2033 f, Metro2033Game game, dict obj):
    """Fill `f` (a fresh copy: nothing half-built is ever handed out) from `obj` (``_dump``'s
    layout). Two steps, in this order: ``_validate`` reads every field into plain Python values,
    checking type, range, length and the invariants between fields, the agenda against the
    grammar the engine produces; then ``_copy_in`` writes them into the C struct, each length
    checked against its array before the write. StateFormatError naming the field otherwise."""
    v = _validate(f, game, obj)
    _copy_in(f, v)

    def bad(msg):
        raise StateFormatError(f"metro2033 state: {msg}")
    if not f.d.over and not f.legal_actions():
        bad(f"phase {v['phase']!r}: player {v['decider']} has no legal action")
    if v["phase"] in ("upkeep", "quest_complete") and (len(f.legal_actions()) < 2 or (
            v["phase"] == "upkeep" and f.d.army[f.d.decider] <= f._amount_fl(f.d.decider, 1, 5))):
        bad(f"phase {v['phase']!r}: not a decision here (G29: a quest whose condition holds; G33: strength "
            f"above the free strength, with a pig to pay)")
    back = _dump(f)
    if back != {key: obj[key] for key in back}:
        bad("not in the engine's canonical form (a field disagrees with the rest once loaded)")


def _validate(FastMetro2033 f, Metro2033Game game, dict obj):
    """The checked Python layer of the loader: returns a dict of plain ints and lists of ints
    (cards as ids, nothing else) that ``_copy_in`` can write without a check of its own."""
    cdef Tables* t = &f.tab.t
    cdef int n = game.players, C = t.C, i, p, k, s
    types = game.card_types
    limit_rounds = game.options["round_limit"]

    def bad(msg):
        raise StateFormatError(f"metro2033 state: {msg}")

    def num(x, where, lo, hi):
        if not _is_int(x) or not lo <= x <= hi:
            bad(f"{where}: expected an int in {lo}..{hi}, got {_short(x)}")
        return int(x)

    def lst(x, where, size=None, most=None):
        if not isinstance(x, list) or (size is not None and len(x) != size) or (most is not None and len(x) > most):
            bad(f"{where}: expected a list" + (f" of {size} entries" if size is not None else "")
                + (f" of at most {most} entries" if most is not None else "") + f", got {_short(x)}")
        return x

    def keys(x, where, names):
        if not isinstance(x, dict) or len(x) != len(names) or any(not isinstance(key, str) for key in x) \
                or set(x) != set(names):
            bad(f"{where}: expected an object with keys {', '.join(sorted(names))}, got {_short(x)}")
        return x

    def cards(x, where, kinds, most):
        lst(x, where, most=most)
        out = []
        for c in x:
            num(c, where, 0, C - 1)
            if types[c] not in kinds:
                bad(f"{where}: card {c} ({game.card_names[c]}) is a {types[c]} card, not {' or '.join(kinds)}")
            out.append(int(c))
        return out

    def opt_card(x, where, kinds):
        return -1 if x is None else cards([x], where, kinds, 1)[0]

    def opt_num(x, where, lo, hi):
        return -1 if x is None else num(x, where, lo, hi)

    def boolean(x, where):
        if not isinstance(x, bool):
            bad(f"{where}: expected true or false, got {_short(x)}")
        return bool(x)

    def per_player(key):
        return lst(obj[key], key, n)

    v = {"n": n, "round_limit": limit_rounds}
    # ---- every field alone: type, range, length
    x = obj["rng_state"]
    if not isinstance(x, str) or not _DIGITS.fullmatch(x) or int(x) >= 2 ** 64:
        bad(f"rng_state: expected a 64-bit unsigned int as a decimal string, got {_short(x)}")
    v["rng"] = int(x)
    decks = keys(obj["decks"], "decks", DECK_KEYS)
    deck_kinds = (("equipment",), ("quest",), ("law",), ("threat",), ("threat",))
    v["decks"] = [cards(decks[key], f"decks.{key}", deck_kinds[k], MAXC) for k, key in enumerate(DECK_KEYS)]
    disc = keys(obj["discards"], "discards", ("equipment", "quest", "threat1", "threat2"))
    v["discards"] = [cards(disc[DECK_KEYS[k]], f"discards.{DECK_KEYS[k]}", deck_kinds[k], MAXC)
                     if k != K_LAW else [] for k in range(5)]
    for where, piles in (("decks", v["decks"]), ("discards", v["discards"])):
        for k in (K_THREAT1, K_THREAT2):
            for c in piles[k]:
                if t.stage[c] != k - 2:
                    bad(f"{where}.{DECK_KEYS[k]}: threat {game.card_names[c]} is of stage {t.stage[c]}")
    v["out"] = cards(obj["out"], "out", ("threat", "equipment", "quest"), MAXC)
    v["market"] = [opt_card(c, "market", ("equipment",)) for c in lst(obj["market"], "market", 4)]
    v["law"] = opt_card(obj["law"], "law", ("law",))
    known = obj["known"]
    if not isinstance(known, dict):
        bad(f"known: expected an object card -> players, got {_short(known)}")
    in_decks = {c for pile in v["decks"] for c in pile}
    v["known"] = {}
    for key, who in known.items():
        if not isinstance(key, str) or not _DIGITS.fullmatch(key) or int(key) not in in_decks:
            bad(f"known: {_short(key)} is not a card in a deck")
        if (not isinstance(who, list) or not who or len(who) > n or any(not _is_int(q) or not 0 <= q < n for q in who)
                or any(who[i] >= who[i + 1] for i in range(len(who) - 1))):
            bad(f"known.{key}: expected ascending distinct players 0..{n - 1}, got {_short(who)}")
        v["known"][int(key)] = sum(1 << q for q in who)
    v["owner"] = [opt_num(o, "owner", 0, n - 1) for o in lst(obj["owner"], "owner", S)]
    v["faction"] = [opt_card(c, "faction", ("faction",)) for c in per_player("faction")]
    v["hero"] = [opt_card(c, "hero", ("hero",)) for c in per_player("hero")]
    for name in ("faction", "hero"):
        real = [c for c in v[name] if c >= 0]
        if len(set(real)) != len(real):
            bad(f"{name}: a card is drafted twice: {_short(obj[name])}")
    v["hero_at"] = [opt_num(x, "hero_at", 0, S - 1) for x in per_player("hero_at")]
    v["wounded"] = [boolean(x, "wounded") for x in per_player("wounded")]
    v["vp"] = [num(x, "vp", 0, 200) for x in per_player("vp")]
    v["army"] = [num(x, "army", 0, 8) for x in per_player("army")]
    v["res"] = [[num(r, "res", 0, 35) for r in lst(x, "res", 3)] for x in per_player("res")]
    v["equipment"] = [cards(x, "equipment", ("equipment",), 4) for x in per_player("equipment")]
    v["quests"] = [cards(x, "quests", ("quest",), MAXQ) for x in per_player("quests")]
    v["done_quests"] = [cards(x, "done_quests", ("quest",), MAXQ) for x in per_player("done_quests")]
    v["quest_used"] = [cards(x, "quest_used", ("quest",), MAXQ) for x in per_player("quest_used")]
    for p in range(n):
        for key in ("equipment", "quests"):
            if v[key][p] != sorted(v[key][p]):
                bad(f"{key}: player {p}'s cards must be in ascending order")
        if len(set(v["quest_used"][p])) != len(v["quest_used"][p]) or not set(v["quest_used"][p]) <= set(v["done_quests"][p]):
            bad(f"quest_used: player {p} used a quest they have not completed, or one twice")
    v["scouted"] = [cards(x, "scouted", ("threat",), 1) for x in per_player("scouted")]
    v["scouted_round"] = [num(x, "scouted_round", 0, limit_rounds) for x in per_player("scouted_round")]
    v["declared"] = []
    for p, x in enumerate(per_player("declared")):
        if x is None:
            v["declared"].append((-1, 0))
            continue
        if not isinstance(x, list) or len(x) != 2 or not isinstance(x[1], str) or x[1] not in ("army", "hero"):
            bad(f"declared: player {p}: expected null or [station, 'army' or 'hero'], got {_short(x)}")
        v["declared"].append((num(x[0], "declared", 0, S - 1), int(x[1] == "hero")))
    v["threat_now"] = opt_card(obj["threat_now"], "threat_now", ("threat",))
    v["last_threat"] = opt_card(obj["last_threat"], "last_threat", ("threat",))
    for key in ("vote", "last_vote"):
        x = obj[key]
        v[key] = None if x is None else (
            cards([keys(x, key, ("law", "for", "against"))["law"]], f"{key}.law", ("law",), 1)[0],
            num(x["for"], f"{key}.for", 0, 999), num(x["against"], f"{key}.against", 0, 999))
    v["round"] = num(obj["round"], "round", 0, limit_rounds)
    v["first"] = num(obj["first"], "first", 0, n - 1)
    v["stage"] = num(obj["stage"], "stage", 1, 2)
    v["over"] = boolean(obj["over"], "over")
    v["winner"] = opt_num(obj["winner"], "winner", 0, n - 1)
    ph = obj["phase"]
    if not isinstance(ph, str) or ph not in PHASES or ph == "none" or (ph == "over") != v["over"]:
        bad(f"phase: {_short(ph)} is not one of {', '.join(PHASES[1:])} (over exactly when the field over is true)")
    v["phase"] = ph
    v["decider"] = dd = num(obj["decider"], "decider", -1 if v["over"] else 0, -1 if v["over"] else n - 1)
    want = ("amount", "bought", "cards", "forced", "from", "max", "refreshed", "resmask", "side", "station",
            "taken", "to", "votes", "who")
    pd = keys(obj["pending"], "pending", want)
    pkinds = {"law_peek": ("law",), "artyom": ("threat",), "quest_keep": ("quest",), "stage2_equipment": ("equipment",)}
    pc = cards(pd["cards"], "pending.cards", pkinds.get(ph, ()), 2 if ph in pkinds else 0)
    if ph in pkinds and (not pc or len(set(pc)) != len(pc) or (ph in ("law_peek", "artyom") and len(pc) != 2)
                         or pc != sorted(pc)):
        bad(f"pending.cards: expected the distinct cards being chosen among, ascending, got {_short(pc)}")
    v["pending"] = {"cards": pc}
    for key, hi in (("votes", 200), ("max", 8), ("side", 1), ("who", 1), ("station", S - 1), ("taken", 1),
                    ("from", n - 1 if ph in ("take_equipment", "strip_equipment", "discard_equipment") else 5),
                    ("to", 2), ("bought", 1), ("refreshed", 1), ("forced", 1), ("amount", 2), ("resmask", 7)):
        v["pending"][key] = num(pd[key], f"pending.{key}", 0, hi)
    fight = keys(obj["fight"], "fight", ("kind", "side", "station", "who"))
    v["fight"] = {"kind": num(fight["kind"], "fight.kind", 0, 1),
                  "station": num(fight["station"], "fight.station", 0, S - 1),
                  "side": [num(x, "fight.side", 0, n - 1) for x in lst(fight["side"], "fight.side", 2)],
                  "who": [num(x, "fight.who", 0, 1) for x in lst(fight["who"], "fight.who", 2)]}
    cb = obj["combat"]
    v["combat"] = None
    if cb is not None:
        keys(cb, "combat", ("aside", "hands", "picks", "side"))
        if cb["side"] != v["fight"]["side"]:
            bad("combat.side: not the sides of the fight (field 'fight')")
        hands = [cards(x, "combat.hands", ("combat",), 3) for x in lst(cb["hands"], "combat.hands", 2)]
        picks = [cards(x, "combat.picks", ("combat",), 1) for x in lst(cb["picks"], "combat.picks", 2)]
        aside = cards(cb["aside"], "combat.aside", ("combat",), MAXC)
        if any(h != sorted(h) for h in hands):
            bad("combat.hands: a hand is in ascending order")
        if sorted(aside + hands[0] + hands[1] + picks[0] + picks[1]) != [c for c in range(C) if types[c] == "combat"]:
            bad("combat: the combat cards must each be in exactly one place during a fight")
        if any(len(hands[s]) + len(picks[s]) != 3 for s in range(2)):
            bad("combat: each side holds three combat cards, hand and pick together (G21)")
        v["combat"] = {"hands": hands, "picks": picks, "aside": aside}
    v["agenda"] = []
    for task in lst(obj["agenda"], "agenda", most=MAX_AGENDA):
        if not isinstance(task, list) or len(task) != 4 or not isinstance(task[0], str) or task[0] not in TASK_NAMES:
            bad(f"agenda: {_short(task)} is not a task [name, a, b, c] (names: {', '.join(TASK_NAMES)})")
        kinds = _TASK_ARGS[TASK_NAMES.index(task[0])]
        args = []
        for j in range(3):
            kind = kinds[j] if j < len(kinds) else ""
            hi = {"": 0, "p": n - 1, "s": S - 1, "w": 1, "b": 1, "m": 7, "k": 2, "r": 2}[kind]
            args.append(num(task[1 + j], f"agenda: task {_short(task)}", 0, hi))
        v["agenda"].append((task[0], args[0], args[1], args[2]))

    # ---- the invariants between fields
    # every threat, equipment, quest and law card in exactly one place (G3, G5)
    places = [c for pile in v["decks"] + v["discards"] for c in pile] + v["out"] + pc
    places += [c for c in v["market"] + [v["law"], v["threat_now"]] if c >= 0]
    if v["vote"] is not None:
        places.append(v["vote"][0])
    for p in range(n):
        places += v["equipment"][p] + v["quests"][p] + v["done_quests"][p] + v["scouted"][p]
    if sorted(places) != [c for c in range(C) if types[c] in ("threat", "equipment", "quest", "law")]:
        bad("the threat, equipment, quest and law cards must each be in exactly one place")
    frame, run = _check_agenda(v, bad)
    if frame == "setup" and any(x[0] == "setup" for x in v["agenda"]):
        # G7's setup still to come: nothing on the board or in the players' hands yet
        if any(o >= 0 for o in v["owner"] + v["hero_at"]) or any(
                v[key][p] for key in ("vp", "army", "equipment", "quests", "done_quests", "quest_used", "scouted")
                for p in range(n)) or any(x != [0, 0, 0] for x in v["res"]):
            bad("before the setup (agenda task 'setup'), no station is held and no player has anything")
    else:
        for p in range(n):
            if v["faction"][p] < 0 or v["hero"][p] < 0:
                bad(f"faction, hero: player {p} has not drafted both, yet the setup is done")
            if v["vp"][p] != v["owner"].count(p) + len(v["done_quests"][p]):
                bad(f"vp: player {p} has {v['vp'][p]} VP, not their stations plus completed quests")
    # G7: the drafts in order (factions 0..n-1, heroes n-1..0), the heroes placed 0..n-1
    drafted = ([p < run[1] for p in range(n)], [False] * n, [False] * n) if run and run[0] == "draft_faction" else \
        ([True] * n, [p > run[1] for p in range(n)], [False] * n) if run and run[0] == "draft_hero" else \
        ([True] * n, [True] * n, [p < run[1] for p in range(n)]) if run and run[0] == "place_hero" else \
        ([True] * n, [True] * n, [True] * n)
    for name, done in zip(("faction", "hero", "hero_at"), drafted):
        if [x >= 0 for x in v[name]] != done:
            bad(f"{name}: {_short(obj[name])} is not what the draft order gives (G7)")
    if v["winner"] >= 0 and not v["over"]:
        bad("winner: a winner while the game goes on")
    stage, lim = v["stage"], 2 if v["stage"] == 1 else 3
    # G31, G34: the threat decks of the stage in play, the equipment limit
    if stage == 2 and (v["decks"][K_THREAT1] or v["discards"][K_THREAT1]):
        bad("decks.threat1, discards.threat1: stage 2 has put the stage-1 threats out of the game")
    if stage == 1 and v["discards"][K_THREAT2]:
        bad("discards.threat2: no stage-2 threat is fought in stage 1")
    for p in range(n):
        extra = 1 if ph == "discard_equipment" and p == dd else 0
        if len(v["equipment"][p]) > lim + extra or (extra and len(v["equipment"][p]) != lim + 1):
            bad(f"equipment: player {p} holds {len(v['equipment'][p])}, the limit is {lim} (G18)")
        if v["scouted"][p] and (t.stage[v["scouted"][p][0]] != stage or v["scouted_round"][p] > v["round"]):
            bad(f"scouted: player {p}'s threat is not of this stage, or scouted in a later round (G24)")
        if v["scouted_round"][p] > v["round"]:
            bad(f"scouted_round: player {p} scouted in round {v['scouted_round'][p]}, after round {v['round']}")
    for c in (v["threat_now"], v["pending"]["cards"][0] if ph == "artyom" else -1):
        if c >= 0 and t.stage[c] != stage:
            bad(f"threat_now, pending.cards: threat {game.card_names[c]} is not of stage {stage}")
    # G14: threat declarations: of the seats before the one declaring, all during the fights
    threat = frame == "round" and run[0] == "threat_reveal"
    if (v["threat_now"] >= 0) != threat:
        bad("threat_now: a threat is revealed exactly while its fights are on (G14)")
    pos = {q: i for i, q in enumerate((v["first"] + i) % n for i in range(n))}
    for q in range(n):
        st, hero = v["declared"][q]
        if ph == "declare" and frame == "round" and run[0] == "declare":
            should = pos[q] < pos[dd]
        else:
            should = threat
        if (st >= 0) != should:
            bad(f"declared: player {q}'s declaration is out of turn (G14)")
        if st >= 0 and not threat and (v["owner"][st] != q or (hero and (v["hero_at"][q] != st or v["wounded"][q]))):
            bad(f"declared: player {q} declared a station they do not hold, or a hero not there (G14)")
    # G13: the vote
    if (v["vote"] is not None) != (ph == "vote"):
        bad("vote: a vote is open exactly while votes are cast (G13)")
    if ph == "vote":
        def votes(q):
            return v["owner"].count(q) + t.votes[v["faction"][q]]
        cast = sum(votes(q) for q in range(n) if pos[q] < pos[dd])
        if v["vote"][1] + v["vote"][2] != cast or v["pending"]["votes"] != votes(dd):
            bad("vote, pending.votes: not the votes of the seats that voted, and of the one voting (G13)")
    # G21: the combat cards are dealt exactly while they are picked
    if (v["combat"] is not None) != (ph == "combat_pick"):
        bad("combat: combat cards are out exactly while they are picked (G21)")
    pdv, fg = v["pending"], v["fight"]
    if ph == "combat_pick":
        side = pdv["side"]
        if dd != fg["side"][side] or [bool(x) for x in v["combat"]["picks"]] != [side == 1, False]:
            bad("pending.side, combat.picks: the attacker picks first, then the defender (G21)")
    if ph in ("defender", "combat_pick"):
        q, st = fg["side"][1], fg["station"]
        if fg["kind"] == 0 and v["owner"][st] != q:
            bad("fight.station: the station attacked is not the defender's")
        if fg["kind"] == 1 and fg["who"][1] != 1:
            bad("fight.who: a hero attacked defends as a hero (G22)")
        if ph == "defender" and (dd != q or fg["kind"] != 0 or v["hero_at"][q] != st or v["wounded"][q]):
            bad("fight: the defender chooses only when their unwounded hero stands at the station (G20)")
    if ph in ("take_equipment", "strip_equipment"):
        if pdv["from"] == dd or sorted((pdv["from"], dd)) != sorted(fg["side"]) or not v["equipment"][pdv["from"]]:
            bad("pending.from: equipment is taken from the other side of the fight, who holds some (G25)")
    if ph == "discard_equipment" and pdv["from"] != dd:
        bad("pending.from: a player discards their own equipment (G18)")
    if ph == "hire":
        r = v["res"][dd]
        if pdv["max"] != min(r[0], r[2], 8 - v["army"][dd]) or pdv["max"] < 1:
            bad("pending.max: not what the player can hire (G16)")
    if ph == "law_look" and (not t.peek[v["faction"][dd]] or len(v["decks"][K_LAW]) < 2
                             or any(t.peek[v["faction"][q]] for q in range(n) if pos[q] < pos[dd])):
        bad("phase 'law_look': the first Confederation of 1905 in turn order looks at two laws or not (G31)")
    if ph == "polis_res":
        ev = TRACK[0] if v["round"] == 1 else TRACK[1 + (v["round"] - 2) % 9]
        if pdv["resmask"] != ev & 7 or pdv["amount"] != (2 if v["round"] == 1 else 1):
            bad("pending.resmask, pending.amount: not the round's production (G10)")
    if ph in ("exchange_to", "exchange_amount"):
        if pdv["from"] > 2 or v["res"][dd][pdv["from"]] == 0 or (ph == "exchange_amount" and pdv["to"] == pdv["from"]):
            bad("pending.from, pending.to: an exchange is from a resource held to another (G18)")
    if ph in ("scout_return", "artyom"):
        _, who, st = (v["agenda"][len(v["agenda"]) - 1][1:] if ph == "scout_return" else (dd, pdv["who"], pdv["station"]))
        if (v["owner"][st] >= 0 or MAP.m.kind[st] >= 3 or (who == 1 and v["hero_at"][dd] != st)
                or (ph == "artyom" and (who != 1 or not t.threat_choice[v["hero"][dd]]))):
            bad("pending.station, agenda: a neutral fight is at a neutral producing station (G23, G24)")
        if ph == "scout_return" and (not v["scouted"][dd] or v["scouted_round"][dd] >= v["round"]):
            bad("scouted: a scouted threat returns only in a later round (G24)")
    if ph == "capture":
        st = pdv["station"]
        cost = [1 - pdv["taken"], 1, 0]
        if v["law"] >= 0:
            cost = [cost[r] + t.capture_cost[v["law"]][r] for r in range(3)]
        if v["owner"][st] >= 0 or MAP.m.kind[st] in (M33_HANSA, M33_ABANDONED) or any(
                v["res"][dd][r] < cost[r] for r in range(3)):
            bad("pending.station: a capture is of a neutral station, paid for (G15)")
    return v


def _fit(int size, int room, where):
    """The copy-in's own guard: a length must fit its C array before anything is written."""
    if not 0 <= size <= room:
        raise StateFormatError(f"metro2033 state: {where}: {size} entries, room for {room}")
    return size


def _copy_in(FastMetro2033 f, dict v):
    """Write `_validate`'s values into the fresh struct, every length checked before its write."""
    cdef Data* d = &f.d
    cdef int n = v["n"], i, p, k, s
    memset(d, 0, sizeof(Data))
    d.n = _fit(n, MAX_PLAYERS, "players")
    d.rng = <uint64_t>v["rng"]
    for k in range(5):
        d.deck_n[k] = _fit(len(v["decks"][k]), MAXC, "decks")
        for i, c in enumerate(v["decks"][k]):
            d.deck[k][i] = c
        d.disc_n[k] = _fit(len(v["discards"][k]), MAXC, "discards")
        for i, c in enumerate(v["discards"][k]):
            d.disc[k][i] = c
    d.out_n = _fit(len(v["out"]), MAXC, "out")
    for i, c in enumerate(v["out"]):
        d.out[i] = c
    _fit(len(v["market"]), 4, "market")
    for i, c in enumerate(v["market"]):
        d.market[i] = c
    d.law = v["law"]
    for c, mask in v["known"].items():
        _fit(c, MAXC - 1, "known")
        d.known[c] = mask
    _fit(len(v["owner"]), S, "owner")
    for s, o in enumerate(v["owner"]):
        d.owner[s] = o
    for p in range(n):
        d.faction[p] = v["faction"][p]
        d.hero[p] = v["hero"][p]
        d.hero_at[p] = v["hero_at"][p]
        d.wounded[p] = v["wounded"][p]
        d.vp[p] = v["vp"][p]
        d.army[p] = v["army"][p]
        for i in range(3):
            d.res[p][i] = v["res"][p][i]
        d.equip_n[p] = _fit(len(v["equipment"][p]), MAXE, "equipment")
        for i, c in enumerate(v["equipment"][p]):
            d.equip[p][i] = c
        d.quest_n[p] = _fit(len(v["quests"][p]), MAXQ, "quests")
        for i, c in enumerate(v["quests"][p]):
            d.quests[p][i] = c
        d.done_n[p] = _fit(len(v["done_quests"][p]), MAXQ, "done_quests")
        for i, c in enumerate(v["done_quests"][p]):
            d.done[p][i] = c
        d.used_n[p] = _fit(len(v["quest_used"][p]), MAXQ, "quest_used")
        for i, c in enumerate(v["quest_used"][p]):
            d.used[p][i] = c
        d.scouted[p] = v["scouted"][p][0] if v["scouted"][p] else -1
        d.scouted_round[p] = v["scouted_round"][p]
        d.decl_station[p], d.decl_hero[p] = v["declared"][p]
    d.threat_now = v["threat_now"]
    d.last_threat = v["last_threat"]
    if v["vote"] is not None:
        d.vote_on = True
        d.vote_law, d.vote_for, d.vote_against = v["vote"]
    if v["last_vote"] is not None:
        d.last_vote_on = True
        d.last_vote[0], d.last_vote[1], d.last_vote[2] = v["last_vote"]
    d.round, d.first, d.stage = v["round"], v["first"], v["stage"]
    d.over = v["over"]
    d.winner = v["winner"]
    d.phase = PHASES.index(v["phase"])
    d.decider = v["decider"]
    pd = v["pending"]
    d.pd_ncards = _fit(len(pd["cards"]), 2, "pending.cards")
    for i, c in enumerate(pd["cards"]):
        d.pd_cards[i] = c
    d.pd_votes, d.pd_max, d.pd_side, d.pd_who = pd["votes"], pd["max"], pd["side"], pd["who"]
    d.pd_station, d.pd_taken, d.pd_from, d.pd_to = pd["station"], pd["taken"], pd["from"], pd["to"]
    d.pd_bought, d.pd_refreshed, d.pd_forced = pd["bought"], pd["refreshed"], pd["forced"]
    d.pd_amount, d.pd_resmask = pd["amount"], pd["resmask"]
    fg = v["fight"]
    d.cx_kind, d.cx_station = fg["kind"], fg["station"]
    for s in range(2):
        d.cx_side[s] = fg["side"][s]
        d.cx_who[s] = fg["who"][s]
    cb = v["combat"]
    d.pick[0] = d.pick[1] = -1
    if cb is not None:
        d.combat_on = True
        for s in range(2):
            d.hand_n[s] = _fit(len(cb["hands"][s]), 8, "combat.hands")
            for i, c in enumerate(cb["hands"][s]):
                d.hand[s][i] = c
            if cb["picks"][s]:
                d.pick[s] = cb["picks"][s][0]
        d.aside_n = _fit(len(cb["aside"]), MAXC, "combat.aside")
        for i, c in enumerate(cb["aside"]):
            d.aside[i] = c
    d.ag_n = _fit(len(v["agenda"]), MAXT, "agenda")
    for i, (name, a, b, c) in enumerate(v["agenda"]):
        d.ag[i].name = TASK_NAMES.index(name)
        d.ag[i].a, d.ag[i].b, d.ag[i].c = a, b, c
