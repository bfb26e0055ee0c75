# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Metro 2033: Breakthrough (card game): a fast determinised engine (rules B1-B9, R1-R24).

Rules as this project plays them: ``shared/rules/breakthrough.md`` (B1-B9); the decisions the
rulebook leaves open (R1-R24), the action encoding, the deal and the RNG use are specified in the
module docstring of the reference engine ``tests/reference/breakthrough_ref.py``, which this
engine matches bit for bit (``tests/test_breakthrough_differential.py``). Cards come from a card-set
file read with ``engine/cards.py`` (default: the shipped reconstructed set).

Encoding (public contract, shared with the reference engine)
-----------------------------------------------------------
With C the number of cards (133): ``block * C + card`` for the blocks PLAY 0, PLAY_ROTATED 1,
DISCARD 2, DISCARD3 3, CLEANUP 4, QUEST 5, QUEST_HERO 6, PROTECT 7, LOSE_STATION 8, then
``9*C + s`` for TAKE_MARKET s (s = 0, 1, 2), TAKE_DECK 3, END_TURN 4, QUEST_NO_HERO 5,
KEEP_STATION 6, DISCARD_STATION 7, PASS 8. ``9*C + 9`` actions in all (1206).

Seeds: splitmix64 (``rng.pxd``). ``new_state(seed)`` shuffles the faction ids (if random), then the
non-faction ids ascending with Fisher-Yates from the end; element 0 is the top of the deck; five
rounds of one card per player, then three market cards. A reshuffle (B3) shuffles the discard pile
sorted ascending with the state's RNG. ``determinize`` follows R21 exactly (see the reference).

Observed actions: an action reveals nothing hidden beyond what applying it makes public (a card
played or discarded from a hand is then on the table or the discard pile; TAKE_DECK does not name
the card drawn), so ``c_observed_action`` is the identity inherited from the contract.

Heuristic (``c_heuristic``, public information only): tokens held (the score, B8) plus
``0.5 *`` the progress of the player's most advanced open quest (faction card face up or a station
in play without tokens), where progress = min(1, eligible unrotated resource quantity / amount),
counting the best hero in play as doubling its type (B5, R3). A completed quest is worth at
least one token, so half a token for a quest that is ready is a cautious estimate.
"""
import json

from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t

from .core cimport GameState, rank_return
from .rng cimport rng_t, rng_bounded, rng_shuffle
from .core import as_seed, parse_state_json
from .errors import StateFormatError
from . import cards as cards_mod

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

# card types
cdef enum:
    CT_RESOURCE = 0
    CT_STATION = 1
    CT_THREAT = 2
    CT_CARAVAN = 3
    CT_HERO = 4
    CT_FACTION = 5

# action blocks and offsets after 9*C (as in the reference)
cdef enum:
    B_PLAY = 0
    B_PLAY_ROTATED = 1
    B_DISCARD = 2
    B_DISCARD3 = 3
    B_CLEANUP = 4
    B_QUEST = 5
    B_QUEST_HERO = 6
    B_PROTECT = 7
    B_LOSE_STATION = 8
    O_TAKE_DECK = 3
    O_END_TURN = 4
    O_QUEST_NO_HERO = 5
    O_KEEP_STATION = 6
    O_DISCARD_STATION = 7
    O_PASS = 8

cdef enum:
    ST_CHECK = 0
    ST_PROTECT = 1
    ST_FREE = 2

cdef int TOKENS_PER_COLOUR = 10
cdef int START_TOKENS = 5
cdef int WIN_TOKENS = 10
cdef double QUEST_PROGRESS_WEIGHT = 0.5      # see c_heuristic

CARD_TYPES = ("resource", "station", "threat", "caravan", "hero", "faction")
RESOURCE_TYPES = ("welfare", "food", "items", "weapon", "bullets", "equipment")
THREAT_TYPES = ("biological", "mental", "radiative", "physical", "epidemiological", "unknown")
QUEST_CLASSES = ("peaceful", "military", "trade")
CLASSES = ("peaceful", "military")
LINES = ("red_line", "hansa", "polis", "neutral")
LOSSES = ("station", "peaceful_resources", "military_resources", "all_resources")
PHASES = ("main", "quest_hero", "keep_station", "discard3", "draw", "protect", "free_play",
          "lose_station", "over")
SURVIVAL_OPTIONS = ("full_protection_required", "failed_defence_tokens_down",
                    "quest_tokens_stay_down")

# Reason codes of c_check.
cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_PHASE = 3
    R_NOT_IN_HAND = 4
    R_MAIN_DONE = 5
    R_CANNOT_PLAY = 6
    R_COST = 7
    R_HAND_SMALL = 8
    R_NOT_PLAYED = 9
    R_QUEST = 10
    R_END_TURN = 11
    R_HERO = 12
    R_NO_HERO = 13
    R_KEEP = 14
    R_DISCARD3 = 15
    R_SLOT = 16
    R_DECK = 17
    R_PROTECT = 18
    R_STATION = 19

_REASONS = {
    R_OVER: "the game is over",
    R_RANGE: "not a Breakthrough action (0 .. 9*C+8, see the module docstring)",
    R_PHASE: "that kind of action is not available in this phase",
    R_NOT_IN_HAND: "that card is not in the hand of the player to move",
    R_MAIN_DONE: "the main action of this turn is already taken (B1)",
    R_CANNOT_PLAY: "that card cannot be played that way (B2, R12)",
    R_COST: "too few tokens above the faction card to pay its cost (B2, B4)",
    R_HAND_SMALL: "discard-three needs three cards, picked in increasing id order (R5)",
    R_NOT_PLAYED: "that card is not played in front of the player",
    R_QUEST: "that quest is not open or cannot be completed with the resources in play (B5)",
    R_END_TURN: "the turn cannot end before the main action (B1, R6)",
    R_HERO: "that hero cannot double for this quest (R3)",
    R_NO_HERO: "the quest cannot be completed without a hero (R3)",
    R_KEEP: "too few tokens above to place on the station (B5, R4)",
    R_DISCARD3: "discard-three picks must be hand cards in increasing id order (R5)",
    R_SLOT: "that market slot is empty",
    R_DECK: "the deck and the discard pile are empty",
    R_PROTECT: "that card is not a played protection matching the monster (B7, R13)",
    R_STATION: "that card is not a station in play (B7)",
}


# =============================================================================================
# bit and RNG helpers
# =============================================================================================
cdef inline bint _has(const uint64_t* m, int c) noexcept nogil:
    return (m[c >> 6] >> (c & 63)) & 1


cdef inline void _bset(uint64_t* m, int c) noexcept nogil:
    m[c >> 6] |= (<uint64_t>1) << (c & 63)


cdef inline void _bclr(uint64_t* m, int c) noexcept nogil:
    m[c >> 6] &= ~((<uint64_t>1) << (c & 63))


cdef inline int _ctz(uint64_t x) noexcept nogil:
    return __builtin_ctzll(x)


cdef inline int _bits_to_ids(const uint64_t* mark, unsigned char* out) noexcept nogil:
    """Write the card ids set in a BT_WORDS-word bitset to `out`, ascending; return how many."""
    cdef int w, m = 0
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = mark[w]
        while x:
            out[m] = <unsigned char>(w * 64 + _ctz(x))
            x &= x - 1
            m += 1
    return m


cdef inline int _cls_of(int rtype) noexcept nogil:
    return 1 if rtype >= 3 else 0          # welfare, food, items peaceful; the rest military


# =============================================================================================
# the game: options and rule tables
# =============================================================================================
cdef class BreakthroughGame:
    """Metro 2033: Breakthrough for 2-5 players.

    Options: ``players`` (2-5), the survival switches ``full_protection_required``,
    ``failed_defence_tokens_down``, ``quest_tokens_stay_down`` (B9, R13-R15), ``factions``
    ("random" or one faction name or card id per player, R22), ``turn_limit`` (B8, R18) and
    ``card_set`` (path of a card-set file, see ``engine/cards.py``; default the shipped set).
    """
    cdef BtTables tables
    cdef readonly int players
    cdef readonly bint full_protection_required
    cdef readonly bint failed_defence_tokens_down
    cdef readonly bint quest_tokens_stay_down
    cdef readonly object factions          # "random" or a tuple of faction names
    cdef readonly int turn_limit
    cdef readonly object card_set          # the cards.CardSet
    cdef readonly object card_set_path     # None (shipped set) or the path given
    cdef readonly tuple card_names
    cdef readonly dict name_to_ids

    name = "breakthrough"
    # Play-out settings the search bots use unless told otherwise: uniform random play undoes its
    # own progress and never ends a game, so play-outs use the light heuristic policy for 10
    # actions and score the heuristic by a soft rank (logistic, scale 1 token). Against greedy,
    # 2 players, 1,000 iterations a move, 20 games each: this won 100%; a hard rank at the
    # cut-off 65%; random play-outs with the soft rank 95%; random play-outs to a depth of 40, 0%.
    search_defaults = {"rollout": "heuristic", "rollout_depth": 10, "cutoff_scale": 1.0}

    def __init__(self, players=2, full_protection_required=False, failed_defence_tokens_down=False,
                 quest_tokens_stay_down=False, factions="random", turn_limit=1000, card_set=None):
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise ValueError(f"breakthrough: players must be an int from 2 to 5, got {players!r}")
        for name, v in (("full_protection_required", full_protection_required),
                        ("failed_defence_tokens_down", failed_defence_tokens_down),
                        ("quest_tokens_stay_down", quest_tokens_stay_down)):
            if not isinstance(v, bool):
                raise ValueError(f"breakthrough: {name} must be True or False, got {v!r}")
        if isinstance(turn_limit, bool) or not isinstance(turn_limit, int) or not 1 <= turn_limit <= 2**31 - 1:
            raise ValueError(f"breakthrough: turn_limit must be an int >= 1 (B8, R18), got {turn_limit!r}")
        if card_set is not None and not isinstance(card_set, (str, bytes)) and not hasattr(card_set, "__fspath__"):
            raise ValueError(f"breakthrough: card_set must be a path to a card-set file, got {card_set!r}")
        cs = cards_mod.load_card_set(card_set)      # CardSetError (a DataError) names card and field
        self.players = players
        self.full_protection_required = full_protection_required
        self.failed_defence_tokens_down = failed_defence_tokens_down
        self.quest_tokens_stay_down = quest_tokens_stay_down
        self.turn_limit = turn_limit
        self.card_set = cs
        self.card_set_path = None if card_set is None else str(card_set)
        self.card_names = tuple(c.name for c in cs.cards)
        self.name_to_ids = {}
        for c in cs.cards:
            self.name_to_ids.setdefault(c.name, []).append(c.id)
        self._build_tables()
        fids = [self.tables.faction_ids[i] for i in range(self.tables.nfactions)]
        if isinstance(factions, str) and factions == "random":
            self.factions = "random"
            for i in range(5):
                self.tables.fixed_factions[i] = -1
        else:
            if not isinstance(factions, (list, tuple)) or len(factions) != players:
                raise ValueError(f"breakthrough: factions must be 'random' or a list of {players} "
                                 f"faction names, got {factions!r}")
            chosen = []
            for f in factions:
                fid = self.faction_id(f)
                if fid in chosen:
                    raise ValueError(f"breakthrough: factions: {f!r} chosen twice")
                chosen.append(fid)
            self.factions = tuple(self.card_names[f] for f in chosen)
            for i in range(5):
                self.tables.fixed_factions[i] = chosen[i] if i < players else -1

    def faction_id(self, f):
        """Card id of a faction given by name (any case) or id; ValueError if unknown."""
        fids = [self.tables.faction_ids[i] for i in range(self.tables.nfactions)]
        if isinstance(f, int) and not isinstance(f, bool) and f in fids:
            return f
        if isinstance(f, str):
            for fid in fids:
                if self.card_names[fid].lower() == f.lower():
                    return fid
        raise ValueError(f"breakthrough: factions: unknown faction {f!r}; factions are "
                         f"{', '.join(self.card_names[x] for x in fids)}")

    cdef _build_tables(self):
        cdef BtTables* t = &self.tables
        memset(t, 0, sizeof(BtTables))
        cs = self.card_set
        C = len(cs.cards)
        if C > BT_MAX_CARDS:
            raise ValueError(f"breakthrough: card_set has {C} cards; the engine holds at most {BT_MAX_CARDS}")
        t.C = C
        t.players = self.players
        t.turn_limit = self.turn_limit
        t.full_protection = self.full_protection_required
        t.tokens_down = self.failed_defence_tokens_down
        t.stay_down = self.quest_tokens_stay_down
        nf = nd = 0
        for card in cs.cards:
            k = card.kind
            c = card.id
            where = f"card {k.index} ({k.name!r})"
            for field in ("cost", "value", "protection_cost"):
                v = getattr(k, field)
                if v is not None and v > 100:
                    raise ValueError(f"breakthrough: card_set: {where}: field {field!r}: {v} is above 100")
            if k.quantity is not None and k.quantity > BT_MAX_QTY:
                raise ValueError(f"breakthrough: card_set: {where}: field 'quantity': {k.quantity} is above {BT_MAX_QTY}")
            if k.quest is not None and k.quest.amount > BT_MAX_QUEST:
                raise ValueError(f"breakthrough: card_set: {where}: field 'quest': amount {k.quest.amount} is above {BT_MAX_QUEST}")
            ct = CARD_TYPES.index(k.type)
            t.ctype[c] = ct
            t.cost[c] = k.cost if k.cost is not None else 0
            t.move[c] = (k.value if ct in (CT_THREAT, CT_CARAVAN) else k.cost) if ct != CT_FACTION else 0
            t.rtype[c] = -1
            t.pcost[c] = -1
            t.loss[c] = -1
            t.line[c] = -1
            t.qclass[c] = -1
            t.rclass[c] = -1
            prot = 0
            for x in k.protection:
                prot |= 1 << THREAT_TYPES.index(x)
            t.prot[c] = prot
            if k.protection and k.protection_cost is not None:
                t.pcost[c] = k.protection_cost
            thr = 0
            for x in k.threats:
                thr |= 1 << THREAT_TYPES.index(x)
            t.threats[c] = thr
            rew = 0
            for x in k.reward_types:
                rew |= 1 << RESOURCE_TYPES.index(x)
            t.reward[c] = rew
            if k.quest is not None:
                t.qclass[c] = QUEST_CLASSES.index(k.quest.cls)
                t.qamount[c] = k.quest.amount
            t.extra[c] = 1 if k.extra_token else 0
            if ct == CT_RESOURCE:
                t.rtype[c] = RESOURCE_TYPES.index(k.resource_type)
                t.qty[c] = k.quantity
                t.rclass[c] = CLASSES.index(k.resource_class)
                _bset(t.resource_mask, c)
            elif ct == CT_STATION:
                t.rtype[c] = RESOURCE_TYPES.index(k.resource_icon)
                t.line[c] = LINES.index(k.line)
                t.rclass[c] = CLASSES.index(k.reward_class)
                _bset(t.station_mask, c)
            elif ct == CT_THREAT:
                t.loss[c] = LOSSES.index(k.loss)
            elif ct == CT_CARAVAN:
                t.rclass[c] = CLASSES.index(k.caravan_class)
            elif ct == CT_HERO:
                t.rtype[c] = RESOURCE_TYPES.index(k.doubles)
                _bset(t.hero_mask, c)
            else:
                t.rclass[c] = CLASSES.index(k.reward_class)
            t.play_ok[c] = ct in (CT_RESOURCE, CT_STATION, CT_HERO)
            t.rot_ok[c] = ct in (CT_RESOURCE, CT_THREAT) and prot != 0
            if ct == CT_FACTION:
                t.faction_ids[nf] = c
                nf += 1
            else:
                t.deck_ids[nd] = c
                nd += 1
        t.nfactions = nf
        t.ndeck = nd
        if nf < self.players:
            raise ValueError(f"breakthrough: card_set has {nf} factions for {self.players} players")
        if nd < BT_HAND * self.players + BT_MARKET:
            raise ValueError(f"breakthrough: card_set has too few cards to deal")

    @property
    def num_players(self):
        return self.players

    @property
    def num_cards(self):
        return self.tables.C

    @property
    def options(self):
        return {"players": self.players,
                "full_protection_required": self.full_protection_required,
                "failed_defence_tokens_down": self.failed_defence_tokens_down,
                "quest_tokens_stay_down": self.quest_tokens_stay_down,
                "factions": self.factions if self.factions == "random" else list(self.factions),
                "turn_limit": self.turn_limit,
                "card_set": self.card_set_path}

    @property
    def max_actions(self):
        return BT_MAX_ACTIONS

    @property
    def num_distinct_actions(self):
        return 9 * self.tables.C + 9

    def faction_ids(self):
        return [self.tables.faction_ids[i] for i in range(self.tables.nfactions)]

    def card(self, int c):
        """The cards.Card with id ``c``."""
        if not 0 <= c < self.tables.C:
            raise ValueError(f"unknown card id {c}; ids are 0..{self.tables.C - 1}")
        return self.card_set.cards[c]

    def __repr__(self):
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"BreakthroughGame({opts})"

    def __reduce__(self):
        return (_make_game, (self.options,))

    cdef BreakthroughState _blank(self):
        cdef BreakthroughState st = BreakthroughState.__new__(BreakthroughState)
        st.game = self
        st.t = &self.tables
        return st

    def new_state(self, seed=0):
        """A new game dealt from `seed` exactly as the reference does (module docstring)."""
        cdef rng_t rng = as_seed(seed)
        cdef BreakthroughState st = self._blank()
        cdef BtData* d = &st.d
        cdef const BtTables* t = &self.tables
        cdef unsigned char order[BT_MAX_CARDS]
        cdef int i, p, r, n = t.players, pos
        _clear(d, t)
        if t.fixed_factions[0] < 0:
            memcpy(order, t.faction_ids, t.nfactions)
            rng_shuffle(&rng, order, t.nfactions)
            for p in range(n):
                d.faction[p] = order[p]
        else:
            for p in range(n):
                d.faction[p] = t.fixed_factions[p]
        memcpy(order, t.deck_ids, t.ndeck)
        rng_shuffle(&rng, order, t.ndeck)
        pos = 0
        for r in range(BT_HAND):
            for p in range(n):
                _to_hand(d, p, order[pos], 0)
                pos += 1
        for i in range(BT_MARKET):
            d.market[i] = order[pos]
            pos += 1
        d.deck_n = t.ndeck - pos
        for i in range(d.deck_n):            # stored bottom first: the top is deck[deck_n - 1]
            d.deck[i] = order[t.ndeck - 1 - i]
        d.rng = rng
        return st

    def state_from_json(self, text):
        """Rebuild a state from `to_json()` output, checking it against the rules.

        Malformed or inconsistent input raises StateFormatError saying what is wrong."""
        return _state_from_json(self, text)

    def setup(self, hands, **kw):
        """A hand-made position by card names, exactly as the reference's ``setup`` builds it
        (see RefBreakthroughGame.setup): for scenario tests and teaching positions."""
        return _setup(self, hands, **kw)


def _make_game(options):
    return BreakthroughGame(**options)


# =============================================================================================
# state mechanics (C level)
# =============================================================================================
cdef void _clear(BtData* d, const BtTables* t) noexcept nogil:
    cdef int p
    memset(d, 0, sizeof(BtData))
    memset(d.hand, 0, sizeof(d.hand))
    memset(d.market, BT_NONE, BT_MARKET)
    for p in range(BT_MAX_PLAYERS):
        d.above[p] = START_TOKENS if p < t.players else 0
        d.supply[p] = TOKENS_PER_COLOUR - START_TOKENS if p < t.players else 0
    d.turn = 1
    d.winner = -1
    d.ag_draw = -1
    d.phase = BT_MAIN


cdef inline void _to_hand(BtData* d, int p, int c, int gen) noexcept nogil:
    """Insert c into p's sorted hand (R23); gen = -1 for a known card (R20)."""
    cdef int i = d.hand_n[p]
    while i > 0 and d.hand[p][i - 1] > c:
        d.hand[p][i] = d.hand[p][i - 1]
        d.hgen[p][i] = d.hgen[p][i - 1]
        i -= 1
    d.hand[p][i] = <unsigned char>c
    d.hgen[p][i] = gen
    d.hand_n[p] += 1


