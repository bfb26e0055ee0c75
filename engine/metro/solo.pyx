# cython: language_level=3
"""Metro: City Edition module 4, the solo game (rule C4; decisions C20-C24 of
``docs/rules/metro.md``): its own registered game, ``metro-solo`` (one player).

The board, tiles and lines are the base game's (``rules.pxd`` helpers) with the companies' chart
(M11): 32 lines of 8 companies, profits in ``MetroData.score[0..7]``. What is the solo game's:

* Set-up (C20): one splitmix64 stream from the seed shuffles the 60 tiles as the base game does
  (kinds ascending, Fisher-Yates from the end), then the colour deck, the companies 0..7 (their
  10% shares), the same way; the two front tiles of the supply go face up (kept as the player's
  "hand", sorted); the top share is revealed. The stream goes on in the state (``rng``, hidden):
  it draws where a rejected tile goes back and shuffles the revealed shares into a new deck.
* Turn (C4, C21): the revealed share's company must be extended: place one of the face-up tiles on
  a square where an open line of that company waits (M5 holds there), in any rotation under M9;
  M6 applies among those placements (its exception too). Then the face-up row is refilled to two
  while the supply lasts and the next share revealed. A share whose company has no open line is
  passed over at once (the next one revealed). When the deck is empty at a reveal, the revealed
  shares (in the order revealed) are shuffled into a new deck.
* Reject (C22): on the turns of the first 7 reveals (the 8th exhausts the first deck: rejecting
  ends with it) and while the supply holds at least 2 tiles, the player may, once per turn, reject
  a face-up tile: it goes back into the middle of the supply, at a position drawn uniformly from
  the state's stream among those with a tile above and a tile below (``1 + bounded(n - 1)``, 0 =
  front, n tiles left), and the front tile (another one) is turned up. The state logs each reject
  as (kind, tiles of that kind left in the supply after it), which the player sees: it is what
  ``determinize`` needs. Action ``6145 + kind``, text "reject T05".
* End (C23): when no tile is face up (the supply is spent) or no line is open.
* Score and returns (C24, reconstructed): the score is the sum of the eight companies' profits;
  ``returns()`` is that score divided by 480 (each of the 60 tiles has 4 tracks, each passed by at
  most one line, doubled at most: a bound no game reaches), so that search maximises it. At the
  end only, 0 before (as every game's).
* Hidden (C25): the supply's order, the deck's order and the stream; ``determinize`` shuffles the
  supply (the base game's redeal), then the deck's shares in ascending order (splitmix64 seeded
  with ``seed ^ 0x534F4C4F4D455452``), and gives the stream a new state from the same generator.
  After a reject the player knows the supply's bottom tile is none of the rejected ones (a
  rejected tile never goes to the bottom, and the bottom never moves): the bottom kind is then
  drawn by its exact weight (``bottom_weights``) and the rest shuffled, from a second generator
  (``seed ^ SOLO_SALT ^ SOLO_BOTTOM_SALT``), so states without a reject determinize as before.
"""
import re

from libc.string cimport memset
from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport Game, GameState, listed_random_action
from metro_ai.engine.rng cimport rng_t, rng_next, rng_shuffle, rng_bounded
from metro_ai.engine.metro.state cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_DRAW, METRO_KINDS, METRO_TILES, METRO_SQUARES,
    PHASE_TURN, PHASE_OVER, deal_tiles, draw_tile, hand_add, hand_remove, legal_placements, candidate_squares,
    place_tile)
from metro_ai.engine.core import Option, as_seed, _to_a_choice, STAGES
from metro_ai.engine.errors import StateFormatError
from . import data as metro_data
from . import readings as readings_module
from .state import _load_state
from .loader import brief, int_in as _int_in

cdef enum:
    SOLO_REJECT = 6145         # reject action: 6145 + kind (C22)
    SOLO_MAX = 480             # the bound of C24
cdef uint64_t SOLO_SALT = 0x534F4C4F4D455452ULL
cdef uint64_t SOLO_BOTTOM_SALT = 0x424F54544F4D2121ULL   # determinize's bottom tile after a reject (C25)
cdef double SOLO_OPEN_LINE_WEIGHT = 3.0     # as the base game's heuristic (state.pyx)

