# cython: language_level=3
"""Metro 2033 (board game): the game on the contract (registered as ``metro2033``, G37).

``Metro2033Game`` / ``Metro2033State``: the contract's C-level methods call the state machine's
(``machine.pyx``) ``nogil`` functions on the state's own ``Machine``, held by value (a copy is a
struct copy; the card tables, compiled once per game, are shared); the Python face adds the JSON
layout (``_dump``; ``loader.pyx`` reads it back, checked), the observation, observed actions and
the text view.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.core cimport (Game, GameState, rank_return, MAX_PLAYERS, PEEK_DECKS, PEEK_HANDS,
                                   PEEK_CHOICES)
from metro_ai.engine.core import Option, as_seed
from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.cardset cimport CardTables
from metro_ai.engine.metro2033.machine cimport (Machine, m33_init, m33_new, m33_legal, m33_do, m33_advance,
                                                m33_determinize, m33_tkey)
from metro_ai.engine.metro2033.cards import load_card_set
from metro_ai.engine.metro2033.machine import PHASES, TASK_NAMES, DECK_KEYS, HIDDEN_PENDING as _HIDDEN_PENDING
from metro_ai.engine.metro2033.board import BOARD, RESOURCES
from metro_ai.engine.metro2033 import readings as readings_module

cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_NOT_NOW = 3

_REASONS = {R_OVER: "the game is over", R_RANGE: "not an action of this game",
            R_NOT_NOW: "not one of the legal actions of this decision"}


cdef class Metro2033Game(Game):
    """*Metro 2033*, the board game (2nd edition), 2-6 players (rules G1-G36 of
    ``docs/rules/metro2033.md``), on the state machine of ``machine.pyx``. Options: ``players``
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
    # MAST play-outs (bots/search.pyx, its own settings: epsilon 0.2, unseen 1.0): hard with them beat
    # hard with random ones 80.8% at 0.05 s a move, 2 players (+249 Elo, SPRT H1;
    # benches/results/versus_mast.md, issue #26); cut after 60 actions, soft rank of scale 1.
    # Implicit minimax back-ups: hard with them (weight 0.3) beat hard without 58.1% over 62 games
    # at 0.05 s a move, 2 players (+57 Elo, SPRT H1); weight 0.15 then beat 0.3 56.8% over 66 games
    # (+48 Elo, SPRT H1); 0.5 lost to 0.3 (H0). benches/results/versus_minimax.md, issue #26.
    search_defaults = {"rollout": "mast", "rollout_depth": 60, "cutoff_scale": 1.0, "minimax": 0.15}
    state_fields = ("rng_state", "decks", "known", "discards", "out", "market", "law", "owner", "faction",
                    "hero", "hero_at", "wounded", "vp", "army", "res", "equipment", "quests", "done_quests",
                    "quest_used", "scouted", "scouted_round", "declared", "threat_now", "vote", "last_vote",
                    "last_threat", "round", "first", "stage", "over", "winner", "phase", "decider",
                    "pending", "fight", "combat", "agenda")
    benchmark_moves = {"opening": 0, "middle": 150, "end": 300}
    reference = "metro_ai.engine.metro2033.reference:RefMetro2033Game"
    features = "metro_ai.engine.metro2033.features:Metro2033Features"
    svg = "metro_ai.engine.metro2033.svg:map_svg"
    models_opponents = True     # threat declarations and the attacker's combat pick (m33_determinize)

    def search_settings(self):
        """``search_defaults``; at 3 players the cut-off is also scored by the shipped learned
        evaluator (``eval=learned``, bots/data/evaluator-metro2033-3p.json, #44; its training
        command inside: 1,000 self-play games of `medium`, a position every 6 actions). Against
        the same search with the hand-written evaluation: at 1,000 iterations a move +93 Elo (+29
        to +164, 90 games; benches/results/learned_metro2033_3p_iterations.md); at 0.05 s a move,
        where it costs 17% of the iterations, +27 (-3 to +57) over 200 games and +67 (+20 to
        +117, SPRT H1 for +50) over 50 more on other deals (versus_learned_metro2033_3p_1000.md,
        _1000_b.md). The evaluators fitted before to fewer games (150 and 530, a position every 2
        actions) were level at 0.05 s; at 2 players the shipped one is not read: no
        measurement could tell (the first seat wins with the shipped cards).

        At 2 and 3 players the MAST play-out also takes a random action more often
        (``rollout_epsilon`` 0.35 for 0.2, #44), against the same search with 0.2 at 0.05 s a move
        and equal iterations: at 3 players +32 Elo (+12 to +53) over 400 games
        (versus_rollout_epsilon035_metro2033_3p.md, _b.md; 0.1 and 0.5 were weaker), at 2 players
        on the measurement card file +54 (+24 to +85) over 494 games of three runs, the last SPRT
        H1 for +35 (versus_rollout_epsilon035_metro2033_2p_measurement.md, _b.md, _c.md). At 4
        players +19 (-5 to +43) over 240 games, undecided: 0.2 there. A play-out setting, so it
        holds with every rule variant and card set."""
        settings = Game.search_settings(self)
        players = self._options["players"]
        if players == 3:
            settings["eval"] = "learned"
        if players <= 3:
            settings["rollout_epsilon"] = 0.35
        return settings

    def _configure(self):
        o = self._options
        self.card_set = load_card_set(o["cards"], strict_counts=o["strict_counts"])
        self.tab = CardTables(self.card_set)
        if self.tab.t.nheroes < o["players"]:
            raise ValueError(f"the card set has {self.tab.t.nheroes} heroes for {o['players']} players")
        m33_init(&self.proto, self.tab, o["round_limit"])
        m33_new(&self.proto, o["players"], 0)
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
        n, q = self.players, self.tab.t.n_type[T_QUEST]
        # G29, G31, G33: per round and player an upkeep decision, and a quest decision at each
        # of the 2n + 1 quest checks (each completion asks again: at most q more); the law look
        return 3 * n + self.options["round_limit"] * (n * (4 * q + 140) + 20 + n * (2 * n + 2 + q) + 1)

    cdef Metro2033State _blank(self):
        cdef Metro2033State st = Metro2033State.__new__(Metro2033State)
        st.game = self
        st.m = self.proto
        return st

    def new_state(self, seed=0):
        """A new game dealt from `seed` (any int), as the reference engine deals it."""
        cdef uint64_t s = as_seed(seed)
        cdef Metro2033State st = self._blank()
        m33_new(&st.m, self.players, s)
        return st

    # ---- actions in text
    def action_to_string(self, action):
        """Human text of an action id (as the reference engine writes it); ValueError if it is
        not one."""
        cdef Machine* f = &self.proto
        cdef Tables* t = f.t
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
        from metro_ai.engine.metro2033.loader import load_state
        return load_state(self, obj)