cdef inline void _from_hand(BtData* d, int p, int c) noexcept nogil:
    cdef int i, j, n = d.hand_n[p]
    for i in range(n):
        if d.hand[p][i] == c:
            for j in range(i, n - 1):
                d.hand[p][j] = d.hand[p][j + 1]
                d.hgen[p][j] = d.hgen[p][j + 1]
            d.hand_n[p] = n - 1
            d.hand[p][n - 1] = 0
            d.hgen[p][n - 1] = 0
            return


cdef inline int _hand_index(const BtData* d, int p, int c) noexcept nogil:
    cdef int i
    for i in range(d.hand_n[p]):
        if d.hand[p][i] == c:
            return i
    return -1


cdef int _draw_from_deck(BtData* d, const BtTables* t) noexcept nogil:
    """The top card of the deck, reshuffling the discard pile sorted ascending (B3); -1 if none."""
    cdef uint64_t mark[3]
    cdef unsigned char pile[BT_MAX_CARDS]
    cdef int i, m, w, c
    cdef uint64_t x
    if d.deck_n == 0:
        if d.disc_n == 0:
            return -1
        mark[0] = mark[1] = mark[2] = 0
        for i in range(d.disc_n):
            _bset(mark, d.disc[i])
        m = _bits_to_ids(mark, pile)
        rng_shuffle(&d.rng, pile, m)
        for i in range(m):
            d.deck[i] = pile[m - 1 - i]
        d.deck_n = m
        d.disc_n = 0
        d.deck_gen += 1
    d.deck_n -= 1
    c = d.deck[d.deck_n]
    d.deck[d.deck_n] = 0
    return c


cdef inline void _fill_market(BtData* d, const BtTables* t) noexcept nogil:
    """R8: fill empty slots in slot order while cards are available."""
    cdef int s, c
    for s in range(BT_MARKET):
        if d.market[s] == BT_NONE:
            c = _draw_from_deck(d, t)
            d.market[s] = BT_NONE if c < 0 else <unsigned char>c