cdef enum:
    R_SO_COMPANY = 40
    R_SO_REJECT = 41
    R_SO_RANGE = 42

_REASONS = {
    R_SO_COMPANY: "the tile must extend an open line of the revealed share's company, on a square where "
                  "one waits, as a face-up tile (C4, C21)",
    R_SO_REJECT: "a tile may be rejected once a turn, before the first deck's last share is revealed and while the "
                 "supply holds at least 2 tiles (C22)",
    R_SO_RANGE: "not a Metro solo action (placements kind*256 + square*4 + rot, rejects 6145 + kind)",
}
_REJECT_RE = re.compile(r"^\s*reject\s+(t\d{1,2})\s*$", re.I)


cdef struct SoloData:
    signed char deck[8]        # companies of the face-down shares, top first
    signed char deck_n
    signed char revealed[8]    # shares revealed since the last reshuffle, in order (the last: shown)
    signed char revealed_n
    signed char company        # the shown share's company, -1 once over
    signed char first          # 1 while the shares come from the first deck (C22)
    signed char rejected       # 1 once a tile was rejected this turn
    signed char rej_kind[8]    # the rejects so far (C22, C25): the kind put back...
    signed char rej_left[8]    # ...and the tiles of that kind left in the supply after it
    signed char rej_n
    rng_t rng                  # the state's stream (hidden, C20)