_FIXED_NAMES = ("yes", "no", "army", "hero", "buy", "quest", "exchange", "scout", "attack", "pass",
                "refresh", "done")


cdef inline unsigned int _fnv(unsigned int h, int v) noexcept nogil:
    """One step of FNV-1a over a 32-bit word (``c_chance_key``'s hash)."""
    return (h ^ <unsigned int>v) * 16777619u


cdef enum:
    SEAT_FEATURES = 10          # features.py's SEAT_FEATURES and CARD_CHANNELS
    CARD_CHANNELS = 8


cdef inline void _card_on(float* cards, int c, int C, int channel) noexcept nogil:
    """Card `c`'s `channel` of the features' card section set (nothing for no card, c < 0)."""
    if 0 <= c < C:
        cards[c * CARD_CHANNELS + channel] = 1


cdef class Metro2033State(GameState):
    """A game of Metro 2033, hidden parts included (deck orders, quests in hand, scouted threats,
    combat cards, undisclosed threat declarations). Make one with ``Metro2033Game.new_state``."""

    # ---- the C-level contract
    cdef int c_num_players(self) noexcept nogil:
        return self.m.d.n

    cdef int c_max_actions(self) noexcept nogil:
        return self.m.FIXED + 12

    cdef int c_num_actions(self) noexcept nogil:
        return self.m.FIXED + 12

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.m.d.over else self.m.d.decider

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.m.d.over

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return m33_legal(&self.m, out)

    cdef int c_check(self, int action) noexcept nogil:
        cdef int buf[MAX_LEGAL]
        cdef int k, i
        if self.m.d.over:
            return R_OVER
        if action < 0 or action >= self.m.FIXED + 12:
            return R_RANGE
        k = m33_legal(&self.m, buf)
        for i in range(k):
            if buf[i] == action:
                return 0
        return R_NOT_NOW

    cdef void c_apply(self, int action) noexcept nogil:
        m33_do(&self.m, action)
        m33_advance(&self.m)

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int p
        for p in range(self.m.d.n):
            out[p] = self.m.d.vp[p]

    cdef void c_returns(self, double* out) noexcept nogil:
        """G2 winner first, the others by VP (G30 at the round limit); zeros before the end."""
        cdef int p, n = self.m.d.n
        cdef double key[MAX_PLAYERS]
        for p in range(n):
            key[p] = self.m.d.vp[p] + (1000.0 if p == self.m.d.winner else 0.0)
        for p in range(n):
            out[p] = rank_return(p, n, key) if self.m.d.over else 0.0

    cdef void c_heuristic(self, double* out) noexcept nogil:
        """Public information only: VP, the G2 win, and a little for army, resources, equipment
        and completed-quest properties (the means to take stations)."""
        cdef Data* d = &self.m.d
        cdef int p
        for p in range(d.n):
            out[p] = (d.vp[p] + (100.0 if p == d.winner else 0.0) + 0.15 * d.army[p]
                      + 0.03 * (d.res[p][0] + d.res[p][1] + d.res[p][2]) + 0.1 * d.equip_n[p])

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        """G32, G38, as the reference's ``observed_action``: exactly what the move shows another
        player. A threat declaration reads as one at station 0, unless it is the last and the
        threat is revealed at once (seen as it is); the attacker's combat-card pick as the first
        combat card (the defender's is seen as it is: both reveal at once); the quest kept as the
        card put face up on the discard pile (G27), or the first quest card when only one was
        drawn; every other move as it is."""
        cdef Data* d = &self.m.d
        cdef Tables* t = self.m.t
        cdef int key
        if d.over or player == d.decider:
            return action
        if d.phase == P_DECLARE:
            key = m33_tkey(&self.m)
            if d.ag_n > 0 and d.ag[d.ag_n - 1].name == J_THREAT_REVEAL and (d.deck_n[key] or d.disc_n[key]):
                return action
            return A_STATION
        if d.phase == P_COMBAT_PICK and d.pd_side == 0:
            return A_CARD + t.by_type[T_COMBAT][0]
        if d.phase == P_QUEST_KEEP:
            if d.pd_ncards == 2:
                return A_CARD + (d.pd_cards[1] if d.pd_cards[0] == action - A_CARD else d.pd_cards[0])
            return A_CARD + t.by_type[T_QUEST][0]
        return action

    cdef int c_chance_key(self, int player) noexcept nogil:
        """A hash of what `player` sees (as ``observation``) of the state that chance and hidden
        moves shape: the market, law, threat and vote, the board, tokens, resources, heroes,
        equipment, completed quests, discards, the fight, the pending decision and the agenda;
        the threat declarations once the threat is revealed (G32); of their own, the cards they
        choose among, their scouted threat and their combat cards. Their quests in hand and the
        deck places they know are left out: those they held before the search began would split
        every node of their tree (MO-ISMCTS), and those drawn since are told apart by the cards
        they chose among. Equal for states `player` cannot tell apart."""
        cdef Data* d = &self.m.d
        cdef unsigned int h = 2166136261u
        cdef int p, i, k
        cdef bint side
        h = _fnv(h, d.round)
        h = _fnv(h, d.stage)
        h = _fnv(h, d.phase)
        h = _fnv(h, d.decider)
        h = _fnv(h, d.first)
        h = _fnv(h, d.over)
        h = _fnv(h, d.winner)
        h = _fnv(h, d.law)
        h = _fnv(h, d.threat_now)
        h = _fnv(h, d.last_threat)
        for i in range(4):
            h = _fnv(h, d.market[i])
        h = _fnv(h, d.vote_on)
        h = _fnv(h, d.vote_law)
        h = _fnv(h, d.vote_for)
        h = _fnv(h, d.vote_against)
        h = _fnv(h, d.last_vote_on)
        for i in range(3):
            h = _fnv(h, d.last_vote[i])
        for i in range(S):
            h = _fnv(h, d.owner[i])
        for p in range(d.n):
            h = _fnv(h, d.faction[p])
            h = _fnv(h, d.hero[p])
            h = _fnv(h, d.hero_at[p])
            h = _fnv(h, d.wounded[p])
            h = _fnv(h, d.vp[p])
            h = _fnv(h, d.army[p])
            for i in range(3):
                h = _fnv(h, d.res[p][i])
            h = _fnv(h, d.equip_n[p])
            for i in range(d.equip_n[p]):
                h = _fnv(h, d.equip[p][i])
            h = _fnv(h, d.quest_n[p])
            h = _fnv(h, d.done_n[p])
            for i in range(d.done_n[p]):
                h = _fnv(h, d.done[p][i])
            h = _fnv(h, d.used_n[p])
            h = _fnv(h, (d.scouted[p] >= 0))
            if d.threat_now >= 0 or p == player:          # G32: declarations open at the reveal
                h = _fnv(h, d.decl_station[p])
                h = _fnv(h, d.decl_hero[p])
        h = _fnv(h, d.scouted[player])
        for k in range(5):
            h = _fnv(h, d.deck_n[k])
            h = _fnv(h, d.disc_n[k])
            for i in range(d.disc_n[k]):
                h = _fnv(h, d.disc[k][i])
        h = _fnv(h, d.out_n)
        for i in range(d.out_n):
            h = _fnv(h, d.out[i])
        h = _fnv(h, d.pd_ncards)
        if not (d.phase == P_LAW_PEEK or d.phase == P_ARTYOM or d.phase == P_QUEST_KEEP
                or d.phase == P_STAGE2_EQ) or player == d.decider:
            for i in range(d.pd_ncards):
                h = _fnv(h, d.pd_cards[i])
        h = _fnv(h, d.pd_votes)
        h = _fnv(h, d.pd_max)
        h = _fnv(h, d.pd_side)
        h = _fnv(h, d.pd_who)
        h = _fnv(h, d.pd_station)
        h = _fnv(h, d.pd_taken)
        h = _fnv(h, d.pd_from)
        h = _fnv(h, d.pd_to)
        h = _fnv(h, d.pd_bought)
        h = _fnv(h, d.pd_refreshed)
        h = _fnv(h, d.pd_forced)
        h = _fnv(h, d.pd_amount)
        h = _fnv(h, d.pd_resmask)
        h = _fnv(h, d.cx_kind)
        h = _fnv(h, d.cx_station)
        for i in range(2):
            h = _fnv(h, d.cx_side[i])
            h = _fnv(h, d.cx_who[i])
        h = _fnv(h, d.combat_on)
        if d.combat_on:
            h = _fnv(h, d.aside_n)
            for k in range(2):
                side = d.cx_side[k] == player
                h = _fnv(h, d.hand_n[k])
                h = _fnv(h, (d.pick[k] >= 0))
                if side:
                    for i in range(d.hand_n[k]):
                        h = _fnv(h, d.hand[k][i])
                    h = _fnv(h, d.pick[k])
        h = _fnv(h, d.ag_n)
        for i in range(d.ag_n):
            h = _fnv(h, d.ag[i].name)
            h = _fnv(h, d.ag[i].a)
            h = _fnv(h, d.ag[i].b)
            h = _fnv(h, d.ag[i].c)
        return <int>(h & 0x7FFFFFFF)

    cdef int c_features(self, int player, float* out, int n) noexcept nogil:
        """`player`'s observation tensor (features.py's ``Metro2033Features``, value for value) from
        the C state: what ``observation(player)`` shows of it and nothing more (the viewer's own
        quests and scouted threat, of the others counts; the discard piles but the laws'). Seats
        relative to the viewer; each value computed in double as the Python encoder does, then
        rounded to float. -1 unless `n` is the layout's size (2-6 players, C cards)."""
        cdef Data* d = &self.m.d
        cdef int np_ = d.n, C = self.m.t.C, limit = self.m.round_limit
        cdef int width = 2 * np_ + 1
        cdef int p, s, i, k, c, o, rel
        cdef float* f
        if n != S * width + np_ * SEAT_FEATURES + C * CARD_CHANNELS + P_COUNT + np_ + 2 + 5:
            return -1
        if player < 0 or player >= np_:
            return -1
        memset(out, 0, n * sizeof(float))
        # stations: S x (owner by relative seat, hero of relative seat, neutral)
        for s in range(S):
            o = d.owner[s]
            out[s * width + (2 * np_ if o < 0 else (o - player + np_) % np_)] = 1
        for p in range(np_):
            if d.hero_at[p] >= 0:
                out[d.hero_at[p] * width + np_ + (p - player + np_) % np_] = 1
        # seats
        f = out + S * width
        for p in range(np_):
            rel = (p - player + np_) % np_
            f[rel * SEAT_FEATURES + 0] = <float>(<double>(d.vp[p] if d.vp[p] < 10 else 10) / 10.0)
            f[rel * SEAT_FEATURES + 1] = <float>(<double>d.army[p] / 8.0)
            for i in range(3):
                f[rel * SEAT_FEATURES + 2 + i] = <float>(<double>d.res[p][i] / 35.0)
            f[rel * SEAT_FEATURES + 5] = 1 if d.wounded[p] else 0
            f[rel * SEAT_FEATURES + 6] = <float>(<double>(d.equip_n[p] if d.equip_n[p] < 4 else 4) / 4.0)
            f[rel * SEAT_FEATURES + 7] = <float>(<double>(d.quest_n[p] if d.quest_n[p] < 18 else 18) / 18.0)
            f[rel * SEAT_FEATURES + 8] = <float>(<double>(d.done_n[p] if d.done_n[p] < 18 else 18) / 18.0)
            f[rel * SEAT_FEATURES + 9] = 1 if d.scouted[p] >= 0 else 0
        # cards: C x (market, law, own quest, equipment, completed quest, threat, own scouted, discarded)
        f += np_ * SEAT_FEATURES
        for i in range(4):
            _card_on(f, d.market[i], C, 0)
        _card_on(f, d.law, C, 1)
        for i in range(d.quest_n[player]):
            _card_on(f, d.quests[player][i], C, 2)
        for p in range(np_):
            for i in range(d.equip_n[p]):
                _card_on(f, d.equip[p][i], C, 3)
            for i in range(d.done_n[p]):
                _card_on(f, d.done[p][i], C, 4)
        _card_on(f, d.threat_now, C, 5)
        _card_on(f, d.scouted[player], C, 6)
        for k in range(5):
            if k != K_LAW:                                    # observation's discards: no law pile
                for i in range(d.disc_n[k]):
                    _card_on(f, d.disc[k][i], C, 7)
        # turn: phase, player to move (relative), round / limit, stage 2, deck sizes / C
        f += C * CARD_CHANNELS
        f[P_OVER if d.over else d.phase] = 1
        if not d.over and d.decider >= 0:
            f[P_COUNT + (d.decider - player + np_) % np_] = 1
        f += P_COUNT + np_
        f[0] = <float>(<double>(d.round if d.round < limit else limit) / <double>limit)
        f[1] = 1 if d.stage == 2 else 0
        for k in range(5):
            f[2 + k] = <float>(<double>(d.deck_n[k] if d.deck_n[k] < C else C) / <double>C)
        return 0

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.m.d = (<Metro2033State>other).m.d

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        self.m.d = (<Metro2033State>source).m.d
        m33_determinize(&self.m, player, seed)

    cdef int c_set_peek(self, int parts) except -1:
        if parts & ~(PEEK_DECKS | PEEK_HANDS | PEEK_CHOICES):
            raise ValueError(f"unknown hidden parts {parts:#x}")
        self.m.peek = parts
        return 0

    cdef int c_set_model(self, bint on) except -1:
        self.m.model = on
        return 0

    cdef GameState c_new_blank(self):
        return (<Metro2033Game>self.game)._blank()

    # ---- Python face
    def _reason(self, int code):
        return _REASONS.get(code, f"reason code {code}")

    def _summary(self):
        cdef Data* d = &self.m.d
        return (f"metro2033 {d.n} players, round {d.round}, stage {d.stage}, phase {self.phase}, "
                + (f"player {d.decider} to move" if not d.over else "over") + f", VP {self.scores()}")

    @property
    def phase(self):
        """The decision being taken (the reference's phase names), ``over`` at the end."""
        return "over" if self.m.d.over else PHASES[self.m.d.phase]

    @property
    def round(self):
        return self.m.d.round

    @property
    def stage(self):
        return self.m.d.stage

    @property
    def winner(self):
        """The G2 winner, or None (none yet, or the round limit ended the game: G30)."""
        return None if self.m.d.winner < 0 else self.m.d.winner

    def _state_fields(self):
        return _dump(self)

    def observation(self, player):
        """What `player` sees, as a JSON-ready dict: the whole public state (board, tokens,
        resources, heroes, equipment, law, completed quests, market, discards, the records, the
        agenda); their own quests, scouted threat, combat cards and the deck places they know;
        of the others only counts; the threat declarations only once the threat is revealed
        (G32); of the decks their sizes and which places someone knows."""
        cdef Data* d = &self.m.d
        self._check_player(player)
        full = _dump(self)
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
        full = _dump(self)
        names = BOARD.names

        def card(c):
            return "-" if c is None else cn[c]
        lines = [f"Metro 2033, round {full['round']} (stage {full['stage']}), phase {self.phase}"
                 + (f", P{self.current_player} to decide" if not self.is_terminal() else ", game over")]
        for p in range(self.m.d.n):
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