cdef inline bint _card_available(const BtData* d) noexcept nogil:
    return d.deck_n > 0 or d.disc_n > 0 or d.market[0] != BT_NONE or \
        d.market[1] != BT_NONE or d.market[2] != BT_NONE


cdef inline void _discard_played(BtData* d, int p, int c) noexcept nogil:
    """Move a played card to the discard pile; station tokens go above (B1 clean-up, B7)."""
    _bclr(d.tab[p], c)
    _bclr(d.rot, c)
    d.above[p] += d.tok[c]
    d.tok[c] = 0
    d.disc[d.disc_n] = <unsigned char>c
    d.disc_n += 1


cdef inline void _move_up(BtData* d, int p, int k) noexcept nogil:
    if k > d.below[p]:
        k = d.below[p]
    d.below[p] -= k
    d.above[p] += k


cdef inline int _tokens(const BtData* d, int p) noexcept nogil:
    return TOKENS_PER_COLOUR - d.supply[p]


cdef void _cost_context(const BtData* d, const BtTables* t, int p, int* free, int* icons,
                        int* lines) noexcept nogil:
    """What B4 costs depend on: free resource types, station icons in play, stations per line."""
    cdef int w, c
    cdef uint64_t x
    free[0] = t.reward[d.faction[p]] if d.fdone[p] else 0
    icons[0] = 0
    lines[0] = lines[1] = lines[2] = lines[3] = 0
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.station_mask[w]
        while x:
            c = w * 64 + _ctz(x)
            x &= x - 1
            icons[0] |= 1 << t.rtype[c]
            lines[t.line[c]] += 1
            if d.tok[c] > 0:
                free[0] |= t.reward[c]


cdef inline int _face_cost(const BtTables* t, int c, int free, int icons, const int* lines) noexcept nogil:
    """B4, R9: the cost of playing c face up."""
    cdef int ct = t.ctype[c], v
    if ct == CT_RESOURCE:
        if (free >> t.rtype[c]) & 1:
            return 0
        v = t.cost[c] - ((icons >> t.rtype[c]) & 1)
    elif ct == CT_STATION:
        v = t.cost[c] - (0 if t.line[c] == 3 else lines[t.line[c]])
    else:
        v = t.cost[c]
    return v if v > 0 else 0


cdef int _play_cost(const BtData* d, const BtTables* t, int p, int c, bint rotated) noexcept nogil:
    cdef int free, icons
    cdef int lines[4]
    if rotated:
        return t.pcost[c]
    if t.ctype[c] == CT_HERO:
        return t.cost[c]
    _cost_context(d, t, p, &free, &icons, lines)
    return _face_cost(t, c, free, icons, lines)


cdef void _totals(const BtData* d, const BtTables* t, int p, int* tot) noexcept nogil:
    """Quantity of p's unrotated resources per type."""
    cdef int w, c, i
    cdef uint64_t x
    for i in range(6):
        tot[i] = 0
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
        while x:
            c = w * 64 + _ctz(x)
            x &= x - 1
            tot[t.rtype[c]] += t.qty[c]


cdef inline int _quest_total(const int* tot, int qcls, int dbl) noexcept nogil:
    cdef int i, s = 0
    for i in range(6):
        if qcls == 2 or _cls_of(i) == qcls:
            s += tot[i] * (2 if i == dbl else 1)
    return s


cdef inline bint _hero_fits(const BtTables* t, int h, const int* tot, int qcls, int amount) noexcept nogil:
    """R3: hero h may double for the quest."""
    cdef int ty = t.rtype[h]
    return tot[ty] > 0 and (qcls == 2 or _cls_of(ty) == qcls) and _quest_total(tot, qcls, ty) >= amount


cdef bint _any_hero(const BtData* d, const BtTables* t, int p, const int* tot, int qcls, int amount) noexcept nogil:
    cdef int w, c
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.hero_mask[w]
        while x:
            c = w * 64 + _ctz(x)
            x &= x - 1
            if _hero_fits(t, c, tot, qcls, amount):
                return True
    return False


cdef inline bint _quest_open(const BtData* d, const BtTables* t, int p, int c) noexcept nogil:
    """c has an open quest for p: the face-up faction card, or a station in play without tokens."""
    if c == d.faction[p]:
        return not d.fdone[p]
    return t.ctype[c] == CT_STATION and _has(d.tab[p], c) and d.tok[c] == 0


cdef inline bint _quest_ok(const BtData* d, const BtTables* t, int p, int c, const int* tot) noexcept nogil:
    """QUEST c is legal: open, and reachable without a hero or with some hero (R3)."""
    cdef int qc = t.qclass[c], amt = t.qamount[c]
    if not _quest_open(d, t, p, c):
        return False
    return _quest_total(tot, qc, -1) >= amt or _any_hero(d, t, p, tot, qc, amt)


cdef int _select(const BtData* d, const BtTables* t, int p, int qcls, int amount, int dbl,
                 int* out) noexcept nogil:
    """R2: the spent resources: among p's unrotated resources of the quest's class(es), the subset
    with sum >= amount minimising (sum, number of cards, ascending id list); written ascending.

    Exact and fast: sums are bounded (a minimal subset's sum is < amount + largest value), so
    bitsets of reachable sums per number of cards give the best (sum, count), and the smallest
    ids are then picked greedily, each pick keeping the rest feasible from the later cards."""
    cdef int e[BT_MAX_CARDS]
    cdef int v[BT_MAX_CARDS]
    cdef uint64_t S[BT_MAX_CARDS + 1][BT_MAX_QUEST + 1]   # S[i][j]: sums of j cards from e[i:]
    cdef int n = 0, w, c, i, j, K, T, k, need, left, start, vmax = 0
    cdef uint64_t x, cap_mask
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
        while x:
            c = w * 64 + _ctz(x)
            x &= x - 1
            if qcls == 2 or t.rclass[c] == qcls:
                e[n] = c
                v[n] = t.qty[c] * (2 if t.rtype[c] == dbl else 1)
                if v[n] > vmax:
                    vmax = v[n]
                n += 1
    if n == 0:
        return 0
    K = amount if amount < n else n
    cap_mask = ((<uint64_t>1) << (amount + vmax)) - 1     # sums 0 .. amount + vmax - 1 (< 64)
    for j in range(K + 1):
        S[n][j] = 0
    S[n][0] = 1
    for i in range(n - 1, -1, -1):
        S[i][0] = 1
        for j in range(1, K + 1):
            S[i][j] = (S[i + 1][j] | (S[i + 1][j - 1] << v[i])) & cap_mask
    T = -1
    k = -1
    for j in range(1, K + 1):
        x = S[0][j] >> amount
        if x:
            c = amount + _ctz(x)
            if T < 0 or c < T:
                T = c
                k = j
    if T < 0:
        return 0
    need = T
    left = k
    start = 0
    j = 0
    while left > 0:
        for i in range(start, n):
            if v[i] <= need and (S[i + 1][left - 1] >> (need - v[i])) & 1:
                out[j] = e[i]
                j += 1
                need -= v[i]
                left -= 1
                start = i + 1
                break
    return j


cdef bint _check_win(BtData* d, const BtTables* t) noexcept nogil:
    """B8: a player holding 10 tokens wins at once."""
    cdef int p
    for p in range(t.players):
        if _tokens(d, p) >= WIN_TOKENS:
            d.winner = p
            _game_over(d)
            return True
    return False


cdef inline void _game_over(BtData* d) noexcept nogil:
    d.phase = BT_OVER
    d.decider = -1
    d.ag_draw = -1
    d.ag_mon = 0
    d.ag_refill = 0
    d.ag_next = 0


cdef void _complete_quest(BtData* d, const BtTables* t, int p, int c, int hero) noexcept nogil:
    """B5, R2-R4, R15."""
    cdef int spent[BT_MAX_QUEST + 1]
    cdef int i, ns, gained, k, w, s
    cdef uint64_t x
    ns = _select(d, t, p, t.qclass[c], t.qamount[c], t.rtype[hero] if hero >= 0 else -1, spent)
    for i in range(ns):
        _discard_played(d, p, spent[i])
    if hero >= 0:
        _discard_played(d, p, hero)
    gained = 1 + t.extra[c]
    for i in range(gained):                                   # R4
        if d.supply[p] > 0:
            d.supply[p] -= 1
            d.above[p] += 1
    if not t.stay_down:                                       # R15
        d.above[p] += d.below[p]
        d.below[p] = 0
    if c == d.faction[p]:
        d.fdone[p] = 1
        _check_win(d, t)
        return
    if _check_win(d, t):
        return
    k = 1
    for w in range(BT_WORDS):
        x = d.tab[p][w] & t.station_mask[w]
        while x:
            s = w * 64 + _ctz(x)
            x &= x - 1
            if d.tok[s] > 0:
                k += 1
    d.phase = BT_KEEP
    d.pcard = <unsigned char>c
    d.pk = k


cdef void _play(BtData* d, const BtTables* t, int p, int c, bint rotated, bint free) noexcept nogil:
    cdef int cost = 0 if free else _play_cost(d, t, p, c, rotated)
    d.above[p] -= cost
    d.below[p] += cost
    _from_hand(d, p, c)
    _bset(d.tab[p], c)
    if rotated:
        _bset(d.rot, c)
    d.tok[c] = 0


cdef void _renew_market(BtData* d, const BtTables* t) noexcept nogil:
    """B6, R8: discard slots 0, 1, 2 in order, then refill them."""
    cdef int s
    for s in range(BT_MARKET):
        if d.market[s] != BT_NONE:
            d.disc[d.disc_n] = d.market[s]
            d.disc_n += 1
            d.market[s] = BT_NONE
    _fill_market(d, t)


cdef bint _repels(const BtData* d, const BtTables* t, int p, int threats) noexcept nogil:
    """B7, R12, R13: p has played protection matching the monster (all its icons under B9.1)."""
    cdef int w, c, covered = 0
    cdef uint64_t x
    for w in range(BT_WORDS):
        x = d.tab[p][w] & (t.hero_mask[w] | d.rot[w])
        while x:
            c = w * 64 + _ctz(x)
            x &= x - 1
            if t.prot[c] & threats:
                covered |= t.prot[c]
    if not t.full_protection:
        return covered != 0
    return (threats & ~covered) == 0


cdef inline bint _has_station(const BtData* d, const BtTables* t, int p) noexcept nogil:
    return ((d.tab[p][0] & t.station_mask[0]) | (d.tab[p][1] & t.station_mask[1])
            | (d.tab[p][2] & t.station_mask[2])) != 0


cdef inline void _after_loss(BtData* d, const BtTables* t, int p) noexcept nogil:
    if t.tokens_down:                                          # R14
        d.below[p] += d.above[p]
        d.above[p] = 0