cdef class MetroSoloGame(MetroGame):
    """Metro solo (City Edition module 4, C4): one player extends the revealed company's lines."""
    name = "metro-solo"
    readings = readings_module.METRO_SOLO
    title = "Metro solo (City Edition module 4)"
    min_players = 1
    max_players = 1
    OPTIONS = (
        Option.integer("players", 1, "number of players (the solo game: 1); its score, the sum of the "
                       "companies' profits, is RECONSTRUCTED (C24)", low=1, high=1, rule="C4"),
        Option.boolean("orientation", True, "keep every tile in the board's orientation; False is variant M9",
                       rule="M9"),
        Option.path("company_chart", None, "a CSV of the stations each company owns; None is the shipped chart, "
                    "which is RECONSTRUCTED (M11)", rule="M11"),
    )
    added_options = ()
    search_defaults = {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0}
    state_fields = ("current_player", "phase", "board", "face_up", "supply", "company", "deck", "revealed",
                    "first_deck", "rejected", "reject_log", "rng")
    reference = "metro_ai.engine.metro.reference_solo:RefSoloGame"
    features = "metro_ai.engine.metro.features:SoloFeatures"
    benchmark_tiles = {"opening": 0, "middle": 12, "end": 24}

    def _configure(self):
        self.orientation = self._options["orientation"]
        self.hand_size = 2                # the face-up row (C4)
        self.companies = True             # the companies' board (M11)
        self.company_chart = self._options["company_chart"]
        self.exchange_limit = 0
        self.central_stations = False
        self.central_tracks = False
        self.central_track_layouts = None
        self.edition = "classic"
        self.track_layouts = ()
        self.chart = metro_data.load_company_chart(self.company_chart)
        self.data = metro_data.load()
        self.tile_ids = tuple(t.id for t in self.data.tiles)
        self._build_tables()
        self.tables.companies = 0         # the companies' board (their chart), not their shares part (M12)
        self.modules = ()                 # its own deal, loader and actions (below), no module's
        # the action bounds (MetroState.c_max_actions, c_num_actions): two face-up tiles' placements
        # and the rejects (C22); the ids end after the rejects
        self.tables.max_actions = 2 * METRO_SQUARES * 4 + 2
        self.tables.num_actions = SOLO_REJECT + METRO_KINDS

    @property
    def max_game_length(self):
        return METRO_TILES + 8           # a placement per tile, at most 7 rejects (C22): a bound, kept as before

    def reference_game(self):
        """The same game on the pure-Python reference (``reference_solo.py``)."""
        from . import reference_solo
        return reference_solo.RefSoloGame(orientation=self.orientation, chart=self.company_chart)

    def new_state(self, seed=0):
        """A new solo game from `seed` (C20)."""
        cdef rng_t rng = as_seed(seed)
        cdef SoloState st = _blank(self)
        cdef int k
        deal_tiles(&st.d, &self.tables, &rng)       # 2 tiles to the face-up row ("hand" of player 0)
        for k in range(8):
            st.s.deck[k] = k
        rng_shuffle(&rng, st.s.deck, 8)
        st.s.deck_n = 8
        st.s.first = 1
        st.s.rng = rng
        reveal(&st.d, &self.tables, &st.s)
        return st

    def _load_state(self, obj):
        return load_state(self, obj)

    def benchmark_position(self, stage="opening", seed=11):
        """The deal `seed` after random play to ``benchmark_tiles[stage]`` tiles (or the end)."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")
        import random
        s = self.new_state(seed)
        rng = random.Random(seed)
        while s.tiles_placed < self.benchmark_tiles[stage] and not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
        return _to_a_choice(s)

    def action_to_string(self, action):
        """"place T05 at C1 [rot 1]" or "reject T05" (C22)."""
        if not isinstance(action, bool) and isinstance(action, int) and SOLO_REJECT <= action < SOLO_REJECT + METRO_KINDS:
            return f"reject {self.tile_ids[action - SOLO_REJECT]}"
        if isinstance(action, int) and not isinstance(action, bool) and action >= METRO_DRAW:
            raise ValueError(f"not a Metro solo action: {action!r} (placements 0..{METRO_DRAW - 1}, rejects "
                             f"{SOLO_REJECT}..{SOLO_REJECT + METRO_KINDS - 1})")
        return MetroGame.action_to_string(self, action)

    def string_to_action(self, text):
        if isinstance(text, str):
            m = _REJECT_RE.match(text)
            if m:
                return SOLO_REJECT + self.kind_index(m.group(1))
            if text.strip().lower() == "draw" or text.strip().lower().startswith("exchange"):
                raise ValueError(f"cannot read Metro solo action {text!r}: expected 'place T05 at C1 [rot 1]' "
                                 "or 'reject T05' (C4)")
        return MetroGame.string_to_action(self, text)


cdef SoloState _blank(MetroSoloGame game):
    cdef SoloState st = SoloState.__new__(SoloState)
    st.game = game
    st.t = &game.tables
    return st


cdef uint64_t company_squares(const MetroData* d, const MetroTables* t, int k) noexcept nogil:
    """Squares where an open line of company k waits."""
    cdef uint64_t m = 0
    cdef int l
    for l in range(t.nlines):
        if t.line_owner[l] == k and d.line_arr[l] < 0:
            m |= (<uint64_t>1) << d.line_sq[l]
    return m


cdef uint64_t open_squares(const MetroData* d, const MetroTables* t, uint64_t* by_company) noexcept nogil:
    """by_company[k] = company_squares(d, t, k) for the 8 companies, in one pass over the lines;
    returns their union (0: no line is open)."""
    cdef uint64_t m = 0
    cdef int l, k
    for k in range(8):
        by_company[k] = 0
    for l in range(t.nlines):
        k = t.line_owner[l]
        if d.line_arr[l] < 0 and 0 <= k < 8:
            by_company[k] |= (<uint64_t>1) << d.line_sq[l]
            m |= by_company[k]
    return m


cdef void reveal(MetroData* d, const MetroTables* t, SoloData* s) noexcept nogil:
    """Reveal shares until one whose company has an open line (C21), reshuffling the revealed ones
    into a new deck when it is empty; or end the game (C23)."""
    cdef int k, i
    cdef uint64_t by_company[8]
    s.rejected = 0
    if d.hand_n[0] == 0 or not open_squares(d, t, by_company):
        s.company = -1
        d.current = -1
        d.phase = PHASE_OVER
        return
    while True:
        if s.deck_n == 0:
            for i in range(s.revealed_n):
                s.deck[i] = s.revealed[i]
            s.deck_n = s.revealed_n
            s.revealed_n = 0
            rng_shuffle(&s.rng, s.deck, s.deck_n)
            s.first = 0
        k = s.deck[0]
        for i in range(s.deck_n - 1):
            s.deck[i] = s.deck[i + 1]
        s.deck_n -= 1
        s.deck[s.deck_n] = -1
        s.revealed[s.revealed_n] = k
        s.revealed_n += 1
        if by_company[k]:
            s.company = k
            d.current = 0
            d.phase = PHASE_TURN
            return


cdef int bottom_weights(const MetroData* d, const SoloData* s, uint64_t* w) noexcept nogil:
    """C25: w[k], proportional to the chance that the supply's bottom tile is of kind k, given what
    the player has seen. The bottom never moves (a reject never puts a tile there, draws are from
    the front), so it is never a rejected tile. Counting the ways the rejects can have gone (each
    reject i of kind r_i with a_i tiles of it left after: a_i places for it, one fewer when the
    bottom is of kind r_i), a supply order with bottom kind k is as likely as
    prod_i (a_i - [k == r_i]); and m_k of every m orders (m_k tiles of kind k in the supply) end in
    k. So w[k] = m_k * prod_i (a_i - [k == r_i]); the rest of the order is uniform. Returns the
    supply's size."""
    cdef int k, i, n = 0
    for k in range(METRO_KINDS):
        w[k] = 0
    for i in range(d.top, METRO_TILES):
        w[d.supply[i]] += 1
        n += 1
    for k in range(METRO_KINDS):
        for i in range(s.rej_n):
            w[k] *= <uint64_t>(s.rej_left[i] - (1 if s.rej_kind[i] == k else 0))
    return n