def _dump(Metro2033State st):
    """The full state (hidden parts included) as a JSON-ready dict: the reference engine's layout
    (``RefMetro2033State._data()``) for the fields both engines keep alike, then the pending
    decision's parameters, the fight between players and the agenda."""
    cdef Machine* m = &st.m
    cdef Data* d = &m.d
    n = d.n
    keys = DECK_KEYS
    obj = {
        "rng_state": str(d.rng),
        "decks": {keys[k]: [d.deck[k][i] for i in range(d.deck_n[k])] for k in range(5)},
        "known": {str(c): [p for p in range(n) if d.known[c] >> p & 1] for c in range(m.t.C) if d.known[c]},
        "discards": {keys[k]: [d.disc[k][i] for i in range(d.disc_n[k])] for k in (0, 1, 3, 4)},
        "out": [d.out[i] for i in range(d.out_n)],
        "market": [_opt(d.market[i]) for i in range(4)],
        "law": _opt(d.law),
        "owner": [_opt(d.owner[s]) for s in range(S)],
        "faction": [_opt(d.faction[p]) for p in range(n)],
        "hero": [_opt(d.hero[p]) for p in range(n)],
        "hero_at": [_opt(d.hero_at[p]) for p in range(n)],
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
        "threat_now": _opt(d.threat_now),
        "vote": {"law": d.vote_law, "for": d.vote_for, "against": d.vote_against} if d.vote_on else None,
        "last_vote": ({"law": d.last_vote[0], "for": d.last_vote[1], "against": d.last_vote[2]}
                      if d.last_vote_on else None),
        "last_threat": _opt(d.last_threat),
        "round": d.round, "first": d.first, "stage": d.stage, "over": bool(d.over),
        "winner": _opt(d.winner), "phase": "over" if d.over else PHASES[d.phase],
        "decider": -1 if d.over else d.decider,
    }
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