cdef void _do(BtData* d, const BtTables* t, int a) noexcept nogil:
    """The effect of a legal action (the reference's _do)."""
    cdef int C = t.C, F = 9 * C, n = t.players
    cdef int p = d.decider, block, c, q, k, w, s, ph = d.phase, card
    cdef uint64_t x
    cdef int free, icons
    cdef int lines[4]
    cdef int tot[6]
    if a < F:
        block = a // C
        c = a % C
    else:
        block = -1
        c = a - F
    if ph == BT_MAIN:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            _play(d, t, p, c, block == B_PLAY_ROTATED, False)
            d.main_done = 1
            d.ag_draw = 1                                      # B2, R7
        elif block == B_DISCARD:
            d.main_done = 1
            _from_hand(d, p, c)
            d.disc[d.disc_n] = <unsigned char>c
            d.disc_n += 1
            _move_up(d, p, t.move[c])                          # R10
            if t.ctype[c] == CT_CARAVAN:                       # B6, R11
                _renew_market(d, t)
                for k in range(n):
                    q = (p + k) % n
                    s = 0
                    for w in range(BT_WORDS):
                        x = d.tab[q][w] & t.station_mask[w]
                        while x:
                            card = w * 64 + _ctz(x)
                            x &= x - 1
                            if t.rclass[card] == t.rclass[c]:
                                s += 1
                    if d.fdone[q] and t.rclass[d.faction[q]] == t.rclass[c]:
                        s += 1
                    _move_up(d, q, s)
                d.ag_draw = 1
            elif t.ctype[c] == CT_THREAT:                      # B7, R12
                d.ag_mon = 1
                d.mon_card = <unsigned char>c
                d.mon_pos = 0
                d.mon_stage = ST_CHECK
                d.ag_refill = 1
                d.refill_pos = 0
            else:
                d.ag_draw = 1
        elif block == B_DISCARD3:
            d.main_done = 1
            _from_hand(d, p, c)
            d.disc[d.disc_n] = <unsigned char>c
            d.disc_n += 1
            d.phase = BT_DISCARD3
            d.plast = <unsigned char>c
            d.pleft = 2
        elif block == B_CLEANUP:
            _discard_played(d, p, c)
        elif block == B_QUEST:
            _totals(d, t, p, tot)
            if _any_hero(d, t, p, tot, t.qclass[c], t.qamount[c]):
                d.phase = BT_QUEST_HERO
                d.pcard = <unsigned char>c
            else:
                _complete_quest(d, t, p, c, -1)
        elif c == O_END_TURN:
            d.main_done = 1
            d.ag_refill = 1                                    # B1, R17
            d.refill_pos = 0
            d.ag_next = 1
    elif ph == BT_QUEST_HERO:
        d.phase = BT_MAIN
        _complete_quest(d, t, p, d.pcard, c if block == B_QUEST_HERO else -1)
    elif ph == BT_KEEP:
        d.phase = BT_MAIN
        if c == O_KEEP_STATION:
            d.above[p] -= d.pk
            d.tok[d.pcard] = d.pk
        else:
            _discard_played(d, p, d.pcard)
    elif ph == BT_DISCARD3:
        _from_hand(d, p, c)
        d.disc[d.disc_n] = <unsigned char>c
        d.disc_n += 1
        d.plast = <unsigned char>c
        d.pleft -= 1
        if d.pleft == 0:
            d.phase = BT_MAIN
            d.ag_draw = 3
    elif ph == BT_DRAW:
        if c == O_TAKE_DECK:
            card = _draw_from_deck(d, t)
            _to_hand(d, p, card, d.deck_gen)
        else:
            card = d.market[c]
            k = _draw_from_deck(d, t)
            d.market[c] = BT_NONE if k < 0 else <unsigned char>k
            _to_hand(d, p, card, -1)                            # R20: known
        if d.ag_draw > 0:
            d.ag_draw -= 1
    elif ph == BT_PROTECT:
        _discard_played(d, p, c)
        d.puncov &= ~t.prot[c]
        if not t.full_protection or d.puncov == 0:
            d.mon_stage = ST_FREE
    elif ph == BT_FREE:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            _play(d, t, p, c, block == B_PLAY_ROTATED, True)
        d.mon_pos += 1
        d.mon_stage = ST_CHECK
    elif ph == BT_LOSE:
        _discard_played(d, p, c)
        _after_loss(d, t, p)
        d.mon_pos += 1
        d.mon_stage = ST_CHECK


cdef void _advance(BtData* d, const BtTables* t) noexcept nogil:
    """Run pending tasks until a decision is needed (the reference's _advance)."""
    cdef int n = t.players, p, w, c, loss, thr
    cdef uint64_t x
    if d.phase == BT_OVER:
        return
    _fill_market(d, t)                                         # R8
    if d.phase == BT_QUEST_HERO or d.phase == BT_KEEP or d.phase == BT_DISCARD3:
        d.decider = d.active
        return
    while True:
        if d.ag_draw >= 0:
            if d.ag_draw > 0 and _card_available(d):
                d.phase = BT_DRAW
                d.decider = d.active
                return
            d.ag_draw = -1
        elif d.ag_mon:
            if d.mon_pos >= n:
                d.ag_mon = 0
                continue
            p = (d.active + d.mon_pos) % n
            thr = t.threats[d.mon_card]
            if d.mon_stage == ST_CHECK:
                if _repels(d, t, p, thr):
                    d.mon_stage = ST_PROTECT
                    d.pcard = d.mon_card
                    d.puncov = <unsigned char>thr
                    d.phase = BT_PROTECT
                    d.decider = p
                    return
                loss = t.loss[d.mon_card]
                if loss == 0:
                    if _has_station(d, t, p):
                        d.pcard = d.mon_card
                        d.phase = BT_LOSE
                        d.decider = p
                        return
                else:
                    for w in range(BT_WORDS):
                        x = d.tab[p][w] & t.resource_mask[w] & ~d.rot[w]
                        while x:
                            c = w * 64 + _ctz(x)
                            x &= x - 1
                            if loss == 3 or t.rclass[c] + 1 == loss:
                                _discard_played(d, p, c)
                _after_loss(d, t, p)
                d.mon_pos += 1
            elif d.mon_stage == ST_PROTECT:
                d.phase = BT_PROTECT
                d.decider = p
                return
            else:
                if d.hand_n[p] > 0:
                    d.pcard = d.mon_card
                    d.phase = BT_FREE
                    d.decider = p
                    return
                d.mon_pos += 1
                d.mon_stage = ST_CHECK
        elif d.ag_refill:
            while d.refill_pos < n and (d.hand_n[(d.active + d.refill_pos) % n] >= BT_HAND
                                        or not _card_available(d)):
                d.refill_pos += 1
            if d.refill_pos < n:
                d.phase = BT_DRAW
                d.decider = (d.active + d.refill_pos) % n
                return
            d.ag_refill = 0
            d.refill_pos = 0
        elif d.ag_next:
            d.ag_next = 0
            if d.turn >= t.turn_limit:                         # B8, R18
                _game_over(d)
                return
            d.turn += 1
            d.active = (d.active + 1) % n
            d.main_done = 0
        else:
            break
    d.phase = BT_MAIN
    d.decider = d.active


cdef inline void _put(int* out, int* n, int a) noexcept nogil:
    out[n[0]] = a
    n[0] += 1


cdef int _legal(const BtData* d, const BtTables* t, int* out) noexcept nogil:
    """The legal actions, ascending (blocks in order, cards ascending in each)."""
    cdef int C = t.C, F = 9 * C, p = d.decider, n = 0, i, c, w, hn, f, above
    cdef int free, icons
    cdef int lines[4]
    cdef int tot[6]
    cdef uint64_t x
    cdef bint fpending
    cdef int ph = d.phase
    if ph == BT_OVER:
        return 0
    hn = d.hand_n[p]
    if ph == BT_MAIN:
        above = d.above[p]
        if not d.main_done:
            _cost_context(d, t, p, &free, &icons, lines)
            for i in range(hn):
                c = d.hand[p][i]
                if t.play_ok[c] and _face_cost(t, c, free, icons, lines) <= above:
                    _put(out, &n, B_PLAY * C + c)
            for i in range(hn):
                c = d.hand[p][i]
                if t.rot_ok[c] and t.pcost[c] <= above:
                    _put(out, &n, B_PLAY_ROTATED * C + c)
            for i in range(hn):
                _put(out, &n, B_DISCARD * C + d.hand[p][i])
            for i in range(hn - 2):                            # R5: two larger ids must remain
                _put(out, &n, B_DISCARD3 * C + d.hand[p][i])
        for w in range(BT_WORDS):
            x = d.tab[p][w]
            while x:
                _put(out, &n, B_CLEANUP * C + w * 64 + _ctz(x))
                x &= x - 1
        _totals(d, t, p, tot)
        f = d.faction[p]
        fpending = not d.fdone[p]
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.station_mask[w]
            while x:
                c = w * 64 + _ctz(x)
                x &= x - 1
                if fpending and f < c:
                    fpending = False
                    if _quest_ok(d, t, p, f, tot):
                        _put(out, &n, B_QUEST * C + f)
                if d.tok[c] == 0 and _quest_ok(d, t, p, c, tot):
                    _put(out, &n, B_QUEST * C + c)
        if fpending and _quest_ok(d, t, p, f, tot):
            _put(out, &n, B_QUEST * C + f)
        if d.main_done or hn == 0:                             # R6
            _put(out, &n, F + O_END_TURN)
    elif ph == BT_QUEST_HERO:
        c = d.pcard
        _totals(d, t, p, tot)
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.hero_mask[w]
            while x:
                i = w * 64 + _ctz(x)
                x &= x - 1
                if _hero_fits(t, i, tot, t.qclass[c], t.qamount[c]):
                    _put(out, &n, B_QUEST_HERO * C + i)
        if _quest_total(tot, t.qclass[c], -1) >= t.qamount[c]:
            _put(out, &n, F + O_QUEST_NO_HERO)
    elif ph == BT_KEEP:
        if d.above[p] >= d.pk:
            _put(out, &n, F + O_KEEP_STATION)
        _put(out, &n, F + O_DISCARD_STATION)
    elif ph == BT_DISCARD3:
        for i in range(hn):
            c = d.hand[p][i]
            if c > d.plast and hn - i - 1 >= d.pleft - 1:
                _put(out, &n, B_DISCARD3 * C + c)
    elif ph == BT_DRAW:
        for i in range(BT_MARKET):
            if d.market[i] != BT_NONE:
                _put(out, &n, F + i)
        if d.deck_n > 0 or d.disc_n > 0:
            _put(out, &n, F + O_TAKE_DECK)
    elif ph == BT_PROTECT:
        for w in range(BT_WORDS):
            x = d.tab[p][w] & (t.hero_mask[w] | d.rot[w])
            while x:
                c = w * 64 + _ctz(x)
                x &= x - 1
                if t.prot[c] & d.puncov:
                    _put(out, &n, B_PROTECT * C + c)
    elif ph == BT_FREE:
        for i in range(hn):
            c = d.hand[p][i]
            if t.play_ok[c]:
                _put(out, &n, B_PLAY * C + c)
        for i in range(hn):
            c = d.hand[p][i]
            if t.rot_ok[c]:
                _put(out, &n, B_PLAY_ROTATED * C + c)
        _put(out, &n, F + O_PASS)
    elif ph == BT_LOSE:
        for w in range(BT_WORDS):
            x = d.tab[p][w] & t.station_mask[w]
            while x:
                _put(out, &n, B_LOSE_STATION * C + w * 64 + _ctz(x))
                x &= x - 1
    return n