cdef void redeal_bottom(MetroData* d, const SoloData* s, rng_t rng) noexcept nogil:
    """C25: after the supply's uniform redeal, draw the bottom kind by ``bottom_weights`` and
    shuffle the others above it (uniform, as they are given the bottom). A loaded log the supply
    contradicts (no kind possible) leaves the uniform redeal."""
    cdef uint64_t w[METRO_KINDS]
    cdef uint64_t total = 0, x
    cdef int n = bottom_weights(d, s, w), k, i, last = METRO_TILES - 1
    cdef signed char tmp
    for k in range(METRO_KINDS):
        total += w[k]
    if n < 1 or total == 0:
        return
    x = rng_bounded(&rng, total)
    k = 0
    while x >= w[k]:
        x -= w[k]
        k += 1
    for i in range(d.top, METRO_TILES):
        if d.supply[i] == k:
            tmp = d.supply[i]
            d.supply[i] = d.supply[last]
            d.supply[last] = tmp
            break
    rng_shuffle(&rng, d.supply + d.top, n - 1)


cdef class SoloState(MetroState):
    """A Metro solo position (C4), hidden parts included."""
    cdef SoloData s

    cdef bint c_may_reject(self) noexcept nogil:
        """C22: once a turn, until the first deck is exhausted (its 8th share revealed ends it), and
        only into a supply with a middle (2 tiles or more), so that another tile is drawn."""
        return (self.s.first and self.s.deck_n > 0 and not self.s.rejected and self.s.rej_n < 8
                and self.d.top <= METRO_TILES - 2)

    cdef int c_random_action(self, rng_t* rng, int* scratch) noexcept nogil:
        return listed_random_action(self, rng, scratch)      # its own list (not the base game's)

    cdef bint c_counts_actions(self) noexcept nogil:
        return False

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef MetroData* d = &self.d
        cdef int n = 0, i
        cdef uint64_t cand
        if d.phase == PHASE_OVER:
            return 0
        cand = company_squares(d, self.t, self.s.company) & candidate_squares(d.placed)
        for i in range(d.hand_n[0]):
            if i == 0 or d.hand[0][i] != d.hand[0][i - 1]:
                n += legal_placements(self.t, cand, d.hand[0][i], out + n, 0)
        if self.c_may_reject():
            for i in range(d.hand_n[0]):
                if i == 0 or d.hand[0][i] != d.hand[0][i - 1]:
                    out[n] = SOLO_REJECT + d.hand[0][i]
                    n += 1
        return n

    cdef int c_check(self, int action) noexcept nogil:
        cdef int code, i, k
        cdef bint held = False
        cdef int buf[2 * 64 * 4 + 2]
        cdef int n
        if self.d.phase == PHASE_OVER:
            return 1
        if action < 0 or action >= SOLO_REJECT + METRO_KINDS or action == METRO_DRAW:
            return R_SO_RANGE
        if action >= SOLO_REJECT:
            k = action - SOLO_REJECT
            for i in range(self.d.hand_n[0]):
                if self.d.hand[0][i] == k:
                    held = True
            return 0 if held and self.c_may_reject() else R_SO_REJECT
        code = MetroState.c_check(self, action)      # a face-up tile (the hand), M5, M9
        if code and code != 9:
            return code
        n = self.c_legal_actions(buf)
        for i in range(n):
            if buf[i] == action:
                return 0
        return code if code else R_SO_COMPANY

    cdef void c_apply(self, int action) noexcept nogil:
        cdef MetroData* d = &self.d
        cdef int k, j, n, i
        if action >= SOLO_REJECT:                    # C22: into the middle of the supply, the front one up
            k = action - SOLO_REJECT
            hand_remove(d, 0, k)
            n = METRO_TILES - d.top                  # >= 2 (c_may_reject)
            j = 1 + <int>rng_bounded(&self.s.rng, n - 1)     # 1..n-1: a tile above it and one below
            d.top -= 1                               # the supply grows by one at the front...
            for i in range(j):
                d.supply[d.top + i] = d.supply[d.top + i + 1]
            d.supply[d.top + j] = k                  # ...and k goes in at position j
            hand_add(d, 0, draw_tile(d))             # the old front tile, never k
            n = 0
            for i in range(d.top, METRO_TILES):
                n += d.supply[i] == k
            self.s.rej_kind[self.s.rej_n] = k        # C25: what the player knows of the supply now
            self.s.rej_left[self.s.rej_n] = n
            self.s.rej_n += 1
            self.s.rejected = 1
            return
        from_place(d, self.t, action)
        if d.top < METRO_TILES:
            hand_add(d, 0, draw_tile(d))
        reveal(d, self.t, &self.s)

    cdef void c_scores(self, double* out) noexcept nogil:
        cdef int k
        out[0] = 0
        for k in range(8):
            out[0] += self.d.score[k]

    cdef void c_returns(self, double* out) noexcept nogil:
        """C24: the score over 480 at the end, 0 before."""
        self.c_scores(out)
        out[0] = out[0] / SOLO_MAX if self.d.phase == PHASE_OVER else 0.0

    cdef void c_heuristic(self, double* out) noexcept nogil:
        cdef int l
        self.c_scores(out)
        for l in range(self.t.nlines):
            if self.d.line_arr[l] < 0:
                out[0] += SOLO_OPEN_LINE_WEIGHT * self.d.line_len[l]

    def greedy_values(self, double open_bonus=0.0):
        """Alone, greedy plays by the heuristic (``open_bonus`` is ignored): the base game's
        greedy line value is tuned against an opponent."""
        return self.heuristic()

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<SoloState>other).d
        self.s = (<SoloState>other).s

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        """C25: the supply redealt (the base game's; after a reject, its bottom by ``redeal_bottom``), the
        deck shuffled, a new stream."""
        cdef rng_t rng = seed ^ SOLO_SALT
        MetroState.c_determinize_from(self, source, player, seed)
        cdef int a, b
        cdef signed char tmp
        self.s = (<SoloState>source).s
        for a in range(1, self.s.deck_n):            # the unseen shares, ascending, then shuffled
            b = a
            while b > 0 and self.s.deck[b - 1] > self.s.deck[b]:
                tmp = self.s.deck[b]
                self.s.deck[b] = self.s.deck[b - 1]
                self.s.deck[b - 1] = tmp
                b -= 1
        rng_shuffle(&rng, self.s.deck, self.s.deck_n)
        self.s.rng = rng_next(&rng)
        if self.s.rej_n:
            redeal_bottom(&self.d, &self.s, seed ^ SOLO_SALT ^ SOLO_BOTTOM_SALT)

    cdef GameState c_new_blank(self):
        return _blank(<MetroSoloGame>self.game)

    # ---- Python face ----
    def _reason(self, int code):
        return _REASONS[code] if code in _REASONS else MetroState._reason(self, code)

    def _summary(self):
        return (f"metro-solo, {self.d.nplaced} tiles placed, face up {[self.game.tile_ids[k] for k in self.face_up()]}, "
                f"company {self.s.company}, profits {self.profits()}")

    def face_up(self):
        """The face-up tiles (kinds, sorted)."""
        return [self.d.hand[0][i] for i in range(self.d.hand_n[0])]

    def company(self):
        """The company of the revealed share (the one to extend), or None once over."""
        return None if self.s.company < 0 else self.s.company

    def deck(self):
        """The face-down shares' companies, top first (hidden)."""
        return [self.s.deck[i] for i in range(self.s.deck_n)]

    def revealed(self):
        """The shares revealed since the last reshuffle, in order; the last is shown now."""
        return [self.s.revealed[i] for i in range(self.s.revealed_n)]

    @property
    def first_deck(self):
        """Whether the shares still come from the first deck (C22: rejects are allowed while it also
        has a share left to reveal)."""
        return bool(self.s.first)

    def reject_log(self):
        """The rejects so far (C22, C25), seen by the player: (kind, tiles of that kind left in the
        supply just after the reject)."""
        return [(self.s.rej_kind[i], self.s.rej_left[i]) for i in range(self.s.rej_n)]

    def bottom_weights(self):
        """C25: the weights, by kind, of the supply's bottom tile given what the player has seen."""
        cdef uint64_t w[METRO_KINDS]
        bottom_weights(&self.d, &self.s, w)
        return [int(w[k]) for k in range(METRO_KINDS)]

    @property
    def rejected(self):
        return bool(self.s.rejected)

    def profits(self):
        """The 8 companies' profit points (their lines' points, M7)."""
        return [self.d.score[k] for k in range(8)]

    def _public(self):
        ids = self.game.tile_ids
        return {"current_player": self.d.current, "phase": self.phase, "tiles_placed": self.d.nplaced,
                "board": self._board_json(), "stations": [list(self.game.owners[k]) for k in range(8)],
                "scores": self.scores(), "profits": self.profits(), "lines": self.lines(),
                "face_up": [ids[k] for k in self.face_up()], "supply_size": self.supply_size,
                "company": self.company(), "revealed": self.revealed(), "deck_size": self.s.deck_n,
                "first_deck": self.first_deck, "rejected": self.rejected,
                "reject_log": [[ids[k], a] for k, a in self.reject_log()]}

    def observation(self, player):
        """What the player sees: everything but the supply's order, the deck's order and the stream."""
        self._check_player(player)
        obs = {"game": self.game.name, "options": self.game.state_options, "player": player}
        obs.update(self._public())
        return obs

    def _state_fields(self):
        obj = self._public()
        ids = self.game.tile_ids
        obj["supply"] = [ids[k] for k in self.supply()]
        obj["deck"] = self.deck()
        obj["rng"] = int(self.s.rng)
        return obj

    def render(self, player=None):
        rows = [MetroState.render(self, None).replace("P0=", "score=")]
        ids = self.game.tile_ids
        rows.append("profits: " + "  ".join(f"C{k}={v}" for k, v in enumerate(self.profits()))
                    + f"   face up: {' '.join(ids[k] for k in self.face_up())}   company: {self.company()}"
                    + f"   revealed: {self.revealed()}   deck: {self.s.deck_n}")
        return "\n".join(rows)


