# cython: language_level=3
# Why one module of about 1,500 lines: the state machine is one cdef class whose nogil methods call
# one another (the agenda runner, legal actions and applying an action step through the same
# phases), declared in machine.pxd; it holds the rules G1-G36 and nothing else.
"""Metro 2033 (board game): the state machine in C.

``FastMetro2033``: the whole game of the reference engine (``reference.py``, rules G1-G36) over
the flat C state ``Data`` (``rules.pxd``): the same decisions, the same action ids, the same draws
from the same splitmix64 stream, so that the differential tests can compare the two after every
action. The card set is compiled once (``cardset.pyx``); ``determinize`` redeals exactly as the
reference does. The contract's game and state (``state.pyx``) call its ``nogil`` methods.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.rng cimport rng_t, rng_bounded
from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.cardset cimport CardTables
from metro_ai.engine.metro2033.cards import load_card_set

PHASES = ("none", "draft_faction", "draft_hero", "place_hero", "polis_res", "law_peek", "vote", "declare",
          "scout_return", "artyom", "capture", "free_station", "defender", "combat_pick", "take_equipment",
          "strip_equipment", "discard_equipment", "hire", "army", "hero_move", "hero_act", "buy",
          "quest_keep", "exchange_from", "exchange_to", "exchange_amount", "stage2_equipment", "law_look",
          "upkeep", "quest_complete", "over")

# G8: the round track (resource bits 1, 2, 4; law 8; threat 16), START first
TRACK_EVENTS = (1 | 2 | 4, 2 | 1, 8 | 4, 16, 2 | 4, 8 | 1, 16, 1 | 4, 8 | 2, 16)
cdef int TRACK[10]
for _i, _v in enumerate(TRACK_EVENTS):
    TRACK[_i] = _v

TASK_NAMES = ("draft_faction", "draft_hero", "setup", "place_hero", "round_start", "produce", "polis_res",
              "law_event", "vote", "law_result", "declare", "threat_reveal", "threat_fight", "threat_done",
              "mobilise", "army", "hero", "hero_act", "neutral_attack", "neutral_fight", "capture",
              "free_station", "defender", "combat_deal", "combat_pick", "combat_resolve", "take_equipment",
              "strip_equipment", "discard_equipment", "buy", "exchange_from", "exchange_to", "exchange_amount",
              "stage2_equipment", "end_round", "quest_check", "quest_offer")
# The arguments of each task (J_* order): p a player, s a station, w army/hero (0/1), b 0/1, m a
# resource mask 0..7, k an amount 1..2, r a resource 0..2; unused arguments are 0.
TASK_ARGS = ("p", "p", "", "p", "", "mk", "pmk", "", "p", "", "p", "", "p", "", "p", "p", "p", "p",
              "pws", "pws", "psb", "p", "p", "", "b", "", "ppb", "ppb", "p", "pbb", "p", "pr", "prr", "p", "", "",
              "p")
HIDDEN_PENDING = (P_LAW_PEEK, P_ARTYOM, P_QUEST_KEEP, P_STAGE2_EQ)
DECK_KEYS = ("equipment", "quest", "law", "threat1", "threat2")

cdef Metro2033Map MAP = Metro2033Map()
THE_MAP = MAP                                    # the map's tables, for the loader's checks


cdef class FastMetro2033:
    """One game, as ``RefMetro2033Game(players, cards, strict_counts, round_limit).new_state(seed)``:
    ``legal_actions()``, ``apply(a)``, ``is_terminal()``, ``scores()``, ``returns()``,
    ``current_player``, ``phase``, ``ref_data()`` (the state in the reference's layout, for the
    differential test), ``determinize(player, seed)`` (the reference's, in C), ``reset(seed)`` (a
    new game, the tables kept) and ``random_playout(seed)`` (a whole random game in C)."""

    def __init__(self, int players=2, cards=None, bint strict_counts=True, int round_limit=40, seed=0):
        if not 2 <= players <= 6:
            raise ValueError(f"players must be 2..6, got {players}")
        if round_limit < 1:
            raise ValueError(f"round_limit must be >= 1, got {round_limit}")
        _check_seed(seed)
        self.card_set = load_card_set(cards, strict_counts=strict_counts)
        self.tab = CardTables(self.card_set)
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

    cdef void _task(self, int name, int a, int b, int c) noexcept nogil:
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

    cdef int _tkey(self) noexcept nogil:
        return K_THREAT1 if self.d.stage == 1 else K_THREAT2

    cdef void _refill_market(self) noexcept nogil:
        cdef int i
        for i in range(4):
            if self.d.market[i] < 0:
                self.d.market[i] = self._draw(K_EQUIPMENT)

    # ---------------------------------------------------------------- helpers
    cdef int _order(self, int i) noexcept nogil:
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

    cdef int _limit(self) noexcept nogil:
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

    cdef int _outcome(self, int a, int b, bint at, bint bt) noexcept nogil:
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