cdef int _reason_code(const BtData* d, const BtTables* t, int a) noexcept nogil:
    """Why a (known illegal) action is illegal."""
    cdef int C = t.C, F = 9 * C, p = d.decider, ph = d.phase, block, c, i
    cdef int tot[6]
    if ph == BT_OVER:
        return R_OVER
    if a < 0 or a >= F + 9:
        return R_RANGE
    if a < F:
        block = a // C
        c = a % C
    else:
        block = -1
        c = a - F
    if ph == BT_MAIN:
        if block in (B_PLAY, B_PLAY_ROTATED, B_DISCARD, B_DISCARD3):
            if d.main_done:
                return R_MAIN_DONE
            i = _hand_index(d, p, c)
            if i < 0:
                return R_NOT_IN_HAND
            if block == B_PLAY:
                return R_CANNOT_PLAY if not t.play_ok[c] else R_COST
            if block == B_PLAY_ROTATED:
                return R_CANNOT_PLAY if not t.rot_ok[c] else R_COST
            return R_HAND_SMALL
        if block == B_CLEANUP:
            return R_NOT_PLAYED
        if block == B_QUEST:
            return R_QUEST
        if block == -1 and c == O_END_TURN:
            return R_END_TURN
        return R_PHASE
    if ph == BT_QUEST_HERO:
        if block == B_QUEST_HERO:
            return R_HERO
        if block == -1 and c == O_QUEST_NO_HERO:
            return R_NO_HERO
        return R_PHASE
    if ph == BT_KEEP:
        if block == -1 and c == O_KEEP_STATION:
            return R_KEEP
        return R_PHASE
    if ph == BT_DISCARD3:
        if block == B_DISCARD3:
            return R_NOT_IN_HAND if _hand_index(d, p, c) < 0 else R_DISCARD3
        return R_PHASE
    if ph == BT_DRAW:
        if block == -1 and c < BT_MARKET:
            return R_SLOT
        if block == -1 and c == O_TAKE_DECK:
            return R_DECK
        return R_PHASE
    if ph == BT_PROTECT:
        return R_PROTECT if block == B_PROTECT else R_PHASE
    if ph == BT_FREE:
        if block == B_PLAY or block == B_PLAY_ROTATED:
            return R_NOT_IN_HAND if _hand_index(d, p, c) < 0 else R_CANNOT_PLAY
        return R_PHASE
    if ph == BT_LOSE:
        return R_STATION if block == B_LOSE_STATION else R_PHASE
    return R_PHASE