cdef void from_place(MetroData* d, const MetroTables* t, int action) noexcept nogil:
    place_tile(d, t, action >> 8, (action >> 2) & 63, action & 3)
    hand_remove(d, 0, action >> 8)




def load_state(MetroSoloGame game, obj):
    """The solo state `obj` describes: the deck, the revealed shares and the flags are checked
    before anything is built; then the board and tiles (the base game's loader: the face-up row as
    player 0's hand); then the revealed company, the end and the scores against the board."""
    def bad(msg):
        raise StateFormatError(f"metro-solo state: {msg}")
    deck, revealed = obj["deck"], obj["revealed"]
    if not isinstance(deck, list) or not isinstance(revealed, list) or len(deck) + len(revealed) != 8 or any(
            not _int_in(k, 0, 7) for k in deck + revealed) or sorted(deck + revealed) != list(range(8)):
        bad("deck and revealed together must hold the 8 companies' shares once each (C20)")
    for key in ("first_deck", "rejected"):
        if not isinstance(obj[key], bool):
            bad(f"{key} must be true or false")
    if not _int_in(obj["rng"], 0, 2 ** 64 - 1):
        bad("rng must be an int 0..2**64-1 (the state's stream, C20)")
    if obj["first_deck"] and len(revealed) + len(deck) != 8:
        bad("the first deck holds all 8 shares")
    if obj["rejected"] and (not obj["first_deck"] or not deck):
        bad("a tile can only have been rejected before the first deck's last share is revealed (C22)")
    log = obj["reject_log"]
    if not isinstance(log, list) or len(log) > 8 or any(
            not isinstance(e, list) or len(e) != 2 or not isinstance(e[0], str) or e[0] not in game.tile_ids
            or not _int_in(e[1], 1, game.data.tiles[game.tile_ids.index(e[0])].count) for e in log):
        bad("reject_log must list at most 8 [tile, count] pairs, count 1..the tiles of that kind (C22, C25)")
    if obj["rejected"] and not log:
        bad("a tile was rejected this turn, yet reject_log is empty (C22)")
    face = obj["face_up"]
    if not isinstance(face, list) or len(face) > 2:
        bad("face_up must list at most 2 tiles")
    if obj["phase"] not in ("turn", "over"):
        bad(f"phase must be 'turn' or 'over', got {brief(obj['phase'])}")
    src = dict(obj)
    src["hands"] = [face]
    src["drawn"] = None
    over = obj["phase"] == "over"
    cdef SoloState st = _blank(game)
    cdef MetroData* d = &st.d
    try:     # the board, the face-up row (as player 0's hand) and the supply; the turn is checked below
        _load_state(game, src, st, exchanges=0, turn_checks=False)
    except StateFormatError as exc:
        raise StateFormatError(str(exc).replace("metro state", "metro-solo state")) from None
    cdef int i
    for i, k in enumerate(deck):
        st.s.deck[i] = k
    for i in range(len(deck), 8):
        st.s.deck[i] = -1
    st.s.deck_n = len(deck)
    for i, k in enumerate(revealed):
        st.s.revealed[i] = k
    for i in range(len(revealed), 8):
        st.s.revealed[i] = -1
    st.s.revealed_n = len(revealed)
    st.s.first = obj["first_deck"]
    st.s.rejected = obj["rejected"]
    for i, (tid, a) in enumerate(log):
        st.s.rej_kind[i] = game.tile_ids.index(tid)
        st.s.rej_left[i] = a
    st.s.rej_n = len(log)
    st.s.rng = obj["rng"]
    cdef uint64_t by_company[8]
    ends = not face or not open_squares(d, st.t, by_company)
    if over != ends:
        bad("phase 'over' exactly when no tile is face up or no line is open (C23)")
    if over:
        if obj["current_player"] != -1 or obj["company"] is not None:
            bad("once over, current_player is -1 and company null")
        st.s.company = -1
        d.current = -1
        d.phase = PHASE_OVER
    else:
        if obj["phase"] != "turn" or obj["current_player"] != 0:
            bad("the solo player (0) is to move in phase 'turn'")
        if not revealed or not _int_in(obj["company"], 0, 7) or obj["company"] != revealed[len(revealed) - 1]:
            bad("company must be the last revealed share's (C21)")
        if not by_company[obj["company"]]:
            bad(f"company {obj['company']} has no open line: its share would have been passed over (C21)")
        st.s.company = obj["company"]
    for key, value in (("scores", st.scores()), ("profits", st.profits()), ("lines", st.lines())):
        if key in obj and obj[key] != value:
            bad(f"{key} {brief(obj[key])} do not match the board, which gives {brief(value)}")
    return st
