# cython: language_level=3
"""Metro 2033: Breakthrough (card game): a fast determinised engine (rules B1-B9, R1-R24).

Rules as this project plays them: ``docs/rules/breakthrough.md`` (B1-B9); the decisions the
rulebook leaves open (R1-R24), the action encoding, the deal and the RNG use are specified in the
module docstring of the reference engine ``reference.py`` (and in the rules file), which this
engine matches bit for bit (``tests/breakthrough/test_breakthrough_differential.py``). Cards come from a card-set
file read with ``cards.py`` (default: the shipped reconstructed set).

Encoding (public contract, shared with the reference engine)
-----------------------------------------------------------
With C the number of cards (133): ``block * C + card`` for the blocks PLAY 0, PLAY_ROTATED 1,
DISCARD 2, DISCARD3 3, CLEANUP 4, QUEST 5, QUEST_HERO 6, PROTECT 7, LOSE_STATION 8, then
``9*C + s`` for TAKE_MARKET s (s = 0, 1, 2), TAKE_DECK 3, END_TURN 4, QUEST_NO_HERO 5,
KEEP_STATION 6, DISCARD_STATION 7, PASS 8, and ``9*C + 9 + c`` for PAY c (R2). ``10*C + 9``
actions in all (1339).

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

from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.rng cimport rng_t, rng_bounded, rng_shuffle
from metro_ai.engine.breakthrough.rules cimport *
from metro_ai.engine.core import Option, as_seed
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.breakthrough import cards as cards_mod
from metro_ai.engine.breakthrough import readings as readings_module
from metro_ai.engine.breakthrough.rules import (CARD_TYPES, CLASSES, LINES, LOSSES, PHASES, QUEST_CLASSES,
                                                RESOURCE_TYPES, SURVIVAL_OPTIONS, THREAT_TYPES, names_of_bits)

cdef double QUEST_PROGRESS_WEIGHT = 0.5      # see c_heuristic

# The one-ply evaluation greedy plays by (BreakthroughState.greedy_values): the heuristic plus
# this much per card in the player's tableau (resources, protections, stations, heroes in play), so
# that one ply values building a tableau (the costs, quests and protections it brings) over
# discarding. Screened against greedy-classic, 2 players, 100 games each: 0.1 and 0.2 won 86%,
# 0.35 59%, 0.5 53% (benches/results/greedy.md).
cdef double BT_GREEDY_CARD_VALUE = 0.2

include "state_features.pxi"   # write_features: the observation features in C (issue #44)


def _moves_up(value, below):
    """The label of a discard's move up (R10): the tokens it really moves, at most those below
    the faction card, with the printed value when fewer."""
    moved = min(value, below)
    return f"move up {moved}" if moved == value else f"move up {moved} of {value}"

_REASONS = {
    R_OVER: "the game is over",
    R_RANGE: "not a Breakthrough action (0 .. 10*C+8, see the module docstring)",
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
    R_PAY: "that resource cannot pay next for the pending quest: payments are minimal sets of the "
           "quest's resources, paid in increasing id order (B5, R2)",
}




def _factions_shape(value):
    """The shape of the factions option; the names are checked against the card set later."""
    return (isinstance(value, str) and value == "random") or (
        isinstance(value, (list, tuple)) and all(isinstance(f, (str, int)) and not isinstance(f, bool) for f in value))


cdef class BreakthroughGame(Game):
    """Metro 2033: Breakthrough for 2-5 players: survival modes (B9), factions, a turn limit and a
    card-set file as options (``OPTIONS``)."""
    name = "breakthrough"
    readings = readings_module.BREAKTHROUGH
    title = "Metro 2033: Breakthrough (card game)"
    min_players = 2
    max_players = BT_MAX_PLAYERS
    OPTIONS = (
        Option.integer("players", 2, "number of players", low=2, high=BT_MAX_PLAYERS, rule="B1"),
        Option.boolean("full_protection_required", False,
                       "survival mode 1: repel a monster only with protection against all its icons (R13)",
                       rule="B9.1"),
        Option.boolean("failed_defence_tokens_down", False,
                       "survival mode 2: a failed defence puts all tokens above below the faction card (R14)",
                       rule="B9.2"),
        Option.boolean("quest_tokens_stay_down", False,
                       "survival mode 3: completing a quest does not move the tokens below up (R15)", rule="B9.3"),
        Option.custom("factions", "random", "the factions in play, by seat, e.g. ['Hansa', 'Polis']",
                      "'random' or a list of one faction name (or card id) per player", _factions_shape,
                      lambda v: v if isinstance(v, str) else tuple(v), rule="R22"),
        Option.integer("turn_limit", 1000, "turns after which a game without winner ends, ranked by tokens (B8)",
                       low=1, high=2**31 - 1, rule="R18"),
        Option.path("card_set", None, "a card-set JSON file (schema in engine/breakthrough/cards.py); "
                    "default: the shipped, reconstructed set"),
    )
    # The levels of an Elo calibration (metro_ai.play.calibrate): the root's values lie close
    # together, so the margin is a steep dial here (at 150 iterations, 0.1 rates about 540, 0.05
    # about 1,150 and 0.03 above, each sweeping the one before in a trial of 40 games), and at 50
    # iterations the noisy means make 0.03 filter harder than at 150 (it rated above easy): the
    # bridges from random are 150 iterations at margins 0.1 and 0.07 instead of the default's.
    ladder_levels = ("random", "ismcts:iterations=50,temperature=1", "ismcts:iterations=150,temperature=1,margin=0.1",
                     "ismcts:iterations=150,temperature=1,margin=0.07", "easy", "medium",
                     "ismcts:iterations=500,temperature=0.1,margin=0.03", "ismcts:iterations=500",
                     "greedy", "ismcts:iterations=1500", "hard")
    state_fields = ("turn", "active", "current_player", "phase", "main_done", "pending", "agenda", "winner",
                    "factions", "faction_done", "above", "below", "supply", "hands", "known", "hand_gen",
                    "tableaux", "market", "deck", "deck_generation", "discard", "rng_state")
    # Two copies of a card print alike, so action texts need not be unique.
    unique_action_strings = False
    # Random actions before each stage of benchmark_position (a turn is four or five actions).
    benchmark_moves = {"opening": 0, "middle": 120, "end": 200}
    reference = "metro_ai.engine.breakthrough.reference:RefBreakthroughGame"
    features = "metro_ai.engine.breakthrough.features:BreakthroughFeatures"
    svg = "metro_ai.engine.breakthrough.svg:table_svg"

    def _reference_options(self):
        o = dict(self.options)
        o["cards"] = o.pop("card_set")
        return o
    # Play-out settings the search bots use unless told otherwise: uniform random play undoes its
    # own progress and never ends a game, so play-outs use the light heuristic policy for 10
    # actions and score the heuristic by a soft rank (logistic, scale 1 token). Against greedy,
    # 2 players, 1,000 iterations a move, 20 games each: this won 100%; a hard rank at the
    # cut-off 65%; random play-outs with the soft rank 95%; random play-outs to a depth of 40, 0%.
    # Progressive bias at the root from the greedy bot's values (prior 1): 60.8% over 130 games
    # against the search without it, 2 players, 0.05 s a move, SPRT H1
    # (benches/results/versus_prior_breakthrough.md).
    # Each play-out step compares 8 random actions by the heuristic, not 3 (#44): 2 players, against
    # the build before it at 0.05 s a move +62 Elo (+16 to +111), at 0.5 s +144 (+67 to +236);
    # 3 players +125 (+57 to +203); benches/results/versus_rollout_samples8_breakthrough*.md.
    search_defaults = {"rollout": "heuristic", "rollout_depth": 10, "rollout_samples": 8, "cutoff_scale": 1.0,
                       "prior": 1.0}

    def search_settings(self):
        """``search_defaults``, with a longer play-out than its 10 actions: 15 at 2 players and
        20 from 3 players up (there 10 actions are three turns or fewer of each player). 2
        players, 0.05 s a move: 8 samples over 15 actions against 8 over 10, +93 Elo (+35 to
        +156; benches/results/versus_rollout_depth15_breakthrough_2p.md; the rest of its runs
        in docs/guide/bots.md's `rollout_depth` row). 3 players, 8 over 20 against 8 over 10: +171
        (+107 to +249; versus_rollout_depth20_breakthrough_3p.md); against the build before
        #44, where 8 over 10 were level at 4 players (-11 Elo): +244 (+197 to +301) at 4 and
        +283 (+221 to +365) at 5 (versus_rollout_samples8_depth20_pre44_4p.md and _5p.md).

        At 2 players also a lead term of weight 0.5 (``lead_weight``, #44): once a seat's soft
        rank is near 1 every move looks alike to the search, and `medium` playing itself wandered
        (one game in 14 past 600 plies, the leader cleaning up the cards it had just played);
        with the term, 100 self-play games of `medium` from the same deals took 30% fewer plies
        and none reached 600 (benches/results/lead_weight_breakthrough_lengths.md). `hard` with
        it against `hard` without, 0.05 s a move: +14 Elo (-31 to +60, 200 games,
        versus_lead_weight_breakthrough_2p.md). Off from 3 players up: at 3 the term shortened
        `medium`'s games by 14%, but those long games were contested, not decided, and `hard`
        with it measured -17 (-70 to +34, 100 games; versus_lead_weight_breakthrough_3p.md).

        At 2 players half of each iteration's value is the evaluation of the tree's leaf
        (``leaf_mix`` 0.5, #44): +42 Elo (+16 to +69, 578 games) at 0.05 s a move, +14 (-44 to
        +73, 100 games) at 0.5 s; +22 and -7 at 3 and 4 players, so off there
        (versus_leaf_mix05_breakthrough_*.md). Off too where the search scores by hand.

        At every player count the cut-off is scored by the shipped learned evaluator
        (``eval=learned``, bots/data/evaluator-breakthrough-2p.json to -5p.json, #44: 1,000
        games of `medium` against itself, the command inside). Against the same search with the
        hand-written evaluation at 0.05 s a move, +96 Elo (+32 to +167) at 2 players, +94 (+33
        to +161) at 3, +214 (+150 to +296) at 4 and +199 (+150 to +257) at 5, each SPRT H1
        (versus_learned_breakthrough_2p_b.md, _3p.md, _4p.md, _5p.md); the shipped `hard`
        against the build before #44 at 0.05 s and 0.5 s a move: every run in
        docs/guide/train.md. A variant (other rules than the evaluator's) is scored by hand."""
        settings = Game.search_settings(self)
        players = self._options["players"]
        settings["rollout_depth"] = 15 if players == 2 else 20
        if players == 2:
            settings["lead_weight"] = 0.5
            settings["leaf_mix"] = 0.5
        settings["eval"] = "learned"
        return settings

    def _configure(self):
        o = self._options
        players, factions, card_set = o["players"], o["factions"], o["card_set"]
        cs = cards_mod.load_card_set(card_set)      # CardSetError (a DataError) names card and field
        self.full_protection_required = o["full_protection_required"]
        self.failed_defence_tokens_down = o["failed_defence_tokens_down"]
        self.quest_tokens_stay_down = o["quest_tokens_stay_down"]
        self.turn_limit = o["turn_limit"]
        self.card_set = cs
        self.card_set_path = card_set      # None, or the path as a str (Option.path)
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
            if len(factions) != players:
                raise ValueError(f"game 'breakthrough': option 'factions' must be 'random' or a list of {players} "
                                 f"faction names (R22), got {list(factions)!r}")
            chosen = []
            for f in factions:
                fid = self.faction_id(f)
                if fid in chosen:
                    raise ValueError(f"game 'breakthrough': option 'factions': {f!r} chosen twice")
                chosen.append(fid)
            self.factions = tuple(self.card_names[f] for f in chosen)
            o["factions"] = self.factions
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
                bit_set(t.resource_mask, c)
            elif ct == CT_STATION:
                t.rtype[c] = RESOURCE_TYPES.index(k.resource_icon)
                t.line[c] = LINES.index(k.line)
                t.rclass[c] = CLASSES.index(k.reward_class)
                bit_set(t.station_mask, c)
            elif ct == CT_THREAT:
                t.loss[c] = LOSSES.index(k.loss)
            elif ct == CT_CARAVAN:
                t.rclass[c] = CLASSES.index(k.caravan_class)
            elif ct == CT_HERO:
                t.rtype[c] = RESOURCE_TYPES.index(k.doubles)
                bit_set(t.hero_mask, c)
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
    def num_cards(self):
        return self.tables.C

    @property
    def max_actions(self):
        return BT_MAX_ACTIONS

    @property
    def num_distinct_actions(self):
        return num_actions(&self.tables)

    @property
    def max_game_length(self):
        # Observed ~4-5 moves per turn under random play; 64 per turn is a generous bound.
        return self.turn_limit * 64

    def faction_ids(self):
        return [self.tables.faction_ids[i] for i in range(self.tables.nfactions)]

    def card(self, int c):
        """The cards.Card with id ``c``."""
        if not 0 <= c < self.tables.C:
            raise ValueError(f"unknown card id {c}; ids are 0..{self.tables.C - 1}")
        return self.card_set.cards[c]

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
        clear_state(d, t)
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
                hand_add(d, p, order[pos], 0)
                pos += 1
        for i in range(BT_MARKET):
            d.market[i] = order[pos]
            pos += 1
        d.deck_n = t.ndeck - pos
        for i in range(d.deck_n):            # stored bottom first: the top is deck[deck_n - 1]
            d.deck[i] = order[t.ndeck - 1 - i]
        d.rng = rng
        return st

    def _load_state(self, obj):
        from metro_ai.engine.breakthrough.loader import load_state
        return load_state(self, obj)


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
        return num_actions(self.t)

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.d.phase == BT_OVER else self.d.decider

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.d.phase == BT_OVER

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return list_legal(&self.d, self.t, out)

    cdef int c_check(self, int action) noexcept nogil:
        cdef int buf[BT_MAX_ACTIONS]
        cdef int n, i
        if self.d.phase == BT_OVER:
            return R_OVER
        if action < 0 or action >= num_actions(self.t):
            return R_RANGE
        n = list_legal(&self.d, self.t, buf)
        for i in range(n):
            if buf[i] == action:
                return 0
        return reason_code(&self.d, self.t, action)

    cdef void c_apply(self, int action) noexcept nogil:
        apply_action(&self.d, self.t, action)
        advance_agenda(&self.d, self.t)

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int i
        for i in range(self.t.players):
            out[i] = tokens_held(&self.d, i)

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
            out[p] = tokens_held(d, p)
            nq = 0
            if not d.fdone[p]:
                quests[nq] = d.faction[p]
                nq += 1
            for w in range(BT_WORDS):
                x = d.tab[p][w] & t.station_mask[w]
                while x:
                    c = w * 64 + ctz(x)
                    x &= x - 1
                    if d.tok[c] == 0:
                        quests[nq] = c
                        nq += 1
            resource_totals(d, t, p, tot)
            best = 0.0
            for i in range(nq):
                c = quests[i]
                qc = t.qclass[c]
                amt = t.qamount[c]
                have = quest_total(tot, qc, -1)
                for w in range(BT_WORDS):
                    x = d.tab[p][w] & t.hero_mask[w]
                    while x:
                        hv = quest_total(tot, qc, t.rtype[w * 64 + ctz(x)])
                        x &= x - 1
                        if hv > have:
                            have = hv
                prog = have / <double>amt
                if prog > 1.0:
                    prog = 1.0
                if prog > best:
                    best = prog
            out[p] += QUEST_PROGRESS_WEIGHT * best

    cdef int c_features(self, int player, float* out, int n) noexcept nogil:
        """`player`'s observation features in C, value for value as features.py's encoder
        (``write_features``, state_features.pxi): 0, or -1 unless n is its size."""
        return write_features(&self.d, self.t, player, out, n)

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
                g = s.hand_gen[q][i]
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
                            if s.hand_gen[q][i] == g:
                                bit_set(mark, s.hand[q][i])
                if g == s.deck_gen:
                    for i in range(s.deck_n):
                        bit_set(mark, s.deck[i])
                m = bits_to_ids(mark, pool)
                rng_shuffle(&rng, pool, m)
                pos = 0
                for q in range(t.players):
                    if q == player:
                        continue
                    cnt = 0
                    for i in range(s.hand_n[q]):
                        if s.hand_gen[q][i] == g:
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
                if nhand[s.active][i] > s.discard_last:
                    cnt += 1
            if cnt >= s.discard_left:
                break
        for q in range(t.players):
            if q == player:
                continue
            d.hand_n[q] = 0
            for i in range(BT_HAND):
                d.hand[q][i] = 0
                d.hand_gen[q][i] = 0
            for i in range(nh[q]):
                hand_add(d, q, nhand[q][i], ngen[q][i])
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

    @property
    def phase(self):
        """One of 'main', 'quest_hero', 'quest_pay', 'keep_station', 'discard3', 'draw',
        'protect', 'free_play', 'lose_station', 'over' (see the reference's module docstring)."""
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

    def tokens(self, int player):
        self._check_player(player)
        return tokens_held(&self.d, player)

    def hand(self, player):
        """Card ids in `player`'s hand, sorted (hidden from the others except known cards)."""
        self._check_player(player)
        return [self.d.hand[player][i] for i in range(self.d.hand_n[player])]

    def known(self, player):
        """Cards in `player`'s hand that everyone knows are there (taken from the market, R20)."""
        self._check_player(player)
        return [self.d.hand[player][i] for i in range(self.d.hand_n[player]) if self.d.hand_gen[player][i] < 0]

    def hand_gen(self, player):
        """Blind draws in `player`'s hand: card id -> deck generation it was drawn in (R21)."""
        self._check_player(player)
        return {self.d.hand[player][i]: self.d.hand_gen[player][i]
                for i in range(self.d.hand_n[player]) if self.d.hand_gen[player][i] >= 0}

    def deck(self):
        """The deck, top card first (hidden from everyone)."""
        return [self.d.deck[self.d.deck_n - 1 - i] for i in range(self.d.deck_n)]

    def discard(self):
        """The discard pile, oldest first (public, R24)."""
        return [self.d.disc[i] for i in range(self.d.disc_n)]

    def market(self):
        """The three market slots: card ids, None for an empty slot."""
        return [None if self.d.market[s] == BT_NONE else self.d.market[s] for s in range(BT_MARKET)]

    def greedy_values(self, double card_value=BT_GREEDY_CARD_VALUE):
        """One value per player for the one-ply greedy bot (public information only): the
        heuristic (tokens held and half the progress of the most advanced open quest) plus
        ``card_value`` per card in the player's tableau (see BT_GREEDY_CARD_VALUE)."""
        cdef int p, w, n = self.t.players
        cdef double out[BT_MAX_PLAYERS]
        self.c_heuristic(out)
        for p in range(n):
            for w in range(BT_WORDS):
                out[p] += card_value * __builtin_popcountll(self.d.tab[p][w])
        return [out[p] for p in range(n)]

    def tableau(self, player):
        """Cards played in front of `player`: list of (card, rotated, tokens), ascending."""
        self._check_player(player)
        out = []
        for c in range(self.t.C):
            if bit_has(self.d.tab[player], c):
                out.append((c, bool(bit_has(self.d.rot, c)), self.d.tok[c]))
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
        return card_cost(&self.d, self.t, player, card, rotated)

    def pending(self):
        """The public data of the decision under way (JSON-ready), or None."""
        d = self.d
        ph = d.phase
        if ph == BT_QUEST_HERO:
            return {"kind": "quest_hero", "card": d.pending_card}
        if ph == BT_PAY:
            return {"kind": "quest_pay", "card": d.pending_card,
                    "hero": None if d.pay_hero == BT_NONE else d.pay_hero,
                    "paid": [c for c in range(self.t.C) if bit_has(d.pay_mask, c)]}
        if ph == BT_KEEP:
            return {"kind": "keep_station", "card": d.pending_card, "k": d.keep_tokens}
        if ph == BT_DISCARD3:
            return {"kind": "discard3", "last": d.discard_last, "left": d.discard_left}
        if ph == BT_PROTECT:
            return {"kind": "protect", "threats": names_of_bits(THREAT_TYPES, self.t.threats[d.pending_card]),
                    "uncovered": names_of_bits(THREAT_TYPES, d.uncovered), "card": d.pending_card}
        if ph == BT_FREE:
            return {"kind": "free_play", "card": d.pending_card}
        if ph == BT_LOSE:
            return {"kind": "lose_station", "card": d.pending_card}
        return None

    def agenda(self):
        """The tasks still to run this turn (JSON-ready): draw, monster, refill, next_turn."""
        d = self.d
        n = self.t.players
        out = []
        if d.todo_draw >= 0:
            out.append({"task": "draw", "player": d.active, "left": d.todo_draw})
        if d.todo_monster:
            out.append({"task": "monster", "card": d.mon_card,
                        "order": [(d.active + i) % n for i in range(d.mon_pos, n)],
                        "stage": ("check", "protect", "free")[d.mon_stage]})
        if d.todo_refill:
            out.append({"task": "refill", "order": [(d.active + i) % n for i in range(d.refill_pos, n)]})
        if d.todo_next_turn:
            out.append({"task": "next_turn"})
        return out

    # ---- Python face: actions as text ----
    def _name(self, c):
        return self.game.card_names[c] if 0 <= c < self.t.C else f"card {c}"

    def _played_name(self, c):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < self.t.C:
            raise ValueError(f"unknown card id {c!r}; ids are 0..{self.t.C - 1}")
        for p in range(self.t.players):
            if bit_has(self.d.tab[p], c):
                if bit_has(self.d.rot, c):
                    return f"rotated {self._name(c)}"
                tok = self.d.tok[c]
                if tok:
                    return f"{self._name(c)} with {tok} token{'s' if tok > 1 else ''}"
        return self._name(c)

    def action_to_string(self, a):
        """Human-readable text of an action, in the rulebook's words (as the reference)."""
        cdef int card, block
        if isinstance(a, bool) or not isinstance(a, int) or a < 0 or a >= num_actions(self.t):
            raise ValueError(f"not a Breakthrough action: {a!r} (actions are 0..{num_actions(self.t) - 1})")
        p = self.d.decider if self.d.decider >= 0 else self.d.active
        block = decode_action(self.t, a, &card)
        if block < 0:
            o = card
            if o >= O_PAY:
                c = o - O_PAY
                if self.t.ctype[c] != CT_RESOURCE:
                    return f"pay with {self._name(c)}"
                return f"pay with {self._name(c)} (counts {pay_value(&self.d, self.t, c)})"
            if o < 3:
                m = self.d.market[o]
                return f"take market slot {o + 1}: {self._name(m) if m != BT_NONE else 'empty'}"
            return {O_TAKE_DECK: "take the top card of the deck", O_END_TURN: "end turn",
                    O_QUEST_NO_HERO: "complete the quest without a hero",
                    O_KEEP_STATION: "keep the station", O_DISCARD_STATION: "discard the station",
                    O_PASS: "decline the free play"}[o]
        c = card
        name = self._name(c)
        ct = self.t.ctype[c]
        free = self.d.phase == BT_FREE
        if block == B_PLAY:
            how = CARD_TYPES[ct]
            if free:
                cost = 0
            elif self.t.play_ok[c]:
                cost = card_cost(&self.d, self.t, p, c, False)
            else:
                cost = "?"
            return f"play {name} as {how} ({'free' if free else f'cost {cost}'})"
        if block == B_PLAY_ROTATED:
            cost = 0 if free else (self.t.pcost[c] if self.t.pcost[c] >= 0 else None)
            return f"play {name} rotated as protection ({'free' if free else f'cost {cost}'})"
        if block == B_DISCARD:
            what = " as monster" if ct == CT_THREAT else ""
            return f"discard {name}{what} ({_moves_up(self.t.move[c], self.d.below[p])})"
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
        R20) and how many of their blind draws come from each deck generation (R21); ``scores``
        (the tokens, public) as every observation carries the scores its player may see."""
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
                g = d.hand_gen[q][i]
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
            "scores": self.scores(),        # the tokens again, as every game's observation names what it shows
            "market": self.market(),
            "discard": self.discard(),
            "deck_size": d.deck_n,
            "deck_generation": d.deck_gen,
            "terminal": d.phase == BT_OVER,
            "winner": self.winner,
        }

    def _state_fields(self):
        """The full state (hidden parts included); card ids are those of the game's card set
        (``game.card_names[id]``)."""
        d = self.d
        n = self.t.players
        return {
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

    def render(self, player=None):
        """A text view for terminals: tokens, faction cards, tableaux, market, piles, and the
        hand of `player` if given (other hands as sizes); every card with what it does (cost,
        quantity, quest and reward, monster icons and loss, protection: ``CardKind.summary``)."""
        cdef int total, least, last
        names = self.game.card_names
        kinds = [c.kind for c in self.game.card_set.cards]
        d = self.d

        def card(c):
            return f"{names[c]} ({kinds[c].summary()})"

        lines = [f"Metro 2033: Breakthrough, turn {d.turn}, active P{d.active}, phase {self.phase}"
                 + (f", P{self.current_player} to decide" if self.current_player >= 0 else ", game over")]
        for p in range(self.t.players):
            fac = names[d.faction[p]] + (" (face down: quest done)" if d.fdone[p] else f" ({kinds[d.faction[p]].summary()})")
            lines.append(f"P{p} {fac}: tokens {tokens_held(&d, p)} (above {d.above[p]}, below {d.below[p]}, "
                         f"supply {d.supply[p]}), hand {d.hand_n[p]}")
            for c, r, k in self.tableau(p):
                lines.append("    " + ("rotated " if r else "") + card(c)
                             + (f" [{k} token{'s' if k > 1 else ''}]" if k else ""))
        lines.append("market:")
        for i, m in enumerate(self.market()):
            lines.append(f"    {i + 1}: " + (card(m) if m is not None else "empty"))
        lines.append(f"deck {d.deck_n}, discard {d.disc_n}"
                     + (f" (top: {names[d.disc[d.disc_n - 1]]})" if d.disc_n else ""))
        if d.phase == BT_PAY:
            pend = self.pending()
            paid_so_far(&d, self.t, &total, &least, &last)
            lines.append(f"paying for {names[pend['card']]}: {total} of {self.t.qamount[pend['card']]}"
                         + (f" with {names[pend['hero']]}" if pend["hero"] is not None else "")
                         + (", paid " + ", ".join(names[c] for c in pend["paid"]) if pend["paid"] else ""))
        if player is not None:
            self._check_player(player)
            lines.append(f"P{player} hand:")
            lines.extend("    " + card(c) for c in self.hand(player))
        if d.winner >= 0:
            lines.append(f"winner: P{d.winner}")
        return "\n".join(lines)