# =============================================================================================
# the state
# =============================================================================================
cdef class BreakthroughState(GameState):
    """A Breakthrough position, hidden parts included. Make one with ``game.new_state(seed)``."""

    # ---- the C-level contract ----
    cdef int c_num_players(self) noexcept nogil:
        return self.t.players

    cdef int c_max_actions(self) noexcept nogil:
        return BT_MAX_ACTIONS

    cdef int c_num_actions(self) noexcept nogil:
        return 9 * self.t.C + 9

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.d.phase == BT_OVER else self.d.decider

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.d.phase == BT_OVER

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return _legal(&self.d, self.t, out)

    cdef int c_check(self, int action) noexcept nogil:
        cdef int buf[BT_MAX_ACTIONS]
        cdef int n, i
        if self.d.phase == BT_OVER:
            return R_OVER
        if action < 0 or action >= 9 * self.t.C + 9:
            return R_RANGE
        n = _legal(&self.d, self.t, buf)
        for i in range(n):
            if buf[i] == action:
                return 0
        return _reason_code(&self.d, self.t, action)

    cdef void c_apply(self, int action) noexcept nogil:
        _do(&self.d, self.t, action)
        _advance(&self.d, self.t)

    cdef void c_returns(self, double* out) noexcept nogil:
        cdef int i, n = self.t.players
        cdef double sc[BT_MAX_PLAYERS]
        self.c_scores(sc)
        for i in range(n):
            out[i] = rank_return(i, n, sc) if self.d.phase == BT_OVER else 0.0

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int i
        for i in range(self.t.players):
            out[i] = _tokens(&self.d, i)

    cdef void c_heuristic(self, double* out) noexcept nogil:
        """Tokens held plus QUEST_PROGRESS_WEIGHT times the progress of the most advanced open
        quest (see the module docstring). Public information only: tableaux and tokens."""
        cdef const BtData* d = &self.d
        cdef const BtTables* t = self.t
        cdef int p, w, c, i, nq, amt, qc, have, hv
        cdef int quests[BT_MAX_CARDS + 1]
        cdef int tot[6]
        cdef uint64_t x
        cdef double best, prog
        for p in range(t.players):
            out[p] = _tokens(d, p)
            nq = 0
            if not d.fdone[p]:
                quests[nq] = d.faction[p]
                nq += 1
            for w in range(BT_WORDS):
                x = d.tab[p][w] & t.station_mask[w]
                while x:
                    c = w * 64 + _ctz(x)
                    x &= x - 1
                    if d.tok[c] == 0:
                        quests[nq] = c
                        nq += 1
            _totals(d, t, p, tot)
            best = 0.0
            for i in range(nq):
                c = quests[i]
                qc = t.qclass[c]
                amt = t.qamount[c]
                have = _quest_total(tot, qc, -1)
                for w in range(BT_WORDS):
                    x = d.tab[p][w] & t.hero_mask[w]
                    while x:
                        hv = _quest_total(tot, qc, t.rtype[w * 64 + _ctz(x)])
                        x &= x - 1
                        if hv > have:
                            have = hv
                prog = have / <double>amt
                if prog > 1.0:
                    prog = 1.0
                if prog > best:
                    best = prog
            out[p] += QUEST_PROGRESS_WEIGHT * best

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<BreakthroughState>other).d

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        """R21, exactly as the reference: hidden cards (other players' blind draws and the deck)
        are grouped by deck generation; each group, sorted ascending, is shuffled with
        splitmix64(seed) in ascending generation order and dealt to the other players in seat
        order, then (current generation) to the deck, top first. The RNG state continues.
        In phase discard3 seen by another player, the deal is repeated until the active player
        keeps >= left cards above the last pick (public under R5): rejection, still uniform."""
        cdef BtData* d = &self.d
        cdef const BtTables* t = self.t
        cdef BtData src = (<BreakthroughState>source).d     # a copy: source may be self
        cdef const BtData* s = &src
        cdef rng_t rng = seed
        cdef int gens[32]
        cdef int ng = 0, q, i, j, g, m, pos, gi, cnt, tmp
        cdef int nh[BT_MAX_PLAYERS]
        cdef int nk[BT_MAX_PLAYERS]
        cdef bint constrained
        cdef unsigned char nhand[BT_MAX_PLAYERS][BT_HAND]
        cdef int ngen[BT_MAX_PLAYERS][BT_HAND]
        cdef uint64_t mark[3]
        cdef unsigned char pool[BT_MAX_CARDS]
        cdef uint64_t x
        cdef bint seen
        self.d = s[0]
        for q in range(t.players):
            nh[q] = 0
            if q == player:
                continue
            for i in range(s.hand_n[q]):
                g = s.hgen[q][i]
                if g < 0:
                    nhand[q][nh[q]] = s.hand[q][i]      # known cards stay (R20)
                    ngen[q][nh[q]] = -1
                    nh[q] += 1
                    continue
                seen = False
                for j in range(ng):
                    if gens[j] == g:
                        seen = True
                if not seen:
                    gens[ng] = g
                    ng += 1
        if s.deck_n > 0:
            seen = False
            for j in range(ng):
                if gens[j] == s.deck_gen:
                    seen = True
            if not seen:
                gens[ng] = s.deck_gen
                ng += 1
        for i in range(1, ng):                          # ascending generations
            tmp = gens[i]
            j = i
            while j > 0 and gens[j - 1] > tmp:
                gens[j] = gens[j - 1]
                j -= 1
            gens[j] = tmp
        for q in range(t.players):
            nk[q] = nh[q]
        constrained = s.phase == BT_DISCARD3 and player != s.active
        while True:                                     # R5: rejection keeps it uniform
            for q in range(t.players):
                nh[q] = nk[q]
            for gi in range(ng):
                g = gens[gi]
                mark[0] = mark[1] = mark[2] = 0
                for q in range(t.players):
                    if q != player:
                        for i in range(s.hand_n[q]):
                            if s.hgen[q][i] == g:
                                _bset(mark, s.hand[q][i])
                if g == s.deck_gen:
                    for i in range(s.deck_n):
                        _bset(mark, s.deck[i])
                m = _bits_to_ids(mark, pool)
                rng_shuffle(&rng, pool, m)
                pos = 0
                for q in range(t.players):
                    if q == player:
                        continue
                    cnt = 0
                    for i in range(s.hand_n[q]):
                        if s.hgen[q][i] == g:
                            cnt += 1
                    for i in range(cnt):
                        nhand[q][nh[q]] = pool[pos]
                        ngen[q][nh[q]] = g
                        nh[q] += 1
                        pos += 1
                if g == s.deck_gen:
                    d.deck_n = m - pos
                    for i in range(m - pos):               # pool[pos] is the top
                        d.deck[i] = pool[m - 1 - i]
            if not constrained:
                break
            cnt = 0
            for i in range(nh[s.active]):
                if nhand[s.active][i] > s.plast:
                    cnt += 1
            if cnt >= s.pleft:
                break
        for q in range(t.players):
            if q == player:
                continue
            d.hand_n[q] = 0
            for i in range(BT_HAND):
                d.hand[q][i] = 0
                d.hgen[q][i] = 0
            for i in range(nh[q]):
                _to_hand(d, q, nhand[q][i], ngen[q][i])
        d.rng = rng

    cdef GameState c_new_blank(self):
        return (<BreakthroughGame>self.game)._blank()

    # ---- Python face: reading the state ----
    def _reason(self, int code):
        return _REASONS.get(code, f"reason code {code}")

    def _summary(self):
        d = self.d
        return (f"breakthrough {self.t.players} players, turn {d.turn}, active player {d.active}, "
                f"phase {PHASES[d.phase]}, player {self.current_player} to move, tokens {self.scores()}")

    def __repr__(self):
        return f"<BreakthroughState {self._summary()}>"

    def __eq__(self, other):
        if not isinstance(other, BreakthroughState):
            return NotImplemented
        return self.game.options == other.game.options and self.to_json() == other.to_json()

    __hash__ = None

    def _check_player(self, player):
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.t.players:
            raise ValueError(f"player must be an int in 0..{self.t.players - 1}, got {player!r}")

    @property
    def phase(self):
        """One of 'main', 'quest_hero', 'keep_station', 'discard3', 'draw', 'protect',
        'free_play', 'lose_station', 'over' (see the reference's module docstring)."""
        return PHASES[self.d.phase]

    @property
    def turn(self):
        return self.d.turn

    @property
    def active(self):
        """Whose turn it is (the decider may be another player while drawing or under attack)."""
        return self.d.active

    @property
    def main_done(self):
        return bool(self.d.main_done)

    @property
    def winner(self):
        return None if self.d.winner < 0 else self.d.winner

    @property
    def deck_generation(self):
        return self.d.deck_gen

    @property
    def rng_state(self):
        return self.d.rng

    def scores(self):
        """Tokens each player holds: above, below and on stations (B8)."""
        return [_tokens(&self.d, p) for p in range(self.t.players)]

    def tokens(self, int player):
        self._check_player(player)
        return _tokens(&self.d, player)

    def hand(self, player):
        """Card ids in `player`'s hand, sorted (hidden from the others except known cards)."""
        self._check_player(player)
        return [self.d.hand[player][i] for i in range(self.d.hand_n[player])]

    def known(self, player):
        """Cards in `player`'s hand that everyone knows are there (taken from the market, R20)."""
        self._check_player(player)
        return [self.d.hand[player][i] for i in range(self.d.hand_n[player]) if self.d.hgen[player][i] < 0]

    def hand_gen(self, player):
        """Blind draws in `player`'s hand: card id -> deck generation it was drawn in (R21)."""
        self._check_player(player)
        return {self.d.hand[player][i]: self.d.hgen[player][i]
                for i in range(self.d.hand_n[player]) if self.d.hgen[player][i] >= 0}

    def deck(self):
        """The deck, top card first (hidden from everyone)."""
        return [self.d.deck[self.d.deck_n - 1 - i] for i in range(self.d.deck_n)]

    def discard(self):
        """The discard pile, oldest first (public, R24)."""
        return [self.d.disc[i] for i in range(self.d.disc_n)]

    def market(self):
        """The three market slots: card ids, None for an empty slot."""
        return [None if self.d.market[s] == BT_NONE else self.d.market[s] for s in range(BT_MARKET)]

    def tableau(self, player):
        """Cards played in front of `player`: list of (card, rotated, tokens), ascending."""
        self._check_player(player)
        out = []
        for c in range(self.t.C):
            if _has(self.d.tab[player], c):
                out.append((c, bool(_has(self.d.rot, c)), self.d.tok[c]))
        return out

    def factions(self):
        return [self.d.faction[p] for p in range(self.t.players)]

    def faction_done(self):
        return [bool(self.d.fdone[p]) for p in range(self.t.players)]

    def above(self):
        return [self.d.above[p] for p in range(self.t.players)]

    def below(self):
        return [self.d.below[p] for p in range(self.t.players)]

    def supply(self):
        return [self.d.supply[p] for p in range(self.t.players)]

    def play_cost(self, player, card, rotated=False):
        """Tokens `player` would pay to play `card` now (B4, R9)."""
        self._check_player(player)
        if not 0 <= card < self.t.C:
            raise ValueError(f"unknown card id {card!r}")
        if rotated and not self.t.rot_ok[card]:
            raise ValueError(f"{self.game.card_names[card]} cannot be played rotated")
        if not rotated and not self.t.play_ok[card]:
            raise ValueError(f"{self.game.card_names[card]} cannot be played face up")
        return _play_cost(&self.d, self.t, player, card, rotated)

    def pending(self):
        """The public data of the decision under way (JSON-ready), or None."""
        d = self.d
        ph = d.phase
        if ph == BT_QUEST_HERO:
            return {"kind": "quest_hero", "card": d.pcard}
        if ph == BT_KEEP:
            return {"kind": "keep_station", "card": d.pcard, "k": d.pk}
        if ph == BT_DISCARD3:
            return {"kind": "discard3", "last": d.plast, "left": d.pleft}
        if ph == BT_PROTECT:
            return {"kind": "protect", "threats": _names(THREAT_TYPES, self.t.threats[d.pcard]),
                    "uncovered": _names(THREAT_TYPES, d.puncov), "card": d.pcard}
        if ph == BT_FREE:
            return {"kind": "free_play", "card": d.pcard}
        if ph == BT_LOSE:
            return {"kind": "lose_station", "card": d.pcard}
        return None

    def agenda(self):
        """The tasks still to run this turn (JSON-ready): draw, monster, refill, next_turn."""
        d = self.d
        n = self.t.players
        out = []
        if d.ag_draw >= 0:
            out.append({"task": "draw", "player": d.active, "left": d.ag_draw})
        if d.ag_mon:
            out.append({"task": "monster", "card": d.mon_card,
                        "order": [(d.active + i) % n for i in range(d.mon_pos, n)],
                        "stage": ("check", "protect", "free")[d.mon_stage]})
        if d.ag_refill:
            out.append({"task": "refill", "order": [(d.active + i) % n for i in range(d.refill_pos, n)]})
        if d.ag_next:
            out.append({"task": "next_turn"})
        return out

    # ---- Python face: actions as text ----
    def _name(self, c):
        return self.game.card_names[c] if 0 <= c < self.t.C else f"card {c}"

    def _played_name(self, int c):
        for p in range(self.t.players):
            if _has(self.d.tab[p], c):
                if _has(self.d.rot, c):
                    return f"rotated {self._name(c)}"
                tok = self.d.tok[c]
                if tok:
                    return f"{self._name(c)} with {tok} token{'s' if tok > 1 else ''}"
        return self._name(c)

    def action_to_string(self, a):
        """Human-readable text of an action, in the rulebook's words (as the reference)."""
        C = self.t.C
        F = 9 * C
        if isinstance(a, bool) or not isinstance(a, int) or a < 0 or a >= F + 9:
            return f"invalid action {a!r}"
        p = self.d.decider if self.d.decider >= 0 else self.d.active
        if a >= F:
            o = a - F
            if o < 3:
                m = self.d.market[o]
                return f"take market slot {o + 1}: {self._name(m) if m != BT_NONE else 'empty'}"
            return {O_TAKE_DECK: "take the top card of the deck", O_END_TURN: "end turn",
                    O_QUEST_NO_HERO: "complete the quest without a hero",
                    O_KEEP_STATION: "keep the station", O_DISCARD_STATION: "discard the station",
                    O_PASS: "decline the free play"}[o]
        block, c = divmod(a, C)
        name = self._name(c)
        ct = self.t.ctype[c]
        free = self.d.phase == BT_FREE
        if block == B_PLAY:
            how = CARD_TYPES[ct]
            if free:
                cost = 0
            elif self.t.play_ok[c]:
                cost = _play_cost(&self.d, self.t, p, c, False)
            else:
                cost = "?"
            return f"play {name} as {how} ({'free' if free else f'cost {cost}'})"
        if block == B_PLAY_ROTATED:
            cost = 0 if free else (self.t.pcost[c] if self.t.pcost[c] >= 0 else None)
            return f"play {name} rotated as protection ({'free' if free else f'cost {cost}'})"
        if block == B_DISCARD:
            what = " as monster" if ct == CT_THREAT else ""
            return f"discard {name}{what} (move up {self.t.move[c]})"
        if block == B_DISCARD3:
            return f"discard three: {name}"
        if block == B_CLEANUP:
            return f"clean up {self._played_name(c)}"
        if block == B_QUEST:
            return f"complete quest: {name}"
        if block == B_QUEST_HERO:
            return f"complete the quest with hero {name}"
        if block == B_PROTECT:
            return f"protect with {name}"
        return f"lose station {self._played_name(c)}"

    def string_to_action(self, text):
        """Parse the text of a *legal* action (as action_to_string writes it; case and trailing
        parentheses are ignored), or an integer. ValueError if nothing legal matches."""
        if not isinstance(text, str):
            raise ValueError(f"action text must be a str, got {text!r}")
        t = text.strip()
        if t.lstrip("-").isdigit():
            return int(t)

        def norm(s):
            s = " ".join(s.lower().split())
            while s.endswith(")") and "(" in s:
                s = s[:s.rindex("(")].strip()
            return s

        want = norm(t)
        for a in self.legal_actions():
            if norm(self.action_to_string(a)) == want:
                return a
        raise ValueError(f"no legal action matches {text!r}")

    # ---- Python face: observation, JSON, rendering ----
    def _tableaux(self):
        return [[{"card": c, "rotated": r, "tokens": k} for c, r, k in self.tableau(p)]
                for p in range(self.t.players)]

    def observation(self, player):
        """What `player` sees, JSON-ready (the reference's format): their own hand, every
        tableau, faction card and token count, the market, the discard pile, the deck size and
        generation, the other hands' sizes, the cards known to be in them (taken from the market,
        R20) and how many of their blind draws come from each deck generation (R21)."""
        self._check_player(player)
        d = self.d
        n = self.t.players
        known = {}
        gens = {}
        for q in range(n):
            if q == player:
                continue
            known[str(q)] = self.known(q)
            cnt = {}
            for i in range(d.hand_n[q]):
                g = d.hgen[q][i]
                if g >= 0:
                    cnt[g] = cnt.get(g, 0) + 1
            gens[str(q)] = {str(g): k for g, k in sorted(cnt.items())}
        return {
            "player": player,
            "num_players": n,
            "turn": d.turn,
            "active": d.active,
            "current_player": self.current_player,
            "phase": self.phase,
            "main_done": bool(d.main_done),
            "pending": self.pending(),
            "hand": self.hand(player),
            "hand_sizes": [d.hand_n[q] for q in range(n)],
            "known_in_hands": known,
            "hidden_draw_generations": gens,
            "tableaux": self._tableaux(),
            "factions": self.factions(),
            "faction_done": self.faction_done(),
            "above": self.above(),
            "below": self.below(),
            "supply": self.supply(),
            "tokens": self.scores(),
            "market": self.market(),
            "discard": self.discard(),
            "deck_size": d.deck_n,
            "deck_generation": d.deck_gen,
            "terminal": d.phase == BT_OVER,
            "winner": self.winner,
        }

    def to_dict(self):
        """The full state (hidden parts included) as a JSON-ready dict (see to_json)."""
        d = self.d
        n = self.t.players
        return {
            "format": "metro-ai-state", "version": 1, "game": "breakthrough",
            "options": self.game.options,
            "turn": d.turn,
            "active": d.active,
            "current_player": self.current_player,
            "phase": self.phase,
            "main_done": bool(d.main_done),
            "pending": self.pending(),
            "agenda": self.agenda(),
            "winner": self.winner,
            "factions": self.factions(),
            "faction_done": self.faction_done(),
            "above": self.above(),
            "below": self.below(),
            "supply": self.supply(),
            "tokens": self.scores(),
            "hands": [self.hand(p) for p in range(n)],
            "known": [self.known(p) for p in range(n)],
            "hand_gen": [{str(c): g for c, g in sorted(self.hand_gen(p).items())} for p in range(n)],
            "tableaux": self._tableaux(),
            "market": self.market(),
            "deck": self.deck(),
            "deck_generation": d.deck_gen,
            "discard": self.discard(),
            "rng_state": str(d.rng),
        }

    def to_json(self):
        """The full state (hidden parts included) as JSON text; ``game.state_from_json`` reads
        it. Card ids are those of the game's card set (``game.card_names[id]``)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def render(self, player=None):
        """A text view for terminals: tokens, faction cards, tableaux, market, piles, and the
        hand of `player` if given (other hands as sizes)."""
        names = self.game.card_names
        d = self.d
        lines = [f"Metro 2033: Breakthrough, turn {d.turn}, active P{d.active}, phase {self.phase}"
                 + (f", P{self.current_player} to decide" if self.current_player >= 0 else ", game over")]
        for p in range(self.t.players):
            fac = names[d.faction[p]] + (" (face down)" if d.fdone[p] else "")
            lines.append(f"P{p} {fac}: tokens {_tokens(&d, p)} (above {d.above[p]}, below {d.below[p]}), "
                         f"hand {d.hand_n[p]}")
            tab = []
            for c, r, k in self.tableau(p):
                tab.append(("rotated " if r else "") + names[c] + (f" [{k}]" if k else ""))
            lines.append("    in play: " + (", ".join(tab) if tab else "-"))
        lines.append("market: " + " | ".join(names[m] if m is not None else "empty" for m in self.market()))
        lines.append(f"deck {d.deck_n}, discard {d.disc_n}"
                     + (f" (top: {names[d.disc[d.disc_n - 1]]})" if d.disc_n else ""))
        if player is not None:
            self._check_player(player)
            lines.append(f"P{player} hand: " + ", ".join(names[c] for c in self.hand(player)))
        if d.winner >= 0:
            lines.append(f"winner: P{d.winner}")
        return "\n".join(lines)

    def __str__(self):
        return self.render()

    def __reduce__(self):
        return (_unpickle, (self.game, self.to_json()))


def _unpickle(game, text):
    return game.state_from_json(text)


def _names(tuple_, int mask):
    return sorted(tuple_[i] for i in range(len(tuple_)) if (mask >> i) & 1)


# =============================================================================================
# building states from JSON and by hand
# =============================================================================================
def _state_from_json(BreakthroughGame game, text):
    def bad(msg):
        raise StateFormatError(f"breakthrough state: {msg}")
    obj = parse_state_json(text, "breakthrough", game.options, (
        "game", "options", "turn", "active", "current_player", "phase", "main_done", "pending",
        "agenda", "winner", "factions", "faction_done", "above", "below", "supply", "hands",
        "known", "hand_gen", "tableaux", "market", "deck", "deck_generation", "discard",
        "rng_state"))
    cdef const BtTables* t = &game.tables
    cdef BreakthroughState st = game._blank()
    cdef BtData* d = &st.d
    cdef int n = t.players, C = t.C
    _clear(d, t)
    names = game.card_names
    where_of = {}

    def is_int(v, lo=None, hi=None):
        return (not isinstance(v, bool) and isinstance(v, int) and (lo is None or v >= lo)
                and (hi is None or v <= hi))

    def card(v, where):
        if not is_int(v, 0, C - 1):
            bad(f"{where}: unknown card {v!r} (card ids are 0..{C - 1})")
        if v in where_of:
            bad(f"card {v} ({names[v]}) is both in {where_of[v]} and in {where}")
        where_of[v] = where
        return v

    def int_list(key, lo, hi):
        v = obj[key]
        if not isinstance(v, list) or len(v) != n or not all(is_int(x, lo, hi) for x in v):
            bad(f"{key} must be a list of {n} ints in {lo}..{hi}")
        return v

    def bool_list(key):
        v = obj[key]
        if not isinstance(v, list) or len(v) != n or not all(isinstance(x, bool) for x in v):
            bad(f"{key} must be a list of {n} booleans")
        return v

    # factions
    fids = game.faction_ids()
    facs = obj["factions"]
    if not isinstance(facs, list) or len(facs) != n:
        bad(f"factions must be a list of {n} faction card ids")
    for p, f in enumerate(facs):
        if f not in fids or isinstance(f, bool):
            bad(f"factions[{p}]: {f!r} is not a faction card")
        card(f, f"player {p}'s faction")
        d.faction[p] = f
    if game.factions != "random" and [names[f] for f in facs] != list(game.factions):
        bad(f"factions {facs!r} differ from the game's chosen factions {list(game.factions)!r}")
    for p, v in enumerate(bool_list("faction_done")):
        d.fdone[p] = v
    # hands
    hands, known, hgen = obj["hands"], obj["known"], obj["hand_gen"]
    if not isinstance(hands, list) or len(hands) != n:
        bad(f"hands must be a list of {n} lists")
    if not isinstance(known, list) or len(known) != n:
        bad(f"known must be a list of {n} lists")
    if not isinstance(hgen, list) or len(hgen) != n or not all(isinstance(x, dict) for x in hgen):
        bad(f"hand_gen must be a list of {n} objects")
    deck_gen = obj["deck_generation"]
    if not is_int(deck_gen, 0, 2**31 - 1):
        bad(f"deck_generation must be an int >= 0, got {deck_gen!r}")
    d.deck_gen = deck_gen
    for p in range(n):
        h = hands[p]
        if not isinstance(h, list) or len(h) > BT_HAND:
            bad(f"hand of player {p} must be a list of at most {BT_HAND} cards")
        if list(h) != sorted(h, key=lambda v: v if is_int(v) else -1):
            bad(f"hand of player {p} must be sorted by card id (R23)")
        kn = known[p]
        if not isinstance(kn, list):
            bad(f"known[{p}] must be a list")
        gens = hgen[p]
        for c in h:
            card(c, f"player {p}'s hand")
            if t.ctype[c] == CT_FACTION:
                bad(f"player {p}'s hand holds the faction card {c} ({names[c]})")
            if c in kn:
                if str(c) in gens:
                    bad(f"card {c} in player {p}'s hand is both known and a blind draw")
                _to_hand(d, p, c, -1)
            else:
                g = gens.get(str(c))
                if not is_int(g, 0, deck_gen):
                    bad(f"hand_gen of player {p}: card {c} needs a deck generation 0..{deck_gen}, got {g!r}")
                _to_hand(d, p, c, g)
        for c in kn:
            if c not in h:
                bad(f"known[{p}]: card {c!r} is not in player {p}'s hand")
        for key in gens:
            if not isinstance(key, str) or not key.isdigit() or int(key) not in h or int(key) in kn:
                bad(f"hand_gen of player {p}: {key!r} is not a blind draw in that hand")
    # tableaux
    tabs = obj["tableaux"]
    if not isinstance(tabs, list) or len(tabs) != n:
        bad(f"tableaux must be a list of {n} lists")
    for p in range(n):
        if not isinstance(tabs[p], list):
            bad(f"tableaux[{p}] must be a list")
        for e in tabs[p]:
            if not isinstance(e, dict) or set(e) != {"card", "rotated", "tokens"}:
                bad(f"tableaux[{p}]: each entry is {{\"card\", \"rotated\", \"tokens\"}}, got {e!r}")
            c = card(e["card"], f"player {p}'s tableau")
            if t.ctype[c] == CT_FACTION:
                bad(f"player {p}'s tableau holds the faction card {c} ({names[c]})")
            if not isinstance(e["rotated"], bool):
                bad(f"tableaux[{p}]: card {c}: rotated must be a boolean")
            if e["rotated"] and not t.rot_ok[c]:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) cannot be played rotated")
            if not e["rotated"] and not t.play_ok[c]:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) cannot be played face up")
            if not is_int(e["tokens"], 0, TOKENS_PER_COLOUR):
                bad(f"tableaux[{p}]: card {c}: tokens must be an int 0..10")
            if e["tokens"] and t.ctype[c] != CT_STATION:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) is not a station and cannot carry tokens")
            _bset(d.tab[p], c)
            if e["rotated"]:
                _bset(d.rot, c)
            d.tok[c] = e["tokens"]
    # market, deck, discard
    mk = obj["market"]
    if not isinstance(mk, list) or len(mk) != BT_MARKET:
        bad("market must be a list of 3 slots (card id or null)")
    for s, m in enumerate(mk):
        if m is None:
            d.market[s] = BT_NONE
        else:
            c = card(m, f"market slot {s}")
            if t.ctype[c] == CT_FACTION:
                bad(f"market slot {s} holds a faction card")
            d.market[s] = c
    deck = obj["deck"]
    if not isinstance(deck, list):
        bad("deck must be a list (top card first)")
    for i, v in enumerate(deck):
        c = card(v, "the deck")
        if t.ctype[c] == CT_FACTION:
            bad(f"the deck holds the faction card {c}")
    d.deck_n = len(deck)
    for i in range(len(deck)):
        d.deck[i] = deck[len(deck) - 1 - i]
    disc = obj["discard"]
    if not isinstance(disc, list):
        bad("discard must be a list (oldest first)")
    for v in disc:
        c = card(v, "the discard pile")
        if t.ctype[c] == CT_FACTION:
            bad(f"the discard pile holds the faction card {c}")
        d.disc[d.disc_n] = c
        d.disc_n += 1
    for c in range(C):
        if c not in where_of and t.ctype[c] != CT_FACTION:
            bad(f"card {c} ({names[c]}) is missing: every card must be in exactly one place")
    # tokens
    above, below, supply = int_list("above", 0, 10), int_list("below", 0, 10), int_list("supply", 0, 10)
    for p in range(n):
        on = sum(e["tokens"] for e in tabs[p])
        if above[p] + below[p] + supply[p] + on != TOKENS_PER_COLOUR:
            bad(f"player {p} has {above[p]} above + {below[p]} below + {on} on stations + "
                f"{supply[p]} in the supply; a colour has {TOKENS_PER_COLOUR} tokens")
        d.above[p], d.below[p], d.supply[p] = above[p], below[p], supply[p]
    if "tokens" in obj and obj["tokens"] != st.scores():
        bad(f"tokens {obj['tokens']!r} do not match the token areas, which give {st.scores()!r}")
    # turn, players, phase
    turn = obj["turn"]
    if not is_int(turn, 1, t.turn_limit):
        bad(f"turn must be an int in 1..{t.turn_limit} (the turn limit), got {turn!r}")
    d.turn = turn
    active = obj["active"]
    if not is_int(active, 0, n - 1):
        bad(f"active must be a player 0..{n - 1}, got {active!r}")
    d.active = active
    if not isinstance(obj["main_done"], bool):
        bad("main_done must be a boolean")
    d.main_done = obj["main_done"]
    rs = obj["rng_state"]
    if isinstance(rs, str) and rs.isdigit():
        rs = int(rs)
    if not is_int(rs, 0, 2**64 - 1):
        bad(f"rng_state must be an unsigned 64-bit int (as a decimal string), got {rs!r}")
    d.rng = rs
    phase = obj["phase"]
    if phase not in PHASES:
        bad(f"phase must be one of {PHASES}, got {phase!r}")
    d.phase = PHASES.index(phase)
    cur = obj["current_player"]
    if not is_int(cur, -1, n - 1):
        bad(f"current_player must be -1..{n - 1}, got {cur!r}")
    winner = obj["winner"]
    if winner is not None and not is_int(winner, 0, n - 1):
        bad(f"winner must be null or a player, got {winner!r}")
    sc = st.scores()
    if phase == "over":
        if cur != -1:
            bad("current_player must be -1 once the game is over")
        if winner is None:
            if max(sc) >= WIN_TOKENS:
                bad("a player holds 10 tokens, so the game has a winner (B8)")
            if turn != t.turn_limit:
                bad(f"a game without winner ends at the turn limit {t.turn_limit} (R18)")
        elif sc[winner] < WIN_TOKENS:
            bad(f"winner {winner} holds {sc[winner]} tokens, not {WIN_TOKENS} (B8)")
        d.winner = -1 if winner is None else winner
        d.decider = -1
    else:
        if winner is not None:
            bad("a game with a winner is over")
        if max(sc) >= WIN_TOKENS:
            bad("a player holds 10 tokens: the game should be over (B8)")
        if cur < 0:
            bad("current_player is -1 but the game is not over")
        d.decider = cur
    _load_agenda(st, obj, bad)
    _load_pending(st, obj, bad)
    return st


def _load_agenda(BreakthroughState st, obj, bad):
    cdef BtData* d = &st.d
    n = st.t.players
    ag = obj["agenda"]
    phase = obj["phase"]
    if not isinstance(ag, list) or not all(isinstance(x, dict) and "task" in x for x in ag):
        bad("agenda must be a list of tasks {\"task\": ...}")
    kinds = [x["task"] for x in ag]
    allowed = {"main": [[]], "quest_hero": [[]], "keep_station": [[]], "discard3": [[]], "over": [[]],
               "draw": [["draw"], ["refill"], ["refill", "next_turn"]],
               "protect": [["monster", "refill"]], "free_play": [["monster", "refill"]],
               "lose_station": [["monster", "refill"]]}[phase]
    if kinds not in allowed:
        bad(f"agenda {kinds!r} does not fit phase {phase!r} (expected one of {allowed!r})")
    rot = [(d.active + i) % n for i in range(n)]
    cur = obj["current_player"]
    if phase in ("main", "quest_hero", "keep_station", "discard3") and cur != d.active:
        bad(f"in phase {phase!r} the active player {d.active} decides, not {cur}")
    if phase in ("discard3", "draw", "protect", "free_play", "lose_station") and not d.main_done:
        bad(f"phase {phase!r} comes after the main action: main_done must be true")
    for task in ag:
        kind = task["task"]
        if kind == "draw":
            if set(task) != {"task", "player", "left"} or task["player"] != d.active or \
                    isinstance(task["left"], bool) or task["left"] not in (1, 2, 3):
                bad(f"draw task must be {{\"task\": \"draw\", \"player\": {d.active}, \"left\": 1..3}}, got {task!r}")
            if cur != d.active:
                bad("the active player draws after the main action")
            if d.hand_n[d.active] + task["left"] > BT_HAND:
                bad(f"draw task: {task['left']} more cards would make a hand of more than {BT_HAND}")
            d.ag_draw = task["left"]
        elif kind == "monster":
            if set(task) != {"task", "card", "order", "stage"}:
                bad(f"monster task needs card, order and stage, got {task!r}")
            c = task["card"]
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < st.t.C or st.t.ctype[c] != CT_THREAT:
                bad(f"monster task: {c!r} is not a threat card")
            order = task["order"]
            if not isinstance(order, list) or not order or order != rot[n - len(order):]:
                bad(f"monster task: order must be the remaining players from the active one clockwise, got {order!r}")
            if order[0] != cur:
                bad(f"monster task: player {order[0]} is attacked, but player {cur} decides")
            if task["stage"] not in ("check", "protect", "free"):
                bad(f"monster task: stage must be check, protect or free, got {task['stage']!r}")
            stage = ("check", "protect", "free").index(task["stage"])
            want = {"protect": ST_PROTECT, "free_play": ST_FREE, "lose_station": ST_CHECK}[phase]
            if stage != want:
                bad(f"monster task: stage {task['stage']!r} does not fit phase {phase!r}")
            d.ag_mon = 1
            d.mon_card = c
            d.mon_pos = n - len(order)
            d.mon_stage = stage
        elif kind == "refill":
            order = task.get("order")
            if set(task) != {"task", "order"} or not isinstance(order, list) or \
                    not order or order != rot[n - len(order):]:
                bad(f"refill task: order must be the remaining players from the active one clockwise, got {order!r}")
            if phase == "draw" and order[0] != cur:
                bad(f"refill task: player {order[0]} draws next, but player {cur} decides")
            d.ag_refill = 1
            d.refill_pos = n - len(order)
        elif kind == "next_turn":
            if set(task) != {"task"}:
                bad(f"next_turn task takes no fields, got {task!r}")
            d.ag_next = 1
        else:
            bad(f"unknown task {kind!r}")
    if phase == "draw":
        if d.hand_n[cur] >= BT_HAND and d.ag_refill:
            bad(f"player {cur} already holds {BT_HAND} cards and cannot be refilling")
        if not _card_available(d):
            bad("no card can be drawn, so there is no draw decision")


def _load_pending(BreakthroughState st, obj, bad):
    cdef BtData* d = &st.d
    cdef const BtTables* t = st.t
    cdef int tot[6]
    phase = obj["phase"]
    pend = obj["pending"]
    p = obj["current_player"]
    names = st.game.card_names
    needs = {"quest_hero": {"kind", "card"}, "keep_station": {"kind", "card", "k"},
             "discard3": {"kind", "last", "left"},
             "protect": {"kind", "threats", "uncovered", "card"}, "free_play": {"kind", "card"},
             "lose_station": {"kind", "card"}}
    if phase not in needs:
        if pend is not None:
            bad(f"phase {phase!r} has no pending decision data, got {pend!r}")
        return
    if not isinstance(pend, dict) or set(pend) != needs[phase] or pend.get("kind") != phase:
        bad(f"phase {phase!r} needs pending {{{', '.join(sorted(needs[phase]))}}} with kind {phase!r}, got {pend!r}")

    def card_ok(c):
        return not isinstance(c, bool) and isinstance(c, int) and 0 <= c < t.C

    if phase == "discard3":
        last, left = pend["last"], pend["left"]
        if not card_ok(last) or left not in (1, 2) or isinstance(left, bool):
            bad(f"pending discard3: last must be a card id and left 1 or 2, got {pend!r}")
        pile = st.discard()
        if not pile or pile[len(pile) - 1] != last:       # (no negative index: wraparound=False)
            bad(f"pending discard3: the last pick {last} must be on top of the discard pile")
        if sum(1 for c in st.hand(p) if c > last) < left:
            bad(f"pending discard3: fewer than {left} hand cards above id {last} remain (R5)")
        d.plast = last
        d.pleft = left
        return
    c = pend["card"]
    if not card_ok(c):
        bad(f"pending {phase}: card must be a card id, got {c!r}")
    d.pcard = c
    if phase == "quest_hero":
        if not _quest_open(d, t, p, c):
            bad(f"pending quest_hero: card {c} ({names[c]}) is not an open quest of player {p}")
        _totals(d, t, p, tot)
        if not _any_hero(d, t, p, tot, t.qclass[c], t.qamount[c]):
            bad(f"pending quest_hero: no hero of player {p} can double for {names[c]} (R3)")
    elif phase == "keep_station":
        k = pend["k"]
        if t.ctype[c] != CT_STATION or not _has(d.tab[p], c) or d.tok[c] != 0:
            bad(f"pending keep_station: card {c} ({names[c]}) is not a station of player {p} without tokens")
        want = 1 + sum(1 for x, r, tk in st.tableau(p) if tk > 0)
        if k != want or isinstance(k, bool):
            bad(f"pending keep_station: k must be {want} (1 + stations carrying tokens, B5), got {k!r}")
        d.pk = k
    else:
        if c != d.mon_card:
            bad(f"pending {phase}: card {c} is not the attacking monster {d.mon_card}")
        if phase == "protect":
            thr = pend["threats"]
            unc = pend["uncovered"]
            if thr != _names(THREAT_TYPES, t.threats[c]):
                bad(f"pending protect: threats must be the monster's icons {_names(THREAT_TYPES, t.threats[c])!r}")
            if not isinstance(unc, list) or not unc or any(u not in thr for u in unc) or unc != sorted(set(unc)):
                bad(f"pending protect: uncovered must be a sorted, non-empty list of the monster's icons, got {unc!r}")
            mask = 0
            for u in unc:
                mask |= 1 << THREAT_TYPES.index(u)
            if mask != t.threats[c] and not t.full_protection:
                bad("pending protect: icons are given up one card at a time only under full_protection_required (R13)")
            d.puncov = mask
            if not st.legal_actions():
                bad(f"pending protect: player {p} has no played protection against {unc!r}")
        elif phase == "free_play":
            if d.hand_n[p] == 0:
                bad(f"pending free_play: player {p} has no card to play")
        elif phase == "lose_station":
            if t.loss[c] != 0:
                bad(f"pending lose_station: {names[c]} does not take a station")
            if not _has_station(d, t, p):
                bad(f"pending lose_station: player {p} has no station")


def _setup(BreakthroughGame game, hands, *, tableaux=None, factions=None, faction_done=None,
           above=None, below=None, market=None, deck_top=None, discard=None, active=0, seed=0,
           turn=1):
    """The reference's ``setup`` (RefBreakthroughGame.setup), building the same position."""
    n = game.players
    used = set()

    def take(name):
        for cid in game.name_to_ids.get(name, ()):
            if cid not in used:
                used.add(cid)
                return cid
        raise ValueError(f"no unused card named {name!r}")

    fids = game.faction_ids()[:n] if factions is None else [game.faction_id(f) for f in factions]
    used.update(fids)
    hand_ids = [sorted(take(x) for x in h) for h in hands]
    if len(hand_ids) != n:
        raise ValueError("one hand per player")
    tabs = []
    for p in range(n):
        tb = []
        for e in (tableaux[p] if tableaux else []):
            if isinstance(e, str):
                e = {"card": e}
            tb.append({"card": take(e["card"]), "rotated": bool(e.get("rotated", False)),
                       "tokens": int(e.get("tokens", 0))})
        tabs.append(sorted(tb, key=lambda x: x["card"]))
    disc = [take(x) for x in (discard or [])]
    mk = [take(x) for x in (market or [])]
    top = [take(x) for x in (deck_top or [])]
    rest = [c for c in range(game.num_cards)
            if c not in used and game.card_set.cards[c].type != "faction"]
    cdef rng_t rng = as_seed(seed)
    cdef unsigned char buf[BT_MAX_CARDS]
    for i, c in enumerate(rest):
        buf[i] = c
    rng_shuffle(&rng, buf, len(rest))
    deck = top + [buf[i] for i in range(len(rest))]
    while len(mk) < BT_MARKET and deck:
        mk.append(deck.pop(0))
    while len(mk) < BT_MARKET:
        mk.append(None)
    ab = [START_TOKENS] * n if above is None else list(above)
    be = [0] * n if below is None else list(below)
    sup = []
    for p in range(n):
        on = sum(e["tokens"] for e in tabs[p])
        sup.append(TOKENS_PER_COLOUR - ab[p] - be[p] - on)
        if sup[p] < 0:
            raise ValueError(f"player {p} has more than {TOKENS_PER_COLOUR} tokens")
    sc = [TOKENS_PER_COLOUR - s for s in sup]
    won = next((p for p in range(n) if sc[p] >= WIN_TOKENS), None)
    obj = {"game": "breakthrough", "options": game.options, "turn": turn, "active": active,
           "current_player": -1 if won is not None else active,
           "phase": "over" if won is not None else "main", "main_done": False, "pending": None,
           "agenda": [], "winner": won, "factions": fids,
           "faction_done": [bool(faction_done[p]) if faction_done else False for p in range(n)],
           "above": ab, "below": be, "supply": sup, "hands": hand_ids,
           "known": [[] for _ in range(n)], "hand_gen": [{str(c): 0 for c in h} for h in hand_ids],
           "tableaux": tabs, "market": mk, "deck": deck, "deck_generation": 0, "discard": disc,
           "rng_state": str(rng)}
    try:
        return _state_from_json(game, obj)
    except StateFormatError as exc:
        raise ValueError(f"setup: {exc}") from None
